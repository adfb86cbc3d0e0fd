/* The Based kernel of kernels/based in CDNA's configuration (kernels/based/tuning.h: one consumer
 * warpgroup of 16 value columns, one stage, four tasks a head) on the ping-pong schedule (no
 * producer; the consumer loads), so that the host tests run what gfx942 and gfx90a build; see
 * pingpong_kernels.h. */
#define TS_PC_SCHEDULE TS_PC_PINGPONG
#define TS_BASED_TUNING_GIVEN 1
#define TS_BASED_CONSUMERS 1
#define TS_BASED_COLS 16
#define TS_BASED_STAGES 1
#include "kernels/based/based_common.h"
#include "tests/kernels/pingpong_kernels.h"

#define TS_BASED_NAME ts_test_pp_based_bf16
#include "kernels/based/based_variant.h"

TS_EXTERN_C ts_status ts_test_pingpong_based(const ts_based_shape *shape, const void *q, const long long q_strides[3],
                                             const void *k, const long long k_strides[3], const void *v,
                                             const long long v_strides[3], void *o, const long long o_strides[3],
                                             float scale, int normalize, int max_blocks) {
    ts_based_params params;
    const ts_status s = ts_based_prepare(shape, TS_DTYPE_BF16, q, q_strides, k, k_strides, v, v_strides, o, o_strides,
                                         scale, normalize, TS_BASED_CONSUMERS, TS_BASED_COLS, &params);
    if (s != TS_SUCCESS) return s;
    if (max_blocks < 1) return TS_ERROR_INVALID_VALUE;
    const int grid = params.tasks < max_blocks ? (int)params.tasks : max_blocks;
    return ts_test_pp_based_bf16_launch(&params, grid, NULL);
}
