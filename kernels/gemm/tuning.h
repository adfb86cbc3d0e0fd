/* The GEMM family's launch numbers per architecture (one section each); gemm_common.h derives the
 * rest (block rows, stage count, load warps). Why each number: docs/writing-a-kernel.md ("The GEMM,
 * hook by hook"); the runs that measured them: docs/gemm.md ("Where the tuning numbers come from").
 *
 *   TS_GEMM_LARGE_BN, _BK, _WG_TILES   gemm.c's block tile: BN columns of C, K in steps of BK,
 *                                      each consumer warpgroup owning WG_TILES x 64 rows
 *   TS_GEMM_LARGE_STAGED_STORE         1: gemm.c's kernels store 16-bit C through shared memory
 *                                      and the copy engine, deferred into the next task
 *   TS_GEMM_SKINNY_BK, _WG_TILES       the skinny kernels' tile (its width is TS_GEMM_SKINNY)
 *   TS_GEMM_SKINNY64_MAX_M, 128_MAX_M  the most rows of a product on the 64- and 128-wide tiles
 *   TS_GEMM_CONSUMERS                  consumer warpgroups a block
 *   TS_GEMM_MAX_STAGES                 the ring holds as many stages as fit, at most this many
 *   TS_GEMM_OUT_COLS                   columns of a warp's 16 x OUT_COLS staged-store tile (only
 *                                      with the staged store)
 *   TS_GEMM_CLUSTER_BLOCKS             blocks per cluster (tiles adjacent in M sharing B)
 *   TS_GEMM_GROUP_M                    tile rows the scheduler walks down before moving right
 *   TS_GEMM_SPLIT_MIN_ITERS, _PIECES   split-K: k tiles a piece, pieces a tile, at least
 *   TS_GEMM_SPLIT_MIN_PIECES_FULL      pieces a tile, at least, where M fills gemm.c's tile rows
 *   TS_GEMM_PRODUCER_REGS, _CONSUMER_REGS   register budgets of the warp roles (setmaxnreg)
 *   TS_GEMM_SPLIT_REDUCE_WARPS, _BLOCKS     split-K's reduction: warps a block, blocks an SM */
#ifndef TESSERA_KERNELS_GEMM_TUNING_H
#define TESSERA_KERNELS_GEMM_TUNING_H

#include "backends/backend.h"

#if defined(TS_ARCH_SM90A) || defined(TS_ARCH_HOST)
/* 128 x 256 x 64 in four stages (192 KiB) beside two 16 x 64 output tiles a consumer warp (32 KiB). */
#define TS_GEMM_LARGE_BN 256
#define TS_GEMM_LARGE_BK 64
#define TS_GEMM_LARGE_WG_TILES 1
#define TS_GEMM_LARGE_STAGED_STORE 1
#define TS_GEMM_OUT_COLS 64
#define TS_GEMM_MAX_STAGES 8
/* Two blocks share each B stage by multicast (docs/writing-a-kernel.md, "Clusters"; clusters of
 * four measured slower); the host runs the same clusters, so that CI tests their protocol. */
#define TS_GEMM_CLUSTER_BLOCKS 2
/* A cluster's two 128 x 256 tiles of whole rows do 8.4 MFLOP a k tile against 32 KiB of B: on half
 * the clusters or fewer their products, not the weights' loads, bound them, and two pieces a tile
 * double the SMs at work. Tiles of fewer rows are bound by the loads, where two pieces measured
 * slower. */
#define TS_GEMM_SPLIT_MIN_PIECES_FULL 2
/* The 128-wide skinny tiles (128 x 128 x 64, seven stages) take products of 65-128 rows that the
 * 64-wide ones would cut into fewer than four pieces: one tile across M reads the weights once,
 * without the large tiles' partial tiles; two tiles across M would read them twice. Their split-K
 * in clusters from the same four pieces as the others (two measured slower). */
#define TS_GEMM_SKINNY128_MAX_M 128
#elif defined(TS_ARCH_CDNA)
/* 64 KiB of LDS: 128 x 64 x 64 in two stages, C stored from registers. */
#define TS_GEMM_LARGE_BN 64
#define TS_GEMM_LARGE_BK 64
#define TS_GEMM_LARGE_WG_TILES 1
#define TS_GEMM_LARGE_STAGED_STORE 0
#define TS_GEMM_MAX_STAGES 2
#define TS_GEMM_CLUSTER_BLOCKS 1
/* Not measured on CDNA: the pieces of every tile shape. */
#define TS_GEMM_SPLIT_MIN_PIECES_FULL TS_GEMM_SPLIT_MIN_PIECES
/* A 128 x 128 x 64 stage is half the LDS: one stage, no overlap of loads and products; the
 * 128-wide skinny tiles take no products here. */
#define TS_GEMM_SKINNY128_MAX_M 0
#else
#error "no GEMM tuning for this architecture"
#endif

/* Products of 65 to TS_GEMM_SKINNY64_MAX_M rows run transposed on the 64-wide skinny tiles (several
 * across M) where gemm.c's 128 x 256 tiles would be at most an eighth of the wave, and the skinny
 * tiles few enough to be split in four: the large tiles would be split into 8 or more pieces whose
 * partial tiles, many times the size of C, cost more than the narrower tiles' products. Split-K in
 * clusters (gemm_skinny_kernels.h) from TS_GEMM_CLUSTER_SPLIT_MIN_PIECES pieces a tile on: two or
 * three in clusters measured slower than four through the workspace at M <= 64 (docs/gemm.md). */
#define TS_GEMM_SKINNY64_MAX_M 256
#define TS_GEMM_CLUSTER_SPLIT_MIN_PIECES 4

/* Every architecture. */
#define TS_GEMM_SKINNY_BK 64
#define TS_GEMM_SKINNY_WG_TILES 1
#define TS_GEMM_CONSUMERS 2
#define TS_GEMM_GROUP_M 8
/* Two pieces a tile were slower than whole tiles, four and more faster. */
#define TS_GEMM_SPLIT_MIN_ITERS 4
#define TS_GEMM_SPLIT_MIN_PIECES 4
#define TS_GEMM_PRODUCER_REGS 40
#define TS_GEMM_CONSUMER_REGS 232
#define TS_GEMM_SPLIT_REDUCE_WARPS 8
#define TS_GEMM_SPLIT_REDUCE_BLOCKS 4 /* to keep registers low and loads in flight */

/* The tiles' rows, derived: consumer warpgroups of 64-row tiles (gemm.c's and the skinny
 * kernels', whose rows run down N). */
#define TS_GEMM_LARGE_BM (64 * TS_GEMM_LARGE_WG_TILES * TS_GEMM_CONSUMERS)
#define TS_GEMM_SKINNY_BM (64 * TS_GEMM_SKINNY_WG_TILES * TS_GEMM_CONSUMERS)

#endif
