/* The GEMM variant of kernels/gemm on the ping-pong schedule; see pingpong_kernels.h. */
#define TS_PC_SCHEDULE TS_PC_PINGPONG
/* The ping-pong schedule runs clusters of one block (templates/producer_consumer.h). */
#define TS_GEMM_CLUSTER 1
#include "kernels/gemm/gemm_common.h"
#include "tests/kernels/pingpong_kernels.h"

#define TS_GEMM_NAME ts_test_pp_gemm
#define TS_GEMM_A_TILE TS_GEMM_A_ST(bf16, 0)
#define TS_GEMM_B_TILE TS_GEMM_B_ST(bf16, 0)
#define TS_GEMM_TRANS_A 0
#define TS_GEMM_TRANS_B 0
#define TS_GEMM_MMA ts_wg_mma_AB_async
#define TS_GEMM_SPLIT_K 0
#include "kernels/gemm/gemm_variant.h"
#undef TS_GEMM_SPLIT_K

/* The same for split-K schedules, as gemm.c builds its split instances (no deferred store), and
 * split-K's second kernel. */
#define TS_GEMM_NAME ts_test_pp_gemm_split
#define TS_GEMM_A_TILE TS_GEMM_A_ST(bf16, 0)
#define TS_GEMM_B_TILE TS_GEMM_B_ST(bf16, 0)
#define TS_GEMM_TRANS_A 0
#define TS_GEMM_TRANS_B 0
#define TS_GEMM_MMA ts_wg_mma_AB_async
#define TS_GEMM_SPLIT_K 1
#include "kernels/gemm/gemm_variant.h"
#undef TS_GEMM_SPLIT_K

TS_GEMM_SPLIT_REDUCE_KERNEL(ts_test_pp_split_reduce)

TS_EXTERN_C ts_status ts_test_pingpong_gemm(int m, int n, int k, const void *a, long long lda, const void *b,
                                            long long ldb, float *c, long long ldc, int max_blocks, void *workspace) {
    ts_gemm_params params;
    const ts_status s = ts_gemm_make_params(&params, TS_NO_TRANS, TS_NO_TRANS, m, n, k, 1.0f, a, TS_DTYPE_BF16, lda,
                                            b, ldb, 0.0f, c, TS_DTYPE_F32, ldc);
    if (s != TS_SUCCESS) return s;
    if (max_blocks < 1 || max_blocks > 4) return TS_ERROR_INVALID_VALUE;
    ts_gemm_workspace ws = {workspace, workspace ? ts_gemm_workspace_bytes(max_blocks) : 0, 0, 0};
    const ts_split_sched split = ts_split_make(params.sched.tasks, params.k_iters, max_blocks / TS_GEMM_CLUSTER,
                                               TS_GEMM_SPLIT_MIN_ITERS, TS_GEMM_SPLIT_MIN_PIECES);
    const int pieces = ts_gemm_take_split(&params, &ws, &split, max_blocks, NULL);
    const long long tasks = ts_split_tasks(&params.split);
    const long long grid = tasks < max_blocks ? tasks : max_blocks;
    if (!pieces) return ts_test_pp_gemm_launch(&params, (int)grid, NULL);
    const ts_status st = ts_test_pp_gemm_split_launch(&params, (int)grid, NULL);
    return st == TS_SUCCESS ? ts_test_pp_split_reduce_launch(&params, NULL) : st;
}

TS_EXTERN_C size_t ts_test_pingpong_workspace_bytes(void) { return ts_gemm_workspace_bytes(4); }
