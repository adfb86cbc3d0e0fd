/* Elementwise maps on fp32 register tiles, destination first. A map touches each lane's own
 * elements only, so it is layout-free: the same loop serves every backend. */
#ifndef TESSERA_OPS_MAPS_H
#define TESSERA_OPS_MAPS_H

#include <math.h>

#include "tiles/register_tile.h"

TS_DEVICE void ts_map_fill_f32(float *d, int n, float value) {
    TS_UNROLL
    for (int i = 0; i < n; ++i) d[i] = value;
}

TS_DEVICE void ts_map_add_f32(float *d, const float *a, const float *b, int n) {
    TS_UNROLL
    for (int i = 0; i < n; ++i) d[i] = a[i] + b[i];
}

/* d = fma(d, a, b) repeated `times` times: a chain per element, independent across elements. */
TS_DEVICE void ts_map_fma_scalar_repeat_f32(float *d, int n, float a, float b, int times) {
    for (int t = 0; t < times; ++t) {
        TS_UNROLL
        for (int i = 0; i < n; ++i) d[i] = fmaf(d[i], a, b);
    }
}

#define ts_rt_zero(dst) ts_map_fill_f32(TS_RT_DATA(dst), TS_RT_LANE_ELEMS(dst), 0.0f)
#define ts_rt_fill(dst, value) ts_map_fill_f32(TS_RT_DATA(dst), TS_RT_LANE_ELEMS(dst), (value))
#define ts_rt_add(dst, a, b)                                                                       \
    ts_map_add_f32(TS_RT_DATA(dst), TS_RT_DATA(a), TS_RT_DATA(b), TS_RT_LANE_ELEMS(dst))
#define ts_rt_fma_scalar_repeat(dst, a, b, times)                                                  \
    ts_map_fma_scalar_repeat_f32(TS_RT_DATA(dst), TS_RT_LANE_ELEMS(dst), (a), (b), (times))

#endif
