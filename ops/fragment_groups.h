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
 *   ts_reduce_groups_cluster_axpby(gl, d, area, pieces, group, row0, col0, alpha, beta, transposed)
 *                                     the same over the areas at area's place in the shared
 *                                     memory of blocks 0 .. pieces - 1 of the thread-block
 *                                     cluster (ts_cluster_map, backends/cluster.h), once a
 *                                     ts_cluster_sync has ordered their stores before the loads
 *                                     (backends whose TS_CLUSTER_MAX is above 1)
 * Group order: group g holds every lane's elements 4g .. 4g + 3, lane l's at 4 * (g * lanes + l),
 * so that each of the warp's 16-byte stores and loads of a group is one contiguous run. The
 * values' places in the tile (the register tile's layout) stay inside these ops: the pass that
 * adds the areas names a group, never a lane. */
#ifndef TESSERA_OPS_FRAGMENT_GROUPS_H
#define TESSERA_OPS_FRAGMENT_GROUPS_H

#include "backends/cluster.h"
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

/* The sums of group `group` into C: element 4 * group + i of each lane's share of the tile. */
TS_DEVICE void ts_groups_axpby_store(const ts_gl *g, ts_rt_desc d, const float sum[4], int group, long long row0,
                                     long long col0, float alpha, float beta, int transposed) {
    const int lane = ts_lane_id();
    TS_UNROLL
    for (int i = 0; i < 4; ++i)
        ts_gl_axpby_at(g, row0 + ts_rt_elem_row(d, lane, 4 * group + i), col0 + ts_rt_elem_col(d, lane, 4 * group + i),
                       sum[i], alpha, beta, transposed);
}

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
    ts_groups_axpby_store(g, d, sum, group, row0, col0, alpha, beta, transposed);
}

#if TS_CLUSTER_MAX > 1
/* The pieces in rank order, four loads in flight at a time, as above. Only where the backend runs
 * clusters: ts_load16 reads global or generic addresses, and HIP's reads global memory only. */
TS_DEVICE void ts_reduce_groups_cluster_axpby(const ts_gl *g, ts_rt_desc d, const float *area, int pieces, int group,
                                              long long row0, long long col0, float alpha, float beta,
                                              int transposed) {
    const float *src = area + 4 * (group * TS_WARP_LANES + ts_lane_id());
    float sum[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    int j = 0;
    for (; j + 4 <= pieces; j += 4) {
        ts_v16 v[4];
        TS_UNROLL
        for (int u = 0; u < 4; ++u) v[u] = ts_load16(ts_cluster_map(src, j + u));
        TS_UNROLL
        for (int u = 0; u < 4; ++u)
            TS_UNROLL
            for (int i = 0; i < 4; ++i) sum[i] += ts_bits_f32(v[u].w[i]);
    }
    for (; j < pieces; ++j) {
        const ts_v16 v = ts_load16(ts_cluster_map(src, j));
        TS_UNROLL
        for (int i = 0; i < 4; ++i) sum[i] += ts_bits_f32(v.w[i]);
    }
    ts_groups_axpby_store(g, d, sum, group, row0, col0, alpha, beta, transposed);
}

#endif

#endif
