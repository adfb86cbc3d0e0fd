/* The skinny GEMM's reduction (kernels/gemm/gemm_skinny_kernels.h) at one tile width: split-K's
 * second kernel (gemm_common.h) for that tile, storing the transposed product's pieces to C. Its
 * sources (gemm_skinny16_reduce.c, gemm_skinny64_reduce.c) are apart from the kernels' for the same
 * reason as gemm_split_reduce.c. */
#include "kernels/gemm/gemm_skinny.h"

/* The kernel's name expanded before TS_GEMM_SPLIT_REDUCE_KERNEL pastes onto it. */
#define TS_GEMM_SKINNY_REDUCE_KERNEL(name) TS_GEMM_SPLIT_REDUCE_KERNEL(name)
TS_GEMM_SKINNY_REDUCE_KERNEL(TS_GEMM_SKINNY_FN(reduce))

TS_EXTERN_C ts_status TS_GEMM_SKINNY_FN(reduce_run)(const ts_gemm_params *params, ts_stream stream) {
    return TS_CAT(TS_GEMM_SKINNY_FN(reduce), _launch)(params, stream);
}
