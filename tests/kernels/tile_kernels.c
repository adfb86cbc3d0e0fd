/* Kernels that test the tile ops across dtypes, shapes and layouts; see tile_kernels.h. */
#include "backends/backend.h"
#include "ops/convert.h"
#include "ops/maps.h"
#include "ops/masks.h"
#include "ops/memory.h"
#include "ops/one_lane.h"
#include "ops/reductions.h"
#include "ops/warp_vector_packed.h"
#include "tests/kernels/tile_kernels.h"
#include "tiles/shared_alloc.h"

/* ---- memory round trips ---------------------------------------------------------------------- */

typedef struct ts_test_io_params {
    ts_gl in, out_direct, out_shared, out_group;
    int tiles_across;
} ts_test_io_params;

/* Two warps a block: warp 0 runs the warp-scope paths, and both share the group-scope copies
 * (global -> shared -> global, each warp a share of the elements, a block barrier between). */
#define TS_TEST_IO_KERNEL(NAME, RT, ST)                                                            \
    TS_KERNEL(NAME##_kernel, 2, ts_test_io_params, p) {                                            \
        const int tr = ts_block_x() / p->tiles_across, tc = ts_block_x() % p->tiles_across;        \
        ts_smem smem = ts_smem_begin();                                                            \
        ST *s_in = TS_SMEM_TILE(&smem, ST);                                                        \
        ST *s_out = TS_SMEM_TILE(&smem, ST);                                                       \
        ST *s_group = TS_SMEM_TILE(&smem, ST);                                                     \
        if (ts_warp_id() == 0) {                                                                   \
            RT direct;                                                                             \
            ts_load_g2r(&direct, &p->in, 0, 0, tr, tc);                                            \
            ts_store_r2g(&p->out_direct, &direct, 0, 0, tr, tc);                                   \
            ts_load_g2s(s_in, &p->in, 0, 0, tr, tc);                                               \
            RT via;                                                                                \
            ts_load_s2r(&via, s_in);                                                               \
            ts_store_r2s(s_out, &via);                                                             \
            ts_store_s2g(&p->out_shared, s_out, 0, 0, tr, tc);                                     \
        }                                                                                          \
        ts_load_g2s_group(s_group, &p->in, 0, 0, tr, tc, 0, 2);                                    \
        ts_sync_block();                                                                           \
        ts_store_s2g_group(&p->out_group, s_group, 0, 0, tr, tc, 0, 2);                            \
    }                                                                                              \
    static ts_status NAME(void *out_direct, void *out_shared, void *out_group, const void *in,    \
                          int rows, int cols, int out_rows, int out_cols, int ld) {                \
        const int dtype = TS_RT_DTYPE((RT *)0), R = TS_RT_ROWS((RT *)0), C = TS_RT_COLS((RT *)0);  \
        ts_test_io_params params;                                                                  \
        params.in = ts_gl_matrix((void *)in, dtype, rows, cols, ld);                               \
        params.out_direct = ts_gl_matrix(out_direct, dtype, out_rows, out_cols, ld);               \
        params.out_shared = ts_gl_matrix(out_shared, dtype, out_rows, out_cols, ld);               \
        params.out_group = ts_gl_matrix(out_group, dtype, out_rows, out_cols, ld);                 \
        params.tiles_across = (out_cols + C - 1) / C;                                              \
        const int tiles = ((out_rows + R - 1) / R) * params.tiles_across;                          \
        const size_t shared = 3 * TS_ALIGN_UP(sizeof(ST), TS_SHARED_ALIGN);                        \
        return TS_LAUNCH(NAME##_kernel, ts_grid_1d((unsigned)tiles), 2, shared, NULL, params);     \
    }

TS_TEST_IO_KERNEL(io_f32_16x16, ts_rt_f32_16x16, ts_st_f32_16x16)
TS_TEST_IO_KERNEL(io_f32_16x16_col, ts_rt_f32_16x16_col, ts_st_f32_16x16)
TS_TEST_IO_KERNEL(io_f32_32x64, ts_rt_f32_32x64, ts_st_f32_32x64)
TS_TEST_IO_KERNEL(io_f32_64x32_col, ts_rt_f32_64x32_col, ts_st_f32_64x32)
TS_TEST_IO_KERNEL(io_bf16_16x64, ts_rt_bf16_16x64, ts_st_bf16_16x64)
TS_TEST_IO_KERNEL(io_bf16_32x64_col, ts_rt_bf16_32x64_col, ts_st_bf16_32x64)
TS_TEST_IO_KERNEL(io_fp16_32x32, ts_rt_fp16_32x32, ts_st_fp16_32x32)
TS_TEST_IO_KERNEL(io_fp16_64x16_col, ts_rt_fp16_64x16_col, ts_st_fp16_64x16)

/* The tables live inside host functions: a file-scope table of host function pointers would be
 * seen by a GPU compiler's device pass too. */
TS_EXTERN_C const ts_test_tile_io_case *ts_test_tile_io_case_at(int k) {
    static const ts_test_tile_io_case cases[] = {
        {"f32 16x16 row", TS_TEST_F32, 16, 16, 0, io_f32_16x16},
        {"f32 16x16 col", TS_TEST_F32, 16, 16, 1, io_f32_16x16_col},
        {"f32 32x64 row", TS_TEST_F32, 32, 64, 0, io_f32_32x64},
        {"f32 64x32 col", TS_TEST_F32, 64, 32, 1, io_f32_64x32_col},
        {"bf16 16x64 row", TS_TEST_BF16, 16, 64, 0, io_bf16_16x64},
        {"bf16 32x64 col", TS_TEST_BF16, 32, 64, 1, io_bf16_32x64_col},
        {"fp16 32x32 row", TS_TEST_FP16, 32, 32, 0, io_fp16_32x32},
        {"fp16 64x16 col", TS_TEST_FP16, 64, 16, 1, io_fp16_64x16_col},
    };
    return k >= 0 && k < (int)(sizeof cases / sizeof cases[0]) ? &cases[k] : 0;
}

/* ---- fp32 ops ---------------------------------------------------------------------------------- */

typedef struct ts_test_f32_params {
    ts_gl a, b, out;
    float *vec;
    int mode;
    long long row0, col0;
} ts_test_f32_params;

#define TS_TEST_F32_KERNEL(NAME, R, C, L, OTHER)                                                   \
    TS_KERNEL(NAME##_kernel, 1, ts_test_f32_params, p) {                                           \
        ts_rt_f32_##R##x##C##L a, b, d;                                                            \
        ts_rowvec_f32_##R##L rv, rv2;                                                              \
        ts_colvec_f32_##C##L cv, cv2;                                                              \
        ts_load_g2r(&a, &p->a, 0, 0, 0, 0);                                                        \
        ts_load_g2r(&b, &p->b, 0, 0, 0, 0);                                                        \
        ts_copy(&d, &a);                                                                           \
        switch (p->mode) {                                                                         \
        case TS_TEST_OP_EXP: ts_exp(&d, &a); break;                                                \
        case TS_TEST_OP_EXP2: ts_exp2(&d, &a); break;                                              \
        case TS_TEST_OP_LOG: ts_abs(&d, &a); ts_log(&d, &d); break;                                \
        case TS_TEST_OP_ABS: ts_abs(&d, &a); break;                                                \
        case TS_TEST_OP_RELU: ts_relu(&d, &a); break;                                              \
        case TS_TEST_OP_ADD: ts_add(&d, &a, &b); break;                                            \
        case TS_TEST_OP_SUB: ts_sub(&d, &a, &b); break;                                            \
        case TS_TEST_OP_MUL: ts_mul(&d, &a, &b); break;                                            \
        case TS_TEST_OP_DIV: ts_div(&d, &a, &b); break;                                            \
        case TS_TEST_OP_MAX: ts_max(&d, &a, &b); break;                                            \
        case TS_TEST_OP_MIN: ts_min(&d, &a, &b); break;                                            \
        case TS_TEST_OP_ADD_SCALAR: ts_add_scalar(&d, &a, 1.5f); break;                            \
        case TS_TEST_OP_MUL_SCALAR: ts_mul_scalar(&d, &a, -0.75f); break;                          \
        case TS_TEST_OP_MAX_SCALAR: ts_max_scalar(&d, &a, 0.25f); break;                           \
        case TS_TEST_OP_FILL_NEG_INF: ts_fill(&d, -INFINITY); break;                               \
        case TS_TEST_OP_ZERO: ts_zero(&d); break;                                                  \
        case TS_TEST_OP_ROW_MAX: ts_row_max(&rv, &a); ts_rv_store(p->vec, &rv, 0, R); break;       \
        case TS_TEST_OP_ROW_MIN: ts_row_min(&rv, &a); ts_rv_store(p->vec, &rv, 0, R); break;       \
        case TS_TEST_OP_ROW_SUM: ts_row_sum(&rv, &a); ts_rv_store(p->vec, &rv, 0, R); break;       \
        case TS_TEST_OP_COL_MAX: ts_col_max(&cv, &a); ts_rv_store(p->vec, &cv, 0, C); break;       \
        case TS_TEST_OP_COL_MIN: ts_col_min(&cv, &a); ts_rv_store(p->vec, &cv, 0, C); break;       \
        case TS_TEST_OP_COL_SUM: ts_col_sum(&cv, &a); ts_rv_store(p->vec, &cv, 0, C); break;       \
        case TS_TEST_OP_ROW_SUM_ACC:                                                               \
            ts_row_max(&rv2, &b);                                                                  \
            ts_row_sum_acc(&rv, &a, &rv2);                                                         \
            ts_rv_store(p->vec, &rv, 0, R);                                                        \
            break;                                                                                 \
        case TS_TEST_OP_COL_MAX_ACC:                                                               \
            ts_col_sum(&cv2, &b);                                                                  \
            ts_col_max_acc(&cv, &a, &cv2);                                                         \
            ts_rv_store(p->vec, &cv, 0, C);                                                        \
            break;                                                                                 \
        case TS_TEST_OP_ADD_ROW: ts_row_sum(&rv, &b); ts_add_row(&d, &a, &rv); break;              \
        case TS_TEST_OP_SUB_ROW: ts_row_max(&rv, &b); ts_sub_row(&d, &a, &rv); break;              \
        case TS_TEST_OP_EXP2_SCALE_SUB_ROW:                                                        \
            ts_row_max(&rv, &b);                                                                   \
            ts_rv_mul_scalar(&rv, &rv, 0.7f);                                                      \
            ts_exp2_scale_sub_row(&d, &a, 0.7f, &rv);                                              \
            break;                                                                                 \
        case TS_TEST_OP_MUL_ROW: ts_row_min(&rv, &b); ts_mul_row(&d, &a, &rv); break;              \
        case TS_TEST_OP_DIV_ROW: ts_row_max(&rv, &b); ts_rv_exp(&rv, &rv); ts_div_row(&d, &a, &rv); break; \
        case TS_TEST_OP_ADD_COL: ts_col_sum(&cv, &b); ts_add_col(&d, &a, &cv); break;              \
        case TS_TEST_OP_MUL_COL: ts_col_max(&cv, &b); ts_mul_col(&d, &a, &cv); break;              \
        case TS_TEST_OP_BROADCAST_ROW: ts_row_sum(&rv, &a); ts_broadcast_row(&d, &rv); break;      \
        case TS_TEST_OP_BROADCAST_COL: ts_col_min(&cv, &a); ts_broadcast_col(&d, &cv); break;      \
        case TS_TEST_OP_CAUSAL: ts_causal_mask(&d, &a, p->row0, p->col0, -INFINITY); break;        \
        case TS_TEST_OP_TRIU: ts_triu(&d, &a, p->row0, p->col0, 3, 0.0f); break;                   \
        case TS_TEST_OP_MASK_COLS: ts_mask_cols_from(&d, &a, p->col0, p->row0, -INFINITY); break; \
        case TS_TEST_OP_BF16_ROUND_TRIP: {                                                         \
            ts_rt_bf16_##R##x##C##L h;                                                             \
            ts_convert(&h, &a);                                                                    \
            ts_convert(&d, &h);                                                                    \
            break;                                                                                 \
        }                                                                                          \
        case TS_TEST_OP_FP16_ROUND_TRIP: {                                                         \
            ts_rt_fp16_##R##x##C##OTHER h;                                                         \
            ts_convert(&h, &a);                                                                    \
            ts_convert(&d, &h);                                                                    \
            break;                                                                                 \
        }                                                                                          \
        case TS_TEST_OP_SWAP_LAYOUT: {                                                             \
            ts_rt_f32_##R##x##C##OTHER s;                                                          \
            ts_convert(&s, &a);                                                                    \
            ts_store_r2g(&p->out, &s, 0, 0, 0, 0);                                                 \
            return;                                                                                \
        }                                                                                          \
        case TS_TEST_OP_TRANSPOSE: {                                                               \
            ts_rt_f32_##C##x##R##OTHER t;                                                          \
            ts_transpose(&t, &a);                                                                  \
            ts_store_r2g(&p->out, &t, 0, 0, 0, 0);                                                 \
            return;                                                                                \
        }                                                                                          \
        case TS_TEST_OP_SHARED_ROW_VEC: {                                                          \
            /* registers -> shared -> global, and shared -> registers -> broadcast */              \
            ts_smem smem = ts_smem_begin();                                                        \
            ts_sv_f32_##R *sv = (ts_sv_f32_##R *)ts_smem_take(&smem, sizeof(ts_sv_f32_##R), 16);   \
            ts_row_sum(&rv, &a);                                                                   \
            ts_rv_store_s(sv, &rv);                                                                \
            ts_sv_store_s2g(p->vec, sv, 0, R);                                                     \
            ts_rv_load_s(&rv2, sv);                                                                \
            ts_broadcast_row(&d, &rv2);                                                            \
            break;                                                                                 \
        }                                                                                          \
        case TS_TEST_OP_SHARED_COL_VEC: {                                                          \
            /* global -> shared -> registers, and back out through registers -> global */          \
            ts_smem smem = ts_smem_begin();                                                        \
            ts_sv_f32_##C *sv = (ts_sv_f32_##C *)ts_smem_take(&smem, sizeof(ts_sv_f32_##C), 16);   \
            ts_col_min(&cv, &a);                                                                   \
            ts_rv_store(p->vec, &cv, 0, C);                                                        \
            ts_sv_load_g2s(sv, p->vec, 0, C);                                                      \
            ts_rv_load_s(&cv2, sv);                                                                \
            ts_broadcast_col(&d, &cv2);                                                            \
            break;                                                                                 \
        }                                                                                          \
        default: break;                                                                            \
        }                                                                                          \
        ts_store_r2g(&p->out, &d, 0, 0, 0, 0);                                                     \
    }                                                                                              \
    static ts_status NAME(float *out, float *vec, const float *a, const float *b, int mode, long long row0, long long col0) { \
        ts_test_f32_params params;                                                                 \
        params.a = ts_gl_matrix((void *)a, TS_DTYPE_F32, R, C, C);                                 \
        params.b = ts_gl_matrix((void *)b, TS_DTYPE_F32, R, C, C);                                 \
        params.out = mode == TS_TEST_OP_TRANSPOSE ? ts_gl_matrix(out, TS_DTYPE_F32, C, R, R)       \
                                                  : ts_gl_matrix(out, TS_DTYPE_F32, R, C, C);      \
        params.vec = vec;                                                                          \
        params.mode = mode;                                                                        \
        params.row0 = row0;                                                                        \
        params.col0 = col0;                                                                        \
        return TS_LAUNCH(NAME##_kernel, ts_grid_1d(1), 1, 1024 * sizeof(float), NULL, params);    \
    }

TS_TEST_F32_KERNEL(f32_16x16, 16, 16, , _col)
TS_TEST_F32_KERNEL(f32_16x16_col, 16, 16, _col, )
TS_TEST_F32_KERNEL(f32_32x64, 32, 64, , _col)
TS_TEST_F32_KERNEL(f32_64x32_col, 64, 32, _col, )
TS_TEST_F32_KERNEL(f32_16x128, 16, 128, , _col)

TS_EXTERN_C const ts_test_tile_f32_case *ts_test_tile_f32_case_at(int k) {
    static const ts_test_tile_f32_case cases[] = {
        {"f32 16x16 row", 16, 16, 0, f32_16x16},
        {"f32 16x16 col", 16, 16, 1, f32_16x16_col},
        {"f32 32x64 row", 32, 64, 0, f32_32x64},
        {"f32 64x32 col", 64, 32, 1, f32_64x32_col},
        {"f32 16x128 row", 16, 128, 0, f32_16x128},
    };
    return k >= 0 && k < (int)(sizeof cases / sizeof cases[0]) ? &cases[k] : 0;
}

/* ---- packed warp vectors --------------------------------------------------------------------- */

typedef struct ts_test_wvp_params {
    const void *x, *residual, *weight_held;
    const float *weight;
    void *sum_out, *held_out, *params_out;
    float *norm_out, *stats;
    long long n;
    float shift, scale;
} ts_test_wvp_params;

/* One warp: the strip x + residual as a packed vector of DTYPE in LAYOUT (tiles/warp_vector.h),
 * stored back, reduced, and stored normalized in fp32 with a weight, in DTYPE with a held weight of
 * DTYPE, and in DTYPE with that weight and the residual strip as a held bias. */
#define TS_TEST_WVP_KERNEL(NAME, DTYPE, LAYOUT)                                                    \
    TS_KERNEL(NAME##_kernel, 1, ts_test_wvp_params, p) {                                           \
        TS_WV_PACKED_LAYOUT(1024, DTYPE, LAYOUT) h, w, bias;                                       \
        ts_wv_packed_load(&w, p->weight_held, p->n);                                               \
        ts_wv_packed_load(&bias, p->residual, p->n);                                               \
        ts_wv_packed_load(&h, p->x, p->n);                                                         \
        ts_wv_packed_load_add_round(&h, p->residual, p->n);                                        \
        ts_wv_packed_store(p->sum_out, &h, p->n);                                                  \
        const float sum = ts_wv_packed_sum(&h), sq = ts_wv_packed_sum_sq(&h, p->shift, p->n);      \
        TS_ONE_LANE {                                                                              \
            p->stats[0] = sum;                                                                     \
            p->stats[1] = sq;                                                                      \
        }                                                                                          \
        ts_wv_packed_store_normalized(p->norm_out, TS_DTYPE_F32, &h, p->shift, p->scale, p->weight, NULL, \
                                      TS_DTYPE_F32, p->n);                                         \
        ts_wv_packed_store_normalized_held(p->held_out, &h, p->shift, p->scale, &w, 1, NULL, p->n); \
        ts_wv_packed_store_normalized_held_params(p->params_out, &h, p->shift, p->scale, &w, 1, &bias, 1, p->n); \
    }                                                                                              \
    static ts_status NAME(void *sum_out, float *norm_out, void *held_out, void *params_out, float *stats,        \
                          const void *x, const void *residual, const float *weight,                \
                          const void *weight_held, long long n, float shift, float scale) {        \
        ts_test_wvp_params params;                                                                 \
        params.x = x;                                                                              \
        params.residual = residual;                                                                \
        params.weight = weight;                                                                    \
        params.weight_held = weight_held;                                                          \
        params.sum_out = sum_out;                                                                  \
        params.held_out = held_out;                                                                \
        params.params_out = params_out;                                                            \
        params.norm_out = norm_out;                                                                \
        params.stats = stats;                                                                      \
        params.n = n;                                                                              \
        params.shift = shift;                                                                      \
        params.scale = scale;                                                                      \
        return TS_LAUNCH(NAME##_kernel, ts_grid_1d(1), 1, 0, NULL, params);                        \
    }

TS_TEST_WVP_KERNEL(wvp_bf16, TS_DTYPE_BF16, TS_WV_CONTIGUOUS)
TS_TEST_WVP_KERNEL(wvp_fp16, TS_DTYPE_FP16, TS_WV_CONTIGUOUS)
TS_TEST_WVP_KERNEL(wvp_f32, TS_DTYPE_F32, TS_WV_CONTIGUOUS)
TS_TEST_WVP_KERNEL(wvp_bf16_split, TS_DTYPE_BF16, TS_WV_SPLIT)
TS_TEST_WVP_KERNEL(wvp_f32_split, TS_DTYPE_F32, TS_WV_SPLIT)

TS_EXTERN_C const ts_test_wv_packed_case *ts_test_wv_packed_case_at(int k) {
    static const ts_test_wv_packed_case cases[] = {
        {"bf16", TS_TEST_BF16, wvp_bf16},
        {"fp16", TS_TEST_FP16, wvp_fp16},
        {"f32", TS_TEST_F32, wvp_f32},
        {"bf16 split", TS_TEST_BF16, wvp_bf16_split},
        {"f32 split", TS_TEST_F32, wvp_f32_split},
    };
    return k >= 0 && k < (int)(sizeof cases / sizeof cases[0]) ? &cases[k] : 0;
}

typedef struct ts_test_wvp_elem_params {
    float *at_use, *plain;
    const unsigned *words;
    int count;
} ts_test_wvp_elem_params;

TS_KERNEL(ts_test_wvp_elem_at_use_kernel, 1, ts_test_wvp_elem_params, p) {
    for (int i = ts_lane_id(); i < p->count; i += TS_WARP_LANES) {
        const unsigned w = p->words[i];
        for (int h = 0; h < 2; ++h) {
            p->at_use[2 * i + h] = ts_wvp_elem_at_use(&w, h, TS_DTYPE_BF16);
            p->plain[2 * i + h] = ts_wvp_elem(&w, h, TS_DTYPE_BF16);
        }
    }
}

TS_EXTERN_C ts_status ts_test_wvp_elem_at_use(float *at_use, float *plain, const unsigned *words, int count) {
    ts_test_wvp_elem_params params;
    params.at_use = at_use;
    params.plain = plain;
    params.words = words;
    params.count = count;
    return TS_LAUNCH(ts_test_wvp_elem_at_use_kernel, ts_grid_1d(1), 1, 0, NULL, params);
}

/* ---- fp32 warp vectors ------------------------------------------------------------------------ */

typedef struct ts_test_wv_params {
    const void *x, *w;
    float *combined, *loaded;
    long long n;
} ts_test_wv_params;

#define TS_TEST_WV_KERNEL(NAME, DTYPE, LAYOUT)                                                     \
    TS_KERNEL(NAME##_kernel, 1, ts_test_wv_params, p) {                                            \
        TS_WV_F32_LAYOUT(1024, LAYOUT) v, u;                                                       \
        ts_wv_fill(&v, 7.0f);                                                                      \
        ts_wv_load_add(&v, p->x, DTYPE, p->n);                                                     \
        ts_wv_load_mul(&v, p->w, DTYPE, p->n);                                                     \
        ts_wv_store(p->combined, &v, TS_DTYPE_F32, 1024);                                          \
        ts_wv_load(&u, p->x, DTYPE, p->n);                                                         \
        ts_wv_store(p->loaded, &u, TS_DTYPE_F32, 1024);                                            \
    }                                                                                              \
    static ts_status NAME(float *combined, float *loaded, const void *x, const void *w, long long n) { \
        ts_test_wv_params params;                                                                  \
        params.x = x;                                                                              \
        params.w = w;                                                                              \
        params.combined = combined;                                                                \
        params.loaded = loaded;                                                                    \
        params.n = n;                                                                              \
        return TS_LAUNCH(NAME##_kernel, ts_grid_1d(1), 1, 0, NULL, params);                        \
    }

TS_TEST_WV_KERNEL(wv_bf16, TS_DTYPE_BF16, TS_WV_CONTIGUOUS)
TS_TEST_WV_KERNEL(wv_fp16, TS_DTYPE_FP16, TS_WV_CONTIGUOUS)
TS_TEST_WV_KERNEL(wv_f32, TS_DTYPE_F32, TS_WV_CONTIGUOUS)
TS_TEST_WV_KERNEL(wv_bf16_split, TS_DTYPE_BF16, TS_WV_SPLIT)
TS_TEST_WV_KERNEL(wv_f32_split, TS_DTYPE_F32, TS_WV_SPLIT)

TS_EXTERN_C const ts_test_wv_case *ts_test_wv_case_at(int k) {
    static const ts_test_wv_case cases[] = {
        {"bf16", TS_TEST_BF16, wv_bf16},
        {"fp16", TS_TEST_FP16, wv_fp16},
        {"f32", TS_TEST_F32, wv_f32},
        {"bf16 split", TS_TEST_BF16, wv_bf16_split},
        {"f32 split", TS_TEST_F32, wv_f32_split},
    };
    return k >= 0 && k < (int)(sizeof cases / sizeof cases[0]) ? &cases[k] : 0;
}

/* ---- a lane's statistics, the warp's combination, the approximate 2^x ------------------------- */

typedef struct ts_test_wv_lane_params {
    const float *x;
    float *lane_max, *lane_sum, *warp_max, *warp_sum, *exp2;
} ts_test_wv_lane_params;

#define TS_TEST_WV_LANE_KERNEL(NAME, LAYOUT)                                                       \
    TS_KERNEL(NAME, 1, ts_test_wv_lane_params, p) {                                                \
        TS_WV_F32_LAYOUT(1024, LAYOUT) v;                                                          \
        const int lane = ts_lane_id();                                                             \
        ts_wv_load(&v, p->x, TS_DTYPE_F32, 1024);                                                  \
        const float m = ts_wv_lane_max(&v), s = ts_wv_lane_sum(&v);                                \
        p->lane_max[lane] = m;                                                                     \
        p->lane_sum[lane] = s;                                                                     \
        p->warp_max[lane] = ts_wv_warp_combine(m, 2);                                              \
        p->warp_sum[lane] = ts_wv_warp_combine(s, 0);                                              \
        ts_wv_exp2_approx(&v, &v);                                                                 \
        ts_wv_store(p->exp2, &v, TS_DTYPE_F32, 1024);                                              \
    }
TS_TEST_WV_LANE_KERNEL(ts_test_wv_lane_kernel, TS_WV_CONTIGUOUS)
TS_TEST_WV_LANE_KERNEL(ts_test_wv_lane_split_kernel, TS_WV_SPLIT)

TS_EXTERN_C ts_status ts_test_wv_lane_stats(float *lane_max, float *lane_sum, float *warp_max, float *warp_sum,
                                            float *exp2, const float *x, int split) {
    ts_test_wv_lane_params params;
    params.x = x;
    params.lane_max = lane_max;
    params.lane_sum = lane_sum;
    params.warp_max = warp_max;
    params.warp_sum = warp_sum;
    params.exp2 = exp2;
    return split ? TS_LAUNCH(ts_test_wv_lane_split_kernel, ts_grid_1d(1), 1, 0, NULL, params)
                 : TS_LAUNCH(ts_test_wv_lane_kernel, ts_grid_1d(1), 1, 0, NULL, params);
}

/* ---- strips of wide rows ---------------------------------------------------------------------- */

typedef struct ts_test_wv_rows_params {
    const void *x;
    float *out, *sums, *sq;
    long long stride;
    int row_chunks;
} ts_test_wv_rows_params;

#define TS_TEST_WV_ROWS_E 3072

TS_KERNEL(ts_test_wv_wide_rows_kernel, 1, ts_test_wv_rows_params, p) {
    TS_WV_F32(TS_TEST_WV_ROWS_E) v;
    TS_WV_PACKED(TS_TEST_WV_ROWS_E, TS_DTYPE_BF16) h;
    const int rc = p->row_chunks;
    float m[TS_WV_CHUNKS(&v)], s[TS_WV_CHUNKS(&v)], ps[TS_WV_CHUNKS(&v)], psq[TS_WV_CHUNKS(&v)];
    long long from[TS_WV_CHUNKS(&v)];
    ts_wv_load_wide_rows(&v, p->x, TS_DTYPE_BF16, rc, p->stride, TS_TEST_WV_ROWS_E);
    ts_wv_row_max(m, &v, rc);
    ts_wv_row_sums(s, &v, rc);
    ts_wv_sub_row_scalars(&v, &v, m);
    ts_wv_mul_row_scalars(&v, &v, s);
    for (int k = 0; k < TS_WV_CHUNKS(&v); ++k) from[k] = k / rc;
    ts_wv_fill_rows_from(&v, rc, from, -1.0f);
    ts_wv_store_wide_rows(p->out, &v, TS_DTYPE_F32, rc, p->stride, TS_TEST_WV_ROWS_E);
    ts_wv_packed_load_wide_rows(&h, p->x, rc, p->stride, TS_TEST_WV_ROWS_E);
    ts_wv_packed_row_sums(ps, &h, rc);
    ts_wv_packed_row_sums_sq(psq, &h, ps, rc);
    TS_ONE_LANE
        for (int k = 0; k < TS_WV_CHUNKS(&v); k += rc) {
            p->sums[k / rc] = ps[k];
            p->sq[k / rc] = psq[k];
        }
}

TS_EXTERN_C int ts_test_wv_lanes(void) { return TS_WARP_LANES; }

/* ---- strips of quad rows ----------------------------------------------------------------------- */

typedef struct ts_test_wv_quad_rows_params {
    const void *x, *w, *b;
    void *out, *copy;
    float *means, *sqs;
    long long stride;
} ts_test_wv_quad_rows_params;

/* The kernels below are built for each row length the test takes (rq a compile-time constant, as
 * in the library's kernels: a loop over a row's quads unrolls only then, which HIP requires). */
TS_DEVICE void ts_test_wv_quad_rows_strip(const ts_test_wv_quad_rows_params *p, int rq) {
    TS_WV_PACKED_LAYOUT(TS_TEST_WV_QUAD_ROWS_E, TS_DTYPE_BF16, TS_WV_SPLIT) h;
    TS_WV_PACKED_LAYOUT(TS_TEST_WV_QUAD_ROWS_E, TS_DTYPE_BF16, TS_WV_SPLIT) w;
    TS_WV_PACKED_LAYOUT(TS_TEST_WV_QUAD_ROWS_E, TS_DTYPE_BF16, TS_WV_SPLIT) b;
    const int quads = 2 * TS_WV_PACKED_CHUNKS(&h);
    const float inv_len = 1.0f / (float)(rq * TS_WV_QUAD * TS_WARP_LANES);
    float mean[2 * TS_WV_PACKED_CHUNKS(&h)], sq[2 * TS_WV_PACKED_CHUNKS(&h)];
    ts_wv_packed_load_quad_rows(&h, p->x, rq, p->stride, TS_TEST_WV_QUAD_ROWS_E);
    ts_wv_packed_quad_row_sums(mean, &h, rq);
    for (int g = 0; g < quads; ++g) mean[g] *= inv_len;
    ts_wv_packed_quad_row_sums_sq(sq, &h, mean, rq);
    float scale[2 * TS_WV_PACKED_CHUNKS(&h)];
    for (int g = 0; g < quads; ++g) scale[g] = 1.0f / (1.0f + sq[g] * inv_len);
    ts_wv_packed_load_quad_rows(&w, p->w, rq, 0, TS_TEST_WV_QUAD_ROWS_E);
    ts_wv_packed_load_quad_rows(&b, p->b, rq, 0, TS_TEST_WV_QUAD_ROWS_E);
    ts_wv_packed_store_quad_rows_normalized_held_params(p->out, &h, mean, scale, &w, 1, &b, 1, rq, p->stride,
                                                        TS_TEST_WV_QUAD_ROWS_E);
    ts_wv_packed_store_quad_rows(p->copy, &h, rq, p->stride, TS_TEST_WV_QUAD_ROWS_E);
    TS_ONE_LANE
        for (int g = 0; g + rq <= quads; g += rq) {
            p->means[g / rq] = mean[g];
            p->sqs[g / rq] = sq[g];
        }
}

typedef struct ts_test_wv_quad_rows_f32_params {
    const void *x;
    float *out, *sums;
    long long stride;
} ts_test_wv_quad_rows_f32_params;

TS_DEVICE void ts_test_wv_quad_rows_f32_strip(const ts_test_wv_quad_rows_f32_params *p, int rq) {
    TS_WV_F32_LAYOUT(TS_TEST_WV_QUAD_ROWS_E, TS_WV_SPLIT) v;
    const int quads = 2 * TS_WV_CHUNKS(&v);
    float m[2 * TS_WV_CHUNKS(&v)], s[2 * TS_WV_CHUNKS(&v)];
    long long from[2 * TS_WV_CHUNKS(&v)];
    ts_wv_load_quad_rows(&v, p->x, TS_DTYPE_BF16, rq, p->stride, TS_TEST_WV_QUAD_ROWS_E);
    ts_wv_quad_row_max(m, &v, rq);
    ts_wv_quad_row_sums(s, &v, rq);
    ts_wv_sub_quad_row_scalars(&v, &v, m);
    ts_wv_mul_quad_row_scalars(&v, &v, s);
    for (int g = 0; g < quads; ++g) from[g] = g / rq;
    ts_wv_fill_quad_rows_from(&v, rq, from, -1.0f);
    ts_wv_store_quad_rows(p->out, &v, TS_DTYPE_F32, rq, p->stride, TS_TEST_WV_QUAD_ROWS_E);
    TS_ONE_LANE
        for (int g = 0; g + rq <= quads; g += rq) p->sums[g / rq] = s[g];
}

#define TS_TEST_WV_QUAD_ROWS_KERNELS(rq)                                                           \
    TS_KERNEL(TS_CAT(ts_test_wv_quad_rows_kernel_, rq), 1, ts_test_wv_quad_rows_params, p) {       \
        ts_test_wv_quad_rows_strip(p, rq);                                                         \
    }                                                                                              \
    TS_KERNEL(TS_CAT(ts_test_wv_quad_rows_f32_kernel_, rq), 1, ts_test_wv_quad_rows_f32_params, p) { \
        ts_test_wv_quad_rows_f32_strip(p, rq);                                                     \
    }
TS_TEST_WV_QUAD_ROWS_KERNELS(1)
TS_TEST_WV_QUAD_ROWS_KERNELS(3)
TS_TEST_WV_QUAD_ROWS_KERNELS(5)
TS_TEST_WV_QUAD_ROWS_KERNELS(7)

#define TS_TEST_WV_QUAD_ROWS_LAUNCH(kernel, row_quads, params)                                     \
    ((row_quads) == 1   ? TS_LAUNCH(TS_CAT(kernel, 1), ts_grid_1d(1), 1, 0, NULL, params)          \
     : (row_quads) == 3 ? TS_LAUNCH(TS_CAT(kernel, 3), ts_grid_1d(1), 1, 0, NULL, params)          \
     : (row_quads) == 5 ? TS_LAUNCH(TS_CAT(kernel, 5), ts_grid_1d(1), 1, 0, NULL, params)          \
     : (row_quads) == 7 ? TS_LAUNCH(TS_CAT(kernel, 7), ts_grid_1d(1), 1, 0, NULL, params)          \
                        : TS_ERROR_INVALID_VALUE)

TS_EXTERN_C ts_status ts_test_wv_quad_rows_f32(float *out, float *sums, const void *x, long long stride, int row_quads) {
    ts_test_wv_quad_rows_f32_params params;
    params.x = x;
    params.out = out;
    params.sums = sums;
    params.stride = stride;
    return TS_TEST_WV_QUAD_ROWS_LAUNCH(ts_test_wv_quad_rows_f32_kernel_, row_quads, params);
}

TS_EXTERN_C ts_status ts_test_wv_quad_rows(void *out, void *copy, float *means, float *sqs, const void *x,
                                           const void *w, const void *b, long long stride, int row_quads) {
    ts_test_wv_quad_rows_params params;
    params.x = x;
    params.w = w;
    params.b = b;
    params.out = out;
    params.copy = copy;
    params.means = means;
    params.sqs = sqs;
    params.stride = stride;
    return TS_TEST_WV_QUAD_ROWS_LAUNCH(ts_test_wv_quad_rows_kernel_, row_quads, params);
}

TS_EXTERN_C ts_status ts_test_wv_wide_rows(float *out, float *sums, float *sq, const void *x, long long stride,
                                           int row_chunks) {
    ts_test_wv_rows_params params;
    params.x = x;
    params.out = out;
    params.sums = sums;
    params.sq = sq;
    params.stride = stride;
    params.row_chunks = row_chunks;
    return TS_LAUNCH(ts_test_wv_wide_rows_kernel, ts_grid_1d(1), 1, 0, NULL, params);
}
