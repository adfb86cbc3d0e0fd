/* The skinny GEMM's build settings (kernels/gemm/gemm_skinny.c), for its two sources: the
 * transposed product's tile is 128 x TS_GEMM_BN with TS_GEMM_BN = 64 (gemm_common.h), and its
 * pieces leave their results in the workspace, never through the staged store. Included instead
 * of gemm_common.h. */
#ifndef TESSERA_KERNELS_GEMM_SKINNY_H
#define TESSERA_KERNELS_GEMM_SKINNY_H

#define TS_GEMM_SKINNY 1
#define TS_GEMM_STAGED_STORE 0
#define TS_GEMM_WARP_STORE 0
#include "kernels/gemm/gemm_common.h"

/* The reduction kernel of kernels/gemm/gemm_skinny_reduce.c: gemm_split_reduce.c's, for this tile. */
TS_EXTERN_C ts_status ts_gemm_skinny_reduce_run(const ts_gemm_params *params, ts_stream stream);

#endif
