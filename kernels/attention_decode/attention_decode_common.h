/* What decode attention's instances share: the kernels' parameters, and the split plan, which the
 * launcher, the workspace query and the tests compute alike. A block is one split (a range of keys
 * of one sequence) of one row tile (16 of the rows that share a key-value head: the group's query
 * heads x the sequence's query rows); its warps take turns through the range's steps and merge
 * their running results at its end into one partial result in the workspace; a second kernel
 * combines a row tile's splits. docs/decode.md explains the design; the numbers come from
 * kernels/attention_decode/tuning.h. */
#ifndef TESSERA_KERNELS_ATTENTION_DECODE_COMMON_H
#define TESSERA_KERNELS_ATTENTION_DECODE_COMMON_H

#include "backends/backend.h"
#include "kernels/attention_decode/tuning.h"
#include "templates/fast_div.h"
#include "tiles/global_layout.h"

#if TS_DECODE_WARPS < 1 || 64 % (16 * TS_DECODE_WARPS) != 0
#error "TS_DECODE_WARPS divides 64 / 16: each warp merges a 16-column multiple of D = 64"
#endif
#if (TS_DECODE_KEYS_D64 != 16 && TS_DECODE_KEYS_D64 != 32) || (TS_DECODE_KEYS_D128 != 16 && TS_DECODE_KEYS_D128 != 32)
#error "TS_DECODE_KEYS_D64 and TS_DECODE_KEYS_D128 are 16 or 32"
#endif
#define TS_DECODE_KEYS_OF(d) ((d) == 64 ? TS_DECODE_KEYS_D64 : TS_DECODE_KEYS_D128)
/* Keys a block takes a step, all warps together: a split's keys are a multiple of it. */
#define TS_DECODE_BLOCK_KEYS_OF(d) (TS_DECODE_WARPS * TS_DECODE_KEYS_OF(d))
/* The causal offset of a tile row's keys, as a map over the row index x (ops/maps.h's TS_RV_MAP):
 * row r is query r % N_q of its head, which sees keys < seq_len - N_q + 1 + r % N_q, its limit
 * seq_len plus this offset. Reads the caller's `nq`. */
#define TS_DECODE_CAUSAL_OFFSET(x) ((float)((int)(x) % nq - (nq - 1)))
/* The largest query rows a sequence, and rows a tile. */
#define TS_DECODE_MAX_QUERIES 16
#define TS_DECODE_ROWS 16

typedef struct ts_decode_params {
    ts_gl q;     /* (B x Hkv, 1, G x N_q, D): the rows of one key-value head are contiguous */
    ts_gl out;   /* the same */
    ts_gl ws_o;  /* (1, 1, parts x 16, D) fp32: each part's 16 rows, normalised */
    const unsigned short *k_cache, *v_cache; /* [num_pages][heads_kv][page_size][D] */
    const int *block_table;                  /* [batch][max_pages] */
    const int *seq_lens;                     /* [batch] */
    float *ws_lse; /* [parts][16]: each part row's log2 of its sum, in the scaled base-2 units */
    float *lse;    /* (B, Hq, N_q) natural log-sum-exp, or NULL */
    float scale_log2;
    int heads_kv, group_rows, queries, causal, page_size, max_pages, num_pages;
    int row_tiles, splits, split_keys, capacity;
    long long parts; /* blocks of the main kernel: B x Hkv x splits x row_tiles */
    ts_fast_div by_row_tiles, by_splits, by_heads_kv, by_page;
} ts_decode_params;

#endif
