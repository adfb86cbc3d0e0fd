/* Attention backward with CDNA's tiles (one consumer, one stage, 32-row stages at D = 128) on the
 * ping-pong schedule CDNA runs, so that the host (and any GPU) runs that configuration in the
 * tests. The arguments are ts_attention_backward's, plus a bound on the grid. */
#ifndef TESSERA_TESTS_ATTENTION_BACKWARD_PINGPONG_KERNELS_H
#define TESSERA_TESTS_ATTENTION_BACKWARD_PINGPONG_KERNELS_H

#include <tessera/tessera.h>

#ifdef __cplusplus
extern "C" {
#endif

/* On at most max_blocks blocks (at least 1) a kernel, so that blocks loop over several tasks. */
ts_status ts_test_pingpong_attention_backward(const ts_attention_shape *shape, ts_dtype dtype, const void *q,
                                              const long long q_strides[3], const void *k,
                                              const long long k_strides[3], const void *v,
                                              const long long v_strides[3], const void *o,
                                              const long long o_strides[3], const void *d_o,
                                              const long long do_strides[3], const float *lse, void *dq,
                                              const long long dq_strides[3], void *dk, const long long dk_strides[3],
                                              void *dv, const long long dv_strides[3], float scale, int causal,
                                              void *workspace, size_t workspace_bytes, int max_blocks);

#ifdef __cplusplus
}
#endif

#endif
