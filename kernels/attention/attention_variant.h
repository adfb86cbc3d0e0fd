/* One attention-forward kernel on the producer-consumer template, for one head dimension and
 * dtype. Included by attention.c once per variant after defining:
 *   TS_ATTN_NAME        the variant's prefix
 *   TS_ATTN_D           the head dimension (64 or 128)
 *   TS_ATTN_DT          the dtype as it appears in tile names (bf16 or fp16)
 *   TS_ATTN_KEYS        (optional) keys a stage, where not the head dimension's TS_ATTN_BN_OF
 * The tile types follow from them and tuning.h: K and V stages of BN x D, Q of 64 x D per
 * consumer, S of 16 x BN per warp.
 *
 * Per stage, each consumer warpgroup computes S = Q K^T for its 64 query rows against BN keys,
 * masks it, folds it into the running row maxima and sums (the online softmax of FlashAttention,
 * in base 2), rescales its output accumulator, and adds P V. Each warp's 16-bit P register tile is
 * itself its 16 rows of that product's A operand (ts_wg_mma_AB_rs), so P never leaves registers.
 * With the overlap (TS_ATTN_OVERLAP_D64 / _D128, tuning.h) a stage's S = Q K^T and the last stage's
 * P V run together and the softmax runs beside the second (docs/attention.md). */

#define TS_ATTN_FN(name) TS_CAT(TS_ATTN_NAME, TS_CAT(_, name))
#define TS_ATTN_VARIANT_CONSUMERS TS_ATTN_CONSUMERS_OF(TS_ATTN_D)
#define TS_ATTN_VARIANT_BM TS_ATTN_BM_OF(TS_ATTN_D)
/* Keys a stage: TS_ATTN_KEYS where the including file sets it, else the head dimension's; a plain
 * number, pasted into tile names. */
#if TS_ATTN_D == 64
#define TS_ATTN_VARIANT_OVERLAP TS_ATTN_OVERLAP_D64
#define TS_ATTN_VARIANT_BN TS_ATTN_BN_D64
#else
#define TS_ATTN_VARIANT_OVERLAP TS_ATTN_OVERLAP_D128
#define TS_ATTN_VARIANT_BN TS_ATTN_BN_D128
#endif
#ifdef TS_ATTN_KEYS
#undef TS_ATTN_VARIANT_BN
#define TS_ATTN_VARIANT_BN TS_ATTN_KEYS
#endif
/* With the overlap, V is shifted one stage: stage j holds K_j and V_{j-1}, so that both products of
 * a stage read only that stage and it is handed back when compute returns; a task has one stage
 * more than key tiles. */
#define TS_ATTN_VARIANT_SHIFT TS_ATTN_VARIANT_OVERLAP
/* The shift runs on across the block's tasks (the carried V): a task's first stage holds the last V
 * of the block's previous task, and only the block's last task has the extra stage. Not with more
 * than 128 keys a stage, nor with three consumers (160 registers a thread): ptxas spills there. */
#define TS_ATTN_VARIANT_CARRY                                                                      \
    (TS_ATTN_VARIANT_SHIFT && TS_ATTN_VARIANT_BN <= 128 && TS_ATTN_VARIANT_CONSUMERS <= 2)
/* ts_<kind>_<dt>_<R>x<C>: R and C are plain numbers, pasted into one pp-number. */
#define TS_ATTN_TILE(kind, R, C)                                                                   \
    TS_CAT(TS_CAT(kind, TS_ATTN_DT), TS_CAT(_, TS_CAT(R, TS_CAT(x, C))))
#define TS_ATTN_ST_KV TS_ATTN_TILE(ts_st_, TS_ATTN_VARIANT_BN, TS_ATTN_D)
#define TS_ATTN_ST_Q TS_ATTN_TILE(ts_st_, 64, TS_ATTN_D)
#define TS_ATTN_RT_P TS_ATTN_TILE(ts_rt_, 16, TS_ATTN_VARIANT_BN)
#define TS_ATTN_RT_O16 TS_ATTN_TILE(ts_rt_, 16, TS_ATTN_D)
#define TS_ATTN_RT_S TS_CAT(ts_rt_f32_16x, TS_ATTN_VARIANT_BN)
#define TS_ATTN_RT_O TS_CAT(ts_rt_f32_16x, TS_ATTN_D)

typedef struct TS_ATTN_FN(input) {
    TS_ATTN_ST_KV k, v;
} TS_ATTN_FN(input);

/* A consumer's query rows. */
typedef struct TS_ATTN_FN(output) {
    TS_ATTN_ST_Q q;
} TS_ATTN_FN(output);

/* The pipeline depth: TS_ATTN_STAGES where the stages and the consumers' areas fit in the block's
 * shared memory with 1 KiB to spare for the barriers, else one stage fewer (the 176-key D = 128
 * kernel: 88 KiB a stage). */
#define TS_ATTN_STAGE_BYTES (2u * TS_ATTN_VARIANT_BN * TS_ATTN_D * 2u)
#define TS_ATTN_OUTPUT_BYTES (64u * TS_ATTN_D * 2u)
#if TS_ATTN_STAGES * TS_ATTN_STAGE_BYTES + TS_ATTN_VARIANT_CONSUMERS * TS_ATTN_OUTPUT_BYTES + 1024u <= TS_MAX_SHARED_BYTES
#define TS_ATTN_VARIANT_STAGES TS_ATTN_STAGES
#else
#define TS_ATTN_VARIANT_STAGES (TS_ATTN_STAGES - 1)
#endif
TS_STATIC_ASSERT(sizeof(TS_ATTN_FN(input)) == TS_ATTN_STAGE_BYTES &&
                     sizeof(TS_ATTN_FN(output)) == TS_ATTN_OUTPUT_BYTES,
                 "the shared-memory budget above counts the stage and output types");
TS_STATIC_ASSERT(TS_ATTN_VARIANT_STAGES >= 1 && TS_ATTN_VARIANT_STAGES * TS_ATTN_STAGE_BYTES +
                                                     TS_ATTN_VARIANT_CONSUMERS * TS_ATTN_OUTPUT_BYTES + 1024u <=
                                                 TS_MAX_SHARED_BYTES,
                 "the attention stages do not fit in shared memory");

typedef ts_attn_task TS_ATTN_FN(task);

typedef struct TS_ATTN_FN(consumer) {
    ts_pc_consumer pc; /* the warpgroup's barrier for its query tile, and its next task */
    TS_ATTN_RT_O o;
    ts_rowvec_f32_16 m, l; /* running maximum (base-2 units) and sum of each of the warp's rows */
    int warp;              /* ts_warp_in_group(), taken once a task: on CUDA it is a shuffle */
    int mask_from;         /* the task's first key tile that needs a mask for the warp's rows */
#if TS_ATTN_VARIANT_OVERLAP
    TS_ATTN_RT_P p; /* the last stage's P, whose product with V is still to come */
#endif
#if TS_ATTN_VARIANT_CARRY
    /* The previous task, whose output waits in o and p for its last P V, and the row maxima and
     * sums of its epilogue. */
    ts_attn_task prev;
    ts_rowvec_f32_16 m_prev, l_prev;
#endif
} TS_ATTN_FN(consumer);

TS_DEVICE long long TS_ATTN_FN(tasks)(const ts_attn_params *p) { return p->tasks; }

/* The task's stages: its key tiles (t->iters), one more where V is shifted (carried across the
 * block's tasks: in the block's last task only). */
TS_DEVICE int TS_ATTN_FN(stages)(const ts_attn_params *p, const ts_attn_task *t) {
#if TS_ATTN_VARIANT_CARRY
    return t->iters + (t->task + ts_grid_x() >= p->tasks);
#else
    (void)p;
    return t->iters + TS_ATTN_VARIANT_SHIFT;
#endif
}

TS_DEVICE int TS_ATTN_FN(setup)(const ts_attn_params *p, long long task, ts_attn_task *t) {
    (void)ts_attn_setup(p, task, TS_ATTN_VARIANT_BM, TS_ATTN_VARIANT_BN, t);
    return TS_ATTN_FN(stages)(p, t);
}

/* Stage iter: K and V of key tile iter; shifted, K of tile iter (but in the extra last stage) and V
 * of tile iter - 1 (but in the first: there, carried, the last V of the block's previous task). */
TS_DEVICE void TS_ATTN_FN(load)(const ts_attn_params *p, const ts_attn_task *t, TS_ATTN_FN(input) *in,
                                ts_tbar *full, int iter) {
    const int k = !TS_ATTN_VARIANT_SHIFT || iter < t->iters;
    int v = !TS_ATTN_VARIANT_SHIFT || iter > 0, v_tile = iter - TS_ATTN_VARIANT_SHIFT;
    ts_attn_task vt = *t;
#if TS_ATTN_VARIANT_CARRY
    if (iter == 0 && t->task >= ts_grid_x()) {
        (void)ts_attn_setup(p, t->task - ts_grid_x(), TS_ATTN_VARIANT_BM, TS_ATTN_VARIANT_BN, &vt);
        v = 1;
        v_tile = vt.iters - 1;
    }
#endif
    ts_tbar_expect_bytes(full, (k ? TS_ASYNC_BYTES(&in->k) : 0u) + (v ? TS_ASYNC_BYTES(&in->v) : 0u));
    if (k) ts_async_load(&in->k, &p->k, t->b, (int)ts_fast_div_quot(p->by_group, (unsigned)t->hq), iter, 0, full);
    if (v) ts_async_load(&in->v, &p->v, vt.b, (int)ts_fast_div_quot(p->by_group, (unsigned)vt.hq), v_tile, 0, full);
}

/* The first query row in the whole sequence of the consumer's rows, and of warp `warp`'s (negative
 * for a consumer before row 0: ts_attn_params.q_shift). */
TS_DEVICE long long TS_ATTN_FN(consumer_row0)(const ts_attn_params *p, const ts_attn_task *t, int consumer) {
    return (long long)t->qt * TS_ATTN_VARIANT_BM - ts_attn_q_shift(p, TS_ATTN_VARIANT_BM) + consumer * 64;
}
TS_DEVICE long long TS_ATTN_FN(warp_row0)(const ts_attn_params *p, const ts_attn_task *t, int consumer, int warp) {
    return TS_ATTN_FN(consumer_row0)(p, t, consumer) + warp * 16;
}
/* The calling warp's. */
TS_DEVICE long long TS_ATTN_FN(row0)(const ts_attn_params *p, const ts_attn_task *t, int consumer) {
    return TS_ATTN_FN(warp_row0)(p, t, consumer, ts_warp_in_group());
}

/* The consumer's 64 query rows of task t (zero past the sequence) start on their way to out->q,
 * completing on the consumer's own barrier: one copy per task, issued by the warpgroup's first
 * warp. A consumer before row 0 loads the first rows, which it does not read. */
TS_DEVICE void TS_ATTN_FN(load_q)(const ts_attn_params *p, const ts_attn_task *t, const ts_pc_consumer *pc,
                                  TS_ATTN_FN(output) *out, int consumer) {
    if (ts_warp_in_group() != 0) return;
    const long long row0 = TS_ATTN_FN(consumer_row0)(p, t, consumer);
    ts_tbar_expect_bytes(pc->bar, TS_ASYNC_BYTES(&out->q));
    ts_async_load(&out->q, &p->q, t->b, t->hq, row0 < 0 ? 0 : (int)(row0 / 64), 0, pc->bar);
}

/* Called once the task's last S = Q K^T has landed, when no multiply reads out->q any more: the
 * next task's query tile starts loading into it, so that it waits in shared memory by the time the
 * next task begins instead of costing that task a round trip to memory. Every warp of the group
 * must be past its last read first: the group meets at its named barrier. */
TS_DEVICE void TS_ATTN_FN(prefetch_q)(const ts_attn_params *p, const TS_ATTN_FN(consumer) *c,
                                      TS_ATTN_FN(output) *out, int consumer) {
    if (c->pc.next_task < 0) return;
    ts_attn_task next;
    ts_sync_named(consumer, 4);
    (void)ts_attn_setup(p, c->pc.next_task, TS_ATTN_VARIANT_BM, TS_ATTN_VARIANT_BN, &next);
    TS_ATTN_FN(load_q)(p, &next, &c->pc, out, consumer);
}

/* The stages of task t that consumer computes: the first `iters`, but without the overlap none
 * where its 64 rows all lie past the queries (in the last query tile) and, under the causal mask,
 * none past the key tile that holds its last row's diagonal: every score there is masked. The
 * template hands the rest back unread (TS_PC_CONSUMER_ITERS) and the tensor cores run the other
 * consumers' products. With three consumers (192 rows) over key tiles of 128 the diagonal crosses
 * a query tile mid-consumer. (With the overlap a stage also carries the last one's P V.) */
TS_DEVICE int TS_ATTN_FN(consumer_iters)(const ts_attn_params *p, const ts_attn_task *t, int consumer, int iters) {
#if !TS_ATTN_VARIANT_OVERLAP
    const long long rows_from = TS_ATTN_FN(consumer_row0)(p, t, consumer);
    if (rows_from >= p->seq_q || rows_from < 0) return 0;
    if (p->causal) {
        const long long tiles = (rows_from + 63) / TS_ATTN_VARIANT_BN + 1;
        if (tiles < iters) return (int)tiles;
    }
#else
    (void)p, (void)t, (void)consumer;
#endif
    return iters;
}

TS_DEVICE void TS_ATTN_FN(init)(const ts_attn_params *p, const ts_attn_task *t, TS_ATTN_FN(consumer) *c,
                                TS_ATTN_FN(output) *out, int consumer) {
    /* The first task loads its query tile here; every later one finds it loaded, or on its way,
     * by the last task's prefetch_q (every task visits at least one key tile, so it runs, from the
     * last stage the consumer computes or from here). */
    if (c->pc.round == 0) TS_ATTN_FN(load_q)(p, t, &c->pc, out, consumer);
    c->warp = ts_warp_in_group();
    {
        /* Key tile j needs the causal mask when (j + 1) BN - 1 > row0, the end of the keys when
         * (j + 1) BN > seq_kv: from j = (row0 + 1) / BN and seq_kv / BN on. Found once a task, so
         * that a stage tests one integer, not two conditions in 64-bit arithmetic between the wait
         * for S and the softmax. */
        const long long row0 = TS_ATTN_FN(warp_row0)(p, t, consumer, c->warp);
        long long from = p->seq_kv / TS_ATTN_VARIANT_BN;
        if (p->causal && (row0 + 1) / TS_ATTN_VARIANT_BN < from) from = (row0 + 1) / TS_ATTN_VARIANT_BN;
        c->mask_from = (int)from;
    }
    ts_tbar_wait(c->pc.bar, c->pc.round & 1);
    /* A consumer with no stage to compute passes the query tile on at once. */
    if (c->pc.live == 0) TS_ATTN_FN(prefetch_q)(p, c, out, consumer);
#if TS_ATTN_VARIANT_CARRY
    /* A carried output keeps its maxima and sums for its epilogue, in the first stage; the output
     * itself is cleared there (the first correction is 0), and before the block's first task it
     * is zero (a persistent consumer starts zeroed). */
    ts_rv_copy(&c->m_prev, &c->m);
    ts_rv_copy(&c->l_prev, &c->l);
#else
    ts_zero(&c->o);
#endif
    ts_rv_fill(&c->m, -INFINITY);
    ts_rv_zero(&c->l);
}

/* The online softmax of one stage's scores s (in place: s becomes the numerators P in fp32): mask,
 * new row maxima, the correction corr = exp2(m_old - m_new) and the running sums. The maxima are
 * kept in scaled base-2 units, so that each numerator is one fused multiply-add and one exp2,
 * 2^(s * scale - m) (the scale is positive: the maximum of the scaled scores is the scaled
 * maximum). Only the tiles that reach past the diagonal or past the sequence are masked; a tile
 * needs the causal mask when its last key lies beyond the warp's first query row. The output
 * accumulator is the caller's to rescale by corr. */
TS_DEVICE void TS_ATTN_FN(softmax)(const ts_attn_params *p, TS_ATTN_FN(consumer) *c, TS_ATTN_RT_S *s,
                                   ts_rowvec_f32_16 *corr, long long row0, int iter) {
    const long long col0 = (long long)iter * TS_ATTN_VARIANT_BN;
    if (iter >= c->mask_from) {
        if (p->causal && col0 + TS_ATTN_VARIANT_BN - 1 > row0) ts_causal_mask(s, s, row0, col0, -INFINITY);
        if (col0 + TS_ATTN_VARIANT_BN > p->seq_kv) ts_mask_cols_from(s, s, col0, p->seq_kv, -INFINITY);
    }

    /* m_new = max(m, scaled row max); a row with every score masked so far keeps -inf, and the
     * finite stand-in m_safe keeps 2^(-inf - m) at 0 instead of NaN. */
    ts_rowvec_f32_16 m_new, m_safe;
    ts_row_max(&m_new, s);
    ts_rv_mul_scalar(&m_new, &m_new, p->scale_log2);
    ts_rv_max(&m_new, &m_new, &c->m);
    ts_rv_max_scalar(&m_safe, &m_new, -FLT_MAX);
    ts_exp2_scale_sub_row(s, s, p->scale_log2, &m_safe);
    ts_rv_sub(corr, &c->m, &m_safe);
    ts_rv_exp2(corr, corr);
    ts_rv_mul(&c->l, &c->l, corr);
    ts_row_sum_acc(&c->l, s, &c->l);
    ts_rv_copy(&c->m, &m_new);
}

/* A task's output o, complete, normalised by the row sums l and stored with the log-sum-exp (o
 * itself is left as it is). */
TS_DEVICE void TS_ATTN_FN(epilogue)(const ts_attn_params *p, const ts_attn_task *t, const TS_ATTN_RT_O *o,
                                    const ts_rowvec_f32_16 *m, const ts_rowvec_f32_16 *l, int consumer) {
    const long long row0 = TS_ATTN_FN(row0)(p, t, consumer);
    if (row0 < 0) return; /* a consumer before row 0 (ts_attn_params.q_shift) */
    /* One division per row, not per element. */
    ts_rowvec_f32_16 inv_l, one;
    ts_rv_fill(&one, 1.0f);
    ts_rv_max_scalar(&inv_l, l, FLT_MIN);
    ts_rv_div(&inv_l, &one, &inv_l);
    TS_ATTN_RT_O scaled; /* element by element into o16: no second output tile held */
    ts_mul_row(&scaled, o, &inv_l);
    TS_ATTN_RT_O16 o16;
    ts_convert(&o16, &scaled);
    ts_store_r2g(&p->o, &o16, t->b, t->hq, row0 / 16, 0);
    if (p->lse) {
        /* Natural log-sum-exp: m is in base-2 units, so lse = m ln 2 + ln l (-inf for an empty row). */
        ts_rowvec_f32_16 lse, ln_l;
        ts_rv_log(&ln_l, l);
        ts_rv_mul_scalar(&lse, m, 0.69314718055994531f);
        ts_rv_add(&lse, &lse, &ln_l);
        ts_rv_store(p->lse + ((long long)t->b * p->heads_q + t->hq) * p->seq_q, &lse, row0, p->seq_q);
    }
}

TS_DEVICE void TS_ATTN_FN(compute)(const ts_attn_params *p, const ts_attn_task *t, TS_ATTN_FN(consumer) *c,
                                   const TS_ATTN_FN(input) *in, TS_ATTN_FN(output) *out, int iter,
                                   int consumer) {
    const long long row0 = TS_ATTN_FN(warp_row0)(p, t, consumer, c->warp);
    TS_ATTN_RT_S s;
    ts_rowvec_f32_16 corr;
#if TS_ATTN_VARIANT_OVERLAP
    /* S = Q K^T of this stage and O += P V of the last one go to the tensor cores together; the
     * softmax of S runs while the second product does. Invariant at entry: O holds the products
     * of the stages before the last, scaled to the last stage's maxima, in which c->p is also
     * expressed; so O is complete for the last stage once its product lands, and the correction
     * of this stage then rescales it. V is shifted: the last key tile's V came with this stage, and
     * the task's extra last stage holds that V only: its product completes O. */
    if (iter == t->iters) {
        ts_wg_acc_fence(&c->o);
        ts_wg_a_fence(&c->p);
        ts_wg_mma_AB_rs(&c->o, &c->p, &in->v);
        return;
    }
#if TS_ATTN_VARIANT_CARRY
    /* A last stage's P V: this task's, or the previous task's but in the block's first. */
    const int pv = iter > 0 || t->task >= ts_grid_x();
#else
    const int pv = iter > 0;
#endif
    ts_wg_acc_fence(&s);
    ts_wg_acc_fence(&c->o);
    ts_wg_a_fence(&c->p);
    ts_wg_fence();
    ts_wg_mm_ABt_async(&s, &out->q, &in->k);
    ts_wg_commit();
    if (pv) {
        ts_wg_mma_AB_rs_async(&c->o, &c->p, &in->v);
        ts_wg_commit();
    }
    if (pv)
        ts_wg_wait(1); /* groups retire in order: S has landed, P V may still run */
    else
        ts_wg_wait(0);
    ts_wg_acc_fence(&s);
    TS_ATTN_FN(softmax)(p, c, &s, &corr, row0, iter);
    /* A store that needs the whole softmax keeps it ahead of the wait below, which ptxas would
     * otherwise hoist above it (ops/pin.h). */
    ts_rv_pin(c->pc.scratch + c->warp, &c->l);
    ts_wg_wait(0);
    /* The task's last S has landed and nothing reads out->q any more: the next query tile may
     * come in. */
    if (iter + 1 == t->iters) TS_ATTN_FN(prefetch_q)(p, c, out, consumer);
    ts_wg_acc_fence(&c->o);
    ts_wg_a_fence(&c->p);
    ts_convert(&c->p, &s);
#if TS_ATTN_VARIANT_CARRY
    /* The previous task's last P V ran beside this S: its output is complete, and goes out here,
     * once S is P in 16 bits. Nothing in this branch writes the output's registers (ptxas then
     * serializes every wgmma, C7520): the epilogue reads them, and the rescale below clears them,
     * since the new task's first correction is exp2(-inf) = 0. */
    if (iter == 0 && t->task >= ts_grid_x()) TS_ATTN_FN(epilogue)(p, &c->prev, &c->o, &c->m_prev, &c->l_prev, consumer);
    /* The epilogue's 16-byte stores trade words between lanes (shuffles): without a fence of
     * our own after the branch, ptxas inserts one inside it and serializes every wgmma (C7520). */
    ts_wg_fence();
#endif
    ts_mul_row(&c->o, &c->o, &corr);
#else
    ts_wg_mm_ABt(&s, &out->q, &in->k);
    if (iter + 1 == c->pc.live) TS_ATTN_FN(prefetch_q)(p, c, out, consumer);
    TS_ATTN_FN(softmax)(p, c, &s, &corr, row0, iter);
    ts_mul_row(&c->o, &c->o, &corr);

    TS_ATTN_RT_P pb;
    ts_convert(&pb, &s);
    /* The warp's 16 rows of P are its part of the A operand as they stand: no shared memory, and
     * no warp waits for another. The multiply is complete on return, so pb is free again. */
    ts_wg_mma_AB_rs(&c->o, &pb, &in->v);
#endif /* TS_ATTN_VARIANT_OVERLAP */
}

TS_DEVICE void TS_ATTN_FN(store)(const ts_attn_params *p, const ts_attn_task *t, TS_ATTN_FN(consumer) *c,
                                 TS_ATTN_FN(output) *out, int consumer) {
    (void)out;
#if TS_ATTN_VARIANT_CARRY
    /* But for the block's last task, the last P V runs in the next task's first stage and the
     * epilogue after it. */
    if (c->pc.next_task >= 0) {
        c->prev = *t;
        return;
    }
#endif
    TS_ATTN_FN(epilogue)(p, t, &c->o, &c->m, &c->l, consumer);
}

TS_DEVICE void TS_ATTN_FN(finish)(const ts_attn_params *p, TS_ATTN_FN(consumer) *c, TS_ATTN_FN(output) *out,
                                  int consumer) {
    (void)p, (void)c, (void)out, (void)consumer;
}

#define TS_PC_KERNEL TS_ATTN_FN(kernel)
#define TS_PC_PARAMS ts_attn_params
#define TS_PC_HOOK(name) TS_ATTN_FN(name)
#define TS_PC_STAGES TS_ATTN_VARIANT_STAGES
#define TS_PC_CONSUMERS TS_ATTN_VARIANT_CONSUMERS
/* Hopper's 64K registers of a block of 128 (producer) + 128 x consumers threads. */
#if TS_ATTN_VARIANT_CONSUMERS == 3
#define TS_PC_PRODUCER_REGS 32
#define TS_PC_CONSUMER_REGS 160
#else
#define TS_PC_PRODUCER_REGS 40
#define TS_PC_CONSUMER_REGS 232
#endif
#define TS_PC_CONSUMER_BARRIER 1
#define TS_PC_CONSUMER_SCRATCH 4 /* a float a warp: the pin of the softmax */
/* compute commits and waits for its own products (every one has landed when it returns). */
#define TS_PC_COMPUTE_WAITS 1
#define TS_PC_CONSUMER_ITERS 1
#if TS_ATTN_VARIANT_CARRY
#define TS_PC_PERSISTENT_CONSUMER 1 /* the carried output crosses into the next task */
#endif
#include "templates/producer_consumer.h"

#undef TS_ATTN_VARIANT_CONSUMERS
#undef TS_ATTN_VARIANT_BM
#undef TS_ATTN_VARIANT_BN
#undef TS_ATTN_KEYS
#undef TS_ATTN_VARIANT_OVERLAP
#undef TS_ATTN_VARIANT_SHIFT
#undef TS_ATTN_VARIANT_CARRY
#undef TS_ATTN_NAME
#undef TS_ATTN_D
#undef TS_ATTN_DT
#undef TS_ATTN_TILE
#undef TS_ATTN_ST_KV
#undef TS_ATTN_ST_Q
#undef TS_ATTN_RT_P
#undef TS_ATTN_RT_O16
#undef TS_ATTN_RT_S
#undef TS_ATTN_RT_O
#undef TS_ATTN_STAGE_BYTES
#undef TS_ATTN_OUTPUT_BYTES
#undef TS_ATTN_VARIANT_STAGES
