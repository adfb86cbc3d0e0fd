/* A warp's fp32 register tile parked in global memory as its lanes hold it, for a later pass that
 * adds several such tiles (split-K's partial results):
 *   ts_store_r2g_groups(area, rt)     warp: rt's R x C values to area (R * C floats, 16-byte
 *                                     aligned) in group order
 *   TS_RT_GROUPS(d)                   the groups of a tile of descriptor d
 *   ts_reduce_groups_r2g_axpby(gl, d, area, stride, pieces, group, row0, col0, alpha, beta,
 *                              transposed)
 *                                     warp: group `group` of `pieces` such areas, `stride` floats
 *                                     apart, added in order, then stored as ts_store_r2g_axpby
 *                                     stores its elements (ops/store_axpby.h)
 * Group order: group g holds every lane's elements 4g .. 4g + 3, lane l's at 4 * (g * lanes + l),
 * so that each of the warp's 16-byte stores and loads of a group is one contiguous run. The
 * values' places in the tile (the register tile's layout) stay inside these ops: the pass that
 * adds the areas names a group, never a lane. */
#ifndef TESSERA_OPS_FRAGMENT_GROUPS_H
#define TESSERA_OPS_FRAGMENT_GROUPS_H

#include "backends/vector_memory.h"
#include "ops/bits.h"
#include "ops/memory.h"
#include "ops/store_axpby.h"

#define TS_RT_GROUPS(d) (TS_RT_DESC_ELEMS(d) / 4)

#define ts_store_r2g_groups(area, src)                                                             \
    do {                                                                                           \
        TS_STATIC_ASSERT(TS_RT_DTYPE(src) == TS_DTYPE_F32, "ts_store_r2g_groups stores fp32 tiles"); \
        ts_store_f32_groups((area) + 4 * ts_lane_id(), (const float *)TS_RT_CDATA(src),            \
                            TS_RT_DESC_ELEMS(TS_RT_DESC(src)), 4 * TS_WARP_LANES);                 \
    } while (0)

/* Four areas' loads in flight at a time; the sums in the same order in every run. */
TS_DEVICE void ts_reduce_groups_r2g_axpby(const ts_gl *g, ts_rt_desc d, const float *area, long long stride, int pieces,
                                          int group, long long row0, long long col0, float alpha, float beta,
                                          int transposed) {
    const int lane = ts_lane_id();
    const float *src = area + 4 * (group * TS_WARP_LANES + lane);
    float sum[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    int j = 0;
    for (; j + 4 <= pieces; j += 4) {
        ts_v16 v[4];
        TS_UNROLL
        for (int u = 0; u < 4; ++u) v[u] = ts_load16(src + (j + u) * stride);
        TS_UNROLL
        for (int u = 0; u < 4; ++u)
            TS_UNROLL
            for (int i = 0; i < 4; ++i) sum[i] += ts_bits_f32(v[u].w[i]);
    }
    for (; j < pieces; ++j) {
        const ts_v16 v = ts_load16(src + j * stride);
        TS_UNROLL
        for (int i = 0; i < 4; ++i) sum[i] += ts_bits_f32(v.w[i]);
    }
    TS_UNROLL
    for (int i = 0; i < 4; ++i)
        ts_gl_axpby_at(g, row0 + ts_rt_elem_row(d, lane, 4 * group + i), col0 + ts_rt_elem_col(d, lane, 4 * group + i),
                       sum[i], alpha, beta, transposed);
}

#endif
