/* Launchers of the kernels that test the warp-scope mma ops (ops/mma.h) on the backend the tests
 * are built for: every transposition form, bf16 and fp16, with a separate accumulator, in place,
 * and overwriting, at a few shapes. Plain C for the tests; pointers are device memory. */
#ifndef TESSERA_TESTS_MMA_KERNELS_H
#define TESSERA_TESTS_MMA_KERNELS_H

#include <tessera/tessera.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The form: which operands the op reads transposed. */
enum { TS_TEST_MMA_AB, TS_TEST_MMA_ABT, TS_TEST_MMA_ATB, TS_TEST_MMA_ATBT, TS_TEST_MMA_FORMS };
/* The operands' dtype. */
enum { TS_TEST_MMA_BF16, TS_TEST_MMA_FP16, TS_TEST_MMA_DTYPES };
/* ACC: ts_mma_* with an accumulator tile of its own; ACC_INPLACE: ts_mma_* with d as the
 * accumulator; OVERWRITE: ts_mm_*. */
enum { TS_TEST_MMA_ACC, TS_TEST_MMA_ACC_INPLACE, TS_TEST_MMA_OVERWRITE, TS_TEST_MMA_MODES };
/* Shapes M x N x K. 64x64x64 runs as four ops of K = 16 accumulating into one tile (the way a
 * kernel walks K); the others are one op each. */
enum {
    TS_TEST_MMA_16x16x16,
    TS_TEST_MMA_32x64x32,
    TS_TEST_MMA_64x64x64,
    TS_TEST_MMA_16x256x16,
    TS_TEST_MMA_SHAPES
};

/* M, N, K of a shape; TS_ERROR_INVALID_ENUM for an unknown one. */
ts_status ts_test_mma_dims(int shape, int *m, int *n, int *k);

/* Nonzero when ts_test_mma builds that combination (every form and mode at 16x16x16 and
 * 32x64x32; in place and overwrite at 64x64x64; AB and AtB in place and overwrite at 16x256x16,
 * the others needing more registers than a warp has or tile shapes the tests do not define). */
int ts_test_mma_available(int shape, int form, int dtype, int mode);

/* One warp computes d = op(A) * op(B) (+ c) with the form's op, and stores d (m x n, row-major).
 * a holds the A operand as the form loads it, row-major, 16-bit values as raw bits: A (m x k)
 * for AB and ABt, A^T (k x m) for AtB and AtBt; b likewise: B (k x n) for AB and AtB, B^T (n x k)
 * for ABt and AtBt. c (m x n, row-major) is read unless mode is OVERWRITE (then it may be NULL).
 * Returns TS_ERROR_INVALID_ENUM for an unknown enum, TS_ERROR_UNSUPPORTED for a combination not
 * built, TS_ERROR_NULL_POINTER for a missing pointer, else the launch's status. */
ts_status ts_test_mma(int shape, int form, int dtype, int mode, float *d, const unsigned short *a,
                      const unsigned short *b, const float *c);

#ifdef __cplusplus
}
#endif

#endif
