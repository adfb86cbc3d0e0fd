/* The skinny GEMM's build settings (kernels/gemm/gemm_skinny_kernels.h), for the sources of each
 * tile width: TS_GEMM_SKINNY, defined by the source, is the width, 16 or 64 (the tile's
 * TS_GEMM_BN), and the pieces leave their results in the workspace or the epilogue stores them to
 * C transposed, never through the staged store. Included instead of gemm_common.h. */
#ifndef TESSERA_KERNELS_GEMM_SKINNY_H
#define TESSERA_KERNELS_GEMM_SKINNY_H

#if !defined(TS_GEMM_SKINNY) || (TS_GEMM_SKINNY != 16 && TS_GEMM_SKINNY != 64)
#error "define TS_GEMM_SKINNY, the tile width: 16 or 64"
#endif
/* The tile and the store are the skinny kernels' own, whatever a build sets for gemm.c's kernels
 * (its A/B options). */
#undef TS_GEMM_BN
#undef TS_GEMM_BK
#undef TS_GEMM_WG_TILES
#undef TS_GEMM_STAGED_STORE
#undef TS_GEMM_WARP_STORE
#undef TS_GEMM_DEFER_STORE
#define TS_GEMM_BN TS_GEMM_SKINNY
#define TS_GEMM_BK 64
#define TS_GEMM_WG_TILES 1
#define TS_GEMM_STAGED_STORE 0
#define TS_GEMM_WARP_STORE 0
#define TS_GEMM_DEFER_STORE 0
#include "kernels/gemm/gemm_common.h"

/* This width's names: ts_gemm_skinny16_run, ts_gemm_skinny16_reduce, ... */
#define TS_GEMM_SKINNY_FN(name) TS_CAT(TS_CAT(ts_gemm_skinny, TS_GEMM_SKINNY), TS_CAT(_, name))

/* The reduction kernel of this width (gemm_skinny_reduce.h): gemm_split_reduce.c's, for its tile. */
TS_EXTERN_C ts_status TS_GEMM_SKINNY_FN(reduce_run)(const ts_gemm_params *params, ts_stream stream);

#endif
