/* The GEMM built on the ping-pong schedule of the producer-consumer template, which CDNA uses, so
 * that the host (and any GPU) runs that schedule's protocol in the tests. bf16 in, fp32 out, NN. */
#ifndef TESSERA_TESTS_PINGPONG_KERNELS_H
#define TESSERA_TESTS_PINGPONG_KERNELS_H

#include <tessera/tessera.h>

#ifdef __cplusplus
extern "C" {
#endif

/* C = A B; at most max_blocks blocks (at most 4), so that blocks loop over several tasks. With a
 * workspace (zeroed, at least TS_TEST_PINGPONG_WORKSPACE_BYTES), stream-K as ts_gemm_ex runs it. */
#define TS_TEST_PINGPONG_WORKSPACE_BYTES (256 + 4 * 2 * 128 * 256 * 4)
ts_status ts_test_pingpong_gemm(int m, int n, int k, const void *a, long long lda, const void *b, long long ldb,
                                float *c, long long ldc, int max_blocks, void *workspace);

#ifdef __cplusplus
}
#endif

#endif
