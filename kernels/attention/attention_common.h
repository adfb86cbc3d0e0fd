/* What every attention variant shares: the block tile, the kernel parameters and the task map. A
 * block takes TS_ATTN_BM_OF(D) query rows of one (batch, query head), TS_ATTN_CONSUMERS_OF(D)
 * consumer warpgroups of 64 rows each, and streams the keys and values through the pipeline
 * TS_ATTN_BN at a time: three consumers at D = 64, two at D = 128 and three stages where a block
 * may have 227 KiB of shared memory (Hopper, host), one consumer and one stage where it has 63 KiB
 * (CDNA).
 *
 * Two compile-time switches, for tuning on the GPU (-D in CMAKE_CUDA_FLAGS / CMAKE_C_FLAGS):
 *   TS_ATTN_P_IN_REGISTERS  1 (default): P stays in each warp's registers and O += P V takes A from
 *                           them (ts_wg_mma_AB_rs); 0: P goes to shared memory and O += P V reads
 *                           both operands from there (two named barriers per stage).
 *   TS_ATTN_BN              keys per stage, 64 or 128 (the default where a block has the shared
 *                           memory for it, 64 elsewhere). A stage of K and V is 2 x BN x D 16-bit
 *                           values; where three stages and the consumers' areas do not fit, the
 *                           variant runs two stages (attention_variant.h). TS_ATTN_BN_D64 and
 *                           TS_ATTN_BN_D128 set it for one head dimension: any multiple of 16 from
 *                           64 to 256 there, and TS_ATTN_BN_D128_LONG for non-causal calls over
 *                           long sequences at D = 128 (below).
 * On the H200 (B16 H16 N4096 D128, bf16, 2026-11-30, scripts/gpu-ab.sh) P in registers took the
 * kernel from 281 to 348 TFLOP/s, and 128 keys per stage on top of it to 376 (non-causal; causal
 * 202 -> 256); docs/attention.md and docs/results.md have every step since. */
#ifndef TESSERA_KERNELS_ATTENTION_COMMON_H
#define TESSERA_KERNELS_ATTENTION_COMMON_H

#include <float.h>
#include <math.h>
#include <string.h>

#include "backends/backend.h"
#include "kernels/attention/task_order.h"
#include "ops/convert.h"
#include "ops/maps.h"
#include "ops/masks.h"
#include "ops/memory.h"
#include "ops/reductions.h"
#include "ops/tma.h"
#include "ops/warpgroup.h"
#include "templates/consumer_info.h"

/* Consumer warpgroups of a block, by head dimension. At D = 64 the softmax weighs as much as the
 * products (the same exponentials for half the multiply-adds), and a third consumer gives the
 * tensor cores a third warpgroup's products to run while two do their softmax, as
 * FlashAttention-3 does at D = 64: +4-18% on the H200 over N = 1024 .. 16384 but for N = 1024
 * causal (-4%; bench/results/nvidia-h200-2026-12-01-attention-d64-three-consumers-ab.txt). At
 * D = 128 three do not fit the 160 registers a thread with the overlap (the output, S and the last
 * stage's P: 252 bytes of spills) but do without it (TS_ATTN_OVERLAP_D128=0, two stages; 0 spills),
 * an A/B option that measured 27-33% slower on the H200 (...-attention-d128-three-consumers-ab.txt).
 * Four at D = 64 (256 rows a block) would leave 120 registers a consumer thread: ptxas spilled
 * 476 bytes there. */
#if TS_MAX_SHARED_BYTES >= 200 * 1024
#ifndef TS_ATTN_CONSUMERS_D64
#define TS_ATTN_CONSUMERS_D64 3
#endif
#ifndef TS_ATTN_CONSUMERS_D128
#define TS_ATTN_CONSUMERS_D128 2
#endif
/* Three stages; four measured 5-7% slower at D = 64 on the H200 (D = 128 has room for three only;
 * bench/results/nvidia-h200-2026-12-01-attention-skip-idle-stages-ab.txt). */
#ifndef TS_ATTN_STAGES
#define TS_ATTN_STAGES 3
#endif
#else
#define TS_ATTN_CONSUMERS_D64 1
#define TS_ATTN_CONSUMERS_D128 1
#define TS_ATTN_STAGES 1
#endif
#if TS_ATTN_CONSUMERS_D64 < 1 || TS_ATTN_CONSUMERS_D64 > 3 || TS_ATTN_CONSUMERS_D128 < 1 || TS_ATTN_CONSUMERS_D128 > 3
#error "TS_ATTN_CONSUMERS_D64 and TS_ATTN_CONSUMERS_D128 are 1 to 3"
#endif
#define TS_ATTN_CONSUMERS_OF(d) ((d) == 64 ? TS_ATTN_CONSUMERS_D64 : TS_ATTN_CONSUMERS_D128)
/* Query rows a block takes at a time: 64 per consumer. */
#define TS_ATTN_BM_OF(d) (64 * TS_ATTN_CONSUMERS_OF(d))

/* TS_ATTN_OVERLAP 1 (the default where it applies: P in registers and the warp-specialized
 * template schedule): each stage's S = Q K^T and the last stage's O += P V are issued together, and
 * the softmax runs while the second runs (FlashAttention-3's intra-warpgroup overlap).
 * TS_ATTN_OVERLAP_D64 and TS_ATTN_OVERLAP_D128 set it for one head dimension. */
#ifndef TS_ATTN_OVERLAP
#if !defined(TS_PREFERS_PINGPONG)
#define TS_ATTN_OVERLAP 1
#else
#define TS_ATTN_OVERLAP 0
#endif
#endif
/* D64 runs without the overlap: its three consumers have the registers for it, but the H200 ran
 * every D64 point 2.5-5% faster without (bench/results/nvidia-h200-2026-12-01-attention-d64-overlap-ab.txt). */
#ifndef TS_ATTN_OVERLAP_D64
#define TS_ATTN_OVERLAP_D64 0
#endif
#ifndef TS_ATTN_OVERLAP_D128
#define TS_ATTN_OVERLAP_D128 TS_ATTN_OVERLAP
#endif
#if (TS_ATTN_OVERLAP_D64 || TS_ATTN_OVERLAP_D128) && defined(TS_PREFERS_PINGPONG)
#error "TS_ATTN_OVERLAP needs the warp-specialized schedule"
#endif
/* A plain number: the tile type names are pasted from it. */
#ifndef TS_ATTN_BN
#if TS_MAX_SHARED_BYTES >= 200 * 1024
#define TS_ATTN_BN 128
#else
#define TS_ATTN_BN 64
#endif
#endif
#if TS_ATTN_BN != 64 && TS_ATTN_BN != 128
#error "TS_ATTN_BN is 64 or 128"
#endif
#if TS_ATTN_BN == 128 && TS_MAX_SHARED_BYTES < 200 * 1024
/* One stage of K and V of 128 x 128 is 64 KiB. */
#error "TS_ATTN_BN=128 needs more shared memory per block than this backend has"
#endif
#ifndef TS_ATTN_BN_D64
#define TS_ATTN_BN_D64 TS_ATTN_BN
#endif
#ifndef TS_ATTN_BN_D128
#define TS_ATTN_BN_D128 TS_ATTN_BN
#endif
/* Keys a stage of the D = 128 kernel that non-causal calls over at least TS_ATTN_LONG_KEYS keys run;
 * where it differs from TS_ATTN_BN_D128, a second D = 128 kernel per dtype is built for them
 * (FlashAttention-3 takes 176 keys at D = 128 without the mask). A 176-key tile does less work per
 * key but pads a sequence of a power of two keys by 3% (1024 keys take 6 x 176 = 1056), and its
 * stages hold the K of one tile and the V of the last (TS_ATTN_SHIFT_V, above): two 176-key stages
 * fit, and with the overlap's one-stage lag the producer could not load ahead. */
#ifndef TS_ATTN_BN_D128_LONG
#if TS_MAX_SHARED_BYTES >= 200 * 1024 && TS_ATTN_OVERLAP_D128
#define TS_ATTN_BN_D128_LONG 176
#else
#define TS_ATTN_BN_D128_LONG TS_ATTN_BN_D128
#endif
#endif
#ifndef TS_ATTN_LONG_KEYS
#define TS_ATTN_LONG_KEYS 8192
#endif
#define TS_ATTN_LONG_KERNEL (TS_ATTN_BN_D128_LONG != TS_ATTN_BN_D128)
#if TS_ATTN_BN_D64 % 16 || TS_ATTN_BN_D64 < 64 || TS_ATTN_BN_D64 > 256 || TS_ATTN_BN_D128 % 16 || \
    TS_ATTN_BN_D128 < 64 || TS_ATTN_BN_D128 > 256 || TS_ATTN_BN_D128_LONG % 16 ||                  \
    TS_ATTN_BN_D128_LONG < 64 || TS_ATTN_BN_D128_LONG > 256
#error "TS_ATTN_BN_D64, TS_ATTN_BN_D128 and TS_ATTN_BN_D128_LONG are multiples of 16 from 64 to 256"
#endif
/* Keys a stage for head dimension d, in the long-sequence kernel or not (the variants check that
 * their stages fit). */
#define TS_ATTN_BN_OF(d, long_keys) ((d) == 64 ? TS_ATTN_BN_D64 : (long_keys) ? TS_ATTN_BN_D128_LONG : TS_ATTN_BN_D128)

/* The tile shapes of a key tile other than 64 or 128 keys (the tile headers define those): S and P
 * (16 x BN), the K and V stages (BN x D) and the shared P (64 x BN). The extra level expands the
 * sizes before the tile macros paste them into names. */
#define TS_ATTN_DEFINE_ST(r, c) TS_ST_DEFINE_ALL(r, c)
#define TS_ATTN_DEFINE_TILES(bn, d)                                                                \
    TS_RT_DEFINE_ALL(16, bn);                                                                      \
    TS_ST_DEFINE_ALL(64, bn);                                                                      \
    TS_ST_DEFINE_ALL(bn, d)
#if TS_ATTN_BN_D128 != 64 && TS_ATTN_BN_D128 != 128
TS_ATTN_DEFINE_TILES(TS_ATTN_BN_D128, 128);
#endif
#if TS_ATTN_LONG_KERNEL && TS_ATTN_BN_D128_LONG != 64 && TS_ATTN_BN_D128_LONG != 128
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
    ts_attn_task_tile(&p->order, (unsigned)task, p->causal, &bh, &t->qt);
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
