/* The current device's properties, which launchers need on every call (the SM count, the launch
 * planner's inputs): looked up once per device and kept by core/device.c, thread-safe, until
 * ts_device_set. Host code. */
#ifndef TESSERA_KERNELS_COMMON_DEVICE_PROPS_H
#define TESSERA_KERNELS_COMMON_DEVICE_PROPS_H

#include <tessera/tessera.h>

#ifdef __cplusplus
extern "C" {
#endif
/* The cache's look-up (core/device.c): the properties of the current device. */
ts_status ts_device_props_cached(ts_device_props *props);
#ifdef __cplusplus
}
#endif

static inline ts_status ts_kernel_device_props(ts_device_props *props) { return ts_device_props_cached(props); }

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
