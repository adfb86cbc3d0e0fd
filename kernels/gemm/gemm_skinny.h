/* gemm_common.h for the skinny GEMM's sources (kernels/gemm/gemm_skinny_kernels.h) of one tile
 * width: TS_GEMM_SKINNY, defined by the source, is the width, 16, 64 or 128 (the tile's TS_GEMM_BN;
 * the rest of the tile is in kernels/gemm/tuning.h). Included instead of gemm_common.h. */
#ifndef TESSERA_KERNELS_GEMM_SKINNY_H
#define TESSERA_KERNELS_GEMM_SKINNY_H

#if !defined(TS_GEMM_SKINNY) || (TS_GEMM_SKINNY != 16 && TS_GEMM_SKINNY != 64 && TS_GEMM_SKINNY != 128)
#error "define TS_GEMM_SKINNY, the tile width: 16, 64 or 128"
#endif
/* Clusters of one: the blocks share no stage operand worth a multicast (activations of a few rows
 * against the weights each block reads alone), and split-K's pieces of a tile meet in clusters
 * made at launch instead (gemm_skinny_kernels.h). */
#define TS_GEMM_CLUSTER 1
#include "kernels/gemm/gemm_common.h"

/* The most rows of a product this width takes (gemm.c picks which products of more than 64 rows
 * come to the 64- and 128-wide tiles; kernels/gemm/tuning.h). */
#if TS_GEMM_SKINNY == 16
#define TS_GEMM_SKINNY_MAX_M 16
#elif TS_GEMM_SKINNY == 64
#define TS_GEMM_SKINNY_MAX_M TS_GEMM_SKINNY64_MAX_M
#else
#define TS_GEMM_SKINNY_MAX_M TS_GEMM_SKINNY128_MAX_M
#endif

/* This width's names: ts_gemm_skinny16_run, ts_gemm_skinny16_reduce, ... */
#define TS_GEMM_SKINNY_FN(name) TS_CAT(TS_CAT(ts_gemm_skinny, TS_GEMM_SKINNY), TS_CAT(_, name))

/* The reduction kernel of this width (gemm_skinny_reduce.h): gemm_split_reduce.c's, for its tile. */
TS_EXTERN_C ts_status TS_GEMM_SKINNY_FN(reduce_run)(const ts_gemm_params *params, ts_stream stream);

#endif
