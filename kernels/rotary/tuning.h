/* kernels/rotary/tuning.h: RoPE's launch numbers per architecture (one section each). Why:
 * docs/memory-bound.md ("Occupancy", "Rotary"); measurements: docs/memory-bound.md ("Where the
 * tuning numbers come from"). */
#ifndef TESSERA_KERNELS_ROTARY_TUNING_H
#define TESSERA_KERNELS_ROTARY_TUNING_H

#include "backends/backend.h"

#if defined(TS_ARCH_SM90A) || defined(TS_ARCH_HOST)
/* Warps a block; the grid cap in blocks an SM, past which warps loop over tokens. */
#define TS_ROPE_WARPS 4
#define TS_ROPE_BLOCKS_PER_SM 32
/* 16-bit strips: four 512-element strips in flight a warp at five blocks an SM (94 registers): bytes
 * in flight matter more than occupancy. fp32
 * strips, twice the registers: two at eight blocks, a few bytes spilled, which measured faster than
 * six blocks without. */
#define TS_ROPE_STRIPS 4
#define TS_ROPE_MIN_BLOCKS 5
#define TS_ROPE_F32_STRIPS 2
#define TS_ROPE_F32_MIN_BLOCKS 8
/* The token-rows kernel: its pattern takes 16 more registers a lane; 125 at four blocks, where five
 * spilled. */
#define TS_ROPE_ROWS_MIN_BLOCKS 4
#elif defined(TS_ARCH_CDNA)
/* sm_90a's numbers, not measured on an AMD GPU (the HIP build checks: no scratch). */
#define TS_ROPE_WARPS 4
#define TS_ROPE_BLOCKS_PER_SM 32
#define TS_ROPE_STRIPS 4
#define TS_ROPE_MIN_BLOCKS 5
#define TS_ROPE_F32_STRIPS 2
#define TS_ROPE_F32_MIN_BLOCKS 8
#define TS_ROPE_ROWS_MIN_BLOCKS 4
#else
#error "kernels/rotary/tuning.h: no section for this architecture"
#endif

#endif
