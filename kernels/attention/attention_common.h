/* What every attention variant shares: the block tile, the kernel parameters and the task map. A
 * block takes TS_ATTN_BM_OF(D) query rows of one (batch, query head) with TS_ATTN_CONSUMERS_OF(D)
 * consumer warpgroups of 64 rows each, and streams the keys and values through the pipeline
 * TS_ATTN_BN_OF(D) at a time. The numbers come from kernels/attention/tuning.h, one section per
 * architecture; docs/attention.md explains the design. */
#ifndef TESSERA_KERNELS_ATTENTION_COMMON_H
#define TESSERA_KERNELS_ATTENTION_COMMON_H

#include <float.h>
#include <math.h>
#include <string.h>

#include "backends/backend.h"
#include "kernels/attention/task_order.h"
#include "kernels/attention/tuning.h"
#include "ops/convert.h"
#include "ops/maps.h"
#include "ops/masks.h"
#include "ops/memory.h"
#include "ops/pin.h"
#include "ops/reductions.h"
#include "ops/tma.h"
#include "ops/warpgroup.h"
#include "templates/consumer_info.h"

#if TS_ATTN_CONSUMERS_D64 < 1 || TS_ATTN_CONSUMERS_D64 > 3 || TS_ATTN_CONSUMERS_D128 < 1 || TS_ATTN_CONSUMERS_D128 > 3
#error "TS_ATTN_CONSUMERS_D64 and TS_ATTN_CONSUMERS_D128 are 1 to 3"
#endif
#define TS_ATTN_CONSUMERS_OF(d) ((d) == 64 ? TS_ATTN_CONSUMERS_D64 : TS_ATTN_CONSUMERS_D128)
/* Query rows a block takes at a time: 64 per consumer. */
#define TS_ATTN_BM_OF(d) (64 * TS_ATTN_CONSUMERS_OF(d))

/* The overlap issues a stage's products together and waits for them apart: it needs the
 * warp-specialized schedule (asynchronous warpgroup products). */
#if (TS_ATTN_OVERLAP_D64 || TS_ATTN_OVERLAP_D128) && defined(TS_PREFERS_PINGPONG)
#error "the overlap (TS_ATTN_OVERLAP_D64, TS_ATTN_OVERLAP_D128) needs the warp-specialized schedule"
#endif

/* A second D = 128 kernel per dtype for non-causal calls over long sequences (tuning.h). */
#define TS_ATTN_LONG_KERNEL (TS_ATTN_LONG_KEYS > 0)
#if TS_ATTN_BN_D64 % 16 || TS_ATTN_BN_D64 < 64 || TS_ATTN_BN_D64 > 256 || TS_ATTN_BN_D128 % 16 || \
    TS_ATTN_BN_D128 < 64 || TS_ATTN_BN_D128 > 256 || TS_ATTN_BN_D128_LONG % 16 ||                  \
    TS_ATTN_BN_D128_LONG < 64 || TS_ATTN_BN_D128_LONG > 256
#error "TS_ATTN_BN_D64, TS_ATTN_BN_D128 and TS_ATTN_BN_D128_LONG are multiples of 16 from 64 to 256"
#endif
/* Keys a stage for head dimension d, in the long-sequence kernel or not (the variants check that
 * their stages fit). */
#define TS_ATTN_BN_OF(d, long_keys) ((d) == 64 ? TS_ATTN_BN_D64 : (long_keys) ? TS_ATTN_BN_D128_LONG : TS_ATTN_BN_D128)

/* The tile shapes of a key tile other than 64 or 128 keys (the tile headers define those): S and P
 * (16 x BN) and the K and V stages (BN x D). The extra level expands the sizes before the tile
 * macros paste them into names. */
#define TS_ATTN_DEFINE_ST(r, c) TS_ST_DEFINE_ALL(r, c)
#define TS_ATTN_DEFINE_TILES(bn, d)                                                                \
    TS_RT_DEFINE_ALL(16, bn);                                                                      \
    TS_ST_DEFINE_ALL(bn, d)
#if TS_ATTN_BN_D128 != 64 && TS_ATTN_BN_D128 != 128
TS_ATTN_DEFINE_TILES(TS_ATTN_BN_D128, 128);
#endif
#if TS_ATTN_LONG_KERNEL && TS_ATTN_BN_D128_LONG != TS_ATTN_BN_D128 && TS_ATTN_BN_D128_LONG != 64 && \
    TS_ATTN_BN_D128_LONG != 128
TS_ATTN_DEFINE_TILES(TS_ATTN_BN_D128_LONG, 128);
#endif
#if TS_ATTN_BN_D64 != 64 && TS_ATTN_BN_D64 != 128
#if TS_ATTN_BN_D64 == TS_ATTN_BN_D128 || (TS_ATTN_LONG_KERNEL && TS_ATTN_BN_D64 == TS_ATTN_BN_D128_LONG)
TS_ATTN_DEFINE_ST(TS_ATTN_BN_D64, 64);
#else
TS_ATTN_DEFINE_TILES(TS_ATTN_BN_D64, 64);
#endif
#endif

typedef struct ts_attn_params {
    ts_async_desc k, v; /* BN x D tiles of (B, Hkv, Nkv, D); tensor maps first (64-byte aligned) */
    ts_async_desc q;    /* 64 x D tiles of (B, Hq, Nq, D) */
    ts_gl o;            /* (B, Hq, Nq, D) */
    float *lse;         /* (B, Hq, Nq), or NULL */
    float scale_log2;   /* the softmax scale times log2(e): scores are kept in base-2 units */
    int causal, heads_q, group, q_tiles, kv_tiles;
    /* Query tile q holds rows q BM - q_shift .. (q + 1) BM - q_shift - 1. Under the causal mask
     * q_shift is q_tiles BM - seq_q rounded down to whole consumers (64 rows): a ragged tile is the
     * first, whose rows see the fewest keys, not the last, whose rows see them all. A consumer
     * whose 64 rows all lie before row 0 computes nothing and stores nothing. At N = 1024, D = 64
     * (192 rows a tile, 128 keys a stage) a head's six tasks take 27 stages instead of 32, and the
     * ragged task one stage instead of eight with one consumer of three at work. 0 otherwise. */
    int q_shift;
    ts_attn_order order;   /* the task order (task_order.h), filled once the grid is known */
    ts_fast_div by_heads_q, by_group; /* a task's head into (batch, query head); its key-value head */
    /* heads: batch x query heads. tasks = heads x q_tiles stays a parameter: computed in the kernel
     * it cost the gfx942 fp16 D = 128 kernel one register and with it its second wave per SIMD. */
    long long seq_q, seq_kv, heads, tasks;
} ts_attn_params;

typedef struct ts_attn_task {
    int b, hq, qt;
    int iters;      /* key tiles the task visits */
    long long task; /* its index (with the carried V: the previous task of its block is task - grid) */
} ts_attn_task;

/* The host side of ts_attention_forward (attention.c), for its launcher and for test kernels built
 * from attention_variant.h on another schedule: ts_attn_prepare checks the arguments and fills
 * params but for the grid, and tells whether the call takes the long-sequence D = 128 kernel;
 * ts_attn_plan_grid fills in what depends on the grid (the causal task order). */
TS_EXTERN_C ts_status ts_attn_prepare(const ts_attention_shape *shape, ts_dtype dtype, const void *q,
                                      const long long q_strides[3], const void *k, const long long k_strides[3],
                                      const void *v, const long long v_strides[3], void *o,
                                      const long long o_strides[3], float *lse, float scale, int causal,
                                      ts_attn_params *params, int *long_keys);
TS_EXTERN_C void ts_attn_plan_grid(ts_attn_params *params, int grid);

/* ts_attn_params.q_shift for a kernel of bm query rows a tile: with one consumer (64 rows, as on
 * HIP) it is 0 by construction, and the constant lets the compiler drop it. */
TS_DEVICE int ts_attn_q_shift(const ts_attn_params *p, int bm) { return bm > 64 ? p->q_shift : 0; }

/* The task's (batch, query head, query tile), in the order of task_order.h, and how many key tiles
 * (of bn keys) it visits: all of them, or under the causal mask only those left of the tile's last
 * row (its rows start at qt bm - q_shift). */
TS_DEVICE int ts_attn_setup(const ts_attn_params *p, long long task, int bm, int bn, ts_attn_task *t) {
    unsigned bh;
    ts_attn_task_tile(&p->order, (unsigned)task, p->causal, TS_ATTN_ALTERNATE_ROUNDS, &bh, &t->qt);
    const unsigned b = ts_fast_div_quot(p->by_heads_q, bh);
    t->hq = (int)(bh - b * (unsigned)p->heads_q);
    t->b = (int)b;
    t->iters = p->kv_tiles;
    t->task = task;
    if (p->causal) {
        long long last_row = (long long)(t->qt + 1) * bm - ts_attn_q_shift(p, bm) - 1;
        if (last_row > p->seq_q - 1) last_row = p->seq_q - 1;
        const long long tiles = last_row / bn + 1;
        if (tiles < t->iters) t->iters = (int)tiles;
    }
    return t->iters;
}

#endif
