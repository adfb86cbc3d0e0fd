/* Element indices as values: each element of a register tile, register vector or warp vector gets
 * its own row, column or position (plus an offset, so that a kernel passes the tile's origin in the
 * whole matrix), as an fp32 value. The layouts are opaque and differ per backend; these are the one
 * place kernel code learns where an element sits, and they read it from the same layout functions
 * the loads and stores use (backends/<name>/fragment_layout.h). With the comparisons and selections
 * of ops/maps.h they pick elements by position, e.g. the target logit of a row in a cross-entropy:
 * ts_iota_cols(&col, col0); ts_eq_row(&hit, &col, &targets) (ops/reductions.h) or, for one target,
 * ts_where_eq_scalars(&onehot, &col, target, 1.0f, 0.0f).
 *   ts_iota_rows(dst, row0)    dst[r][c] = row0 + r (fp32 tiles, any layout)
 *   ts_iota_cols(dst, col0)    dst[r][c] = col0 + c
 *   ts_rv_iota(vec, i0)        entry i = i0 + i (a row or column vector)
 *   ts_wv_iota(v, start)       strip element e = start + e (either layout of a warp vector)
 * Indices are exact while offset + index < 2^24 (fp32's integers), which covers a vocabulary or a
 * sequence; past that, neighbouring indices may compare equal. */
#ifndef TESSERA_OPS_INDEX_H
#define TESSERA_OPS_INDEX_H

#include "backends/lane_ops.h"
#include "ops/maps.h"
#include "ops/warp_vector.h"

/* axis TS_AXIS_ROWS: each element's row within the tile, else its column, plus offset. */
TS_DEVICE void ts_iota_impl(float *d, ts_rt_desc desc, int axis, long long offset) {
    const int lane = ts_lane_id();
    const float base = (float)offset;
    TS_UNROLL
    for (int e = 0; e < TS_RT_DESC_ELEMS(desc); ++e)
        d[e] = base + (float)(axis == TS_AXIS_ROWS ? ts_rt_elem_row(desc, lane, e) : ts_rt_elem_col(desc, lane, e));
}

#define ts_iota_rows(dst, row0)                                                                    \
    do {                                                                                           \
        TS_CHECK_F32(dst);                                                                         \
        ts_iota_impl(&(dst)->v[0][0][0], TS_RT_DESC(dst), TS_AXIS_ROWS, (row0));                   \
    } while (0)
#define ts_iota_cols(dst, col0)                                                                    \
    do {                                                                                           \
        TS_CHECK_F32(dst);                                                                         \
        ts_iota_impl(&(dst)->v[0][0][0], TS_RT_DESC(dst), TS_AXIS_COLS, (col0));                   \
    } while (0)

/* The slots a lane does not use hold the index of their block's first entry. */
TS_DEVICE void ts_rv_iota_impl(float *v, int len, int axis, int layout, long long i0) {
    const int lane = ts_lane_id();
    const float base = (float)i0;
    TS_UNROLL
    for (int blk = 0; blk < len / 16; ++blk) {
        TS_UNROLL
        for (int s = 0; s < TS_RV_SLOTS; ++s)
            v[blk * TS_RV_SLOTS + s] =
                base + (float)(blk * 16 + (s < ts_rv_slots(axis, layout) ? ts_rv_index_of_slot(axis, layout, lane, s) : 0));
    }
}

#define ts_rv_iota(dst, i0) ts_rv_iota_impl(TS_RV_DATA(dst), TS_RV_LEN(dst), TS_RV_AXIS(dst), TS_RV_LAYOUT(dst), (i0))

/* Element j of the lane's chunk k is strip position ts_wv_pos(ts_wv_chunk_start(k, lane, split), j,
 * split), as the loads and stores place it (tiles/warp_vector_layout.h). */
TS_DEVICE void ts_wv_iota_impl(float *d, int chunks, long long start, int split) {
    const int lane = ts_lane_id();
    const float base = (float)start;
    TS_UNROLL
    for (int k = 0; k < chunks; ++k) {
        const int e = ts_wv_chunk_start(k, lane, split);
        TS_UNROLL
        for (int j = 0; j < TS_WV_CHUNK; ++j) d[k * TS_WV_CHUNK + j] = base + (float)ts_wv_pos(e, j, split);
    }
}

#define ts_wv_iota(dst, start) ts_wv_iota_impl(TS_WV_DATA(dst), TS_WV_CHUNKS(dst), (start), TS_WV_LAYOUT_OF(dst))

#endif
