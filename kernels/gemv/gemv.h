/* The GEMV launcher (kernels/gemv/gemv.c): decoding's products of at most TS_GEMV_MAX_M (8) rows,
 * C = alpha * A op(B) + beta * C, as ts_gemm (kernels/gemm/gemm.c) hands them over and as the tests
 * call it. Host code; not part of the public API (tessera.h), whose ts_gemm checks every argument
 * before it gets here. */
#ifndef TESSERA_KERNELS_GEMV_GEMV_H
#define TESSERA_KERNELS_GEMV_GEMV_H

#include <tessera/tessera.h>

/* The most rows of A the GEMV kernels take: their accumulators are per row of A, in registers. */
#define TS_GEMV_MAX_M 8

#ifdef __cplusplus
extern "C" {
#endif

/* A is M x K row-major (leading dimension lda, A as stored: ts_gemm's trans_a = 0); B is N x K
 * (trans_b = TS_TRANS, nn.Linear's weight) or K x N (TS_NO_TRANS), leading dimension ldb; C is
 * M x N (ldc). A and B bf16 or fp16 alike, C fp32, bf16 or fp16, fp32 accumulation; with beta == 0
 * C is only written. Any 1 <= M <= 8, N, K >= 1, and any leading dimensions of at least the stored
 * row length, aligned or not: the 16-byte loads need A and B 16-byte aligned with leading
 * dimensions multiples of 8 (all that ts_gemm takes), and anything else goes element by element.
 * Statuses, in this order: TS_ERROR_NULL_POINTER; TS_ERROR_INVALID_ENUM (trans_b, dtypes);
 * TS_ERROR_INVALID_SIZE (M, N or K below 1); TS_ERROR_UNSUPPORTED (M above 8, A and B of
 * different or fp32 dtypes); TS_ERROR_INVALID_VALUE (a leading dimension below its row);
 * TS_ERROR_SIZE_OVERFLOW (a matrix past 2^46 elements); TS_ERROR_MISALIGNED (a pointer not
 * aligned to its element). Overlaps are not checked (ts_gemm does). */
ts_status ts_gemv_run(ts_trans trans_b, int m, int n, int k, float alpha, const void *a, ts_dtype ab_type,
                      long long lda, const void *b, long long ldb, float beta, void *c, ts_dtype c_type,
                      long long ldc, ts_stream stream);

#ifdef __cplusplus
}
#endif

#endif
