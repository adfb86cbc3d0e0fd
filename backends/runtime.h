/* The runtime functions each backend implements (backends/<name>/runtime.c) and core/ calls.
 * core/ validates every argument first; these may assume valid, non-NULL arguments. Errors from the
 * vendor runtime are mapped to ts_status here, never printed. */
#ifndef TESSERA_BACKENDS_RUNTIME_H
#define TESSERA_BACKENDS_RUNTIME_H

#include <tessera/tessera.h>

#ifdef __cplusplus
extern "C" {
#endif

ts_backend ts_backend_id(void);

/* A machine without a device (or without a driver) reports 0 devices and TS_SUCCESS. */
ts_status ts_backend_device_count(int *count);
ts_status ts_backend_device_props(int device, ts_device_props *props);
ts_status ts_backend_device_set(int device);
ts_status ts_backend_device_get(int *device);
ts_status ts_backend_device_synchronize(void);

ts_status ts_backend_malloc(void **ptr, size_t bytes);
ts_status ts_backend_free(void *ptr);
ts_status ts_backend_memcpy(void *dst, const void *src, size_t bytes, ts_memcpy_kind kind,
                            ts_stream stream, int async);
ts_status ts_backend_memset(void *dst, int value, size_t bytes, ts_stream stream, int async);

/* Scratch memory in stream order, for a kernel whose caller gave no workspace: taken from a pool
 * the backend keeps for each device (and never trims, so a loop that synchronizes every step does
 * not map memory every step), and handed back once the stream's work before the free is done, so
 * that calls on other streams never share bytes in use. Inside a stream capture each becomes a
 * node of the graph. */
ts_status ts_backend_scratch_alloc(void **ptr, size_t bytes, ts_stream stream);
ts_status ts_backend_scratch_free(void *ptr, ts_stream stream);

ts_status ts_backend_stream_create(ts_stream *stream);
ts_status ts_backend_stream_destroy(ts_stream stream);
ts_status ts_backend_stream_synchronize(ts_stream stream);

ts_status ts_backend_event_create(ts_event *event);
ts_status ts_backend_event_destroy(ts_event event);
ts_status ts_backend_event_record(ts_event event, ts_stream stream);
ts_status ts_backend_event_synchronize(ts_event event);
ts_status ts_backend_event_elapsed_ms(float *ms, ts_event start, ts_event end);

#ifdef __cplusplus
}
#endif

#endif
