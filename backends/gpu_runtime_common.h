/* The runtime functions (backends/runtime.h) that the CUDA and HIP runtime APIs spell alike but
 * for the vendor prefix: memory copies and fills, streams and events. Each GPU backend's runtime.c
 * includes this once, after defining
 *   TS_GPU(name)        the vendor's runtime name, e.g. TS_GPU(Memcpy) is cudaMemcpy or hipMemcpy
 *   TS_GPU_CHECK(err)   the vendor's error code -> ts_status
 * so that what the two APIs share is written once; the rest (device properties, the launch, the
 * error table) differs and stays in each runtime.c. */
#ifndef TESSERA_BACKENDS_GPU_RUNTIME_COMMON_H
#define TESSERA_BACKENDS_GPU_RUNTIME_COMMON_H

#if !defined(TS_GPU) || !defined(TS_GPU_CHECK)
#error "define TS_GPU(name) and TS_GPU_CHECK(err) before including backends/gpu_runtime_common.h"
#endif

#include <pthread.h>
#include <stdint.h>
#include <string.h>

ts_status ts_backend_free(void *ptr) { return TS_GPU_CHECK(TS_GPU(Free)(ptr)); }

static enum TS_GPU(MemcpyKind) ts_gpu_copy_kind(ts_memcpy_kind kind) {
    switch (kind) {
    case TS_MEMCPY_HOST_TO_HOST: return TS_GPU(MemcpyHostToHost);
    case TS_MEMCPY_HOST_TO_DEVICE: return TS_GPU(MemcpyHostToDevice);
    case TS_MEMCPY_DEVICE_TO_HOST: return TS_GPU(MemcpyDeviceToHost);
    case TS_MEMCPY_DEVICE_TO_DEVICE: return TS_GPU(MemcpyDeviceToDevice);
    default: return TS_GPU(MemcpyDefault);
    }
}

ts_status ts_backend_memcpy(void *dst, const void *src, size_t bytes, ts_memcpy_kind kind,
                            ts_stream stream, int async) {
    return TS_GPU_CHECK(async ? TS_GPU(MemcpyAsync)(dst, src, bytes, ts_gpu_copy_kind(kind), (TS_GPU(Stream_t))stream)
                              : TS_GPU(Memcpy)(dst, src, bytes, ts_gpu_copy_kind(kind)));
}

ts_status ts_backend_memset(void *dst, int value, size_t bytes, ts_stream stream, int async) {
    return TS_GPU_CHECK(async ? TS_GPU(MemsetAsync)(dst, value, bytes, (TS_GPU(Stream_t))stream)
                              : TS_GPU(Memset)(dst, value, bytes));
}

/* The scratch pools: one a device, made on first use under one mutex; devices from
 * TS_GPU_SCRATCH_DEVICES on get no scratch (a caller then runs without it). */
#define TS_GPU_SCRATCH_DEVICES 64
static pthread_mutex_t ts_gpu_scratch_mutex = PTHREAD_MUTEX_INITIALIZER;
static TS_GPU(MemPool_t) ts_gpu_scratch_pools[TS_GPU_SCRATCH_DEVICES];

static ts_status ts_gpu_scratch_pool_make(int device, TS_GPU(MemPool_t) *pool) {
    struct TS_GPU(MemPoolProps) props;
    memset(&props, 0, sizeof props);
    props.allocType = TS_GPU(MemAllocationTypePinned);
    props.location.type = TS_GPU(MemLocationTypeDevice);
    props.location.id = device;
    TS_GPU(MemPool_t) made = NULL;
    ts_status s = TS_GPU_CHECK(TS_GPU(MemPoolCreate)(&made, &props));
    if (s != TS_SUCCESS) return s;
    /* The pool keeps what it has mapped through synchronizations (the default threshold, 0, gives it
     * all back at each). */
    uint64_t keep = UINT64_MAX;
    s = TS_GPU_CHECK(TS_GPU(MemPoolSetAttribute)(made, TS_GPU(MemPoolAttrReleaseThreshold), &keep));
    if (s == TS_SUCCESS)
        *pool = made;
    else
        (void)TS_GPU(MemPoolDestroy)(made);
    return s;
}

ts_status ts_backend_scratch_alloc(void **ptr, size_t bytes, ts_stream stream) {
    *ptr = NULL;
    int device = 0;
    ts_status s = TS_GPU_CHECK(TS_GPU(GetDevice)(&device));
    if (s != TS_SUCCESS) return s;
    if (device < 0 || device >= TS_GPU_SCRATCH_DEVICES) return TS_ERROR_UNSUPPORTED;
    if (pthread_mutex_lock(&ts_gpu_scratch_mutex) != 0) return TS_ERROR_RUNTIME;
    if (!ts_gpu_scratch_pools[device]) s = ts_gpu_scratch_pool_make(device, &ts_gpu_scratch_pools[device]);
    const TS_GPU(MemPool_t) pool = ts_gpu_scratch_pools[device];
    (void)pthread_mutex_unlock(&ts_gpu_scratch_mutex);
    if (s != TS_SUCCESS) return s;
    s = TS_GPU_CHECK(TS_GPU(MallocFromPoolAsync)(ptr, bytes, pool, (TS_GPU(Stream_t))stream));
    if (s != TS_SUCCESS) *ptr = NULL;
    return s;
}

ts_status ts_backend_scratch_free(void *ptr, ts_stream stream) {
    return TS_GPU_CHECK(TS_GPU(FreeAsync)(ptr, (TS_GPU(Stream_t))stream));
}

/* Non-blocking: a Tessera stream does not serialise with the null stream. */
ts_status ts_backend_stream_create(ts_stream *stream) {
    TS_GPU(Stream_t) s = NULL;
    const TS_GPU(Error_t) err = TS_GPU(StreamCreateWithFlags)(&s, TS_GPU(StreamNonBlocking));
    *stream = err == TS_GPU(Success) ? (ts_stream)s : NULL;
    return TS_GPU_CHECK(err);
}

ts_status ts_backend_stream_destroy(ts_stream stream) {
    return TS_GPU_CHECK(TS_GPU(StreamDestroy)((TS_GPU(Stream_t))stream));
}

ts_status ts_backend_stream_synchronize(ts_stream stream) {
    return TS_GPU_CHECK(TS_GPU(StreamSynchronize)((TS_GPU(Stream_t))stream));
}

ts_status ts_backend_event_create(ts_event *event) {
    TS_GPU(Event_t) e = NULL;
    const TS_GPU(Error_t) err = TS_GPU(EventCreate)(&e);
    *event = err == TS_GPU(Success) ? (ts_event)e : NULL;
    return TS_GPU_CHECK(err);
}

ts_status ts_backend_event_destroy(ts_event event) {
    return TS_GPU_CHECK(TS_GPU(EventDestroy)((TS_GPU(Event_t))event));
}

ts_status ts_backend_event_record(ts_event event, ts_stream stream) {
    return TS_GPU_CHECK(TS_GPU(EventRecord)((TS_GPU(Event_t))event, (TS_GPU(Stream_t))stream));
}

ts_status ts_backend_event_synchronize(ts_event event) {
    return TS_GPU_CHECK(TS_GPU(EventSynchronize)((TS_GPU(Event_t))event));
}

ts_status ts_backend_event_elapsed_ms(float *ms, ts_event start, ts_event end) {
    return TS_GPU_CHECK(TS_GPU(EventElapsedTime)(ms, (TS_GPU(Event_t))start, (TS_GPU(Event_t))end));
}

#endif
