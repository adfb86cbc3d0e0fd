/* Kernels of tests/kernels/accumulator_kernels.h: one block of one warp each. */
#include <string.h>

#include "backends/backend.h"
#include "ops/fragment_groups.h"
#include "ops/memory.h"
#include "ops/register_slices.h"
#include "ops/store_axpby.h"
#include "tests/kernels/accumulator_kernels.h"

typedef struct ts_test_acc_params {
    ts_gl in, out;
    float *area;
    const int *order;
    long long stride, row0, col0;
    float alpha, beta;
    int pieces, transposed;
} ts_test_acc_params;

static ts_test_acc_params ts_test_acc_make(const float *in, int tiles, ts_test_acc_out out, long long row0,
                                           long long col0, float alpha, float beta) {
    ts_test_acc_params p;
    memset(&p, 0, sizeof p);
    p.in = ts_gl_matrix((void *)in, TS_DTYPE_F32, (long long)tiles * TS_TEST_ACC_ROWS, TS_TEST_ACC_COLS, TS_TEST_ACC_COLS);
    p.out = ts_gl_matrix(out.ptr, out.dtype, out.rows, out.cols, out.ld);
    p.row0 = row0;
    p.col0 = col0;
    p.alpha = alpha;
    p.beta = beta;
    p.pieces = tiles;
    p.transposed = out.transposed;
    return p;
}

TS_KERNEL(ts_test_store_axpby_kernel, 1, ts_test_acc_params, p) {
    ts_rt_f32_16x64 t;
    ts_load_g2r(&t, &p->in, 0, 0, 0, 0);
    if (p->transposed)
        ts_store_r2g_axpby(&p->out, &t, p->row0, p->col0, p->alpha, p->beta, 1);
    else
        ts_store_r2g_axpby(&p->out, &t, p->row0, p->col0, p->alpha, p->beta, 0);
}

TS_EXTERN_C ts_status ts_test_store_axpby(const float *in, ts_test_acc_out out, long long row0, long long col0,
                                          float alpha, float beta) {
    ts_test_acc_params p = ts_test_acc_make(in, 1, out, row0, col0, alpha, beta);
    return TS_LAUNCH(ts_test_store_axpby_kernel, ts_grid_1d(1), 1, 0, NULL, p);
}

/* Block j stores piece j in group order. */
TS_KERNEL(ts_test_store_groups_kernel, 1, ts_test_acc_params, p) {
    const int j = ts_block_x();
    ts_rt_f32_16x64 t;
    ts_load_g2r(&t, &p->in, 0, 0, j, 0);
    ts_store_r2g_groups(p->area + j * p->stride, &t);
}

/* Block i adds and stores group order[i]. */
TS_KERNEL(ts_test_reduce_groups_kernel, 1, ts_test_acc_params, p) {
    const ts_rt_desc d = ts_rt_make_desc(TS_TEST_ACC_ROWS, TS_TEST_ACC_COLS, TS_DTYPE_F32, TS_LAYOUT_ROW);
    const int group = p->order[ts_block_x()];
    if (p->transposed)
        ts_reduce_groups_r2g_axpby(&p->out, d, p->area, p->stride, p->pieces, group, p->row0, p->col0, p->alpha,
                                   p->beta, 1);
    else
        ts_reduce_groups_r2g_axpby(&p->out, d, p->area, p->stride, p->pieces, group, p->row0, p->col0, p->alpha,
                                   p->beta, 0);
}

TS_EXTERN_C int ts_test_acc_groups(void) {
    return TS_RT_GROUPS(ts_rt_make_desc(TS_TEST_ACC_ROWS, TS_TEST_ACC_COLS, TS_DTYPE_F32, TS_LAYOUT_ROW));
}

TS_EXTERN_C ts_status ts_test_reduce_groups(const float *in, int pieces, float *area, long long stride,
                                            const int *order, ts_test_acc_out out, long long row0, long long col0,
                                            float alpha, float beta) {
    if (pieces < 1 || stride < TS_TEST_ACC_ROWS * TS_TEST_ACC_COLS || stride % 4) return TS_ERROR_INVALID_VALUE;
    ts_test_acc_params p = ts_test_acc_make(in, pieces, out, row0, col0, alpha, beta);
    p.area = area;
    p.order = order;
    p.stride = stride;
    const ts_status s = TS_LAUNCH(ts_test_store_groups_kernel, ts_grid_1d((unsigned)pieces), 1, 0, NULL, p);
    if (s != TS_SUCCESS) return s;
    return TS_LAUNCH(ts_test_reduce_groups_kernel, ts_grid_1d((unsigned)ts_test_acc_groups()), 1, 0, NULL, p);
}

typedef struct ts_test_cols_params {
    ts_gl in, out;
} ts_test_cols_params;

#define TS_TEST_COPY_COLS_KERNEL(NAME, WIDE, PART)                                                 \
    TS_KERNEL(NAME, 1, ts_test_cols_params, p) {                                                   \
        WIDE t;                                                                                    \
        ts_load_g2r(&t, &p->in, 0, 0, 0, 0);                                                       \
        PART part;                                                                                 \
        ts_rt_copy_cols(&part, &t, 0);                                                             \
        ts_store_r2g(&p->out, &part, 0, 0, 0, 0);                                                  \
        ts_rt_copy_cols(&part, &t, 64);                                                            \
        ts_store_r2g(&p->out, &part, 0, 0, 0, 1);                                                  \
        ts_rt_copy_cols(&part, &t, 128);                                                           \
        ts_store_r2g(&p->out, &part, 0, 0, 0, 2);                                                  \
        ts_rt_copy_cols(&part, &t, 192);                                                           \
        ts_store_r2g(&p->out, &part, 0, 0, 0, 3);                                                  \
    }
TS_TEST_COPY_COLS_KERNEL(ts_test_copy_cols_f32_kernel, ts_rt_f32_16x256, ts_rt_f32_16x64)
TS_TEST_COPY_COLS_KERNEL(ts_test_copy_cols_bf16_kernel, ts_rt_bf16_16x256, ts_rt_bf16_16x64)

TS_EXTERN_C ts_status ts_test_copy_cols(const void *in, void *out, int dtype) {
    ts_test_cols_params p;
    p.in = ts_gl_matrix((void *)in, dtype, 16, 256, 256);
    p.out = ts_gl_matrix(out, dtype, 16, 256, 256);
    if (dtype == TS_DTYPE_F32) return TS_LAUNCH(ts_test_copy_cols_f32_kernel, ts_grid_1d(1), 1, 0, NULL, p);
    if (dtype == TS_DTYPE_BF16) return TS_LAUNCH(ts_test_copy_cols_bf16_kernel, ts_grid_1d(1), 1, 0, NULL, p);
    return TS_ERROR_INVALID_ENUM;
}
