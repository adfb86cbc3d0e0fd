/* The current device's SM (CU) count, which persistent launchers need on every call: looked up
 * once per device, since a property query costs far more than a launch. Host code. */
#ifndef TESSERA_KERNELS_COMMON_SM_COUNT_H
#define TESSERA_KERNELS_COMMON_SM_COUNT_H

#include <tessera/tessera.h>

static inline ts_status ts_kernel_sm_count(int *sms) {
    static int cached[64];
    int device = 0;
    ts_status s = ts_device_get(&device);
    if (s != TS_SUCCESS) return s;
    if (device >= 0 && device < 64 && cached[device] > 0) {
        *sms = cached[device];
        return TS_SUCCESS;
    }
    ts_device_props props;
    if ((s = ts_device_get_props(device, &props)) != TS_SUCCESS) return s;
    if (device >= 0 && device < 64) cached[device] = props.sm_count;
    *sms = props.sm_count;
    return TS_SUCCESS;
}

#endif
