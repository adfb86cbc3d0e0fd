/* Elementwise maps on fp32 register tiles and register vectors, destination first. A map touches
 * each lane's own elements only, so one loop serves every layout and backend.
 *   tiles:   ts_zero, ts_fill (any value, +-INFINITY included), ts_copy, ts_exp, ts_exp2, ts_log,
 *            ts_abs, ts_relu, ts_add/sub/mul/div/max/min (tile op tile) and the _scalar forms
 *            (tile op scalar)
 *   vectors: ts_rv_zero, ts_rv_fill, ts_rv_copy, ts_rv_exp, ts_rv_exp2, ts_rv_log, and
 *            ts_rv_add/sub/mul/div/max/min (vector op vector) and _scalar forms
 * Maps on 16-bit tiles go through ts_convert (ops/convert.h): arithmetic happens in fp32. */
#ifndef TESSERA_OPS_MAPS_H
#define TESSERA_OPS_MAPS_H

#include <math.h>

#include "tiles/register_tile.h"
#include "tiles/register_vector.h"

#define TS_OP_COPY 0
#define TS_OP_EXP 1
#define TS_OP_EXP2 2
#define TS_OP_LOG 3
#define TS_OP_ABS 4
#define TS_OP_RELU 5
#define TS_OP_ADD 6
#define TS_OP_SUB 7
#define TS_OP_MUL 8
#define TS_OP_DIV 9
#define TS_OP_MAX 10
#define TS_OP_MIN 11

TS_DEVICE float ts_apply_unary(int op, float x) {
    switch (op) {
    case TS_OP_EXP: return expf(x);
    case TS_OP_EXP2: return exp2f(x);
    case TS_OP_LOG: return logf(x);
    case TS_OP_ABS: return fabsf(x);
    case TS_OP_RELU: return x > 0.0f ? x : 0.0f;
    default: return x;
    }
}

TS_DEVICE float ts_apply_binary(int op, float x, float y) {
    switch (op) {
    case TS_OP_ADD: return x + y;
    case TS_OP_SUB: return x - y;
    case TS_OP_MUL: return x * y;
    case TS_OP_DIV: return x / y;
    case TS_OP_MAX: return fmaxf(x, y);
    case TS_OP_MIN: return fminf(x, y);
    default: return x;
    }
}

TS_DEVICE void ts_map_fill(float *d, int n, float value) {
    TS_UNROLL
    for (int i = 0; i < n; ++i) d[i] = value;
}
TS_DEVICE void ts_map_unary(int op, float *d, const float *a, int n) {
    TS_UNROLL
    for (int i = 0; i < n; ++i) d[i] = ts_apply_unary(op, a[i]);
}
TS_DEVICE void ts_map_binary(int op, float *d, const float *a, const float *b, int n) {
    TS_UNROLL
    for (int i = 0; i < n; ++i) d[i] = ts_apply_binary(op, a[i], b[i]);
}
TS_DEVICE void ts_map_scalar(int op, float *d, const float *a, float s, int n) {
    TS_UNROLL
    for (int i = 0; i < n; ++i) d[i] = ts_apply_binary(op, a[i], s);
}

/* d = fmaf(d, a, b) repeated `times` times: a chain per element, independent across elements. */
TS_DEVICE void ts_map_fma_repeat(float *d, int n, float a, float b, int times) {
    for (int t = 0; t < times; ++t) {
        TS_UNROLL
        for (int i = 0; i < n; ++i) d[i] = fmaf(d[i], a, b);
    }
}

/* ---- tiles ---------------------------------------------------------------------------------- */

#define TS_RT_N(t) ((int)(sizeof((t)->v) / sizeof((t)->v[0][0][0])))
#define TS_CHECK_F32(t) TS_STATIC_ASSERT(TS_RT_DTYPE(t) == TS_DTYPE_F32, "maps work on fp32 tiles")
#define TS_CHECK_SAME_TILE(a, b)                                                                   \
    TS_STATIC_ASSERT(TS_RT_ROWS(a) == TS_RT_ROWS(b) && TS_RT_COLS(a) == TS_RT_COLS(b) &&           \
                         TS_RT_LAYOUT(a) == TS_RT_LAYOUT(b) && TS_RT_DTYPE(a) == TS_RT_DTYPE(b),   \
                     "tiles differ in shape, layout or dtype")

#define ts_fill(dst, value)                                                                        \
    do {                                                                                           \
        TS_CHECK_F32(dst);                                                                         \
        ts_map_fill(&(dst)->v[0][0][0], TS_RT_N(dst), (value));                                    \
    } while (0)
#define ts_zero(dst) ts_fill(dst, 0.0f)

#define TS_TILE_UNARY(op, dst, src)                                                                \
    do {                                                                                           \
        TS_CHECK_F32(dst);                                                                         \
        TS_CHECK_SAME_TILE(dst, src);                                                              \
        ts_map_unary(op, &(dst)->v[0][0][0], &(src)->v[0][0][0], TS_RT_N(dst));                    \
    } while (0)
#define ts_copy(dst, src) TS_TILE_UNARY(TS_OP_COPY, dst, src)
#define ts_exp(dst, src) TS_TILE_UNARY(TS_OP_EXP, dst, src)
#define ts_exp2(dst, src) TS_TILE_UNARY(TS_OP_EXP2, dst, src)
#define ts_log(dst, src) TS_TILE_UNARY(TS_OP_LOG, dst, src)
#define ts_abs(dst, src) TS_TILE_UNARY(TS_OP_ABS, dst, src)
#define ts_relu(dst, src) TS_TILE_UNARY(TS_OP_RELU, dst, src)

#define TS_TILE_BINARY(op, dst, a, b)                                                              \
    do {                                                                                           \
        TS_CHECK_F32(dst);                                                                         \
        TS_CHECK_SAME_TILE(dst, a);                                                                \
        TS_CHECK_SAME_TILE(dst, b);                                                                \
        ts_map_binary(op, &(dst)->v[0][0][0], &(a)->v[0][0][0], &(b)->v[0][0][0], TS_RT_N(dst));   \
    } while (0)
#define ts_add(dst, a, b) TS_TILE_BINARY(TS_OP_ADD, dst, a, b)
#define ts_sub(dst, a, b) TS_TILE_BINARY(TS_OP_SUB, dst, a, b)
#define ts_mul(dst, a, b) TS_TILE_BINARY(TS_OP_MUL, dst, a, b)
#define ts_div(dst, a, b) TS_TILE_BINARY(TS_OP_DIV, dst, a, b)
#define ts_max(dst, a, b) TS_TILE_BINARY(TS_OP_MAX, dst, a, b)
#define ts_min(dst, a, b) TS_TILE_BINARY(TS_OP_MIN, dst, a, b)

#define TS_TILE_SCALAR(op, dst, a, s)                                                              \
    do {                                                                                           \
        TS_CHECK_F32(dst);                                                                         \
        TS_CHECK_SAME_TILE(dst, a);                                                                \
        ts_map_scalar(op, &(dst)->v[0][0][0], &(a)->v[0][0][0], (s), TS_RT_N(dst));                \
    } while (0)
#define ts_add_scalar(dst, a, s) TS_TILE_SCALAR(TS_OP_ADD, dst, a, s)
#define ts_sub_scalar(dst, a, s) TS_TILE_SCALAR(TS_OP_SUB, dst, a, s)
#define ts_mul_scalar(dst, a, s) TS_TILE_SCALAR(TS_OP_MUL, dst, a, s)
#define ts_div_scalar(dst, a, s) TS_TILE_SCALAR(TS_OP_DIV, dst, a, s)
#define ts_max_scalar(dst, a, s) TS_TILE_SCALAR(TS_OP_MAX, dst, a, s)
#define ts_min_scalar(dst, a, s) TS_TILE_SCALAR(TS_OP_MIN, dst, a, s)

#define ts_fma_repeat(dst, a, b, times)                                                            \
    do {                                                                                           \
        TS_CHECK_F32(dst);                                                                         \
        ts_map_fma_repeat(&(dst)->v[0][0][0], TS_RT_N(dst), (a), (b), (times));                    \
    } while (0)

/* ---- vectors -------------------------------------------------------------------------------- */

#define TS_RV_N(x) ((int)(sizeof((x)->v) / sizeof((x)->v[0][0])))
#define TS_CHECK_SAME_VEC(a, b)                                                                    \
    TS_STATIC_ASSERT(TS_RV_LEN(a) == TS_RV_LEN(b) && TS_RV_AXIS(a) == TS_RV_AXIS(b) &&             \
                         TS_RV_LAYOUT(a) == TS_RV_LAYOUT(b),                                       \
                     "vectors differ in length, axis or layout")

#define ts_rv_fill(dst, value) ts_map_fill(TS_RV_DATA(dst), TS_RV_N(dst), (value))
#define ts_rv_zero(dst) ts_rv_fill(dst, 0.0f)
#define TS_VEC_UNARY(op, dst, src)                                                                 \
    do {                                                                                           \
        TS_CHECK_SAME_VEC(dst, src);                                                               \
        ts_map_unary(op, TS_RV_DATA(dst), TS_RV_CDATA(src), TS_RV_N(dst));                         \
    } while (0)
#define ts_rv_copy(dst, src) TS_VEC_UNARY(TS_OP_COPY, dst, src)
#define ts_rv_exp(dst, src) TS_VEC_UNARY(TS_OP_EXP, dst, src)
#define ts_rv_exp2(dst, src) TS_VEC_UNARY(TS_OP_EXP2, dst, src)
#define ts_rv_log(dst, src) TS_VEC_UNARY(TS_OP_LOG, dst, src)
#define TS_VEC_BINARY(op, dst, a, b)                                                               \
    do {                                                                                           \
        TS_CHECK_SAME_VEC(dst, a);                                                                 \
        TS_CHECK_SAME_VEC(dst, b);                                                                 \
        ts_map_binary(op, TS_RV_DATA(dst), TS_RV_CDATA(a), TS_RV_CDATA(b), TS_RV_N(dst));          \
    } while (0)
#define ts_rv_add(dst, a, b) TS_VEC_BINARY(TS_OP_ADD, dst, a, b)
#define ts_rv_sub(dst, a, b) TS_VEC_BINARY(TS_OP_SUB, dst, a, b)
#define ts_rv_mul(dst, a, b) TS_VEC_BINARY(TS_OP_MUL, dst, a, b)
#define ts_rv_div(dst, a, b) TS_VEC_BINARY(TS_OP_DIV, dst, a, b)
#define ts_rv_max(dst, a, b) TS_VEC_BINARY(TS_OP_MAX, dst, a, b)
#define ts_rv_min(dst, a, b) TS_VEC_BINARY(TS_OP_MIN, dst, a, b)
#define TS_VEC_SCALAR(op, dst, a, s)                                                               \
    do {                                                                                           \
        TS_CHECK_SAME_VEC(dst, a);                                                                 \
        ts_map_scalar(op, TS_RV_DATA(dst), TS_RV_CDATA(a), (s), TS_RV_N(dst));                     \
    } while (0)
#define ts_rv_add_scalar(dst, a, s) TS_VEC_SCALAR(TS_OP_ADD, dst, a, s)
#define ts_rv_mul_scalar(dst, a, s) TS_VEC_SCALAR(TS_OP_MUL, dst, a, s)
#define ts_rv_max_scalar(dst, a, s) TS_VEC_SCALAR(TS_OP_MAX, dst, a, s)

#endif
