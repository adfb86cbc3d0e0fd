/* The GEMV family's launch numbers per architecture (one section each): decoding's products of at
 * most TS_GEMV_MAX_M rows (kernels/gemv/gemv.c, docs/gemm.md "Decode: GEMV"). The launch numbers
 * are the design's starting points, to be settled on a GPU with tessera-bench gemm-decode and A/B
 * runs of revisions (scripts/gpu-ab.sh); the runs that measured them: docs/gemm.md ("Where the
 * tuning numbers come from").
 *
 *   TS_GEMV_NT_ROWS        weights N x K: weight rows a block takes (each lane's 16 bytes of weight
 *                          serve every row of A, so this is the reuse of A's loads)
 *   TS_GEMV_NT_WARPS       ... warps a block that split K between them (fewer where K is short)
 *   TS_GEMV_NT_BLOCKS      ... blocks an SM the kernels are built for (TS_KERNEL_RESIDENT's bound,
 *                          which caps the registers a lane may use)
 *   TS_GEMV_NN_WARPS       weights K x N: warps a block that split K between them
 *   TS_GEMV_NN_WARPS_M8    ... the same for the 8-row instances, whose 64 accumulators a lane
 *                          beside its 8 + 8 chunks of 16 bytes do not fit the registers a lane
 *                          has in blocks of TS_GEMV_NN_WARPS (128 at 16 warps on sm_90a: spills)
 *   TS_GEMV_NN_BLOCKS      ... blocks an SM the kernels are built for
 *   TS_GEMV_NN_BAND_LANES  ... the widest band of columns a block takes, in lanes of 8 columns
 *                          (at most TS_WARP_LANES); the launcher halves it, down to 8 columns,
 *                          until the blocks number TS_GEMV_NN_BAND_FILL per SM
 *   TS_GEMV_NN_BAND_FILL   ... blocks an SM the band width aims for
 *   TS_GEMV_SKINNY_FROM_N  from this N on, ts_gemm (kernels/gemm/gemm.c) hands products of 5 to 8
 *                          rows with weights N x K to the 16-wide skinny kernels instead, which
 *                          split K (in the caller's workspace or the library's scratch), faster
 *                          there with split-K; at N = 1024 GEMV stays ahead
 *   TS_GEMV_SKINNY4_FROM_WEIGHTS  ... and products of 3 or 4 rows where the weights also hold this
 *                          many elements (N x K) or more, where the 4-row GEMV falls short of the
 *                          DRAM rate and the skinny kernels' time does not depend on M up to 16 */
#ifndef TESSERA_KERNELS_GEMV_TUNING_H
#define TESSERA_KERNELS_GEMV_TUNING_H

#include "backends/backend.h"

#if defined(TS_ARCH_SM90A)
/* 4 rows x 8 warps x 32 lanes: 16 KiB of weight in flight a block step; 64 columns of K x N are a
 * 128-byte line a row, in 16 warps as the issue asks (docs/gemm.md). */
#define TS_GEMV_NT_ROWS 4
#define TS_GEMV_NT_WARPS 8
#define TS_GEMV_NT_BLOCKS 2
#define TS_GEMV_NN_WARPS 16
#define TS_GEMV_NN_WARPS_M8 8
#define TS_GEMV_NN_BLOCKS 1
#define TS_GEMV_NN_BAND_LANES 8
#define TS_GEMV_NN_BAND_FILL 1
#define TS_GEMV_SKINNY_FROM_N 4096
#define TS_GEMV_SKINNY4_FROM_WEIGHTS (4096LL * 8192)
#elif defined(TS_ARCH_CDNA)
/* Waves of 64 lanes: the same 256 lanes a block for weights N x K as Hopper's 8 warps; 8 waves for
 * K x N. */
#define TS_GEMV_NT_ROWS 4
#define TS_GEMV_NT_WARPS 4
#define TS_GEMV_NT_BLOCKS 2
#define TS_GEMV_NN_WARPS 8
#define TS_GEMV_NN_WARPS_M8 8
#define TS_GEMV_NN_BLOCKS 1
#define TS_GEMV_NN_BAND_LANES 8
#define TS_GEMV_NN_BAND_FILL 1
/* Not measured on CDNA: every product of at most 8 rows stays on GEMV. */
#define TS_GEMV_SKINNY_FROM_N 0x7fffffff
#define TS_GEMV_SKINNY4_FROM_WEIGHTS 0x7fffffffffffffffLL
#elif defined(TS_ARCH_HOST)
/* A warp is one lane, so a band is one chunk of 8 columns; as many warps as Hopper, so that the
 * tests split K the same way (a warp is a thread). */
#define TS_GEMV_NT_ROWS 4
#define TS_GEMV_NT_WARPS 8
#define TS_GEMV_NT_BLOCKS 1
#define TS_GEMV_NN_WARPS 16
#define TS_GEMV_NN_WARPS_M8 16
#define TS_GEMV_NN_BLOCKS 1
#define TS_GEMV_NN_BAND_LANES 1
#define TS_GEMV_NN_BAND_FILL 1
/* As sm_90a, so that the tests take both sides of the choices on the host. */
#define TS_GEMV_SKINNY_FROM_N 4096
#define TS_GEMV_SKINNY4_FROM_WEIGHTS (4096LL * 8192)
#else
#error "kernels/gemv/tuning.h: no section for this architecture"
#endif

#endif
