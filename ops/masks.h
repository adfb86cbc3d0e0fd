/* Triangular and causal masks on fp32 register tiles. The tile's element (r, c) is taken to sit at
 * (row0 + r, col0 + c) of the whole matrix, so a kernel masks a tile by its position (and query
 * and key sequences of different lengths shift col0 or row0):
 *   ts_tril(dst, src, row0, col0, diagonal, fill)   keep where col - row <= diagonal, else fill
 *   ts_triu(dst, src, row0, col0, diagonal, fill)   keep where col - row >= diagonal, else fill
 *   ts_causal_mask(dst, src, row0, col0, fill)      ts_tril with diagonal 0
 *   ts_mask_cols_from(dst, src, col0, limit, fill)  fill where col0 + col >= limit (the columns past
 *                                                    a ragged edge, such as keys past the sequence) */
#ifndef TESSERA_OPS_MASKS_H
#define TESSERA_OPS_MASKS_H

#include "ops/maps.h"

/* A tile's placement enters every comparison as one 64-bit offset, taken once; an element adds its
 * own (col - row, or col: below 2^16 in size), so the offset clamped to +-2^30 keeps the sign of
 * every sum, and the per-element work is 32-bit (half the instructions of 64-bit compares). */
TS_DEVICE int ts_mask_offset(long long offset) {
    return offset > (1LL << 30) ? (1 << 30) : offset < -(1LL << 30) ? -(1 << 30) : (int)offset;
}

/* lower nonzero: keep col - row <= diagonal; else keep col - row >= diagonal. */
TS_DEVICE void ts_tri_mask_impl(float *d, const float *a, ts_rt_desc desc, long long row0, long long col0,
                                long long diagonal, int lower, float fill) {
    const int lane = ts_lane_id();
    /* (col0 + col) - (row0 + row) - diagonal, with the tile's part taken once */
    const int base = ts_mask_offset(col0 - row0 - diagonal);
    TS_UNROLL
    for (int e = 0; e < TS_RT_DESC_ELEMS(desc); ++e) {
        const int diff = base + (ts_rt_elem_col(desc, lane, e) - ts_rt_elem_row(desc, lane, e));
        const int keep = lower ? diff <= 0 : diff >= 0;
        d[e] = keep ? a[e] : fill;
    }
}

#define TS_TRI_MASK(dst, src, row0, col0, diagonal, lower, fill)                                   \
    do {                                                                                           \
        TS_CHECK_F32(dst);                                                                         \
        TS_CHECK_SAME_TILE(dst, src);                                                              \
        ts_tri_mask_impl(&(dst)->v[0][0][0], &(src)->v[0][0][0], TS_RT_DESC(dst), (row0), (col0),  \
                         (diagonal), (lower), (fill));                                             \
    } while (0)
#define ts_tril(dst, src, row0, col0, diagonal, fill) TS_TRI_MASK(dst, src, row0, col0, diagonal, 1, fill)
#define ts_triu(dst, src, row0, col0, diagonal, fill) TS_TRI_MASK(dst, src, row0, col0, diagonal, 0, fill)
#define ts_causal_mask(dst, src, row0, col0, fill) TS_TRI_MASK(dst, src, row0, col0, 0, 1, fill)

TS_DEVICE void ts_mask_cols_impl(float *d, const float *a, ts_rt_desc desc, long long col0, long long limit,
                                 float fill) {
    const int lane = ts_lane_id();
    const int cols = ts_mask_offset(limit - col0); /* the tile's columns that stay */
    TS_UNROLL
    for (int e = 0; e < TS_RT_DESC_ELEMS(desc); ++e) d[e] = ts_rt_elem_col(desc, lane, e) < cols ? a[e] : fill;
}

#define ts_mask_cols_from(dst, src, col0, limit, fill)                                             \
    do {                                                                                           \
        TS_CHECK_F32(dst);                                                                         \
        TS_CHECK_SAME_TILE(dst, src);                                                              \
        ts_mask_cols_impl(&(dst)->v[0][0][0], &(src)->v[0][0][0], TS_RT_DESC(dst), (col0), (limit), (fill)); \
    } while (0)

#endif
