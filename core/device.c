/* Device queries: argument checks in front of the backend runtime, and the cache of the current
 * device's properties that the launchers read on every call. */
#include <pthread.h>

#include <tessera/tessera.h>

#include "backends/runtime.h"
#include "kernels/common/device_props.h"

ts_status ts_device_count(int *count) {
    if (!count) return TS_ERROR_NULL_POINTER;
    return ts_backend_device_count(count);
}

/* A device ordinal is checked against the count so every backend gives the same status. */
static ts_status ts_check_device(int device) {
    int count = 0;
    ts_status s = ts_backend_device_count(&count);
    if (s != TS_SUCCESS) return s;
    if (count == 0) return TS_ERROR_NO_DEVICE;
    if (device < 0 || device >= count) return TS_ERROR_INVALID_DEVICE;
    return TS_SUCCESS;
}

ts_status ts_device_get_props(int device, ts_device_props *props) {
    if (!props) return TS_ERROR_NULL_POINTER;
    ts_status s = ts_check_device(device);
    if (s != TS_SUCCESS) return s;
    return ts_backend_device_props(device, props);
}

/* The properties of devices 0 .. TS_DEVICE_PROPS_CACHED - 1, each queried once (a query costs far
 * more than a launch) and forgotten by ts_device_set, under one mutex: threads that make their
 * first calls at once must not read a half-written entry. Devices past the cache are queried on
 * every call. */
#define TS_DEVICE_PROPS_CACHED 64
static pthread_mutex_t ts_device_props_mutex = PTHREAD_MUTEX_INITIALIZER;
static ts_device_props ts_device_props_cache[TS_DEVICE_PROPS_CACHED];
static int ts_device_props_known[TS_DEVICE_PROPS_CACHED];

static void ts_device_props_forget(void) {
    (void)pthread_mutex_lock(&ts_device_props_mutex);
    for (int i = 0; i < TS_DEVICE_PROPS_CACHED; ++i) ts_device_props_known[i] = 0;
    (void)pthread_mutex_unlock(&ts_device_props_mutex);
}

ts_status ts_device_props_cached(ts_device_props *props) {
    int device = 0;
    ts_status s = ts_device_get(&device);
    if (s != TS_SUCCESS) return s;
    if (device < 0 || device >= TS_DEVICE_PROPS_CACHED) return ts_device_get_props(device, props);
    if (pthread_mutex_lock(&ts_device_props_mutex) != 0) return TS_ERROR_RUNTIME;
    if (!ts_device_props_known[device]) {
        s = ts_device_get_props(device, &ts_device_props_cache[device]);
        ts_device_props_known[device] = s == TS_SUCCESS;
    }
    if (s == TS_SUCCESS) *props = ts_device_props_cache[device];
    (void)pthread_mutex_unlock(&ts_device_props_mutex);
    return s;
}

ts_status ts_device_set(int device) {
    ts_status s = ts_check_device(device);
    if (s != TS_SUCCESS) return s;
    s = ts_backend_device_set(device);
    /* A later launch queries the properties afresh (on the host backend they follow
     * ts_host_set_block_concurrency, for one). */
    if (s == TS_SUCCESS) ts_device_props_forget();
    return s;
}

ts_status ts_device_get(int *device) {
    if (!device) return TS_ERROR_NULL_POINTER;
    ts_status s = ts_check_device(0);
    if (s != TS_SUCCESS) return s;
    return ts_backend_device_get(device);
}

ts_status ts_device_synchronize(void) {
    ts_status s = ts_check_device(0);
    if (s != TS_SUCCESS) return s;
    return ts_backend_device_synchronize();
}
