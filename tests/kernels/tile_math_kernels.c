/* Kernels that test the element-wise math, selection, index, converting memory and one-lane ops;
 * see tile_math_kernels.h. */
#include "backends/backend.h"
#include "ops/index.h"
#include "ops/maps.h"
#include "ops/memory.h"
#include "ops/one_lane.h"
#include "ops/reductions.h"
#include "ops/warp_vector.h"
#include "tests/kernels/tile_math_kernels.h"
#include "tiles/shared_alloc.h"

/* The user maps: a TS_DEVICE function, a macro that reads a local variable, a function of three. */
TS_DEVICE float ts_test_softsign(float x) { return x / (1.0f + fabsf(x)); }
#define TS_TEST_SCALE_SUB(x, y) ((x) * alpha - (y))
TS_DEVICE float ts_test_mul_sub(float x, float y, float z) { return x * y - z; }

/* ---- tiles and register vectors --------------------------------------------------------------- */

typedef struct ts_test_tm_params {
    ts_gl a, b, c, out;
    const float *rvec, *rvec2, *cvec;
    int mode;
    long long row0, col0, k;
} ts_test_tm_params;

/* One warp; the register-vector modes broadcast their result z over d's rows. */
#define TS_TM_OUT_ROW() ts_broadcast_row(&d, &z)
#define TS_TEST_TM_KERNEL(NAME, R, C, L)                                                           \
    TS_KERNEL(NAME##_kernel, 1, ts_test_tm_params, p) {                                            \
        ts_rt_f32_##R##x##C##L a, b, c, d, m;                                                      \
        ts_rowvec_f32_##R##L x, y, z;                                                              \
        ts_colvec_f32_##C##L cv;                                                                   \
        const float alpha = TS_TM_ALPHA;                                                           \
        ts_load_g2r(&a, &p->a, 0, 0, 0, 0);                                                        \
        ts_load_g2r(&b, &p->b, 0, 0, 0, 0);                                                        \
        ts_load_g2r(&c, &p->c, 0, 0, 0, 0);                                                        \
        ts_rv_load(&x, p->rvec, 0, R);                                                             \
        ts_rv_load(&y, p->rvec2, 0, R);                                                            \
        ts_rv_load(&cv, p->cvec, 0, C);                                                            \
        ts_rv_copy(&z, &x);                                                                        \
        ts_zero(&d);                                                                               \
        switch (p->mode) {                                                                         \
        case TS_TM_NEG: ts_neg(&d, &a); break;                                                     \
        case TS_TM_SQRT: ts_abs(&d, &a); ts_sqrt(&d, &d); break;                                   \
        case TS_TM_RSQRT: ts_abs(&d, &a); ts_add_scalar(&d, &d, 0.25f); ts_rsqrt(&d, &d); break;   \
        case TS_TM_TANH: ts_tanh(&d, &a); break;                                                   \
        case TS_TM_SIGMOID: ts_sigmoid(&d, &a); break;                                             \
        case TS_TM_SILU: ts_silu(&d, &a); break;                                                   \
        case TS_TM_GELU_TANH: ts_gelu_tanh(&d, &a); break;                                         \
        case TS_TM_GELU_ERF: ts_gelu_erf(&d, &a); break;                                           \
        case TS_TM_ERF: ts_erf(&d, &a); break;                                                     \
        case TS_TM_EQ: ts_eq(&d, &a, &b); break;                                                   \
        case TS_TM_NE: ts_ne(&d, &a, &b); break;                                                   \
        case TS_TM_LT: ts_lt(&d, &a, &b); break;                                                   \
        case TS_TM_LE: ts_le(&d, &a, &b); break;                                                   \
        case TS_TM_GT: ts_gt(&d, &a, &b); break;                                                   \
        case TS_TM_GE: ts_ge(&d, &a, &b); break;                                                   \
        case TS_TM_EQ_S: ts_eq_scalar(&d, &a, TS_TM_S); break;                                     \
        case TS_TM_NE_S: ts_ne_scalar(&d, &a, TS_TM_S); break;                                     \
        case TS_TM_LT_S: ts_lt_scalar(&d, &a, TS_TM_S); break;                                     \
        case TS_TM_LE_S: ts_le_scalar(&d, &a, TS_TM_S); break;                                     \
        case TS_TM_GT_S: ts_gt_scalar(&d, &a, TS_TM_S); break;                                     \
        case TS_TM_GE_S: ts_ge_scalar(&d, &a, TS_TM_S); break;                                     \
        case TS_TM_FMA: ts_fma(&d, &a, &b, &c); break;                                             \
        case TS_TM_FMA_S: ts_fma_scalar(&d, &a, TS_TM_S2, &c); break;                              \
        case TS_TM_FMA_SS: ts_fma_scalars(&d, &a, TS_TM_S2, TS_TM_S); break;                       \
        case TS_TM_WHERE: ts_gt_scalar(&m, &c, 0.0f); ts_where(&d, &m, &a, &b); break;             \
        case TS_TM_WHERE_S: ts_gt_scalar(&m, &c, 0.0f); ts_where_scalar(&d, &m, &a, -INFINITY); break; \
        case TS_TM_WHERE_SS: ts_gt_scalar(&m, &c, 0.0f); ts_where_scalars(&d, &m, TS_TM_S, TS_TM_S2); break; \
        case TS_TM_MAP: TS_MAP(&d, &a, ts_test_softsign); break;                                   \
        case TS_TM_MAP2: TS_MAP2(&d, &a, &b, TS_TEST_SCALE_SUB); break;                            \
        case TS_TM_MAP3: TS_MAP3(&d, &a, &b, &c, ts_test_mul_sub); break;                          \
        case TS_TM_IOTA_ROWS: ts_iota_rows(&d, p->row0); break;                                    \
        case TS_TM_IOTA_COLS: ts_iota_cols(&d, p->col0); break;                                    \
        case TS_TM_WHERE_EQ: ts_iota_cols(&m, p->col0); ts_where_eq(&d, &m, p->k, &a, &b); break;  \
        case TS_TM_WHERE_EQ_SS: ts_iota_rows(&m, p->row0); ts_where_eq_scalars(&d, &m, p->k, 1.0f, 0.0f); break; \
        case TS_TM_PICK_ROW: ts_iota_cols(&m, p->col0); ts_eq_row(&m, &m, &x); ts_mul(&d, &m, &a); break; \
        case TS_TM_PICK_COL: ts_iota_rows(&m, p->row0); ts_eq_col(&m, &m, &cv); ts_mul(&d, &m, &a); break; \
        case TS_TM_MAX_ROW: ts_max_row(&d, &a, &x); break;                                         \
        case TS_TM_MIN_ROW: ts_min_row(&d, &a, &x); break;                                         \
        case TS_TM_NE_ROW: ts_ne_row(&d, &a, &x); break;                                           \
        case TS_TM_LT_ROW: ts_lt_row(&d, &a, &x); break;                                           \
        case TS_TM_LE_ROW: ts_le_row(&d, &a, &x); break;                                           \
        case TS_TM_GT_ROW: ts_gt_row(&d, &a, &x); break;                                           \
        case TS_TM_GE_ROW: ts_ge_row(&d, &a, &x); break;                                           \
        case TS_TM_MAX_COL: ts_max_col(&d, &a, &cv); break;                                        \
        case TS_TM_MIN_COL: ts_min_col(&d, &a, &cv); break;                                        \
        case TS_TM_EQ_COL: ts_eq_col(&d, &a, &cv); break;                                          \
        case TS_TM_GT_COL: ts_gt_col(&d, &a, &cv); break;                                          \
        case TS_TM_RV_NEG: ts_rv_neg(&z, &x); TS_TM_OUT_ROW(); break;                              \
        case TS_TM_RV_ABS: ts_rv_abs(&z, &x); TS_TM_OUT_ROW(); break;                              \
        case TS_TM_RV_RELU: ts_rv_relu(&z, &x); TS_TM_OUT_ROW(); break;                            \
        case TS_TM_RV_SQRT: ts_rv_abs(&z, &x); ts_rv_sqrt(&z, &z); TS_TM_OUT_ROW(); break;         \
        case TS_TM_RV_RSQRT: ts_rv_abs(&z, &x); ts_rv_add_scalar(&z, &z, 0.25f); ts_rv_rsqrt(&z, &z); TS_TM_OUT_ROW(); break; \
        case TS_TM_RV_TANH: ts_rv_tanh(&z, &x); TS_TM_OUT_ROW(); break;                            \
        case TS_TM_RV_SIGMOID: ts_rv_sigmoid(&z, &x); TS_TM_OUT_ROW(); break;                      \
        case TS_TM_RV_SILU: ts_rv_silu(&z, &x); TS_TM_OUT_ROW(); break;                            \
        case TS_TM_RV_GELU_TANH: ts_rv_gelu_tanh(&z, &x); TS_TM_OUT_ROW(); break;                  \
        case TS_TM_RV_GELU_ERF: ts_rv_gelu_erf(&z, &x); TS_TM_OUT_ROW(); break;                    \
        case TS_TM_RV_ERF: ts_rv_erf(&z, &x); TS_TM_OUT_ROW(); break;                              \
        case TS_TM_RV_SUB_S: ts_rv_sub_scalar(&z, &x, TS_TM_S); TS_TM_OUT_ROW(); break;            \
        case TS_TM_RV_DIV_S: ts_rv_div_scalar(&z, &x, TS_TM_S2); TS_TM_OUT_ROW(); break;           \
        case TS_TM_RV_MIN_S: ts_rv_min_scalar(&z, &x, TS_TM_S); TS_TM_OUT_ROW(); break;            \
        case TS_TM_RV_EQ: ts_rv_eq(&z, &x, &y); TS_TM_OUT_ROW(); break;                            \
        case TS_TM_RV_NE: ts_rv_ne(&z, &x, &y); TS_TM_OUT_ROW(); break;                            \
        case TS_TM_RV_LT: ts_rv_lt(&z, &x, &y); TS_TM_OUT_ROW(); break;                            \
        case TS_TM_RV_LE: ts_rv_le(&z, &x, &y); TS_TM_OUT_ROW(); break;                            \
        case TS_TM_RV_GT: ts_rv_gt(&z, &x, &y); TS_TM_OUT_ROW(); break;                            \
        case TS_TM_RV_GE: ts_rv_ge(&z, &x, &y); TS_TM_OUT_ROW(); break;                            \
        case TS_TM_RV_EQ_S: ts_rv_eq_scalar(&z, &x, TS_TM_S); TS_TM_OUT_ROW(); break;              \
        case TS_TM_RV_NE_S: ts_rv_ne_scalar(&z, &x, TS_TM_S); TS_TM_OUT_ROW(); break;              \
        case TS_TM_RV_LT_S: ts_rv_lt_scalar(&z, &x, TS_TM_S); TS_TM_OUT_ROW(); break;              \
        case TS_TM_RV_LE_S: ts_rv_le_scalar(&z, &x, TS_TM_S); TS_TM_OUT_ROW(); break;              \
        case TS_TM_RV_GT_S: ts_rv_gt_scalar(&z, &x, TS_TM_S); TS_TM_OUT_ROW(); break;              \
        case TS_TM_RV_GE_S: ts_rv_ge_scalar(&z, &x, TS_TM_S); TS_TM_OUT_ROW(); break;              \
        case TS_TM_RV_FMA: ts_rv_fma(&z, &x, &y, &x); TS_TM_OUT_ROW(); break;                      \
        case TS_TM_RV_FMA_S: ts_rv_fma_scalar(&z, &x, TS_TM_S2, &y); TS_TM_OUT_ROW(); break;       \
        case TS_TM_RV_FMA_SS: ts_rv_fma_scalars(&z, &x, TS_TM_S2, TS_TM_S); TS_TM_OUT_ROW(); break; \
        case TS_TM_RV_WHERE: ts_rv_gt_scalar(&z, &y, 0.0f); ts_rv_where(&z, &z, &x, &y); TS_TM_OUT_ROW(); break; \
        case TS_TM_RV_WHERE_S: ts_rv_gt_scalar(&z, &y, 0.0f); ts_rv_where_scalar(&z, &z, &x, TS_TM_S); TS_TM_OUT_ROW(); break; \
        case TS_TM_RV_WHERE_SS: ts_rv_gt_scalar(&z, &y, 0.0f); ts_rv_where_scalars(&z, &z, TS_TM_S, TS_TM_S2); TS_TM_OUT_ROW(); break; \
        case TS_TM_RV_IOTA: ts_rv_iota(&z, p->row0); TS_TM_OUT_ROW(); break;                       \
        case TS_TM_RV_WHERE_EQ: ts_rv_iota(&z, p->row0); ts_rv_where_eq(&z, &z, p->k, &x, &y); TS_TM_OUT_ROW(); break; \
        case TS_TM_RV_WHERE_EQ_SS: ts_rv_iota(&z, p->row0); ts_rv_where_eq_scalars(&z, &z, p->k, TS_TM_S, TS_TM_S2); TS_TM_OUT_ROW(); break; \
        case TS_TM_RV_MAP: TS_RV_MAP(&z, &x, ts_test_softsign); TS_TM_OUT_ROW(); break;            \
        case TS_TM_RV_MAP2: TS_RV_MAP2(&z, &x, &y, TS_TEST_SCALE_SUB); TS_TM_OUT_ROW(); break;     \
        case TS_TM_RV_MAP3: TS_RV_MAP3(&z, &x, &y, &x, ts_test_mul_sub); TS_TM_OUT_ROW(); break;   \
        case TS_TM_CV_IOTA: ts_rv_iota(&cv, p->col0); ts_broadcast_col(&d, &cv); break;           \
        default: break;                                                                            \
        }                                                                                          \
        ts_store_r2g(&p->out, &d, 0, 0, 0, 0);                                                     \
    }                                                                                              \
    static ts_status NAME(float *out, const float *a, const float *b, const float *c, const float *rvec, \
                          const float *rvec2, const float *cvec, int mode, long long row0, long long col0, \
                          long long k) {                                                           \
        ts_test_tm_params params;                                                                  \
        params.a = ts_gl_matrix((void *)a, TS_DTYPE_F32, R, C, C);                                 \
        params.b = ts_gl_matrix((void *)b, TS_DTYPE_F32, R, C, C);                                 \
        params.c = ts_gl_matrix((void *)c, TS_DTYPE_F32, R, C, C);                                 \
        params.out = ts_gl_matrix(out, TS_DTYPE_F32, R, C, C);                                     \
        params.rvec = rvec;                                                                        \
        params.rvec2 = rvec2;                                                                      \
        params.cvec = cvec;                                                                        \
        params.mode = mode;                                                                        \
        params.row0 = row0;                                                                        \
        params.col0 = col0;                                                                        \
        params.k = k;                                                                              \
        return TS_LAUNCH(NAME##_kernel, ts_grid_1d(1), 1, 0, NULL, params);                        \
    }

TS_TEST_TM_KERNEL(tm_16x16, 16, 16, )
TS_TEST_TM_KERNEL(tm_16x16_col, 16, 16, _col)
TS_TEST_TM_KERNEL(tm_32x64, 32, 64, )
TS_TEST_TM_KERNEL(tm_64x32_col, 64, 32, _col)

TS_EXTERN_C const ts_test_tile_math_case *ts_test_tile_math_case_at(int k) {
    static const ts_test_tile_math_case cases[] = {
        {"f32 16x16 row", 16, 16, 0, tm_16x16},
        {"f32 16x16 col", 16, 16, 1, tm_16x16_col},
        {"f32 32x64 row", 32, 64, 0, tm_32x64},
        {"f32 64x32 col", 64, 32, 1, tm_64x32_col},
    };
    return k >= 0 && k < (int)(sizeof cases / sizeof cases[0]) ? &cases[k] : 0;
}

/* ---- warp vectors ----------------------------------------------------------------------------- */

typedef struct ts_test_wvm_params {
    const float *x, *y, *z;
    float *out;
    int mode;
    long long start, k;
} ts_test_wvm_params;

#define TS_TEST_WVM_KERNEL(NAME, LAYOUT)                                                           \
    TS_KERNEL(NAME, 1, ts_test_wvm_params, p) {                                                    \
        TS_WV_F32_LAYOUT(TS_TEST_WVM_E, LAYOUT) x, y, z, d, m;                                     \
        const float alpha = TS_TM_ALPHA;                                                           \
        ts_wv_load(&x, p->x, TS_DTYPE_F32, TS_TEST_WVM_E);                                         \
        ts_wv_load(&y, p->y, TS_DTYPE_F32, TS_TEST_WVM_E);                                         \
        ts_wv_load(&z, p->z, TS_DTYPE_F32, TS_TEST_WVM_E);                                         \
        ts_wv_fill(&d, 0.0f);                                                                      \
        switch (p->mode) {                                                                         \
        case TS_WM_DIV: ts_wv_div(&d, &x, &y); break;                                              \
        case TS_WM_DIV_S: ts_wv_div_scalar(&d, &x, TS_TM_S2); break;                               \
        case TS_WM_MAXIMUM: ts_wv_maximum(&d, &x, &y); break;                                      \
        case TS_WM_MINIMUM: ts_wv_minimum(&d, &x, &y); break;                                      \
        case TS_WM_MAXIMUM_S: ts_wv_maximum_scalar(&d, &x, TS_TM_S); break;                        \
        case TS_WM_MINIMUM_S: ts_wv_minimum_scalar(&d, &x, TS_TM_S); break;                        \
        case TS_WM_EXP: ts_wv_exp(&d, &x); break;                                                  \
        case TS_WM_LOG: ts_wv_abs(&d, &x); ts_wv_log(&d, &d); break;                               \
        case TS_WM_ABS: ts_wv_abs(&d, &x); break;                                                  \
        case TS_WM_RELU: ts_wv_relu(&d, &x); break;                                                \
        case TS_WM_NEG: ts_wv_neg(&d, &x); break;                                                  \
        case TS_WM_SQRT: ts_wv_abs(&d, &x); ts_wv_sqrt(&d, &d); break;                             \
        case TS_WM_RSQRT: ts_wv_abs(&d, &x); ts_wv_add_scalar(&d, &d, 0.25f); ts_wv_rsqrt(&d, &d); break; \
        case TS_WM_TANH: ts_wv_tanh(&d, &x); break;                                                \
        case TS_WM_SIGMOID: ts_wv_sigmoid(&d, &x); break;                                          \
        case TS_WM_SILU: ts_wv_silu(&d, &x); break;                                                \
        case TS_WM_GELU_TANH: ts_wv_gelu_tanh(&d, &x); break;                                      \
        case TS_WM_GELU_ERF: ts_wv_gelu_erf(&d, &x); break;                                        \
        case TS_WM_ERF: ts_wv_erf(&d, &x); break;                                                  \
        case TS_WM_EQ: ts_wv_eq(&d, &x, &y); break;                                                \
        case TS_WM_NE: ts_wv_ne(&d, &x, &y); break;                                                \
        case TS_WM_LT: ts_wv_lt(&d, &x, &y); break;                                                \
        case TS_WM_LE: ts_wv_le(&d, &x, &y); break;                                                \
        case TS_WM_GT: ts_wv_gt(&d, &x, &y); break;                                                \
        case TS_WM_GE: ts_wv_ge(&d, &x, &y); break;                                                \
        case TS_WM_EQ_S: ts_wv_eq_scalar(&d, &x, TS_TM_S); break;                                  \
        case TS_WM_NE_S: ts_wv_ne_scalar(&d, &x, TS_TM_S); break;                                  \
        case TS_WM_LT_S: ts_wv_lt_scalar(&d, &x, TS_TM_S); break;                                  \
        case TS_WM_LE_S: ts_wv_le_scalar(&d, &x, TS_TM_S); break;                                  \
        case TS_WM_GT_S: ts_wv_gt_scalar(&d, &x, TS_TM_S); break;                                  \
        case TS_WM_GE_S: ts_wv_ge_scalar(&d, &x, TS_TM_S); break;                                  \
        case TS_WM_FMA: ts_wv_fma(&d, &x, &y, &z); break;                                          \
        case TS_WM_FMA_S: ts_wv_fma_scalar(&d, &x, TS_TM_S2, &z); break;                           \
        case TS_WM_FMA_SS: ts_wv_fma_scalars(&d, &x, TS_TM_S2, TS_TM_S); break;                    \
        case TS_WM_WHERE: ts_wv_gt_scalar(&m, &z, 0.0f); ts_wv_where(&d, &m, &x, &y); break;       \
        case TS_WM_WHERE_S: ts_wv_gt_scalar(&m, &z, 0.0f); ts_wv_where_scalar(&d, &m, &x, TS_TM_S); break; \
        case TS_WM_WHERE_SS: ts_wv_gt_scalar(&m, &z, 0.0f); ts_wv_where_scalars(&d, &m, TS_TM_S, TS_TM_S2); break; \
        case TS_WM_IOTA: ts_wv_iota(&d, p->start); break;                                          \
        case TS_WM_WHERE_EQ: ts_wv_iota(&m, p->start); ts_wv_where_eq(&d, &m, p->k, &x, &y); break; \
        case TS_WM_WHERE_EQ_SS: ts_wv_iota(&m, p->start); ts_wv_where_eq_scalars(&d, &m, p->k, TS_TM_S, TS_TM_S2); break; \
        case TS_WM_MAP: TS_WV_MAP(&d, &x, ts_test_softsign); break;                                \
        case TS_WM_MAP2: TS_WV_MAP2(&d, &x, &y, TS_TEST_SCALE_SUB); break;                         \
        case TS_WM_MAP3: TS_WV_MAP3(&d, &x, &y, &z, ts_test_mul_sub); break;                       \
        default: break;                                                                            \
        }                                                                                          \
        ts_wv_store(p->out, &d, TS_DTYPE_F32, TS_TEST_WVM_E);                                      \
    }
TS_TEST_WVM_KERNEL(ts_test_wvm_kernel, TS_WV_CONTIGUOUS)
TS_TEST_WVM_KERNEL(ts_test_wvm_split_kernel, TS_WV_SPLIT)

TS_EXTERN_C ts_status ts_test_wv_math(float *out, const float *x, const float *y, const float *z, int mode,
                                      long long start, long long k, int split) {
    ts_test_wvm_params params;
    params.x = x;
    params.y = y;
    params.z = z;
    params.out = out;
    params.mode = mode;
    params.start = start;
    params.k = k;
    return split ? TS_LAUNCH(ts_test_wvm_split_kernel, ts_grid_1d(1), 1, 0, NULL, params)
                 : TS_LAUNCH(ts_test_wvm_kernel, ts_grid_1d(1), 1, 0, NULL, params);
}

/* ---- loads and stores that convert ------------------------------------------------------------ */

typedef struct ts_test_cv_params {
    ts_gl in, out;
    int tiles_across, shared;
} ts_test_cv_params;

#define TS_TEST_CONVERT_KERNEL(NAME, RT, ST)                                                       \
    TS_KERNEL(NAME##_kernel, 1, ts_test_cv_params, p) {                                            \
        const int tr = ts_block_x() / p->tiles_across, tc = ts_block_x() % p->tiles_across;        \
        if (p->shared) {                                                                           \
            ts_smem smem = ts_smem_begin();                                                        \
            ST *s = TS_SMEM_TILE(&smem, ST);                                                       \
            ts_load_g2s(s, &p->in, 0, 0, tr, tc);                                                  \
            ts_store_s2g(&p->out, s, 0, 0, tr, tc);                                                \
        } else {                                                                                   \
            RT t;                                                                                  \
            ts_load_g2r(&t, &p->in, 0, 0, tr, tc);                                                 \
            ts_store_r2g(&p->out, &t, 0, 0, tr, tc);                                               \
        }                                                                                          \
    }                                                                                              \
    static ts_status NAME(void *out, int out_dtype, const void *in, int in_dtype, int rows, int cols, int out_rows, \
                          int out_cols, int ld, int shared) {                                      \
        const int R = TS_RT_ROWS((RT *)0), C = TS_RT_COLS((RT *)0);                                \
        ts_test_cv_params params;                                                                  \
        params.in = ts_gl_matrix((void *)in, in_dtype, rows, cols, ld);                            \
        params.out = ts_gl_matrix(out, out_dtype, out_rows, out_cols, ld);                         \
        params.tiles_across = (out_cols + C - 1) / C;                                              \
        params.shared = shared;                                                                    \
        const int tiles = ((out_rows + R - 1) / R) * params.tiles_across;                          \
        return TS_LAUNCH(NAME##_kernel, ts_grid_1d((unsigned)tiles), 1, sizeof(ST), NULL, params); \
    }

TS_TEST_CONVERT_KERNEL(cv_f32_16x64, ts_rt_f32_16x64, ts_st_f32_16x64)
TS_TEST_CONVERT_KERNEL(cv_f32_32x32_col, ts_rt_f32_32x32_col, ts_st_f32_32x32)
TS_TEST_CONVERT_KERNEL(cv_bf16_16x64, ts_rt_bf16_16x64, ts_st_bf16_16x64)
TS_TEST_CONVERT_KERNEL(cv_fp16_32x32_col, ts_rt_fp16_32x32_col, ts_st_fp16_32x32)

TS_EXTERN_C const ts_test_convert_case *ts_test_convert_case_at(int k) {
    static const ts_test_convert_case cases[] = {
        {"f32 16x64 row", TS_DTYPE_F32, 16, 64, cv_f32_16x64},
        {"f32 32x32 col", TS_DTYPE_F32, 32, 32, cv_f32_32x32_col},
        {"bf16 16x64 row", TS_DTYPE_BF16, 16, 64, cv_bf16_16x64},
        {"fp16 32x32 col", TS_DTYPE_FP16, 32, 32, cv_fp16_32x32_col},
    };
    return k >= 0 && k < (int)(sizeof cases / sizeof cases[0]) ? &cases[k] : 0;
}

typedef struct ts_test_cvv_params {
    void *rv_out, *sv_out;
    const void *in;
    int in_dtype, out_dtype;
    long long n;
} ts_test_cvv_params;

TS_KERNEL(ts_test_convert_vectors_kernel, 1, ts_test_cvv_params, p) {
    ts_smem smem = ts_smem_begin();
    ts_sv_bf16_64 *s16 = (ts_sv_bf16_64 *)ts_smem_take(&smem, sizeof(ts_sv_bf16_64), 16);
    ts_sv_fp16_64 *h16 = (ts_sv_fp16_64 *)ts_smem_take(&smem, sizeof(ts_sv_fp16_64), 16);
    ts_rowvec_f32_64 v, w;
    ts_rv_load_typed(&v, p->in, p->in_dtype, 0, p->n);
    ts_rv_store_typed(p->rv_out, p->out_dtype, &v, 0, p->n);
    ts_sv_load_g2s_typed(s16, p->in, p->in_dtype, 0, p->n);
    ts_rv_load_s(&w, s16);
    ts_rv_store_s(h16, &w);
    ts_sv_store_s2g_typed(p->sv_out, p->out_dtype, h16, 0, p->n);
}

TS_EXTERN_C ts_status ts_test_convert_vectors(void *rv_out, void *sv_out, int out_dtype, const void *in, int in_dtype,
                                              long long n) {
    ts_test_cvv_params params;
    params.rv_out = rv_out;
    params.sv_out = sv_out;
    params.in = in;
    params.in_dtype = in_dtype;
    params.out_dtype = out_dtype;
    params.n = n;
    return TS_LAUNCH(ts_test_convert_vectors_kernel, ts_grid_1d(1), 1, 256, NULL, params);
}

/* ---- one lane --------------------------------------------------------------------------------- */

typedef struct ts_test_ol_params {
    int *count, *olds, *ints;
    float *floats;
    int mode;
} ts_test_ol_params;

/* A guarded add, and a return from inside the region. */
TS_DEVICE int ts_test_add_and_return(int *count) {
    TS_ONE_LANE {
        ts_atomic_add_i32(count, 1);
        return 1;
    }
    return 0;
}

TS_KERNEL(ts_test_one_lane_kernel, 8, ts_test_ol_params, p) {
    const int warp = ts_warp_id(), lane = ts_lane_id();
    const int slot = ts_block_x() * ts_num_warps() + warp;
    switch (p->mode) {
    case TS_OL_UNGUARDED: ts_atomic_add_i32(p->count, 1); break;
    case TS_OL_GUARDED: TS_ONE_LANE ts_atomic_add_i32(p->count, 1); break;
    case TS_OL_LANE_ATOMIC: ts_lane_atomic_add_i32(p->count, 1); break;
    case TS_OL_ONE_OPS: {
        const int old = ts_atomic_add_one_i32(p->count, 1);
        p->olds[slot * TS_WARP_LANES + lane] = old;
        ts_store_one_i32(&p->ints[slot], old + 1);
        ts_store_one_f32(&p->floats[slot], 0.5f * (float)warp);
        break;
    }
    case TS_OL_LEFT_BY_BREAK:
        for (int i = 0; i < 2; ++i) {
            TS_ONE_LANE {
                ts_atomic_add_i32(p->count, 1);
                if (i == 0) break;
                ts_atomic_add_i32(p->count, 1);
            }
            TS_ONE_LANE {
                if (i == 1) continue;
                ts_atomic_add_i32(p->count, 1);
            }
        }
        (void)ts_test_add_and_return(p->count);
        ts_atomic_add_i32(p->count, 1);
        break;
    default: break;
    }
}

TS_EXTERN_C ts_status ts_test_one_lane(int mode, int blocks, int warps, int *count, int *olds, int *ints,
                                       float *floats) {
    ts_test_ol_params params;
    params.count = count;
    params.olds = olds;
    params.ints = ints;
    params.floats = floats;
    params.mode = mode;
    return TS_LAUNCH(ts_test_one_lane_kernel, ts_grid_1d((unsigned)blocks), warps, 0, NULL, params);
}

TS_EXTERN_C int ts_test_tile_math_lanes(void) { return TS_WARP_LANES; }
