/* A warp's fp32 register tile (an accumulator) stored to global memory as a matrix product's
 * epilogue writes it, element by element:
 *   ts_store_r2g_axpby(gl, rt, row0, col0, alpha, beta, transposed)
 *       gl(row0 + r, col0 + c) = alpha * rt(r, c) + beta * gl(row0 + r, col0 + c)
 * in gl's dtype (fp32, bf16 or fp16, read at run time; rounding to nearest even), skipping the
 * elements past gl's rows and columns; beta == 0 never reads gl (it may hold anything). `gl`
 * describes the product the tile is part of (its rows, columns and dtype); transposed = 0: its
 * element (r, c) lies at r * stride_row + c of gl's data, as usual; transposed = 1: memory holds
 * the product's transpose, element (r, c) at c * stride_row + r (a product computed as
 * (B^T A^T)^T, stored into the matrix it transposes). transposed should be a constant. One store
 * per element: a kernel that keeps fewer registers live than a vectorised store needs, and the
 * form that serves any dtype, ragged edge and leading dimension. */
#ifndef TESSERA_OPS_STORE_AXPBY_H
#define TESSERA_OPS_STORE_AXPBY_H

#include "backends/lane_ops.h"
#include "tiles/global_layout.h"
#include "tiles/register_tile.h"

/* Element idx of gl's data as fp32, and an fp32 value stored into element idx in gl's dtype. */
TS_DEVICE float ts_gl_get_f32(const ts_gl *g, long long idx) {
    if (g->dtype == TS_DTYPE_F32) return ((const float *)g->ptr)[idx];
    const unsigned short bits = ((const unsigned short *)g->ptr)[idx];
    return g->dtype == TS_DTYPE_BF16 ? ts_unpack_bf16(bits) : ts_unpack_fp16(bits);
}
TS_DEVICE void ts_gl_set_f32(const ts_gl *g, long long idx, float v) {
    if (g->dtype == TS_DTYPE_F32)
        ((float *)g->ptr)[idx] = v;
    else
        ((unsigned short *)g->ptr)[idx] =
            (unsigned short)(g->dtype == TS_DTYPE_BF16 ? ts_pack_bf16x2(v, 0.0f) : ts_pack_fp16x2(v, 0.0f));
}

/* Element (r, c) of the product, where gl's bounds allow it: alpha * v + beta * its old value. */
TS_DEVICE void ts_gl_axpby_at(const ts_gl *g, long long r, long long c, float v, float alpha, float beta,
                              int transposed) {
    if (r < g->rows && c < g->cols) {
        const long long idx = transposed ? c * g->stride_row + r : r * g->stride_row + c;
        float x = alpha * v;
        if (beta != 0.0f) x += beta * ts_gl_get_f32(g, idx);
        ts_gl_set_f32(g, idx, x);
    }
}

TS_DEVICE void ts_store_r2g_axpby_impl(const ts_gl *g, const float *acc, ts_rt_desc d, long long row0, long long col0,
                                       float alpha, float beta, int transposed) {
    const int lane = ts_lane_id();
    TS_UNROLL
    for (int e = 0; e < TS_RT_DESC_ELEMS(d); ++e)
        ts_gl_axpby_at(g, row0 + ts_rt_elem_row(d, lane, e), col0 + ts_rt_elem_col(d, lane, e), acc[e], alpha, beta,
                       transposed);
}

#define ts_store_r2g_axpby(gl, src, row0, col0, alpha, beta, transposed)                           \
    do {                                                                                           \
        TS_STATIC_ASSERT(TS_RT_DTYPE(src) == TS_DTYPE_F32, "ts_store_r2g_axpby stores fp32 tiles"); \
        ts_store_r2g_axpby_impl((gl), (const float *)TS_RT_CDATA(src), TS_RT_DESC(src), (row0), (col0), (alpha), \
                                (beta), (transposed));                                             \
    } while (0)

#endif
