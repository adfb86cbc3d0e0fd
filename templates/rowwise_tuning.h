/* templates/rowwise_tuning.h: the row-wise template's launch numbers per architecture (one section
 * each), shared by every row kernel built on it (templates/rowwise.h). Why each: docs/row-template.md
 * and docs/memory-bound.md ("Occupancy"); the runs behind the numbers: docs/memory-bound.md ("Where
 * the tuning numbers come from"). */
#ifndef TESSERA_TEMPLATES_ROWWISE_TUNING_H
#define TESSERA_TEMPLATES_ROWWISE_TUNING_H

#include "backends/backend.h"

#if defined(TS_ARCH_SM90A) || defined(TS_ARCH_HOST)
/* The most warps a row takes (its slices, TS_ROWWISE_E each): rows of up to 16384 columns. */
#define TS_ROWWISE_MAX_WARPS 16
/* The short instances' block size limit: rows of up to 8 slices take them, at the occupancy their
 * launch bounds ask for. */
#define TS_ROWWISE_SHORT_WARPS 8
/* Warps a block of the general instance aims at, and its grid cap in blocks an SM, past which its
 * blocks loop over the rows. */
#define TS_ROWWISE_BLOCK_WARPS 8
#define TS_ROWWISE_BLOCKS_PER_SM 32
/* Warps a block of a one-pass launch aims at: one row group, so that blocks free their SM slots row
 * by row. At 1 the whole instance
 * takes a row's warps from the block size (TS_ROWWISE_ONE_GROUP). */
#define TS_ROWWISE_ONE_PASS_BLOCK_WARPS 1
#elif defined(TS_ARCH_CDNA)
/* 8 waves: 16-wave blocks would cap a lane at 128 VGPRs where 8 leave it 256 (rows of up to 8192
 * columns); the rest as on sm_90a, not measured on an AMD GPU. */
#define TS_ROWWISE_MAX_WARPS 8
#define TS_ROWWISE_SHORT_WARPS 8
#define TS_ROWWISE_BLOCK_WARPS 8
#define TS_ROWWISE_BLOCKS_PER_SM 32
#define TS_ROWWISE_ONE_PASS_BLOCK_WARPS 1
#else
#error "templates/rowwise_tuning.h: no section for this architecture"
#endif

#if TS_ROWWISE_BLOCK_WARPS > TS_ROWWISE_SHORT_WARPS
#error "TS_ROWWISE_BLOCK_WARPS is at most TS_ROWWISE_SHORT_WARPS"
#endif

#endif
