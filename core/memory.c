/* Memory, streams and events: argument checks in front of the backend runtime; and the kernels'
 * scratch memory (kernels/common/scratch.h). */
#include <string.h>

#include <tessera/tessera.h>

#include "backends/runtime.h"
#include "kernels/common/scratch.h"

static ts_status ts_require_device(void) {
    int count = 0;
    ts_status s = ts_backend_device_count(&count);
    if (s != TS_SUCCESS) return s;
    return count > 0 ? TS_SUCCESS : TS_ERROR_NO_DEVICE;
}

ts_status ts_malloc(void **ptr, size_t bytes) {
    if (!ptr) return TS_ERROR_NULL_POINTER;
    *ptr = NULL;
    if (bytes == 0) return TS_ERROR_INVALID_SIZE;
    /* Larger than any device memory, and a sign that a negative size was cast to size_t. */
    if (bytes > ((size_t)1 << 48)) return TS_ERROR_SIZE_OVERFLOW;
    ts_status s = ts_require_device();
    if (s != TS_SUCCESS) return s;
    return ts_backend_malloc(ptr, bytes);
}

ts_status ts_free(void *ptr) {
    if (!ptr) return TS_SUCCESS;
    ts_status s = ts_require_device();
    if (s != TS_SUCCESS) return s;
    return ts_backend_free(ptr);
}

/* The scratch of kernels/common/scratch.h: its callers have checked the device and stream. */
ts_status ts_scratch_alloc(void **ptr, size_t bytes, ts_stream stream) {
    *ptr = NULL;
    if (bytes == 0) return TS_ERROR_INVALID_SIZE;
    return ts_backend_scratch_alloc(ptr, bytes, stream);
}

ts_status ts_scratch_free(void *ptr, ts_stream stream) {
    return ptr ? ts_backend_scratch_free(ptr, stream) : TS_SUCCESS;
}

static ts_status ts_check_copy(const void *dst, const void *src, size_t bytes, ts_memcpy_kind kind) {
    if (!dst || !src) return TS_ERROR_NULL_POINTER;
    if ((unsigned)kind > (unsigned)TS_MEMCPY_DEFAULT) return TS_ERROR_INVALID_ENUM;
    if (bytes > ((size_t)1 << 48)) return TS_ERROR_SIZE_OVERFLOW;
    /* Overlapping ranges would make the result depend on the copy order. */
    const char *d = (const char *)dst, *s = (const char *)src;
    if (bytes > 0 && d < s + bytes && s < d + bytes) return TS_ERROR_INVALID_VALUE;
    return TS_SUCCESS;
}

ts_status ts_memcpy(void *dst, const void *src, size_t bytes, ts_memcpy_kind kind) {
    ts_status s = ts_check_copy(dst, src, bytes, kind);
    if (s != TS_SUCCESS || bytes == 0) return s;
    /* Host-to-host needs no device, so it works on a machine without one too. */
    if (kind == TS_MEMCPY_HOST_TO_HOST) {
        memcpy(dst, src, bytes);
        return TS_SUCCESS;
    }
    if ((s = ts_require_device()) != TS_SUCCESS) return s;
    return ts_backend_memcpy(dst, src, bytes, kind, NULL, 0);
}

ts_status ts_memcpy_async(void *dst, const void *src, size_t bytes, ts_memcpy_kind kind,
                          ts_stream stream) {
    ts_status s = ts_check_copy(dst, src, bytes, kind);
    if (s != TS_SUCCESS || bytes == 0) return s;
    if ((s = ts_require_device()) != TS_SUCCESS) return s;
    return ts_backend_memcpy(dst, src, bytes, kind, stream, 1);
}

static ts_status ts_memset_on(void *dst, int value, size_t bytes, ts_stream stream, int async) {
    if (!dst) return TS_ERROR_NULL_POINTER;
    if (value < 0 || value > 255) return TS_ERROR_INVALID_VALUE;
    if (bytes > ((size_t)1 << 48)) return TS_ERROR_SIZE_OVERFLOW;
    if (bytes == 0) return TS_SUCCESS;
    ts_status s = ts_require_device();
    if (s != TS_SUCCESS) return s;
    return ts_backend_memset(dst, value, bytes, stream, async);
}

ts_status ts_memset(void *dst, int value, size_t bytes) { return ts_memset_on(dst, value, bytes, NULL, 0); }

ts_status ts_memset_async(void *dst, int value, size_t bytes, ts_stream stream) {
    return ts_memset_on(dst, value, bytes, stream, 1);
}

ts_status ts_stream_create(ts_stream *stream) {
    if (!stream) return TS_ERROR_NULL_POINTER;
    *stream = NULL;
    ts_status s = ts_require_device();
    if (s != TS_SUCCESS) return s;
    return ts_backend_stream_create(stream);
}

ts_status ts_stream_destroy(ts_stream stream) {
    /* The default stream is not created, so it cannot be destroyed. */
    if (!stream) return TS_ERROR_NULL_POINTER;
    ts_status s = ts_require_device();
    if (s != TS_SUCCESS) return s;
    return ts_backend_stream_destroy(stream);
}

ts_status ts_stream_synchronize(ts_stream stream) {
    ts_status s = ts_require_device();
    if (s != TS_SUCCESS) return s;
    return ts_backend_stream_synchronize(stream);
}

ts_status ts_event_create(ts_event *event) {
    if (!event) return TS_ERROR_NULL_POINTER;
    *event = NULL;
    ts_status s = ts_require_device();
    if (s != TS_SUCCESS) return s;
    return ts_backend_event_create(event);
}

ts_status ts_event_destroy(ts_event event) {
    if (!event) return TS_ERROR_NULL_POINTER;
    ts_status s = ts_require_device();
    if (s != TS_SUCCESS) return s;
    return ts_backend_event_destroy(event);
}

ts_status ts_event_record(ts_event event, ts_stream stream) {
    if (!event) return TS_ERROR_NULL_POINTER;
    ts_status s = ts_require_device();
    if (s != TS_SUCCESS) return s;
    return ts_backend_event_record(event, stream);
}

ts_status ts_event_synchronize(ts_event event) {
    if (!event) return TS_ERROR_NULL_POINTER;
    ts_status s = ts_require_device();
    if (s != TS_SUCCESS) return s;
    return ts_backend_event_synchronize(event);
}

ts_status ts_event_elapsed_ms(float *ms, ts_event start, ts_event end) {
    if (!ms || !start || !end) return TS_ERROR_NULL_POINTER;
    ts_status s = ts_require_device();
    if (s != TS_SUCCESS) return s;
    return ts_backend_event_elapsed_ms(ms, start, end);
}
