/* What the Based kernel and its launcher share: the tile shapes that follow from tuning.h, the
 * kernel parameters and the task map. A task is one (batch, head) and the TS_BASED_CONSUMERS x
 * TS_BASED_COLS value columns of its block, run over the whole sequence in chunks of 64 rows; each
 * consumer warpgroup holds the running state of its TS_BASED_COLS columns. docs/based.md explains
 * the algorithm. */
#ifndef TESSERA_KERNELS_BASED_COMMON_H
#define TESSERA_KERNELS_BASED_COMMON_H

#include <string.h>

#include "backends/backend.h"
#include "kernels/based/tuning.h"
#include "ops/convert.h"
#include "ops/index.h"
#include "ops/maps.h"
#include "ops/masks.h"
#include "ops/memory.h"
#include "ops/mma.h"
#include "ops/outer_features.h"
#include "ops/reductions.h"
#include "ops/register_slices.h"
#include "ops/tma.h"
#include "ops/warpgroup.h"

#if TS_BASED_CONSUMERS < 1 || TS_BASED_CONSUMERS > 3
#error "TS_BASED_CONSUMERS is 1 to 3"
#endif
#if TS_BASED_COLS != 16 && TS_BASED_COLS != 32 && TS_BASED_COLS != 64
#error "TS_BASED_COLS is 16, 32 or 64"
#endif
#if 64 % (TS_BASED_CONSUMERS * TS_BASED_COLS) != 0
#error "TS_BASED_CONSUMERS x TS_BASED_COLS divides the head dimension, 64"
#endif

/* The fixed shapes: feature dimension (q, k) 16, head dimension (v, out) 64, chunks of 64 rows
 * (one warpgroup's rows). The feature map phi(x) = [1, x, vec(x x^T) / sqrt 2] is held as five
 * groups of 64 features: group 0 is [scale x (16), 1, 0 (47)], groups 1..4 the outer products
 * x_a x_b for a in 4 (g - 1) .. 4 (g - 1) + 3 and every b (scaled by scale^2 / 2 on the query
 * side), so that each group is one 64-deep product. */
#define TS_BASED_FEATURE_DIM 16
#define TS_BASED_HEAD_DIM 64
#define TS_BASED_CHUNK 64
#define TS_BASED_GROUPS 5

typedef struct ts_based_params {
    ts_async_desc q, k; /* 64 x 16 tiles of (B, H, N, 16); tensor maps first (64-byte aligned) */
    ts_async_desc v;    /* 64 x TS_BASED_COLS tiles of (B, H, N, 64) */
    ts_gl o;            /* (B, H, N, 64) */
    float scale;        /* s = scale * q.k */
    int normalize;      /* 1: divide by phi(q) . sum phi(k) */
    int heads, chunks;
    int parts;       /* tasks a head: 64 / (consumers x columns a consumer) */
    long long tasks; /* B x H x parts, below 2^31 */
} ts_based_params;

typedef struct ts_based_task {
    int b, h;
    int col_tile; /* the block's first column tile (of TS_BASED_COLS columns) */
} ts_based_task;

/* The task's (batch, head, column part), in 32-bit arithmetic (the launcher keeps tasks below
 * 2^31): a task runs a whole sequence, so one division a task costs nothing. */
TS_DEVICE int ts_based_setup(const ts_based_params *p, long long task, ts_based_task *t) {
    const unsigned u = (unsigned)task, bh = u / (unsigned)p->parts;
    t->col_tile = (int)(u - bh * (unsigned)p->parts) * TS_BASED_CONSUMERS;
    t->b = (int)(bh / (unsigned)p->heads);
    t->h = (int)(bh - (unsigned)t->b * (unsigned)p->heads);
    return p->chunks;
}

/* The host side of ts_based_forward (based.c), for its launcher and for test kernels of another
 * configuration: checks the arguments and fills params for a kernel of `consumers` consumer
 * warpgroups of `cols` columns each (the grid is the launcher's). */
TS_EXTERN_C ts_status ts_based_prepare(const ts_based_shape *shape, ts_dtype dtype, const void *q,
                                       const long long q_strides[3], const void *k, const long long k_strides[3],
                                       const void *v, const long long v_strides[3], void *o,
                                       const long long o_strides[3], float scale, int normalize, int consumers,
                                       int cols, ts_based_params *params);

#endif
