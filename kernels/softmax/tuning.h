/* kernels/softmax/tuning.h: the row softmax's launch numbers per architecture (one section each): the
 * blocks an SM each instance (softmax.c) is built for (TS_KERNEL_RESIDENT's bound, which sets the
 * registers a lane may use: the highest that compiles without spills, or the one measured best), and
 * the stream instances' block shapes. Why: docs/memory-bound.md; measurements: docs/memory-bound.md
 * ("Where the tuning numbers come from"). */
#ifndef TESSERA_KERNELS_SOFTMAX_TUNING_H
#define TESSERA_KERNELS_SOFTMAX_TUNING_H

#include "backends/backend.h"

#if defined(TS_ARCH_SM90A) || defined(TS_ARCH_HOST)
/* Short and whole instances: 64 registers. */
#define TS_SOFTMAX_SHORT_MIN_BLOCKS 4
/* Long-row instances: 64 registers at 32, the narrow ones 56 at 32, the middle ones 66 at 28. */
#define TS_SOFTMAX_LONG_ROW_BLOCKS 32
#define TS_SOFTMAX_LONG_ROW_NARROW_BLOCKS 32
#define TS_SOFTMAX_LONG_ROW_MID_BLOCKS 28
/* Rows instances: rows of 256 and 512 at 32; 768 (six chunks a lane) at 24, where 32 spilled, and
 * 1280, 1536, 1792 with them (64-77 registers); quad rows at 20, where 24 spilled. */
#define TS_SOFTMAX_ROWS_BLOCKS 32
#define TS_SOFTMAX_ROWS768_BLOCKS 24
#define TS_SOFTMAX_ROWS1280_BLOCKS 24
#define TS_SOFTMAX_ROWS1536_BLOCKS 24
#define TS_SOFTMAX_ROWS1792_BLOCKS 24
#define TS_SOFTMAX_ROWS_QUAD_BLOCKS 20
/* Stream instances (rows past what a block holds in registers): blocks of 16 warps, built for two an
 * SM (64 registers); staged, as many as their stages fit up to 4, of 8 warps where more than two
 * fit. TS_SOFTMAX_STAGED: the row
 * is copied into shared memory by the backend's bulk copy (ts_copy_async_g2s). */
#define TS_SOFTMAX_STREAM_WARPS 16
#define TS_SOFTMAX_STREAM_BLOCKS_PER_SM 4
#define TS_SOFTMAX_STAGED 1
#elif defined(TS_ARCH_CDNA)
/* sm_90a's numbers where they apply, not measured on an AMD GPU (the HIP build checks: no scratch). */
#define TS_SOFTMAX_SHORT_MIN_BLOCKS 4
#define TS_SOFTMAX_LONG_ROW_BLOCKS 32
#define TS_SOFTMAX_LONG_ROW_NARROW_BLOCKS 32
#define TS_SOFTMAX_LONG_ROW_MID_BLOCKS 28
#define TS_SOFTMAX_ROWS_BLOCKS 32
#define TS_SOFTMAX_ROWS768_BLOCKS 24
#define TS_SOFTMAX_ROWS1280_BLOCKS 24
#define TS_SOFTMAX_ROWS1536_BLOCKS 24
#define TS_SOFTMAX_ROWS1792_BLOCKS 24
#define TS_SOFTMAX_ROWS_QUAD_BLOCKS 20
/* Stream blocks of 8 waves (66-71 VGPRs a lane), two an SM; not staged: ts_copy_async_g2s is a
 * wave's copy loop on CDNA, so every row is read from global memory twice. */
#define TS_SOFTMAX_STREAM_WARPS 8
#define TS_SOFTMAX_STREAM_BLOCKS_PER_SM 2
#define TS_SOFTMAX_STAGED 0
#else
#error "kernels/softmax/tuning.h: no section for this architecture"
#endif

#endif
