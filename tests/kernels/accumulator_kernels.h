/* Kernels that test the accumulator stores of ops/store_axpby.h and ops/fragment_groups.h on one
 * warp's 16 x 64 fp32 tile (ts_rt_f32_16x64). */
#ifndef TESSERA_TESTS_ACCUMULATOR_KERNELS_H
#define TESSERA_TESTS_ACCUMULATOR_KERNELS_H

#include <tessera/tessera.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TS_TEST_ACC_ROWS 16
#define TS_TEST_ACC_COLS 64

/* The product a test stores into: rows x cols of dtype (1 fp32, 2 bf16, 3 fp16, as tiles/dtypes.h),
 * element (r, c) at r * ld + c, or with transposed at c * ld + r. */
typedef struct ts_test_acc_out {
    void *ptr;
    int dtype, transposed;
    long long rows, cols, ld;
} ts_test_acc_out;

/* in: the tile, 16 x 64 fp32 row-major (ld 64). ts_store_r2g_axpby of it at (row0, col0). */
ts_status ts_test_store_axpby(const float *in, ts_test_acc_out out, long long row0, long long col0, float alpha,
                              float beta);

/* in: `pieces` tiles one after another (each 16 x 64 fp32 row-major, ld 64). Each is stored in
 * group order (ts_store_r2g_groups) to area + j * stride (stride >= 16 * 64 floats, a multiple of
 * 4), then each group of the pieces is added and stored at (row0, col0) by
 * ts_reduce_groups_r2g_axpby, groups in the order of `order` (a permutation of 0 .. groups - 1,
 * device memory; groups: ts_test_acc_groups()). */
ts_status ts_test_reduce_groups(const float *in, int pieces, float *area, long long stride, const int *order,
                                ts_test_acc_out out, long long row0, long long col0, float alpha, float beta);
/* The groups of a 16 x 64 fp32 tile on this backend. */
int ts_test_acc_groups(void);

/* ts_rt_copy_cols: in is 16 x 256 (ld 256) of dtype 1 (fp32) or 2 (bf16); out (16 x 256, ld 256)
 * receives column block k (columns 64k .. 64k + 63) of the register tile loaded from in at its
 * own place, for every k, each through a 16 x 64 tile of its own. */
ts_status ts_test_copy_cols(const void *in, void *out, int dtype);

#ifdef __cplusplus
}
#endif

#endif
