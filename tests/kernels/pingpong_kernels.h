/* The GEMM built on the ping-pong schedule of the producer-consumer template, which CDNA uses, so
 * that the host (and any GPU) runs that schedule's protocol in the tests. bf16 in, fp32 out, NN. */
#ifndef TESSERA_TESTS_PINGPONG_KERNELS_H
#define TESSERA_TESTS_PINGPONG_KERNELS_H

#include <tessera/tessera.h>

#ifdef __cplusplus
extern "C" {
#endif

/* C = A B; at most max_blocks blocks (at most 4), so that blocks loop over several tasks. With a
 * workspace (zeroed, ts_test_pingpong_workspace_bytes() long), stream-K as ts_gemm_ex runs it. */
ts_status ts_test_pingpong_gemm(int m, int n, int k, const void *a, long long lda, const void *b, long long ldb,
                                float *c, long long ldc, int max_blocks, void *workspace);
size_t ts_test_pingpong_workspace_bytes(void);
/* TS_GEMM_STREAM_K as the GEMM kernels of this build see it (1: stream-K is built in). */
int ts_test_gemm_stream_k_built(void);

#ifdef __cplusplus
}
#endif

#endif
