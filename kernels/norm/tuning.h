/* kernels/norm/tuning.h: the norms' launch numbers per architecture (one section each): the blocks
 * an SM each instance (norm.c) is built for, TS_KERNEL_RESIDENT's bound, which sets the registers
 * a lane may use. Each is the highest that compiles without spills, or the one measured best.
 * Why: docs/memory-bound.md ("Occupancy"); measurements: docs/memory-bound.md ("Where the tuning
 * numbers come from"). */
#ifndef TESSERA_KERNELS_NORM_TUNING_H
#define TESSERA_KERNELS_NORM_TUNING_H

#include "backends/backend.h"

#if defined(TS_ARCH_SM90A) || defined(TS_ARCH_HOST)
/* Short and whole instances: 16-bit rows at 64 registers; fp32 rows,
 * twice the registers, at 102 / 86 (at four the short one spilled). */
#define TS_NORM_SHORT_MIN_BLOCKS 4
#define TS_NORM_F32_SHORT_MIN_BLOCKS 2
#define TS_NORM_F32_WHOLE_MIN_BLOCKS 2
/* One-slice rows with a residual (whole-row and RMSNorm rows' instances): 96 registers. */
#define TS_NORM_WHOLE_ROW_BLOCKS 20
/* Rows instances, by row length: 256 and 512 (and fp32 256) 96 registers, 768 128, 1280 127,
 * 1536 167, 1792 168, quad rows (384, 640, 896) 96-128, fp32 512 at 12 (16 spilled). */
#define TS_NORM_ROWS_BLOCKS 20
#define TS_NORM_ROWS768_BLOCKS 16
#define TS_NORM_ROWS1280_BLOCKS 16
#define TS_NORM_ROWS1536_BLOCKS 12
#define TS_NORM_ROWS1792_BLOCKS 12
#define TS_NORM_ROWS_QUAD_BLOCKS 16
#define TS_NORM_F32_ROWS_BLOCKS 20
#define TS_NORM_F32_ROWS512_BLOCKS 12
/* Long-row instances (16-bit rows of one to two slices, a row a warp): 96 registers at 20 (24
 * spilled), the narrow ones 80 at 24, the middle ones 92-94 at 20 (24 spilled). */
#define TS_NORM_LONG_ROW_BLOCKS 20
#define TS_NORM_LONG_ROW_NARROW_BLOCKS 24
#define TS_NORM_LONG_ROW_MID_BLOCKS 20
#elif defined(TS_ARCH_CDNA)
/* sm_90a's numbers, not measured on an AMD GPU (the HIP build checks: no scratch). */
#define TS_NORM_SHORT_MIN_BLOCKS 4
#define TS_NORM_F32_SHORT_MIN_BLOCKS 2
#define TS_NORM_F32_WHOLE_MIN_BLOCKS 2
#define TS_NORM_WHOLE_ROW_BLOCKS 20
#define TS_NORM_ROWS_BLOCKS 20
#define TS_NORM_ROWS768_BLOCKS 16
#define TS_NORM_ROWS1280_BLOCKS 16
#define TS_NORM_ROWS1536_BLOCKS 12
#define TS_NORM_ROWS1792_BLOCKS 12
#define TS_NORM_ROWS_QUAD_BLOCKS 16
#define TS_NORM_F32_ROWS_BLOCKS 20
#define TS_NORM_F32_ROWS512_BLOCKS 12
#define TS_NORM_LONG_ROW_BLOCKS 20
#define TS_NORM_LONG_ROW_NARROW_BLOCKS 24
#define TS_NORM_LONG_ROW_MID_BLOCKS 20
#else
#error "kernels/norm/tuning.h: no section for this architecture"
#endif

#endif
