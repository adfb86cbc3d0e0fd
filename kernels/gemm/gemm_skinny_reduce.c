/* The skinny GEMM's reduction (kernels/gemm/gemm_skinny.c): split-K's second kernel
 * (gemm_common.h) for the skinny tile, storing the transposed product's pieces to C. A source of
 * its own for the same reason as gemm_split_reduce.c. */
#include "kernels/gemm/gemm_skinny.h"

TS_GEMM_SPLIT_REDUCE_KERNEL(ts_gemm_skinny_reduce)

TS_EXTERN_C ts_status ts_gemm_skinny_reduce_run(const ts_gemm_params *params, ts_stream stream) {
    return ts_gemm_skinny_reduce_launch(params, stream);
}
