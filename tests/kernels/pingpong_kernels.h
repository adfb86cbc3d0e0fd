/* The GEMM and the D = 64 attention built on the ping-pong schedule of the producer-consumer
 * template, which CDNA uses, so that the host (and any GPU) runs that schedule's protocol in the
 * tests. GEMM: bf16 in, fp32 out, NN. Attention: ts_attention_forward's arguments, D = 64. */
#ifndef TESSERA_TESTS_PINGPONG_KERNELS_H
#define TESSERA_TESTS_PINGPONG_KERNELS_H

#include <tessera/tessera.h>

#ifdef __cplusplus
extern "C" {
#endif

/* C = A B; at most max_blocks blocks (at most 4), so that blocks loop over several tasks. With a
 * workspace (ts_test_pingpong_workspace_bytes() long), split-K where the tiles leave room for it,
 * as ts_gemm_ex chooses. */
ts_status ts_test_pingpong_gemm(int m, int n, int k, const void *a, long long lda, const void *b, long long ldb,
                                float *c, long long ldc, int max_blocks, void *workspace);
size_t ts_test_pingpong_workspace_bytes(void);

/* ts_attention_forward at D = 64 (bf16 or fp16) on the ping-pong schedule, on at most max_blocks
 * blocks (at least 1), so that blocks loop over several tasks; TS_ERROR_UNSUPPORTED for D = 128. */
ts_status ts_test_pingpong_attention(const ts_attention_shape *shape, ts_dtype dtype, const void *q,
                                     const long long q_strides[3], const void *k, const long long k_strides[3],
                                     const void *v, const long long v_strides[3], void *o,
                                     const long long o_strides[3], float *lse, float scale, int causal,
                                     int max_blocks);

/* ts_based_forward in CDNA's configuration (one consumer warpgroup of 16 columns, one stage) on the
 * ping-pong schedule, on at most max_blocks blocks (at least 1). */
ts_status ts_test_pingpong_based(const ts_based_shape *shape, const void *q, const long long q_strides[3],
                                 const void *k, const long long k_strides[3], const void *v,
                                 const long long v_strides[3], void *o, const long long o_strides[3], float scale,
                                 int normalize, int max_blocks);

#ifdef __cplusplus
}
#endif

#endif
