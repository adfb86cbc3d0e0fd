/* Register tiles: a warp's R x C block of a matrix held in registers, R and C multiples of 16, in
 * one of two layouts: row (the A operand and, where the hardware allows, the accumulator) or col
 * (the B operand). The tile is a grid of 16x16 subtiles; each lane holds TS_RT_SUB_ELEMS elements
 * of each subtile in the backend's fragment layout (backends/fragment_layout.h), which kernel code
 * never indexes. fp32 tiles hold floats; 16-bit tiles hold pairs of elements in 32-bit words, as
 * the matrix instructions read them.
 *
 * Names: ts_rt_<dtype>_<R>x<C> (row layout) and ts_rt_<dtype>_<R>x<C>_col. More shapes are made
 * with TS_RT_DEFINE_ALL(R, C). */
#ifndef TESSERA_TILES_REGISTER_TILE_H
#define TESSERA_TILES_REGISTER_TILE_H

#include "backends/fragment_layout.h"
#include "tiles/dtypes.h"

#define TS_RT_STRUCT(tname, storage, per_sub, dtype, layout, R, C)                                 \
    typedef struct tname {                                                                         \
        storage v[(R) / 16][(C) / 16][per_sub];                                                    \
        unsigned char dtype_tag[dtype];                                                            \
        unsigned char layout_tag[layout];                                                          \
    } tname

#define TS_RT_DEFINE_ALL(R, C)                                                                     \
    TS_RT_STRUCT(ts_rt_f32_##R##x##C, float, TS_RT_SUB_ELEMS, TS_DTYPE_F32, TS_LAYOUT_ROW, R, C); \
    TS_RT_STRUCT(ts_rt_f32_##R##x##C##_col, float, TS_RT_SUB_ELEMS, TS_DTYPE_F32, TS_LAYOUT_COL,  \
                 R, C);                                                                            \
    TS_RT_STRUCT(ts_rt_bf16_##R##x##C, unsigned, TS_RT_SUB_ELEMS / 2, TS_DTYPE_BF16,              \
                 TS_LAYOUT_ROW, R, C);                                                             \
    TS_RT_STRUCT(ts_rt_bf16_##R##x##C##_col, unsigned, TS_RT_SUB_ELEMS / 2, TS_DTYPE_BF16,        \
                 TS_LAYOUT_COL, R, C);                                                             \
    TS_RT_STRUCT(ts_rt_fp16_##R##x##C, unsigned, TS_RT_SUB_ELEMS / 2, TS_DTYPE_FP16,              \
                 TS_LAYOUT_ROW, R, C);                                                             \
    TS_RT_STRUCT(ts_rt_fp16_##R##x##C##_col, unsigned, TS_RT_SUB_ELEMS / 2, TS_DTYPE_FP16,        \
                 TS_LAYOUT_COL, R, C)

TS_RT_DEFINE_ALL(16, 16);
TS_RT_DEFINE_ALL(16, 32);
TS_RT_DEFINE_ALL(16, 64);
TS_RT_DEFINE_ALL(16, 128);
TS_RT_DEFINE_ALL(16, 256);
TS_RT_DEFINE_ALL(32, 16);
TS_RT_DEFINE_ALL(32, 32);
TS_RT_DEFINE_ALL(32, 64);
TS_RT_DEFINE_ALL(64, 16);
TS_RT_DEFINE_ALL(64, 32);
TS_RT_DEFINE_ALL(64, 64);
TS_RT_DEFINE_ALL(64, 128);
TS_RT_DEFINE_ALL(64, 256);
TS_RT_DEFINE_ALL(128, 16);
TS_RT_DEFINE_ALL(128, 64);

/* What the ops read back from a tile's type, all compile-time constants. */
#define TS_RT_ROWS(t) ((int)(sizeof((t)->v) / sizeof((t)->v[0])) * 16)
#define TS_RT_COLS(t) ((int)(sizeof((t)->v[0]) / sizeof((t)->v[0][0])) * 16)
#define TS_RT_DTYPE(t) ((int)sizeof((t)->dtype_tag))
#define TS_RT_LAYOUT(t) ((int)sizeof((t)->layout_tag))
#define TS_RT_BYTES(t) TS_DTYPE_BYTES(TS_RT_DTYPE(t))
/* The tile's storage as one flat array of floats (fp32) or 32-bit words (16-bit pairs): subtile
 * (r, c) element i is at (r * (COLS/16) + c) * TS_RT_SUB_ELEMS + i elements from the start. */
#define TS_RT_DATA(t) ((void *)&(t)->v[0][0][0])
#define TS_RT_CDATA(t) ((const void *)&(t)->v[0][0][0])

/* The descriptor every tile op takes: constants once inlined. */
typedef struct ts_rt_desc {
    int rows, cols, dtype, layout;
} ts_rt_desc;

TS_HOST_DEVICE ts_rt_desc ts_rt_make_desc(int rows, int cols, int dtype, int layout) {
    ts_rt_desc d;
    d.rows = rows;
    d.cols = cols;
    d.dtype = dtype;
    d.layout = layout;
    return d;
}
#define TS_RT_DESC(t) ts_rt_make_desc(TS_RT_ROWS(t), TS_RT_COLS(t), TS_RT_DTYPE(t), TS_RT_LAYOUT(t))

/* Elements per lane in a tile described by d. */
#define TS_RT_DESC_ELEMS(d) (((d).rows / 16) * ((d).cols / 16) * TS_RT_SUB_ELEMS)

/* Element e (0 .. TS_RT_DESC_ELEMS-1) of a lane: which subtile it is in and its (row, col) in the
 * tile. */
TS_DEVICE int ts_rt_elem_row(ts_rt_desc d, int lane, int e) {
    const int s = e / TS_RT_SUB_ELEMS, i = e % TS_RT_SUB_ELEMS;
    return (s / (d.cols / 16)) * 16 + ts_rt_layout_row(d.layout, TS_DTYPE_BYTES(d.dtype), lane, i);
}
TS_DEVICE int ts_rt_elem_col(ts_rt_desc d, int lane, int e) {
    const int s = e / TS_RT_SUB_ELEMS, i = e % TS_RT_SUB_ELEMS;
    return (s % (d.cols / 16)) * 16 + ts_rt_layout_col(d.layout, TS_DTYPE_BYTES(d.dtype), lane, i);
}

/* Whether a lane's elements 2k and 2k + 1 are two neighbouring columns of one row, the first at an
 * even column, in every subtile (the row layouts of the CUDA and host backends; on HIP where a lane
 * holds a row): a 16-bit tile's word is then a 4-byte piece of a row. Constant once inlined on a GPU. */
TS_DEVICE int ts_rt_pairs_along_rows(ts_rt_desc d, int lane) {
    const int bytes = TS_DTYPE_BYTES(d.dtype);
    int ok = 1;
    TS_UNROLL
    for (int i = 0; i < TS_RT_SUB_ELEMS; i += 2) {
        const int r = ts_rt_layout_row(d.layout, bytes, lane, i), c = ts_rt_layout_col(d.layout, bytes, lane, i);
        ok &= r == ts_rt_layout_row(d.layout, bytes, lane, i + 1) &&
              c + 1 == ts_rt_layout_col(d.layout, bytes, lane, i + 1) && (c & 1) == 0;
    }
    return ok;
}

/* Raw element access: fp32 tiles as floats, 16-bit tiles as bits inside their 32-bit words. */
TS_DEVICE unsigned short ts_rt16_get(const unsigned *words, int e) {
    return (unsigned short)(words[e >> 1] >> (16 * (e & 1)));
}
TS_DEVICE void ts_rt16_set(unsigned *words, int e, unsigned short bits) {
    const int shift = 16 * (e & 1);
    words[e >> 1] = (words[e >> 1] & ~(0xffffu << shift)) | ((unsigned)bits << shift);
}

#endif
