/* Split-K's second kernel (gemm_common.h): the pieces' partial tiles of C added in order, then
 * alpha, beta and C's dtype. A source of its own, apart from the matrix kernels of gemm.c, which
 * scripts/gates.sh holds to HGMMA, TMA and register budgets kernel by kernel. */
#include "kernels/gemm/gemm_common.h"

TS_GEMM_SPLIT_REDUCE_KERNEL(ts_gemm_split_reduce)

TS_EXTERN_C ts_status ts_gemm_split_reduce_run(const ts_gemm_params *params, ts_stream stream) {
    return ts_gemm_split_reduce_launch(params, stream);
}
