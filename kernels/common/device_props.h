/* The current device's properties, which launchers need on every call (the SM count, the launch
 * planner's inputs): looked up once per device, since a property query costs far more than a
 * launch. Host code. */
#ifndef TESSERA_KERNELS_COMMON_DEVICE_PROPS_H
#define TESSERA_KERNELS_COMMON_DEVICE_PROPS_H

#include <tessera/tessera.h>

static inline ts_status ts_kernel_device_props(ts_device_props *props) {
    static ts_device_props cached[64];
    static int known[64];
    int device = 0;
    ts_status s = ts_device_get(&device);
    if (s != TS_SUCCESS) return s;
    if (device >= 0 && device < 64 && known[device]) {
        *props = cached[device];
        return TS_SUCCESS;
    }
    if ((s = ts_device_get_props(device, props)) != TS_SUCCESS) return s;
    if (device >= 0 && device < 64) {
        cached[device] = *props;
        known[device] = 1;
    }
    return TS_SUCCESS;
}

static inline ts_status ts_kernel_sm_count(int *sms) {
    ts_device_props props;
    const ts_status s = ts_kernel_device_props(&props);
    if (s == TS_SUCCESS) *sms = props.sm_count;
    return s;
}

/* *grid = blocks, capped at blocks_per_sm blocks per SM of the current device: the grid of a kernel
 * whose blocks loop over the work beyond it. */
static inline ts_status ts_kernel_capped_grid(long long blocks, int blocks_per_sm, unsigned *grid) {
    int sms = 0;
    const ts_status s = ts_kernel_sm_count(&sms);
    if (s != TS_SUCCESS) return s;
    const long long cap = (long long)sms * blocks_per_sm;
    *grid = (unsigned)(blocks > cap ? cap : blocks);
    return TS_SUCCESS;
}

#endif
