/* Elementwise maps on fp32 register tiles and register vectors, destination first. A map touches
 * each lane's own elements only, so one loop serves every layout and backend.
 *   tiles:   ts_zero, ts_fill (any value, +-INFINITY included), ts_copy, ts_exp, ts_exp2, ts_log,
 *            ts_abs, ts_relu, ts_add/sub/mul/div/max/min (tile op tile) and the _scalar forms
 *            (tile op scalar)
 *            the common math: ts_neg, ts_sqrt, ts_rsqrt, ts_tanh, ts_sigmoid, ts_silu,
 *            ts_gelu_tanh, ts_gelu_erf, ts_erf (ops/math.h)
 *            comparisons to 1.0f (true) or 0.0f: ts_eq/ne/lt/le/gt/ge (tile op tile) and _scalar
 *            ts_fma(d, a, b, c) = a * b + c, ts_fma_scalar(d, a, s, c) = a * s + c,
 *            ts_fma_scalars(d, a, s, t) = a * s + t (one rounding each)
 *            selection by a mask (nonzero, NaN included, is true): ts_where(d, mask, a, b),
 *            ts_where_scalar(d, mask, a, y) (y where the mask is 0), ts_where_scalars(d, mask, x, y);
 *            by an index tile (ops/index.h): ts_where_eq(d, index, k, a, b) = index == k ? a : b,
 *            ts_where_eq_scalars(d, index, k, x, y)
 *            user maps: TS_MAP(d, a, fn), TS_MAP2(d, a, b, fn), TS_MAP3(d, a, b, c, fn): d = fn(a),
 *            fn(a, b), fn(a, b, c) element by element, fn a TS_DEVICE function of floats or a
 *            function-like macro (which may read the kernel's variables: a map is a loop written in
 *            place, fully unrolled on a GPU, with no function pointer)
 *   vectors: ts_rv_zero, ts_rv_fill, ts_rv_copy, ts_rv_exp, ts_rv_exp2, ts_rv_log, and
 *            ts_rv_add/sub/mul/div/max/min (vector op vector) and _scalar forms; the math, the
 *            comparisons, fma, where and TS_RV_MAP/2/3 as for tiles, named ts_rv_<op>
 * Maps on 16-bit tiles go through ts_convert (ops/convert.h): arithmetic happens in fp32. A shape,
 * layout or dtype mismatch is a compile-time error naming both arguments. */
#ifndef TESSERA_OPS_MAPS_H
#define TESSERA_OPS_MAPS_H

#include <math.h>

#include "ops/math.h"
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
#define TS_OP_NEG 12
#define TS_OP_SQRT 13
#define TS_OP_RSQRT 14
#define TS_OP_TANH 15
#define TS_OP_SIGMOID 16
#define TS_OP_SILU 17
#define TS_OP_GELU_TANH 18
#define TS_OP_GELU_ERF 19
#define TS_OP_ERF 20
#define TS_OP_EQ 21
#define TS_OP_NE 22
#define TS_OP_LT 23
#define TS_OP_LE 24
#define TS_OP_GT 25
#define TS_OP_GE 26

TS_DEVICE float ts_apply_unary(int op, float x) {
    switch (op) {
    case TS_OP_EXP: return expf(x);
    case TS_OP_EXP2: return exp2f(x);
    case TS_OP_LOG: return logf(x);
    case TS_OP_ABS: return fabsf(x);
    case TS_OP_RELU: return x > 0.0f ? x : 0.0f;
    case TS_OP_NEG: return -x;
    case TS_OP_SQRT: return sqrtf(x);
    case TS_OP_RSQRT: return ts_rsqrt_f32(x);
    case TS_OP_TANH: return tanhf(x);
    case TS_OP_SIGMOID: return ts_sigmoid_f32(x);
    case TS_OP_SILU: return ts_silu_f32(x);
    case TS_OP_GELU_TANH: return ts_gelu_tanh_f32(x);
    case TS_OP_GELU_ERF: return ts_gelu_erf_f32(x);
    case TS_OP_ERF: return erff(x);
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
    case TS_OP_EQ: return x == y ? 1.0f : 0.0f;
    case TS_OP_NE: return x != y ? 1.0f : 0.0f;
    case TS_OP_LT: return x < y ? 1.0f : 0.0f;
    case TS_OP_LE: return x <= y ? 1.0f : 0.0f;
    case TS_OP_GT: return x > y ? 1.0f : 0.0f;
    case TS_OP_GE: return x >= y ? 1.0f : 0.0f;
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

/* d = a * b + c in one rounding; b and c are arrays or, with a step of 0, one value each. */
TS_DEVICE void ts_map_fma(float *d, const float *a, const float *b, int b_step, const float *c, int c_step, int n) {
    TS_UNROLL
    for (int i = 0; i < n; ++i) d[i] = fmaf(a[i], b[i * b_step], c[i * c_step]);
}

/* d = (cond op k) ? x : y, op a comparison (TS_OP_NE with k = 0: the nonzero elements of a mask);
 * x and y are arrays or, with a step of 0, one value each. */
TS_DEVICE void ts_map_select(float *d, const float *cond, int op, float k, const float *x, int x_step, const float *y,
                             int y_step, int n) {
    TS_UNROLL
    for (int i = 0; i < n; ++i) d[i] = ts_apply_binary(op, cond[i], k) != 0.0f ? x[i * x_step] : y[i * y_step];
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
/* The messages name the arguments as the kernel wrote them. */
#define TS_CHECK_F32(t) TS_STATIC_ASSERT(TS_RT_DTYPE(t) == TS_DTYPE_F32, #t ": maps work on fp32 tiles")
#define TS_CHECK_SAME_TILE(a, b)                                                                   \
    TS_STATIC_ASSERT(TS_RT_ROWS(a) == TS_RT_ROWS(b) && TS_RT_COLS(a) == TS_RT_COLS(b) &&           \
                         TS_RT_LAYOUT(a) == TS_RT_LAYOUT(b) && TS_RT_DTYPE(a) == TS_RT_DTYPE(b),   \
                     #a " and " #b ": tiles differ in shape, layout or dtype")

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

#define ts_neg(dst, src) TS_TILE_UNARY(TS_OP_NEG, dst, src)
#define ts_sqrt(dst, src) TS_TILE_UNARY(TS_OP_SQRT, dst, src)
#define ts_rsqrt(dst, src) TS_TILE_UNARY(TS_OP_RSQRT, dst, src)
#define ts_tanh(dst, src) TS_TILE_UNARY(TS_OP_TANH, dst, src)
#define ts_sigmoid(dst, src) TS_TILE_UNARY(TS_OP_SIGMOID, dst, src)
#define ts_silu(dst, src) TS_TILE_UNARY(TS_OP_SILU, dst, src)
#define ts_gelu_tanh(dst, src) TS_TILE_UNARY(TS_OP_GELU_TANH, dst, src)
#define ts_gelu_erf(dst, src) TS_TILE_UNARY(TS_OP_GELU_ERF, dst, src)
#define ts_erf(dst, src) TS_TILE_UNARY(TS_OP_ERF, dst, src)

#define ts_eq(dst, a, b) TS_TILE_BINARY(TS_OP_EQ, dst, a, b)
#define ts_ne(dst, a, b) TS_TILE_BINARY(TS_OP_NE, dst, a, b)
#define ts_lt(dst, a, b) TS_TILE_BINARY(TS_OP_LT, dst, a, b)
#define ts_le(dst, a, b) TS_TILE_BINARY(TS_OP_LE, dst, a, b)
#define ts_gt(dst, a, b) TS_TILE_BINARY(TS_OP_GT, dst, a, b)
#define ts_ge(dst, a, b) TS_TILE_BINARY(TS_OP_GE, dst, a, b)
#define ts_eq_scalar(dst, a, s) TS_TILE_SCALAR(TS_OP_EQ, dst, a, s)
#define ts_ne_scalar(dst, a, s) TS_TILE_SCALAR(TS_OP_NE, dst, a, s)
#define ts_lt_scalar(dst, a, s) TS_TILE_SCALAR(TS_OP_LT, dst, a, s)
#define ts_le_scalar(dst, a, s) TS_TILE_SCALAR(TS_OP_LE, dst, a, s)
#define ts_gt_scalar(dst, a, s) TS_TILE_SCALAR(TS_OP_GT, dst, a, s)
#define ts_ge_scalar(dst, a, s) TS_TILE_SCALAR(TS_OP_GE, dst, a, s)

/* The fma, select and user-map forms are written once over three kinds of operands, each given by
 * how to check two of them against each other (SAME), their element arrays (DATA) and their
 * element count (N): fp32 register tiles here, register vectors below, warp vectors in
 * ops/warp_vector.h. Scalars become one-element arrays read with a step of 0. */
#define TS_MAPS_FMA_(SAME, DATA, N, dst, a, b, b_step, c, c_step)                                  \
    ts_map_fma(DATA(dst), DATA(a), (b), (b_step), (c), (c_step), N(dst))
#define TS_MAPS_FMA(SAME, DATA, N, dst, a, b, c)                                                   \
    do {                                                                                           \
        SAME(dst, a);                                                                              \
        SAME(dst, b);                                                                              \
        SAME(dst, c);                                                                              \
        TS_MAPS_FMA_(SAME, DATA, N, dst, a, DATA(b), 1, DATA(c), 1);                               \
    } while (0)
#define TS_MAPS_FMA_SCALAR(SAME, DATA, N, dst, a, s, c)                                            \
    do {                                                                                           \
        SAME(dst, a);                                                                              \
        SAME(dst, c);                                                                              \
        const float ts_maps_s_ = (s);                                                              \
        TS_MAPS_FMA_(SAME, DATA, N, dst, a, &ts_maps_s_, 0, DATA(c), 1);                           \
    } while (0)
#define TS_MAPS_FMA_SCALARS(SAME, DATA, N, dst, a, s, t)                                           \
    do {                                                                                           \
        SAME(dst, a);                                                                              \
        const float ts_maps_s_ = (s), ts_maps_t_ = (t);                                            \
        TS_MAPS_FMA_(SAME, DATA, N, dst, a, &ts_maps_s_, 0, &ts_maps_t_, 0);                       \
    } while (0)
/* d = (cond op k) ? x : y with x, y operands (_XY), x an operand and y a scalar (_XS), or both
 * scalars (_SS). */
#define TS_MAPS_SELECT_XY(SAME, DATA, N, dst, cond, op, k, x, y)                                   \
    do {                                                                                           \
        SAME(dst, cond);                                                                           \
        SAME(dst, x);                                                                              \
        SAME(dst, y);                                                                              \
        ts_map_select(DATA(dst), DATA(cond), (op), (k), DATA(x), 1, DATA(y), 1, N(dst));           \
    } while (0)
#define TS_MAPS_SELECT_XS(SAME, DATA, N, dst, cond, op, k, x, y)                                   \
    do {                                                                                           \
        SAME(dst, cond);                                                                           \
        SAME(dst, x);                                                                              \
        const float ts_maps_y_ = (y);                                                              \
        ts_map_select(DATA(dst), DATA(cond), (op), (k), DATA(x), 1, &ts_maps_y_, 0, N(dst));       \
    } while (0)
#define TS_MAPS_SELECT_SS(SAME, DATA, N, dst, cond, op, k, x, y)                                   \
    do {                                                                                           \
        SAME(dst, cond);                                                                           \
        const float ts_maps_x_ = (x), ts_maps_y_ = (y);                                            \
        ts_map_select(DATA(dst), DATA(cond), (op), (k), &ts_maps_x_, 0, &ts_maps_y_, 0, N(dst));   \
    } while (0)
/* The user maps: fn applied in place, element by element. */
#define TS_MAPS_USER1(SAME, DATA, N, dst, a, fn)                                                   \
    do {                                                                                           \
        SAME(dst, a);                                                                              \
        float *ts_maps_d_ = DATA(dst);                                                             \
        const float *ts_maps_a_ = DATA(a);                                                         \
        TS_UNROLL                                                                                  \
        for (int ts_maps_i_ = 0; ts_maps_i_ < N(dst); ++ts_maps_i_)                                \
            ts_maps_d_[ts_maps_i_] = fn(ts_maps_a_[ts_maps_i_]);                                   \
    } while (0)
#define TS_MAPS_USER2(SAME, DATA, N, dst, a, b, fn)                                                \
    do {                                                                                           \
        SAME(dst, a);                                                                              \
        SAME(dst, b);                                                                              \
        float *ts_maps_d_ = DATA(dst);                                                             \
        const float *ts_maps_a_ = DATA(a), *ts_maps_b_ = DATA(b);                                  \
        TS_UNROLL                                                                                  \
        for (int ts_maps_i_ = 0; ts_maps_i_ < N(dst); ++ts_maps_i_)                                \
            ts_maps_d_[ts_maps_i_] = fn(ts_maps_a_[ts_maps_i_], ts_maps_b_[ts_maps_i_]);           \
    } while (0)
#define TS_MAPS_USER3(SAME, DATA, N, dst, a, b, c, fn)                                             \
    do {                                                                                           \
        SAME(dst, a);                                                                              \
        SAME(dst, b);                                                                              \
        SAME(dst, c);                                                                              \
        float *ts_maps_d_ = DATA(dst);                                                             \
        const float *ts_maps_a_ = DATA(a), *ts_maps_b_ = DATA(b), *ts_maps_c_ = DATA(c);           \
        TS_UNROLL                                                                                  \
        for (int ts_maps_i_ = 0; ts_maps_i_ < N(dst); ++ts_maps_i_)                                \
            ts_maps_d_[ts_maps_i_] = fn(ts_maps_a_[ts_maps_i_], ts_maps_b_[ts_maps_i_], ts_maps_c_[ts_maps_i_]); \
    } while (0)

/* fp32 register tiles as operands of the forms above. */
#define TS_RT_SAME_F32(a, b)                                                                       \
    TS_CHECK_F32(a);                                                                               \
    TS_CHECK_SAME_TILE(a, b)
#define TS_RT_F32_DATA(t) (&(t)->v[0][0][0])
#define TS_RT_TILE_MAPS TS_RT_SAME_F32, TS_RT_F32_DATA, TS_RT_N

#define TS_MAPS_CALL_(form, ...) form(__VA_ARGS__)
#define ts_fma(dst, a, b, c) TS_MAPS_CALL_(TS_MAPS_FMA, TS_RT_TILE_MAPS, dst, a, b, c)
#define ts_fma_scalar(dst, a, s, c) TS_MAPS_CALL_(TS_MAPS_FMA_SCALAR, TS_RT_TILE_MAPS, dst, a, s, c)
#define ts_fma_scalars(dst, a, s, t) TS_MAPS_CALL_(TS_MAPS_FMA_SCALARS, TS_RT_TILE_MAPS, dst, a, s, t)
#define ts_where(dst, mask, a, b) TS_MAPS_CALL_(TS_MAPS_SELECT_XY, TS_RT_TILE_MAPS, dst, mask, TS_OP_NE, 0.0f, a, b)
#define ts_where_scalar(dst, mask, a, y) TS_MAPS_CALL_(TS_MAPS_SELECT_XS, TS_RT_TILE_MAPS, dst, mask, TS_OP_NE, 0.0f, a, y)
#define ts_where_scalars(dst, mask, x, y) TS_MAPS_CALL_(TS_MAPS_SELECT_SS, TS_RT_TILE_MAPS, dst, mask, TS_OP_NE, 0.0f, x, y)
#define ts_where_eq(dst, index, k, a, b) TS_MAPS_CALL_(TS_MAPS_SELECT_XY, TS_RT_TILE_MAPS, dst, index, TS_OP_EQ, (float)(k), a, b)
#define ts_where_eq_scalars(dst, index, k, x, y)                                                   \
    TS_MAPS_CALL_(TS_MAPS_SELECT_SS, TS_RT_TILE_MAPS, dst, index, TS_OP_EQ, (float)(k), x, y)
#define TS_MAP(dst, a, fn) TS_MAPS_CALL_(TS_MAPS_USER1, TS_RT_TILE_MAPS, dst, a, fn)
#define TS_MAP2(dst, a, b, fn) TS_MAPS_CALL_(TS_MAPS_USER2, TS_RT_TILE_MAPS, dst, a, b, fn)
#define TS_MAP3(dst, a, b, c, fn) TS_MAPS_CALL_(TS_MAPS_USER3, TS_RT_TILE_MAPS, dst, a, b, c, fn)

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
                     #a " and " #b ": vectors differ in length, axis or layout")

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
#define ts_rv_sub_scalar(dst, a, s) TS_VEC_SCALAR(TS_OP_SUB, dst, a, s)
#define ts_rv_div_scalar(dst, a, s) TS_VEC_SCALAR(TS_OP_DIV, dst, a, s)
#define ts_rv_min_scalar(dst, a, s) TS_VEC_SCALAR(TS_OP_MIN, dst, a, s)

#define ts_rv_abs(dst, src) TS_VEC_UNARY(TS_OP_ABS, dst, src)
#define ts_rv_relu(dst, src) TS_VEC_UNARY(TS_OP_RELU, dst, src)
#define ts_rv_neg(dst, src) TS_VEC_UNARY(TS_OP_NEG, dst, src)
#define ts_rv_sqrt(dst, src) TS_VEC_UNARY(TS_OP_SQRT, dst, src)
#define ts_rv_rsqrt(dst, src) TS_VEC_UNARY(TS_OP_RSQRT, dst, src)
#define ts_rv_tanh(dst, src) TS_VEC_UNARY(TS_OP_TANH, dst, src)
#define ts_rv_sigmoid(dst, src) TS_VEC_UNARY(TS_OP_SIGMOID, dst, src)
#define ts_rv_silu(dst, src) TS_VEC_UNARY(TS_OP_SILU, dst, src)
#define ts_rv_gelu_tanh(dst, src) TS_VEC_UNARY(TS_OP_GELU_TANH, dst, src)
#define ts_rv_gelu_erf(dst, src) TS_VEC_UNARY(TS_OP_GELU_ERF, dst, src)
#define ts_rv_erf(dst, src) TS_VEC_UNARY(TS_OP_ERF, dst, src)

#define ts_rv_eq(dst, a, b) TS_VEC_BINARY(TS_OP_EQ, dst, a, b)
#define ts_rv_ne(dst, a, b) TS_VEC_BINARY(TS_OP_NE, dst, a, b)
#define ts_rv_lt(dst, a, b) TS_VEC_BINARY(TS_OP_LT, dst, a, b)
#define ts_rv_le(dst, a, b) TS_VEC_BINARY(TS_OP_LE, dst, a, b)
#define ts_rv_gt(dst, a, b) TS_VEC_BINARY(TS_OP_GT, dst, a, b)
#define ts_rv_ge(dst, a, b) TS_VEC_BINARY(TS_OP_GE, dst, a, b)
#define ts_rv_eq_scalar(dst, a, s) TS_VEC_SCALAR(TS_OP_EQ, dst, a, s)
#define ts_rv_ne_scalar(dst, a, s) TS_VEC_SCALAR(TS_OP_NE, dst, a, s)
#define ts_rv_lt_scalar(dst, a, s) TS_VEC_SCALAR(TS_OP_LT, dst, a, s)
#define ts_rv_le_scalar(dst, a, s) TS_VEC_SCALAR(TS_OP_LE, dst, a, s)
#define ts_rv_gt_scalar(dst, a, s) TS_VEC_SCALAR(TS_OP_GT, dst, a, s)
#define ts_rv_ge_scalar(dst, a, s) TS_VEC_SCALAR(TS_OP_GE, dst, a, s)

/* Register vectors as operands of the fma, select and user-map forms (above). */
#define TS_RV_VEC_MAPS TS_CHECK_SAME_VEC, TS_RV_DATA, TS_RV_N
#define ts_rv_fma(dst, a, b, c) TS_MAPS_CALL_(TS_MAPS_FMA, TS_RV_VEC_MAPS, dst, a, b, c)
#define ts_rv_fma_scalar(dst, a, s, c) TS_MAPS_CALL_(TS_MAPS_FMA_SCALAR, TS_RV_VEC_MAPS, dst, a, s, c)
#define ts_rv_fma_scalars(dst, a, s, t) TS_MAPS_CALL_(TS_MAPS_FMA_SCALARS, TS_RV_VEC_MAPS, dst, a, s, t)
#define ts_rv_where(dst, mask, a, b) TS_MAPS_CALL_(TS_MAPS_SELECT_XY, TS_RV_VEC_MAPS, dst, mask, TS_OP_NE, 0.0f, a, b)
#define ts_rv_where_scalar(dst, mask, a, y) TS_MAPS_CALL_(TS_MAPS_SELECT_XS, TS_RV_VEC_MAPS, dst, mask, TS_OP_NE, 0.0f, a, y)
#define ts_rv_where_scalars(dst, mask, x, y) TS_MAPS_CALL_(TS_MAPS_SELECT_SS, TS_RV_VEC_MAPS, dst, mask, TS_OP_NE, 0.0f, x, y)
#define ts_rv_where_eq(dst, index, k, a, b) TS_MAPS_CALL_(TS_MAPS_SELECT_XY, TS_RV_VEC_MAPS, dst, index, TS_OP_EQ, (float)(k), a, b)
#define ts_rv_where_eq_scalars(dst, index, k, x, y)                                                \
    TS_MAPS_CALL_(TS_MAPS_SELECT_SS, TS_RV_VEC_MAPS, dst, index, TS_OP_EQ, (float)(k), x, y)
#define TS_RV_MAP(dst, a, fn) TS_MAPS_CALL_(TS_MAPS_USER1, TS_RV_VEC_MAPS, dst, a, fn)
#define TS_RV_MAP2(dst, a, b, fn) TS_MAPS_CALL_(TS_MAPS_USER2, TS_RV_VEC_MAPS, dst, a, b, fn)
#define TS_RV_MAP3(dst, a, b, c, fn) TS_MAPS_CALL_(TS_MAPS_USER3, TS_RV_VEC_MAPS, dst, a, b, c, fn)

#endif
