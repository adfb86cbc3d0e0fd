/* What the kernels of attention backward share: the tile sizes derived from tuning.h, the
 * parameters of the kernels, the workspace's layout and the task maps. The backward runs as three
 * kernels (docs/attention-backward.md): the preprocessing pass (per query row, the log-sum-exp in
 * base 2 and D = rowsum(dO * O), into the workspace), the dK/dV kernel (a task is a block of keys
 * of one key-value head; it loops over the query tiles of every query head of its group), and for
 * dQ one of two forms: the atomic form, where the dK/dV kernel adds each stage's share of dQ into an
 * fp32 buffer with atomics, which a last pass scales and converts, or the deterministic form, the
 * dQ kernel (a task is a block of query rows of one query head; it loops over the key tiles), where
 * each output element is written by one task, so the results are the same bits run to run. */
#ifndef TESSERA_KERNELS_ATTENTION_BACKWARD_COMMON_H
#define TESSERA_KERNELS_ATTENTION_BACKWARD_COMMON_H

#include <float.h>
#include <math.h>
#include <string.h>

#include "backends/backend.h"
#include "kernels/attention_backward/tuning.h"
#include "ops/convert.h"
#include "ops/maps.h"
#include "ops/masks.h"
#include "ops/memory.h"
#include "ops/reductions.h"
#include "ops/tma.h"
#include "ops/warpgroup.h"
#include "templates/consumer_info.h"

#if TS_ATTN_BWD_CONSUMERS_D64 < 1 || TS_ATTN_BWD_CONSUMERS_D64 > 3 || TS_ATTN_BWD_CONSUMERS_D128 < 1 || \
    TS_ATTN_BWD_CONSUMERS_D128 > 3
#error "TS_ATTN_BWD_CONSUMERS_D64 and TS_ATTN_BWD_CONSUMERS_D128 are 1 to 3"
#endif
#if (TS_ATTN_BWD_BQ_D64 != 32 && TS_ATTN_BWD_BQ_D64 != 64) || (TS_ATTN_BWD_BQ_D128 != 32 && TS_ATTN_BWD_BQ_D128 != 64)
#error "TS_ATTN_BWD_BQ_D64 and TS_ATTN_BWD_BQ_D128 are 32 or 64"
#endif
#if (TS_ATTN_BWD_BK_D64 != 32 && TS_ATTN_BWD_BK_D64 != 64 && TS_ATTN_BWD_BK_D64 != 128) || \
    (TS_ATTN_BWD_BK_D128 != 32 && TS_ATTN_BWD_BK_D128 != 64 && TS_ATTN_BWD_BK_D128 != 128)
#error "TS_ATTN_BWD_BK_D64 and TS_ATTN_BWD_BK_D128 are 32, 64 or 128"
#endif
#define TS_ATTN_BWD_CONSUMERS_OF(d) ((d) == 64 ? TS_ATTN_BWD_CONSUMERS_D64 : TS_ATTN_BWD_CONSUMERS_D128)
/* Keys a dK/dV task holds, query rows a dQ task holds: 64 a consumer. */
#define TS_ATTN_BWD_BLOCK_OF(d) (64 * TS_ATTN_BWD_CONSUMERS_OF(d))
#define TS_ATTN_BWD_BQ_OF(d) ((d) == 64 ? TS_ATTN_BWD_BQ_D64 : TS_ATTN_BWD_BQ_D128)
#define TS_ATTN_BWD_BK_OF(d) ((d) == 64 ? TS_ATTN_BWD_BK_D64 : TS_ATTN_BWD_BK_D128)
/* The atomic form of dQ (where the architecture has room for it, TS_ATTN_BWD_DQ_ATOMIC) at D = 128:
 * query tiles of 64 rows in the dK/dV kernel (a stage's share of dQ is a warpgroup product of the
 * tile's 64 rows) and two consumers, one for each 64-column half of dQ. At D = 64 it measured no
 * faster than the deterministic form (docs/attention-backward.md), which runs there. */
#define TS_ATTN_BWD_DQ_ATOMIC_OF(d)                                                                \
    (TS_ATTN_BWD_DQ_ATOMIC && (d) == 128 && TS_ATTN_BWD_BQ_OF(d) == 64 && TS_ATTN_BWD_CONSUMERS_OF(d) == 2)
/* The named barrier of every consumer warpgroup of the dK/dV kernel (ids below are the consumers'
 * own). */
#define TS_ATTN_BWD_ALL_CONSUMERS_BARRIER 3
/* The atomic form's dS^T slots of a consumer: one more than the stages, so that a slot is written
 * again only once every consumer warp has finished the stage whose products last read it (the
 * producer refills a stage only once every consumer warp has released it). The named barrier on
 * which consumer c announces its dS^T of a slot: one a slot, so that an announcement is never
 * counted into the one before it. */
#define TS_ATTN_BWD_DS_SLOTS (TS_ATTN_BWD_STAGES + 1)
#define TS_ATTN_BWD_DS_SLOT_BEFORE(slot) ((slot) == 0 ? TS_ATTN_BWD_DS_SLOTS - 1 : (slot) - 1)
#define TS_ATTN_BWD_DS_SLOT_AFTER(slot) ((slot) == TS_ATTN_BWD_DS_SLOTS - 1 ? 0 : (slot) + 1)
#define TS_ATTN_BWD_DS_BARRIER(c, slot) (4 + (c) * TS_ATTN_BWD_DS_SLOTS + (slot))

/* The workspace's rows per (batch, query head): N_q rounded up to 64, so that every query tile of
 * either kernel reads whole rows of it, and a stage's slice of a row is 16-byte aligned for a bulk
 * copy. Rows past N_q hold a log-sum-exp of +inf and D = 0: their probabilities are exactly 0. */
#define TS_ATTN_BWD_ROW_PAD 64

/* The preprocessing pass and the atomic form's last pass (attention_backward_preprocess.c): 64
 * query rows a block of four warps, 16 a warp, one parameter block for both. */
#define TS_ATTN_BWD_PRE_WARPS 4
typedef struct ts_attn_bwd_pre_params {
    ts_gl o, d_o;        /* (B, H, N_q, D) */
    ts_gl dq_acc;        /* (B, H, nq_pad, D) fp32 sums, zeroed by the first pass and read by the
                          * last; ptr NULL: the deterministic form */
    ts_gl dq;            /* (B, H, N_q, D): the last pass's output, scale x dq_acc */
    const float *lse;    /* (B, H, N_q), natural log, from the forward */
    float *lse2, *delta; /* (B, H, nq_pad): lse log2(e), +inf past N_q; rowsum(dO * O), 0 past N_q */
    float scale;
    int heads_q, head_dim, row_blocks;
    long long seq_q, nq_pad, blocks;
} ts_attn_bwd_pre_params;

/* A pass's block and warp: the (batch, query head) and the warp's first row. */
TS_DEVICE void ts_attn_bwd_pass_rows(const ts_attn_bwd_pre_params *p, int *b, int *h, long long *row0) {
    const unsigned block = ts_block_x();
    const unsigned bh = block / (unsigned)p->row_blocks;
    *row0 = (long long)(block - bh * (unsigned)p->row_blocks) * (16 * TS_ATTN_BWD_PRE_WARPS) + 16 * ts_warp_id();
    *b = (int)(bh / (unsigned)p->heads_q);
    *h = (int)(bh - (unsigned)*b * (unsigned)p->heads_q);
}

typedef struct ts_attn_bwd_dkdv_params {
    ts_async_desc q, d_o; /* BQ x D tiles of (B, H, N_q, D); tensor maps first (64-byte aligned) */
    ts_async_desc k, v;   /* 64 x D tiles of (B, H_kv, N_kv, D): each consumer's keys */
    ts_async_desc dq_add; /* 16 x 64 tiles of the fp32 sums (B, H, nq_pad, D), dS K added in (unscaled);
                           * made in the atomic form only (pre's dq_acc.ptr set) */
    ts_gl dk, dv;         /* (B, H_kv, N_kv, D) */
    const float *lse2, *delta;
    float scale_log2, scale;
    int causal, heads_q, heads_kv, group, q_tiles, kv_tiles;
    long long seq_q, seq_kv, nq_pad, tasks;
} ts_attn_bwd_dkdv_params;

typedef struct ts_attn_bwd_dq_params {
    ts_async_desc k, v;   /* BK x D tiles of (B, H_kv, N_kv, D) */
    ts_async_desc q, d_o; /* 64 x D tiles of (B, H, N_q, D): each consumer's rows */
    ts_gl dq;             /* (B, H, N_q, D) */
    const float *lse2, *delta;
    float scale_log2, scale;
    int causal, heads_q, group, q_tiles, kv_tiles;
    long long seq_q, seq_kv, nq_pad, tasks;
} ts_attn_bwd_dq_params;

/* A dK/dV task: a block of keys of one (batch, key-value head). Its stages walk the query tiles
 * that can see the block (under the causal mask, from the tile of its first key on) of each query
 * head of the group in turn. */
typedef struct ts_attn_bwd_kv_task {
    int b, hkv, kt;
    int first_qt, q_span; /* the first query tile visited, and how many a head */
    int iters;            /* q_span x group */
} ts_attn_bwd_kv_task;

TS_DEVICE int ts_attn_bwd_kv_setup(const ts_attn_bwd_dkdv_params *p, long long task, int block, int bq,
                                   ts_attn_bwd_kv_task *t) {
    /* Tasks stay below 2^30 (the launcher checks): 32-bit divisions, not CUDA's 64-bit routine.
     * Without the mask, head after head, so that the blocks running at once share a few heads' Q
     * and dO in L2. Under it, block kt of a head sees (q_tiles - kt BLOCK / BQ) query tiles: the
     * key blocks go in rounds of one block of every head, longest first, so that each round of
     * the persistent grid holds tasks of about one length. */
    const unsigned heads = (unsigned)p->tasks / (unsigned)p->kv_tiles;
    unsigned bh;
    if (p->causal) {
        t->kt = (int)((unsigned)task / heads);
        bh = (unsigned)task - (unsigned)t->kt * heads;
    } else {
        bh = (unsigned)task / (unsigned)p->kv_tiles;
        t->kt = (int)((unsigned)task - bh * (unsigned)p->kv_tiles);
    }
    t->b = (int)(bh / (unsigned)p->heads_kv);
    t->hkv = (int)(bh - (unsigned)t->b * (unsigned)p->heads_kv);
    t->first_qt = 0;
    if (p->causal) {
        /* Query row i sees key j <= i: the block's first key is the first row that sees it. */
        const long long key0 = (long long)t->kt * block;
        t->first_qt = key0 >= p->seq_q ? p->q_tiles : (int)(key0 / bq);
    }
    t->q_span = p->q_tiles - t->first_qt;
    t->iters = t->q_span * p->group;
    return t->iters;
}

/* Stage iter of a dK/dV task: its query head and query tile. */
TS_DEVICE void ts_attn_bwd_kv_stage(const ts_attn_bwd_dkdv_params *p, const ts_attn_bwd_kv_task *t, int iter,
                                    int *hq, int *qt) {
    const int g = iter / t->q_span;
    *hq = t->hkv * p->group + g;
    *qt = t->first_qt + (iter - g * t->q_span);
}

/* A dQ task: a block of query rows of one (batch, query head); its stages walk the key tiles that
 * the block's rows see (under the causal mask, up to its last row's). */
typedef struct ts_attn_bwd_q_task {
    int b, hq, qt;
    int iters;
} ts_attn_bwd_q_task;

TS_DEVICE int ts_attn_bwd_q_setup(const ts_attn_bwd_dq_params *p, long long task, int block, int bk,
                                  ts_attn_bwd_q_task *t) {
    /* As the dK/dV kernel's order: under the mask, rounds of one query block of every head, the
     * last blocks (which see the most keys) first. */
    const unsigned heads = (unsigned)p->tasks / (unsigned)p->q_tiles;
    unsigned bh;
    if (p->causal) {
        const unsigned round = (unsigned)task / heads;
        bh = (unsigned)task - round * heads;
        t->qt = p->q_tiles - 1 - (int)round;
    } else {
        bh = (unsigned)task / (unsigned)p->q_tiles;
        t->qt = (int)((unsigned)task - bh * (unsigned)p->q_tiles);
    }
    t->b = (int)(bh / (unsigned)p->heads_q);
    t->hq = (int)(bh - (unsigned)t->b * (unsigned)p->heads_q);
    t->iters = p->kv_tiles;
    if (p->causal) {
        long long last_row = (long long)(t->qt + 1) * block - 1;
        if (last_row > p->seq_q - 1) last_row = p->seq_q - 1;
        const long long tiles = last_row / bk + 1;
        if (tiles < t->iters) t->iters = (int)tiles;
    }
    return t->iters;
}

/* The tile sizes of one head dimension's instances: keys a dK/dV task holds (= query rows a dQ
 * task holds), query rows a dK/dV stage, keys a dQ stage. */
typedef struct ts_attn_bwd_tiles {
    int block, bq, bk;
} ts_attn_bwd_tiles;

/* The host side of ts_attention_backward (attention_backward.c), for its launcher and for test
 * kernels built from the variants with other tiles or on another schedule: checks every argument
 * and fills the kernels' parameters for instances of tiles[0] (D = 64) and tiles[1] (D = 128), for
 * the atomic form of dQ (the dK/dV kernel adds into the workspace's sums, the last pass
 * finishes; pre->dq_acc.ptr set) or, with TS_ATTENTION_DETERMINISTIC in flags, the deterministic
 * one (the dQ kernel).
 * The preprocessing pass's launcher (attention_backward_preprocess.c) is the same for all. */
TS_EXTERN_C ts_status ts_attn_bwd_prepare(const ts_attention_shape *shape, ts_dtype dtype, const void *q,
                                          const long long q_strides[3], const void *k, const long long k_strides[3],
                                          const void *v, const long long v_strides[3], const void *o,
                                          const long long o_strides[3], const void *d_o, const long long do_strides[3],
                                          const float *lse, void *dq, const long long dq_strides[3], void *dk,
                                          const long long dk_strides[3], void *dv, const long long dv_strides[3],
                                          float scale, int causal, unsigned flags, void *workspace,
                                          size_t workspace_bytes, const ts_attn_bwd_tiles tiles[2],
                                          ts_attn_bwd_pre_params *pre, ts_attn_bwd_dkdv_params *kv,
                                          ts_attn_bwd_dq_params *qp);
TS_EXTERN_C ts_status ts_attn_bwd_preprocess_launch(const ts_attn_bwd_pre_params *p, ts_stream stream);
TS_EXTERN_C ts_status ts_attn_bwd_dq_convert_launch(const ts_attn_bwd_pre_params *p, ts_stream stream);

#endif
