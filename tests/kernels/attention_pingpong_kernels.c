/* The D = 64 attention of kernels/attention on the ping-pong schedule (CDNA's: no producer
 * warpgroup, the consumers take turns loading); see pingpong_kernels.h. The consumers and keys a
 * stage are the library's (kernels/attention/tuning.h), so ts_attn_prepare's parameters fit the
 * kernel; D = 64 runs without the overlap, which needs the warp-specialized schedule. */
#define TS_PC_SCHEDULE TS_PC_PINGPONG
#include "kernels/attention/attention_common.h"
#include "tests/kernels/pingpong_kernels.h"

#if TS_ATTN_OVERLAP_D64
#error "the D = 64 kernel overlaps its products here: it cannot run on the ping-pong schedule"
#endif

#define TS_ATTN_NAME ts_test_pp_attn_bf16_d64
#define TS_ATTN_D 64
#define TS_ATTN_DT bf16
#include "kernels/attention/attention_variant.h"

#define TS_ATTN_NAME ts_test_pp_attn_fp16_d64
#define TS_ATTN_D 64
#define TS_ATTN_DT fp16
#include "kernels/attention/attention_variant.h"

TS_EXTERN_C ts_status ts_test_pingpong_attention(const ts_attention_shape *shape, ts_dtype dtype, const void *q,
                                                 const long long q_strides[3], const void *k,
                                                 const long long k_strides[3], const void *v,
                                                 const long long v_strides[3], void *o, const long long o_strides[3],
                                                 float *lse, float scale, int causal, int max_blocks) {
    ts_attn_params params;
    int long_keys = 0;
    const ts_status s = ts_attn_prepare(shape, dtype, q, q_strides, k, k_strides, v, v_strides, o, o_strides, lse,
                                        scale, causal, &params, &long_keys);
    if (s != TS_SUCCESS) return s;
    if (shape->head_dim != 64) return TS_ERROR_UNSUPPORTED;
    if (max_blocks < 1) return TS_ERROR_INVALID_VALUE;
    const int grid = params.tasks < max_blocks ? (int)params.tasks : max_blocks;
    ts_attn_plan_grid(&params, grid);
    return (dtype == TS_DTYPE_FP16 ? ts_test_pp_attn_fp16_d64_launch : ts_test_pp_attn_bf16_d64_launch)(&params, grid,
                                                                                                       NULL);
}
