/* What every attention variant shares: the block tile, the kernel parameters and the task map. A
 * block takes TS_ATTN_BM query rows of one (batch, query head), TS_ATTN_CONSUMERS consumer
 * warpgroups of 64 rows each, and streams the keys and values through the pipeline 64 at a time:
 * two consumers and three stages where a block may have 227 KiB of shared memory (Hopper, host),
 * one consumer and one stage where it has 63 KiB (CDNA). */
#ifndef TESSERA_KERNELS_ATTENTION_COMMON_H
#define TESSERA_KERNELS_ATTENTION_COMMON_H

#include <float.h>
#include <math.h>
#include <string.h>

#include "backends/backend.h"
#include "ops/convert.h"
#include "ops/maps.h"
#include "ops/masks.h"
#include "ops/memory.h"
#include "ops/reductions.h"
#include "ops/tma.h"
#include "ops/warpgroup.h"

#if TS_MAX_SHARED_BYTES >= 200 * 1024
#define TS_ATTN_CONSUMERS 2
#define TS_ATTN_STAGES 3
#else
#define TS_ATTN_CONSUMERS 1
#define TS_ATTN_STAGES 1
#endif
#define TS_ATTN_BM (64 * TS_ATTN_CONSUMERS)
#define TS_ATTN_BN 64

typedef struct ts_attn_params {
    ts_async_desc k, v; /* 64 x D tiles of (B, Hkv, Nkv, D); tensor maps first (64-byte aligned) */
    ts_gl q, o;         /* (B, Hq, Nq, D) */
    float *lse;         /* (B, Hq, Nq), or NULL */
    float scale_log2;   /* the softmax scale times log2(e): scores are kept in base-2 units */
    int causal, heads_q, group, q_tiles, kv_tiles;
    long long seq_q, seq_kv, tasks;
} ts_attn_params;

typedef struct ts_attn_task {
    int b, hq, qt;
} ts_attn_task;

/* The task's (batch, query head, query tile), and how many key tiles it visits: all of them, or
 * under the causal mask only those left of the tile's last row. */
TS_DEVICE int ts_attn_setup(const ts_attn_params *p, long long task, ts_attn_task *t) {
    t->qt = (int)(task % p->q_tiles);
    const long long bh = task / p->q_tiles;
    t->hq = (int)(bh % p->heads_q);
    t->b = (int)(bh / p->heads_q);
    if (!p->causal) return p->kv_tiles;
    long long last_row = (long long)(t->qt + 1) * TS_ATTN_BM - 1;
    if (last_row > p->seq_q - 1) last_row = p->seq_q - 1;
    const long long tiles = last_row / TS_ATTN_BN + 1;
    return (int)(tiles < p->kv_tiles ? tiles : p->kv_tiles);
}

#endif
