/* Device queries: argument checks in front of the backend runtime. */
#include <tessera/tessera.h>

#include "backends/runtime.h"

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

ts_status ts_device_set(int device) {
    ts_status s = ts_check_device(device);
    if (s != TS_SUCCESS) return s;
    return ts_backend_device_set(device);
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
