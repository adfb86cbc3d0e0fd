/* The attention-backward kernels of kernels/attention_backward with CDNA's tuning table, on the
 * ping-pong schedule (CDNA's: no producer warpgroup, the consumers take turns loading); see
 * attention_backward_pingpong_kernels.h. */
#define TS_PC_SCHEDULE TS_PC_PINGPONG
#define TS_ATTN_BWD_TUNING_CDNA 1
#include "kernels/attention_backward/attention_backward_common.h"
#include "tests/kernels/attention_backward_pingpong_kernels.h"

#define TS_ATTN_BWD_PREFIX ts_test_pp_attn_bwd_
#define TS_ATTN_BWD_KIND_DT bf16
#include "kernels/attention_backward/attention_backward_instances.h"
#undef TS_ATTN_BWD_KIND_DT
#define TS_ATTN_BWD_KIND_DT fp16
#include "kernels/attention_backward/attention_backward_instances.h"
#undef TS_ATTN_BWD_KIND_DT

typedef ts_status (*pp_dkdv_launcher)(const ts_attn_bwd_dkdv_params *, int, ts_stream);
typedef ts_status (*pp_dq_launcher)(const ts_attn_bwd_dq_params *, int, ts_stream);

TS_EXTERN_C ts_status ts_test_pingpong_attention_backward(
    const ts_attention_shape *shape, ts_dtype dtype, const void *q, const long long q_strides[3], const void *k,
    const long long k_strides[3], const void *v, const long long v_strides[3], const void *o,
    const long long o_strides[3], const void *d_o, const long long do_strides[3], const float *lse, void *dq,
    const long long dq_strides[3], void *dk, const long long dk_strides[3], void *dv, const long long dv_strides[3],
    float scale, int causal, void *workspace, size_t workspace_bytes, int max_blocks) {
    static const ts_attn_bwd_tiles tiles[2] = {
        {TS_ATTN_BWD_BLOCK_OF(64), TS_ATTN_BWD_BQ_OF(64), TS_ATTN_BWD_BK_OF(64)},
        {TS_ATTN_BWD_BLOCK_OF(128), TS_ATTN_BWD_BQ_OF(128), TS_ATTN_BWD_BK_OF(128)},
    };
    ts_attn_bwd_pre_params pre;
    ts_attn_bwd_dkdv_params kv;
    ts_attn_bwd_dq_params qp;
    ts_status s = ts_attn_bwd_prepare(shape, dtype, q, q_strides, k, k_strides, v, v_strides, o, o_strides, d_o,
                                      do_strides, lse, dq, dq_strides, dk, dk_strides, dv, dv_strides, scale, causal,
                                      TS_ATTENTION_DETERMINISTIC, workspace, workspace_bytes, tiles, &pre, &kv, &qp);
    if (s != TS_SUCCESS) return s;
    if (max_blocks < 1) return TS_ERROR_INVALID_VALUE;
    static const pp_dkdv_launcher dkdv[2][2] = {
        {ts_test_pp_attn_bwd_dkdv_bf16_d64_launch, ts_test_pp_attn_bwd_dkdv_bf16_d128_launch},
        {ts_test_pp_attn_bwd_dkdv_fp16_d64_launch, ts_test_pp_attn_bwd_dkdv_fp16_d128_launch},
    };
    static const pp_dq_launcher dqs[2][2] = {
        {ts_test_pp_attn_bwd_dq_bf16_d64_launch, ts_test_pp_attn_bwd_dq_bf16_d128_launch},
        {ts_test_pp_attn_bwd_dq_fp16_d64_launch, ts_test_pp_attn_bwd_dq_fp16_d128_launch},
    };
    const int fp16 = dtype == TS_DTYPE_FP16, wide = shape->head_dim == 128;
    const int kv_grid = kv.tasks < max_blocks ? (int)kv.tasks : max_blocks;
    const int q_grid = qp.tasks < max_blocks ? (int)qp.tasks : max_blocks;
    if ((s = ts_attn_bwd_preprocess_launch(&pre, NULL)) != TS_SUCCESS) return s;
    if ((s = dkdv[fp16][wide](&kv, kv_grid, NULL)) != TS_SUCCESS) return s;
    return dqs[fp16][wide](&qp, q_grid, NULL);
}
