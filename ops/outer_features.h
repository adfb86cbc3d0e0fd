/* Outer-product features of the rows of a 16-column shared tile, formed straight into a register
 * tile (the second-order part of a Taylor feature map, as Based linear attention uses):
 *   ts_load_outer_s2r(d, st, row0, a0, scale)
 *       d[r][16 i + b] = scale * x[row0 + r][a0 + i] * x[row0 + r][b]
 *       for an fp32 register tile d of R x 16m (any layout), x the 16-bit shared tile st of 16
 *       columns, 0 <= i < m and 0 <= b < 16: column block i of d is row r of x times its entry
 *       a0 + i. With a0 = 0, 4, 8, 12 and m = 4 the four calls cover vec(x x^T) of each row.
 * Each lane reads the two factors of its own elements from shared memory: the factor x[r][a0 + i]
 * is an entry of another column, which in every backend's fragment layout another lane holds, and
 * the row of a stage tile is already in shared memory, so no shuffles are needed. The products of
 * two 16-bit values are exact in fp32; scale rounds once. */
#ifndef TESSERA_OPS_OUTER_FEATURES_H
#define TESSERA_OPS_OUTER_FEATURES_H

#include "ops/memory.h"

TS_DEVICE void ts_load_outer_s2r_impl(float *d, ts_rt_desc dd, const void *st, ts_st_desc sd, int row0, int a0,
                                      float scale) {
    const int lane = ts_lane_id();
    TS_UNROLL
    for (int e = 0; e < TS_RT_DESC_ELEMS(dd); ++e) {
        const int r = row0 + ts_rt_elem_row(dd, lane, e), c = ts_rt_elem_col(dd, lane, e);
        const float xa = ts_dtype_get_f32(st, sd.dtype, ts_st_index(sd, r, a0 + c / 16));
        const float xb = ts_dtype_get_f32(st, sd.dtype, ts_st_index(sd, r, c % 16));
        d[e] = xa * xb * scale;
    }
}

#define ts_load_outer_s2r(dst, src, row0, a0, scale)                                               \
    do {                                                                                           \
        TS_STATIC_ASSERT(TS_RT_DTYPE(dst) == TS_DTYPE_F32, #dst ": ts_load_outer_s2r forms fp32 features"); \
        TS_STATIC_ASSERT(TS_ST_COLS(src) == 16 && TS_ST_DTYPE(src) != TS_DTYPE_F32,                \
                         #src ": ts_load_outer_s2r reads a 16-bit shared tile of 16 columns");     \
        TS_STATIC_ASSERT(TS_RT_ROWS(dst) <= TS_ST_ROWS(src) && TS_RT_COLS(dst) <= 256,             \
                         #dst " and " #src ": at most the shared tile's rows and 16 x 16 features"); \
        ts_load_outer_s2r_impl((float *)TS_RT_DATA(dst), TS_RT_DESC(dst), TS_ST_CDATA(src), TS_ST_DESC(src), \
                               (row0), (a0), (scale));                                             \
    } while (0)

#endif
