/* A register tile's column block as a tile of its own:
 *   ts_rt_copy_cols(dst, src, col0)   dst = columns col0 .. col0 + C - 1 of src (dst R x C, src
 *                                     R x C', same dtype and layout; col0 a multiple of 16)
 * The fragment layout is the same in every 16 x 16 subtile, so this moves whole subtiles and no
 * data between lanes: with col0 a constant where it is inlined, a renaming of registers. For a
 * part of a result that leaves or waits on its own (the GEMM's staged store).
 *   ts_rt_set_cols(dst, src, col0)    columns col0 .. col0 + C - 1 of dst = src (src R x C, dst
 *                                     R x C'; the inverse): a tile assembled from column blocks
 *                                     (Based's linear features beside a constant column). */
#ifndef TESSERA_OPS_REGISTER_SLICES_H
#define TESSERA_OPS_REGISTER_SLICES_H

#include <string.h>

#include "tiles/register_tile.h"

TS_DEVICE void ts_rt_copy_cols_impl(void *dst, ts_rt_desc dd, const void *src, ts_rt_desc sd, int col0) {
    const int sub_bytes = TS_RT_SUB_ELEMS * TS_DTYPE_BYTES(dd.dtype); /* a lane's share of a subtile */
    TS_UNROLL
    for (int r = 0; r < dd.rows / 16; ++r)
        memcpy((unsigned char *)dst + r * (dd.cols / 16) * sub_bytes,
               (const unsigned char *)src + (r * (sd.cols / 16) + col0 / 16) * sub_bytes, (dd.cols / 16) * sub_bytes);
}

#define ts_rt_copy_cols(dst, src, col0)                                                            \
    do {                                                                                           \
        TS_STATIC_ASSERT(TS_RT_DTYPE(dst) == TS_RT_DTYPE(src) && TS_RT_LAYOUT(dst) == TS_RT_LAYOUT(src) && \
                             TS_RT_ROWS(dst) == TS_RT_ROWS(src) && TS_RT_COLS(dst) <= TS_RT_COLS(src), \
                         "ts_rt_copy_cols: a column block of a tile of the same dtype, layout and rows"); \
        ts_rt_copy_cols_impl(TS_RT_DATA(dst), TS_RT_DESC(dst), TS_RT_CDATA(src), TS_RT_DESC(src), (col0)); \
    } while (0)

TS_DEVICE void ts_rt_set_cols_impl(void *dst, ts_rt_desc dd, const void *src, ts_rt_desc sd, int col0) {
    const int sub_bytes = TS_RT_SUB_ELEMS * TS_DTYPE_BYTES(dd.dtype);
    TS_UNROLL
    for (int r = 0; r < sd.rows / 16; ++r)
        memcpy((unsigned char *)dst + (r * (dd.cols / 16) + col0 / 16) * sub_bytes,
               (const unsigned char *)src + r * (sd.cols / 16) * sub_bytes, (sd.cols / 16) * sub_bytes);
}

#define ts_rt_set_cols(dst, src, col0)                                                             \
    do {                                                                                           \
        TS_STATIC_ASSERT(TS_RT_DTYPE(dst) == TS_RT_DTYPE(src) && TS_RT_LAYOUT(dst) == TS_RT_LAYOUT(src) && \
                             TS_RT_ROWS(dst) == TS_RT_ROWS(src) && TS_RT_COLS(src) <= TS_RT_COLS(dst), \
                         "ts_rt_set_cols: a column block of a tile of the same dtype, layout and rows"); \
        ts_rt_set_cols_impl(TS_RT_DATA(dst), TS_RT_DESC(dst), TS_RT_CDATA(src), TS_RT_DESC(src), (col0)); \
    } while (0)

#endif
