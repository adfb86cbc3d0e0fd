/* Conversions of register tiles, destination first:
 *   ts_convert(dst, src)      same shape, any dtypes (fp32 <-> bf16/fp16, rounding to nearest
 *                             even), any layouts: a row-layout tile to a col-layout tile of the
 *                             same matrix is a layout swap
 *   ts_transpose(dst, src)    dst (C x R, the other layout) = src^T (R x C): every backend's col
 *                             layout is its row layout transposed, so this moves no data
 *                             between lanes, only renames registers
 * Where the two layouts place an element in different lanes (a layout swap; on CDNA also fp32 <->
 * 16-bit, whose row layouts differ), each lane gathers its elements with shuffles. */
#ifndef TESSERA_OPS_CONVERT_H
#define TESSERA_OPS_CONVERT_H

#include "backends/lane_ops.h"
#include "ops/memory.h"

/* Element e of a tile's storage as fp32. */
TS_DEVICE float ts_rt_get_f32(const void *data, int dtype, int e) {
    if (dtype == TS_DTYPE_F32) return ((const float *)data)[e];
    const unsigned short bits = ts_rt16_get((const unsigned *)data, e);
    return dtype == TS_DTYPE_BF16 ? ts_unpack_bf16(bits) : ts_unpack_fp16(bits);
}

/* Stores fp32 values x0, x1 as elements e and e + 1 (e even) of a tile's storage. */
TS_DEVICE void ts_rt_set_pair_f32(void *data, int dtype, int e, float x0, float x1) {
    if (dtype == TS_DTYPE_F32) {
        ((float *)data)[e] = x0;
        ((float *)data)[e + 1] = x1;
    } else {
        ((unsigned *)data)[e >> 1] = dtype == TS_DTYPE_BF16 ? ts_pack_bf16x2(x0, x1) : ts_pack_fp16x2(x0, x1);
    }
}

/* The value of (r, c) of subtile `sub` of a tile, fetched from whichever lane holds it. Every lane
 * of the warp must call this in step (it shuffles). */
TS_DEVICE float ts_rt_gather_f32(const void *data, ts_rt_desc d, int sub, int r, int c) {
    const int bytes = TS_DTYPE_BYTES(d.dtype);
    const int src_lane = ts_rt_lane_of(d.layout, bytes, r, c);
    const int src_elem = ts_rt_elem_of(d.layout, bytes, r, c);
    float value = 0.0f;
    TS_UNROLL
    for (int j = 0; j < TS_RT_SUB_ELEMS; ++j) {
        const float x = ts_shfl_f32(ts_rt_get_f32(data, d.dtype, sub * TS_RT_SUB_ELEMS + j), src_lane);
        if (j == src_elem) value = x;
    }
    return value;
}

TS_DEVICE void ts_convert_impl(void *dst, ts_rt_desc dd, const void *src, ts_rt_desc sd) {
    const int lane = ts_lane_id();
    const int same = ts_rt_same_positions(dd.layout, TS_DTYPE_BYTES(dd.dtype), sd.layout, TS_DTYPE_BYTES(sd.dtype));
    TS_UNROLL
    for (int e = 0; e < TS_RT_DESC_ELEMS(dd); e += 2) {
        float x[2];
        TS_UNROLL
        for (int k = 0; k < 2; ++k) {
            if (same) {
                x[k] = ts_rt_get_f32(src, sd.dtype, e + k);
            } else {
                const int sub = (e + k) / TS_RT_SUB_ELEMS, i = (e + k) % TS_RT_SUB_ELEMS;
                const int bytes = TS_DTYPE_BYTES(dd.dtype);
                x[k] = ts_rt_gather_f32(src, sd, sub, ts_rt_layout_row(dd.layout, bytes, lane, i),
                                        ts_rt_layout_col(dd.layout, bytes, lane, i));
            }
        }
        ts_rt_set_pair_f32(dst, dd.dtype, e, x[0], x[1]);
    }
}

#define ts_convert(dst, src)                                                                       \
    do {                                                                                           \
        TS_STATIC_ASSERT(TS_RT_ROWS(dst) == TS_RT_ROWS(src) && TS_RT_COLS(dst) == TS_RT_COLS(src), \
                         #dst " and " #src ": ts_convert keeps the shape");                        \
        ts_convert_impl(TS_RT_DATA(dst), TS_RT_DESC(dst), TS_RT_CDATA(src), TS_RT_DESC(src));      \
    } while (0)

TS_DEVICE void ts_transpose_impl(void *dst, ts_rt_desc dd, const void *src, ts_rt_desc sd) {
    const int bytes = TS_DTYPE_BYTES(sd.dtype);
    const int src_subcols = sd.cols / 16, dst_subcols = dd.cols / 16;
    TS_UNROLL
    for (int e = 0; e < TS_RT_DESC_ELEMS(sd); ++e) {
        const int sub = e / TS_RT_SUB_ELEMS, i = e % TS_RT_SUB_ELEMS;
        const int dsub = (sub % src_subcols) * dst_subcols + sub / src_subcols;
        const int de = dsub * TS_RT_SUB_ELEMS + ts_rt_transpose_perm(bytes, i);
        ts_rt_raw_set(dst, bytes, de, ts_rt_raw_get(src, bytes, e));
    }
}

#define ts_transpose(dst, src)                                                                     \
    do {                                                                                           \
        TS_STATIC_ASSERT(TS_RT_ROWS(dst) == TS_RT_COLS(src) && TS_RT_COLS(dst) == TS_RT_ROWS(src) && \
                             TS_RT_LAYOUT(dst) != TS_RT_LAYOUT(src) && TS_RT_DTYPE(dst) == TS_RT_DTYPE(src), \
                         #dst " and " #src ": ts_transpose: dst is src's shape transposed, in the other layout"); \
        ts_transpose_impl(TS_RT_DATA(dst), TS_RT_DESC(dst), TS_RT_CDATA(src), TS_RT_DESC(src));    \
    } while (0)

#endif
