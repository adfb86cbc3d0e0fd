/* One attention-forward kernel on the producer-consumer template, for one head dimension and
 * dtype. Included by attention.c once per variant after defining:
 *   TS_ATTN_NAME        the variant's prefix
 *   TS_ATTN_D           the head dimension (64 or 128)
 *   TS_ATTN_ST_D        the shared tile type of 64 rows x D (ts_st_bf16_64x128, ...)
 *   TS_ATTN_ST_P        the shared tile type of 64 x 64 for P (ts_st_bf16_64x64, ...)
 *   TS_ATTN_RT_P        the register tile type of 16 x 64 for P (ts_rt_bf16_16x64, ...)
 *   TS_ATTN_RT_O16      the register tile type of 16 x D for the output (ts_rt_bf16_16x128, ...)
 *
 * Per stage, each consumer warpgroup computes S = Q K^T for its 64 query rows against 64 keys,
 * masks it, folds it into the running row maxima and sums (the online softmax of FlashAttention,
 * in base 2), rescales its output accumulator, and adds P V, with P passed through shared memory
 * as the A operand. */

#define TS_ATTN_CAT2(a, b) a##b
#define TS_ATTN_CAT(a, b) TS_ATTN_CAT2(a, b)
#define TS_ATTN_FN(name) TS_ATTN_CAT(TS_ATTN_NAME, TS_ATTN_CAT(_, name))

typedef struct TS_ATTN_FN(input) {
    TS_ATTN_ST_D k, v;
} TS_ATTN_FN(input);

/* A consumer's query rows, and its P tile on the way to the second multiply. */
typedef struct TS_ATTN_FN(output) {
    TS_ATTN_ST_D q;
    TS_ATTN_ST_P p;
} TS_ATTN_FN(output);

typedef ts_attn_task TS_ATTN_FN(task);

typedef struct TS_ATTN_FN(consumer) {
    TS_ATTN_CAT(ts_rt_f32_16x, TS_ATTN_D) o;
    ts_rowvec_f32_16 m, l; /* running maximum (base-2 units) and sum of each of the warp's rows */
} TS_ATTN_FN(consumer);

TS_DEVICE long long TS_ATTN_FN(tasks)(const ts_attn_params *p) { return p->tasks; }

TS_DEVICE int TS_ATTN_FN(setup)(const ts_attn_params *p, long long task, ts_attn_task *t) {
    return ts_attn_setup(p, task, t);
}

TS_DEVICE void TS_ATTN_FN(load)(const ts_attn_params *p, const ts_attn_task *t, TS_ATTN_FN(input) *in,
                                ts_tbar *full, int iter) {
    const int hkv = t->hq / p->group;
    ts_tbar_expect_bytes(full, TS_ASYNC_BYTES(&in->k) + TS_ASYNC_BYTES(&in->v));
    ts_async_load(&in->k, &p->k, t->b, hkv, iter, 0, full);
    ts_async_load(&in->v, &p->v, t->b, hkv, iter, 0, full);
}

/* The warp's first query row in the whole sequence. */
TS_DEVICE long long TS_ATTN_FN(row0)(const ts_attn_task *t, int consumer) {
    return (long long)t->qt * TS_ATTN_BM + consumer * 64 + ts_warp_in_group() * 16;
}

TS_DEVICE void TS_ATTN_FN(init)(const ts_attn_params *p, const ts_attn_task *t, TS_ATTN_FN(consumer) *c,
                                TS_ATTN_FN(output) *out, int consumer) {
    /* The consumer's 64 query rows, zero past the sequence; the last task's multiplies are done
     * with the tile before any warp overwrites it. The multiplies read it through the async
     * proxy, hence the fence. */
    const int first_warp = ts_warpgroup_id() * 4;
    ts_sync_named(consumer, 4);
    ts_load_g2s_group(&out->q, &p->q, t->b, t->hq, t->qt * TS_ATTN_CONSUMERS + consumer, 0, first_warp, 4);
    ts_async_fence_shared();
    ts_sync_named(consumer, 4);
    ts_zero(&c->o);
    ts_rv_fill(&c->m, -INFINITY);
    ts_rv_zero(&c->l);
}

TS_DEVICE void TS_ATTN_FN(compute)(const ts_attn_params *p, const ts_attn_task *t, TS_ATTN_FN(consumer) *c,
                                   const TS_ATTN_FN(input) *in, TS_ATTN_FN(output) *out, int iter,
                                   int consumer) {
    const long long row0 = TS_ATTN_FN(row0)(t, consumer), col0 = (long long)iter * TS_ATTN_BN;
    ts_rt_f32_16x64 s;
    ts_wg_mm_ABt(&s, &out->q, &in->k);
    ts_mul_scalar(&s, &s, p->scale_log2);
    if (p->causal) ts_causal_mask(&s, &s, row0, col0, -INFINITY);
    ts_mask_cols_from(&s, &s, col0, p->seq_kv, -INFINITY);

    /* m_new = max(m, row max); a row with every score masked so far keeps -inf, and the finite
     * stand-in m_safe keeps exp2(-inf - m) at 0 instead of NaN. */
    ts_rowvec_f32_16 m_new, m_safe, corr;
    ts_row_max_acc(&m_new, &s, &c->m);
    ts_rv_max_scalar(&m_safe, &m_new, -FLT_MAX);
    ts_sub_row(&s, &s, &m_safe);
    ts_exp2(&s, &s);
    ts_rv_sub(&corr, &c->m, &m_safe);
    ts_rv_exp2(&corr, &corr);
    ts_rv_mul(&c->l, &c->l, &corr);
    ts_row_sum_acc(&c->l, &s, &c->l);
    ts_mul_row(&c->o, &c->o, &corr);
    ts_rv_copy(&c->m, &m_new);

    TS_ATTN_RT_P pb;
    ts_convert(&pb, &s);
    /* Every warp is done with the last stage's P before any overwrites it, and has written its rows
     * of this one before the multiply reads them all. */
    ts_sync_named(consumer, 4);
    ts_store_r2s_at(&out->p, &pb, ts_warp_in_group() * 16, 0);
    ts_async_fence_shared();
    ts_sync_named(consumer, 4);
    ts_wg_mma_AB(&c->o, &out->p, &in->v);
}

TS_DEVICE void TS_ATTN_FN(store)(const ts_attn_params *p, const ts_attn_task *t, TS_ATTN_FN(consumer) *c,
                                 TS_ATTN_FN(output) *out, int consumer) {
    (void)out;
    const long long row0 = TS_ATTN_FN(row0)(t, consumer);
    ts_rowvec_f32_16 l_safe;
    ts_rv_max_scalar(&l_safe, &c->l, FLT_MIN);
    ts_div_row(&c->o, &c->o, &l_safe);
    TS_ATTN_RT_O16 o16;
    ts_convert(&o16, &c->o);
    ts_store_r2g(&p->o, &o16, t->b, t->hq, row0 / 16, 0);
    if (p->lse) {
        /* Natural log-sum-exp: m is in base-2 units, so lse = m ln 2 + ln l (-inf for an empty row). */
        ts_rowvec_f32_16 lse, ln_l;
        ts_rv_log(&ln_l, &c->l);
        ts_rv_mul_scalar(&lse, &c->m, 0.69314718055994531f);
        ts_rv_add(&lse, &lse, &ln_l);
        ts_rv_store(p->lse + ((long long)t->b * p->heads_q + t->hq) * p->seq_q, &lse, row0, p->seq_q);
    }
}

TS_DEVICE void TS_ATTN_FN(finish)(const ts_attn_params *p, TS_ATTN_FN(output) *out, int consumer) {
    (void)p, (void)out, (void)consumer;
}

#define TS_PC_KERNEL TS_ATTN_FN(kernel)
#define TS_PC_PARAMS ts_attn_params
#define TS_PC_HOOK(name) TS_ATTN_FN(name)
#define TS_PC_STAGES TS_ATTN_STAGES
#define TS_PC_CONSUMERS TS_ATTN_CONSUMERS
#define TS_PC_PRODUCER_REGS 40
#define TS_PC_CONSUMER_REGS 232
#include "templates/producer_consumer.h"

#undef TS_ATTN_NAME
#undef TS_ATTN_D
#undef TS_ATTN_ST_D
#undef TS_ATTN_ST_P
#undef TS_ATTN_RT_P
#undef TS_ATTN_RT_O16
