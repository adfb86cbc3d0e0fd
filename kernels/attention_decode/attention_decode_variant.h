/* One instance of decode attention: its split kernel and its combine kernel, for one head dimension
 * and dtype. Included by attention_decode.c once per instance after defining:
 *   TS_DECODE_NAME   the instance's prefix
 *   TS_DECODE_D      the head dimension (64 or 128)
 *   TS_DECODE_DT     the dtype as it appears in tile names (bf16 or fp16)
 *
 * The split kernel (NAME_kernel): a block is one split of one row tile (attention_decode_common.h).
 * Each warp holds the tile's 16 query rows (the group's query heads x the sequence's query rows),
 * and takes every TS_DECODE_WARPS-th step of KW keys of the split: it starts the 16-byte loads of
 * its next step's keys and values from their pages into registers (ts_rows_fetch), and the block
 * table's loads of the step after that, before it computes the current one from its shared tiles:
 * S = Q K^T (warp mma), the mask where the step reaches the causal limit or the sequence's end, the
 * online softmax in base 2, and O += P V with P in registers. At the end the warps merge their
 * maxima, sums and outputs through shared memory, each a column slice of D, into the split's
 * normalised partial output and its log2-sum (the workspace). The combine kernel (NAME_combine),
 * launched early behind it: a block takes 16 columns of a row tile, its warps a share of the tile's
 * splits each, and merges their results in a fixed order, so the result is the same in every run. */

#define TS_DECODE_FN(name) TS_CAT(TS_DECODE_NAME, TS_CAT(_, name))
#if TS_DECODE_D == 64
#define TS_DECODE_KW TS_DECODE_KEYS_D64
#else
#define TS_DECODE_KW TS_DECODE_KEYS_D128
#endif
/* Columns of D a warp merges at the end of a block: D / TS_DECODE_WARPS, a plain number. */
#if TS_DECODE_D / TS_DECODE_WARPS == 16
#define TS_DECODE_SLICE 16
#elif TS_DECODE_D / TS_DECODE_WARPS == 32
#define TS_DECODE_SLICE 32
#elif TS_DECODE_D / TS_DECODE_WARPS == 64
#define TS_DECODE_SLICE 64
#else
#define TS_DECODE_SLICE 128
#endif
/* ts_<kind>_<dt>_<R>x<C>: R and C are plain numbers, pasted into one pp-number. */
#define TS_DECODE_TILE(kind, R, C) TS_CAT(TS_CAT(kind, TS_DECODE_DT), TS_CAT(_, TS_CAT(R, TS_CAT(x, C))))
#define TS_DECODE_RT_Q TS_DECODE_TILE(ts_rt_, 16, TS_DECODE_D)
#define TS_DECODE_RT_K TS_DECODE_TILE(ts_rt_, TS_DECODE_KW, TS_DECODE_D)
#define TS_DECODE_RT_V TS_CAT(TS_DECODE_RT_K, _col)
#define TS_DECODE_RT_P TS_DECODE_TILE(ts_rt_, 16, TS_DECODE_KW)
#define TS_DECODE_RT_O16 TS_DECODE_TILE(ts_rt_, 16, 16)
#define TS_DECODE_RT_S TS_CAT(ts_rt_f32_16x, TS_DECODE_KW)
#define TS_DECODE_RT_O TS_CAT(ts_rt_f32_16x, TS_DECODE_D)
#define TS_DECODE_RT_SLICE TS_CAT(ts_rt_f32_16x, TS_DECODE_SLICE)
#define TS_DECODE_ST_KV TS_DECODE_TILE(ts_st_, TS_DECODE_KW, TS_DECODE_D)
#define TS_DECODE_ST_O TS_CAT(ts_st_f32_16x, TS_DECODE_D)
#define TS_DECODE_STAGE TS_CAT(ts_rowstage_, TS_CAT(TS_DECODE_KW, TS_CAT(x, TS_DECODE_D)))

/* A warp's shared memory: the step's keys and values, and at the end its output for the merge. */
typedef struct TS_DECODE_FN(warp_area) {
    union {
        struct {
            TS_DECODE_ST_KV k, v;
        } kv;
        TS_DECODE_ST_O o;
    } u;
} TS_DECODE_FN(warp_area);

/* The block's: every warp's area (each a multiple of the swizzle alignment, so every tile keeps
 * it), then every warp's row maxima and sums for the merge. */
typedef struct TS_DECODE_FN(block_area) {
    TS_DECODE_FN(warp_area) w[TS_DECODE_WARPS];
    ts_sv_f32_16 m[TS_DECODE_WARPS], l[TS_DECODE_WARPS];
} TS_DECODE_FN(block_area);
TS_STATIC_ASSERT(sizeof(TS_DECODE_FN(warp_area)) % TS_SHARED_ALIGN == 0 &&
                     sizeof(TS_DECODE_FN(block_area)) <= TS_MAX_SHARED_BYTES,
                 "the decode block's shared memory: whole aligned warp areas, within the block's limit");

/* The block-table entries of the 16-key blocks of the step from `key` on: -1 for a block that
 * starts at or past seq_len. A warp looks its pages up a round of steps before it loads them, so
 * that the table's latency is not in the chain of loads each step waits on (nothing here uses the
 * loaded entry: fetch checks it). A 16-key block lies in one page: the page size is a multiple of
 * 16. */
TS_DEVICE void TS_DECODE_FN(lookup)(const ts_decode_params *p, int b, int key, int seq, int page[TS_DECODE_KW / 16]) {
    TS_UNROLL
    for (int g = 0; g < TS_DECODE_KW / 16; ++g) {
        const int at = key + 16 * g;
        page[g] = -1;
        if (at < seq)
            page[g] = p->block_table[(long long)b * p->max_pages + ts_fast_div_quot(p->by_page, (unsigned)at)];
    }
}

/* Start the loads of the KW keys and values from `key` on, from the pages lookup gave: zeros at
 * and past seq_len, and in place of a page whose index lies outside the cache. */
TS_DEVICE void TS_DECODE_FN(fetch)(const ts_decode_params *p, int hkv, int key, int seq,
                                   const int page[TS_DECODE_KW / 16], TS_DECODE_STAGE *ks, TS_DECODE_STAGE *vs) {
    const void *kb[TS_DECODE_KW / 16], *vb[TS_DECODE_KW / 16];
    TS_UNROLL
    for (int g = 0; g < TS_DECODE_KW / 16; ++g) {
        const int at = key + 16 * g;
        kb[g] = vb[g] = (const void *)0;
        if (page[g] >= 0 && page[g] < p->num_pages) {
            const int in_page = at - (int)ts_fast_div_quot(p->by_page, (unsigned)at) * p->page_size;
            const long long row = ((long long)page[g] * p->heads_kv + hkv) * p->page_size + in_page;
            kb[g] = p->k_cache + row * TS_DECODE_D;
            vb[g] = p->v_cache + row * TS_DECODE_D;
        }
    }
    ts_rows_fetch(ks, kb, TS_DECODE_D, seq - key);
    ts_rows_fetch(vs, vb, TS_DECODE_D, seq - key);
}

TS_KERNEL(TS_DECODE_FN(kernel), TS_DECODE_WARPS, ts_decode_params, p) {
    const int warp = ts_warp_id();
    ts_smem smem = ts_smem_begin();
    TS_DECODE_FN(block_area) *sh = TS_SMEM_TILE(&smem, TS_DECODE_FN(block_area));
    TS_DECODE_FN(warp_area) *mine = &sh->w[warp];

    /* The block's part: (batch x key-value head, split, row tile), the row tile fastest, so that
     * the tiles reading the same keys run side by side and share them in L2. */
    const unsigned part = (unsigned)ts_block_x();
    const unsigned tile_of = ts_fast_div_quot(p->by_row_tiles, part);
    const int rt = (int)(part - tile_of * (unsigned)p->row_tiles);
    const unsigned bh = ts_fast_div_quot(p->by_splits, tile_of);
    const int split = (int)(tile_of - bh * (unsigned)p->splits);
    const unsigned b = ts_fast_div_quot(p->by_heads_kv, bh);
    const int hkv = (int)(bh - b * (unsigned)p->heads_kv);
    int seq = p->seq_lens[b];
    seq = seq < 0 ? 0 : seq > p->capacity ? p->capacity : seq;
    const int k0 = split * p->split_keys;
    /* A split past the sequence: the whole block leaves, and the combine reads no such split. */
    if (k0 >= seq) return;
    const int k1 = seq - k0 < p->split_keys ? seq : k0 + p->split_keys;
    const int steps = (k1 - k0 + TS_DECODE_KW - 1) / TS_DECODE_KW;

    TS_DECODE_RT_Q q;
    ts_load_g2r(&q, &p->q, bh, 0, rt, 0); /* zero past the group's rows */
    /* Row r's keys end at seq_len + row_off[r] (the causal limit) or at seq_len; a step whose keys
     * reach past mask_key needs the mask. */
    ts_rowvec_f32_16 row_off;
    const int nq = p->queries;
    if (p->causal) {
        ts_rv_iota(&row_off, (long long)rt * TS_DECODE_ROWS);
        TS_RV_MAP(&row_off, &row_off, TS_DECODE_CAUSAL_OFFSET);
    } else {
        ts_rv_zero(&row_off);
    }
    const int mask_key = seq - (p->causal ? nq - 1 : 0);

    TS_DECODE_RT_O o;
    ts_rowvec_f32_16 m, l;
    ts_zero(&o);
    ts_rv_fill(&m, -INFINITY);
    ts_rv_zero(&l);
    TS_DECODE_STAGE ks, vs;
    int page[TS_DECODE_KW / 16];
    const int round_keys = TS_DECODE_WARPS * TS_DECODE_KW;
    if (warp < steps) {
        TS_DECODE_FN(lookup)(p, (int)b, k0 + warp * TS_DECODE_KW, seq, page);
        TS_DECODE_FN(fetch)(p, hkv, k0 + warp * TS_DECODE_KW, seq, page, &ks, &vs);
    }
    if (warp + TS_DECODE_WARPS < steps)
        TS_DECODE_FN(lookup)(p, (int)b, k0 + warp * TS_DECODE_KW + round_keys, seq, page);
    for (int j = warp; j < steps; j += TS_DECODE_WARPS) {
        const int key = k0 + j * TS_DECODE_KW;
        ts_rows_put(&mine->u.kv.k, &ks);
        ts_rows_put(&mine->u.kv.v, &vs);
        ts_sync_warp();
        /* The next step's loads fly while this one computes, and the pages of the step after it
         * are looked up. */
        if (j + TS_DECODE_WARPS < steps) TS_DECODE_FN(fetch)(p, hkv, key + round_keys, seq, page, &ks, &vs);
        if (j + 2 * TS_DECODE_WARPS < steps) TS_DECODE_FN(lookup)(p, (int)b, key + 2 * round_keys, seq, page);

        TS_DECODE_RT_K kr;
        TS_DECODE_RT_S s;
        ts_load_s2r(&kr, &mine->u.kv.k);
        ts_mm_ABt(&s, &q, &kr);
        if (key + TS_DECODE_KW > mask_key) {
            /* Column c stays where c < seq_len - key + row_off: a small number here, exact in fp32. */
            ts_rowvec_f32_16 limit;
            TS_DECODE_RT_S col;
            ts_rv_add_scalar(&limit, &row_off, (float)(seq - key));
            ts_iota_cols(&col, 0);
            ts_lt_row(&col, &col, &limit);
            ts_where_scalar(&s, &col, &s, -INFINITY);
        }
        /* The online softmax in scaled base-2 units, as the forward's (attention_variant.h): a row
         * with every score masked so far keeps a maximum of -inf, and the finite stand-in m_safe
         * keeps 2^(-inf - m) at 0 instead of NaN. */
        ts_rowvec_f32_16 m_new, m_safe, corr;
        ts_row_max(&m_new, &s);
        ts_rv_mul_scalar(&m_new, &m_new, p->scale_log2);
        ts_rv_max(&m_new, &m_new, &m);
        ts_rv_max_scalar(&m_safe, &m_new, -FLT_MAX);
        ts_exp2_scale_sub_row(&s, &s, p->scale_log2, &m_safe);
        ts_rv_sub(&corr, &m, &m_safe);
        ts_rv_exp2(&corr, &corr);
        ts_rv_mul(&l, &l, &corr);
        ts_row_sum_acc(&l, &s, &l);
        ts_rv_copy(&m, &m_new);
        ts_mul_row(&o, &o, &corr);

        TS_DECODE_RT_P pb;
        TS_DECODE_RT_V vr;
        ts_convert(&pb, &s);
        ts_load_s2r(&vr, &mine->u.kv.v);
        ts_mma_AB(&o, &pb, &vr, &o);
        ts_sync_warp(); /* every lane is past its reads before the next step's stores */
    }

    /* The combine kernel, launched early, may start once every block is here (or has left). */
    ts_grid_launch_next();

    /* The merge: each warp's output, maxima and sums to shared memory; then warp w combines column
     * slice w of every warp's output, 2^(m_k - M) times each, divided by the combined sum. A warp
     * that took no step holds -inf and 0 and adds nothing. */
    ts_store_r2s(&mine->u.o, &o);
    ts_rv_store_s(&sh->m[warp], &m);
    ts_rv_store_s(&sh->l[warp], &l);
    ts_sync_block();
    ts_rowvec_f32_16 w[TS_DECODE_WARPS], big, den;
    ts_decode_merge_weights(sh->m, sh->l, w, &big, &den);
    TS_DECODE_RT_SLICE acc, part_o;
    ts_zero(&acc);
    TS_UNROLL
    for (int k = 0; k < TS_DECODE_WARPS; ++k) {
        ts_load_s2r_at(&part_o, &sh->w[k].u.o, 0, warp * TS_DECODE_SLICE);
        ts_mul_row(&part_o, &part_o, &w[k]);
        ts_add(&acc, &acc, &part_o);
    }
    ts_rowvec_f32_16 inv, one;
    ts_rv_fill(&one, 1.0f);
    ts_rv_max_scalar(&inv, &den, FLT_MIN);
    ts_rv_div(&inv, &one, &inv);
    ts_mul_row(&acc, &acc, &inv);
    ts_store_r2g(&p->ws_o, &acc, 0, 0, part, warp);
    if (warp == 0) {
        /* log2 of the split's sum: M + log2(den); -inf for a row that saw no key here. */
        ts_rowvec_f32_16 lse2;
        ts_rv_log(&lse2, &den);
        ts_rv_fma_scalar(&lse2, &lse2, 1.4426950408889634f, &big);
        ts_rv_store(p->ws_lse + (long long)part * TS_DECODE_ROWS, &lse2, 0, TS_DECODE_ROWS);
    }
}

/* The combine's shared memory: each warp's running result over its share of the splits. */
typedef struct TS_DECODE_FN(combine_area) {
    ts_st_f32_16x16 o[TS_DECODE_WARPS];
    ts_sv_f32_16 m[TS_DECODE_WARPS], l[TS_DECODE_WARPS];
} TS_DECODE_FN(combine_area);

TS_KERNEL(TS_DECODE_FN(combine), TS_DECODE_WARPS, ts_decode_params, p) {
    const int warp = ts_warp_id();
    ts_smem smem = ts_smem_begin();
    TS_DECODE_FN(combine_area) *sh = TS_SMEM_TILE(&smem, TS_DECODE_FN(combine_area));
    /* The block's item: 16 columns (ct) of one row tile (unit). */
    const unsigned item = (unsigned)ts_block_x();
    const unsigned unit = item / (TS_DECODE_D / 16);
    const int ct = (int)(item - unit * (TS_DECODE_D / 16));
    const unsigned bh = ts_fast_div_quot(p->by_row_tiles, unit);
    const int rt = (int)(unit - bh * (unsigned)p->row_tiles);
    const unsigned b = ts_fast_div_quot(p->by_heads_kv, bh);
    int seq = p->seq_lens[b];
    seq = seq < 0 ? 0 : seq > p->capacity ? p->capacity : seq;
    const int n = seq / p->split_keys + (seq % p->split_keys != 0);
    const long long part0 = (long long)bh * p->splits * p->row_tiles + rt;
    /* Launched early: the split kernel's parts are read only after it has finished. */
    ts_grid_wait_prior();

    /* Each warp takes every TS_DECODE_WARPS-th batch of TS_DECODE_COMBINE_BATCH splits, keeping a
     * running maximum of their log2-sums, the sum of 2^(L_s - max), and the weighted sum of their
     * outputs; the batch's loads fly together, a slot past the last split filled by that one
     * again with weight 0. The warps' results then merge in warp order: the same bits every run. */
    ts_rowvec_f32_16 big, den;
    ts_rt_f32_16x16 acc;
    ts_rv_fill(&big, -INFINITY);
    ts_rv_zero(&den);
    ts_zero(&acc);
    for (int s0 = warp * TS_DECODE_COMBINE_BATCH; s0 < n; s0 += TS_DECODE_WARPS * TS_DECODE_COMBINE_BATCH) {
        ts_rowvec_f32_16 lse2[TS_DECODE_COMBINE_BATCH];
        ts_rt_f32_16x16 part_o[TS_DECODE_COMBINE_BATCH];
        TS_UNROLL
        for (int j = 0; j < TS_DECODE_COMBINE_BATCH; ++j) {
            const int s = s0 + j < n ? s0 + j : n - 1;
            const long long part = part0 + (long long)s * p->row_tiles;
            ts_rv_load(&lse2[j], p->ws_lse + part * TS_DECODE_ROWS, 0, TS_DECODE_ROWS);
            ts_load_g2r(&part_o[j], &p->ws_o, 0, 0, part, ct);
            if (s0 + j >= n) ts_rv_fill(&lse2[j], -INFINITY);
        }
        ts_rowvec_f32_16 big_new, old_safe, new_safe, w;
        ts_rv_copy(&big_new, &big);
        TS_UNROLL
        for (int j = 0; j < TS_DECODE_COMBINE_BATCH; ++j) ts_rv_max(&big_new, &big_new, &lse2[j]);
        ts_rv_max_scalar(&old_safe, &big, -FLT_MAX);
        ts_rv_max_scalar(&new_safe, &big_new, -FLT_MAX);
        ts_rv_sub(&w, &old_safe, &new_safe);
        ts_rv_exp2(&w, &w);
        ts_rv_mul(&den, &den, &w);
        ts_mul_row(&acc, &acc, &w);
        TS_UNROLL
        for (int j = 0; j < TS_DECODE_COMBINE_BATCH; ++j) {
            ts_rv_sub(&w, &lse2[j], &new_safe);
            ts_rv_exp2(&w, &w);
            ts_rv_add(&den, &den, &w);
            ts_mul_row(&part_o[j], &part_o[j], &w);
            ts_add(&acc, &acc, &part_o[j]);
        }
        ts_rv_copy(&big, &big_new);
    }
    ts_store_r2s(&sh->o[warp], &acc);
    ts_rv_store_s(&sh->m[warp], &big);
    ts_rv_store_s(&sh->l[warp], &den);
    ts_sync_block();
    if (warp != 0) return;

    ts_rowvec_f32_16 w[TS_DECODE_WARPS];
    ts_decode_merge_weights(sh->m, sh->l, w, &big, &den);
    ts_zero(&acc);
    TS_UNROLL
    for (int k = 0; k < TS_DECODE_WARPS; ++k) {
        ts_rt_f32_16x16 part_o;
        ts_load_s2r(&part_o, &sh->o[k]);
        ts_mul_row(&part_o, &part_o, &w[k]);
        ts_add(&acc, &acc, &part_o);
    }
    ts_rowvec_f32_16 inv, one;
    ts_rv_fill(&one, 1.0f);
    ts_rv_max_scalar(&inv, &den, FLT_MIN);
    ts_rv_div(&inv, &one, &inv);
    ts_mul_row(&acc, &acc, &inv);
    TS_DECODE_RT_O16 o16;
    ts_convert(&o16, &acc);
    ts_store_r2g(&p->out, &o16, bh, 0, rt, ct); /* rows past the group's are not stored */
    if (ct == 0 && p->lse) {
        /* Natural log-sum-exp: (max + log2 den) ln 2 = max ln 2 + ln den; -inf for a row of no key. */
        ts_rowvec_f32_16 lse, ln_den;
        ts_rv_log(&ln_den, &den);
        ts_rv_fma_scalar(&lse, &big, 0.69314718055994531f, &ln_den);
        ts_rv_store(p->lse + (long long)bh * p->group_rows, &lse, (long long)rt * TS_DECODE_ROWS, p->group_rows);
    }
}

TS_EXTERN_C ts_status TS_DECODE_FN(launch)(const ts_decode_params *p, ts_stream stream) {
    ts_decode_params params = *p;
    ts_status s = TS_LAUNCH(TS_DECODE_FN(kernel), ts_grid_1d((unsigned)params.parts), TS_DECODE_WARPS,
                            sizeof(TS_DECODE_FN(block_area)), stream, params);
    if (s != TS_SUCCESS) return s;
    const long long items = params.parts / params.splits * (TS_DECODE_D / 16);
    return TS_LAUNCH_EARLY(TS_DECODE_FN(combine), ts_grid_1d((unsigned)items), TS_DECODE_WARPS,
                           sizeof(TS_DECODE_FN(combine_area)), stream, params);
}

#undef TS_DECODE_FN
#undef TS_DECODE_KW
#undef TS_DECODE_SLICE
#undef TS_DECODE_TILE
#undef TS_DECODE_RT_Q
#undef TS_DECODE_RT_K
#undef TS_DECODE_RT_V
#undef TS_DECODE_RT_P
#undef TS_DECODE_RT_O16
#undef TS_DECODE_RT_S
#undef TS_DECODE_RT_O
#undef TS_DECODE_RT_SLICE
#undef TS_DECODE_ST_KV
#undef TS_DECODE_ST_O
#undef TS_DECODE_STAGE
#undef TS_DECODE_NAME
#undef TS_DECODE_D
#undef TS_DECODE_DT
