/* The dQ kernel of attention backward on the producer-consumer template, for one head dimension and
 * dtype. Included by attention_backward.c once per instance after defining TS_ATTN_BWD_NAME,
 * TS_ATTN_BWD_D and TS_ATTN_BWD_DT (as dkdv_variant.h).
 *
 * A task is a block of 64 x consumers query rows of one (batch, query head), as in the forward;
 * each consumer warpgroup keeps its 64 rows' Q and dO in its own shared area, their log-sum-exp and
 * D in registers, and dQ in registers (each warp 16 rows). The producer streams the key tiles of
 * BK keys (K and V) that the rows see. Per stage each consumer recomputes
 *   S  = Q K^T,  P = 2^(S scale log2(e) - lse2),  dP = dO V^T,  dS = P (dP - D),  dQ += dS K
 * (dS from registers) and at the end stores dQ scale. Recomputing S and dP here, rather than adding
 * each dK/dV task's share of dQ into an fp32 buffer with atomics, costs two of the backward's five
 * products again, and makes dQ the same bits run to run (docs/attention-backward.md). */

#define TS_ATTN_BWD_FN(name) TS_CAT(TS_ATTN_BWD_NAME, TS_CAT(_, name))
#define TS_ATTN_BWD_V_CONSUMERS TS_ATTN_BWD_CONSUMERS_OF(TS_ATTN_BWD_D)
#define TS_ATTN_BWD_V_BLOCK TS_ATTN_BWD_BLOCK_OF(TS_ATTN_BWD_D)
#if TS_ATTN_BWD_D == 64
#define TS_ATTN_BWD_V_BK TS_ATTN_BWD_BK_D64
#else
#define TS_ATTN_BWD_V_BK TS_ATTN_BWD_BK_D128
#endif
#define TS_ATTN_BWD_TILE(kind, R, C)                                                               \
    TS_CAT(TS_CAT(kind, TS_ATTN_BWD_DT), TS_CAT(_, TS_CAT(R, TS_CAT(x, C))))
#define TS_ATTN_BWD_ST_KV TS_ATTN_BWD_TILE(ts_st_, TS_ATTN_BWD_V_BK, TS_ATTN_BWD_D)
#define TS_ATTN_BWD_ST_Q TS_ATTN_BWD_TILE(ts_st_, 64, TS_ATTN_BWD_D)
#define TS_ATTN_BWD_RT_S16 TS_ATTN_BWD_TILE(ts_rt_, 16, TS_ATTN_BWD_V_BK)
#define TS_ATTN_BWD_RT_G16 TS_ATTN_BWD_TILE(ts_rt_, 16, TS_ATTN_BWD_D)
#define TS_ATTN_BWD_RT_S TS_CAT(ts_rt_f32_16x, TS_ATTN_BWD_V_BK)
#define TS_ATTN_BWD_RT_G TS_CAT(ts_rt_f32_16x, TS_ATTN_BWD_D)

typedef struct TS_ATTN_BWD_FN(input) {
    TS_ATTN_BWD_ST_KV k, v;
} TS_ATTN_BWD_FN(input);

/* A consumer's query rows and their output gradient, for the whole task. */
typedef struct TS_ATTN_BWD_FN(output) {
    TS_ATTN_BWD_ST_Q q, d_o;
} TS_ATTN_BWD_FN(output);

TS_STATIC_ASSERT(TS_ATTN_BWD_STAGES * sizeof(TS_ATTN_BWD_FN(input)) +
                         TS_ATTN_BWD_V_CONSUMERS * sizeof(TS_ATTN_BWD_FN(output)) + 1024u <=
                     TS_MAX_SHARED_BYTES,
                 "the dQ kernel's stages do not fit in shared memory");

typedef ts_attn_bwd_q_task TS_ATTN_BWD_FN(task);

typedef struct TS_ATTN_BWD_FN(consumer) {
    ts_pc_consumer pc; /* the warpgroup's barrier for its Q and dO */
    TS_ATTN_BWD_RT_G dq;
    ts_rowvec_f32_16 lse2, delta; /* of the warp's 16 rows */
    long long row0;               /* the warp's first query row */
} TS_ATTN_BWD_FN(consumer);

TS_DEVICE long long TS_ATTN_BWD_FN(tasks)(const ts_attn_bwd_dq_params *p) { return p->tasks; }

TS_DEVICE int TS_ATTN_BWD_FN(setup)(const ts_attn_bwd_dq_params *p, long long task, ts_attn_bwd_q_task *t) {
    return ts_attn_bwd_q_setup(p, task, TS_ATTN_BWD_V_BLOCK, TS_ATTN_BWD_V_BK, t);
}

TS_DEVICE void TS_ATTN_BWD_FN(load)(const ts_attn_bwd_dq_params *p, const ts_attn_bwd_q_task *t,
                                    TS_ATTN_BWD_FN(input) *in, ts_tbar *full, int iter) {
    const int hkv = t->hq / p->group;
    ts_tbar_expect_bytes(full, TS_ASYNC_BYTES(&in->k) + TS_ASYNC_BYTES(&in->v));
    ts_async_load(&in->k, &p->k, t->b, hkv, iter, 0, full);
    ts_async_load(&in->v, &p->v, t->b, hkv, iter, 0, full);
}

TS_DEVICE void TS_ATTN_BWD_FN(init)(const ts_attn_bwd_dq_params *p, const ts_attn_bwd_q_task *t,
                                    TS_ATTN_BWD_FN(consumer) *c, TS_ATTN_BWD_FN(output) *out, int consumer) {
    const int warp = ts_warp_in_group();
    /* The last task's products have read out->q and out->d_o in every warp of the group before
     * the copies overwrite them. */
    ts_sync_named(consumer, 4);
    const int tile = t->qt * TS_ATTN_BWD_V_CONSUMERS + consumer; /* the consumer's 64 rows */
    if (warp == 0) {
        ts_tbar_expect_bytes(c->pc.bar, TS_ASYNC_BYTES(&out->q) + TS_ASYNC_BYTES(&out->d_o));
        ts_async_load(&out->q, &p->q, t->b, t->hq, tile, 0, c->pc.bar);
        ts_async_load(&out->d_o, &p->d_o, t->b, t->hq, tile, 0, c->pc.bar);
    }
    c->row0 = (long long)tile * 64 + warp * 16;
    /* Rows past N_q (padded in the workspace): lse2 = +inf and D = 0. */
    const long long base = ((long long)t->b * p->heads_q + t->hq) * p->nq_pad;
    ts_rv_load(&c->lse2, p->lse2 + base, c->row0, p->nq_pad);
    ts_rv_load(&c->delta, p->delta + base, c->row0, p->nq_pad);
    ts_zero(&c->dq);
    ts_wg_acc_fence(&c->dq);
    ts_tbar_wait(c->pc.bar, c->pc.round & 1);
}

TS_DEVICE void TS_ATTN_BWD_FN(compute)(const ts_attn_bwd_dq_params *p, const ts_attn_bwd_q_task *t,
                                       TS_ATTN_BWD_FN(consumer) *c, const TS_ATTN_BWD_FN(input) *in,
                                       TS_ATTN_BWD_FN(output) *out, int iter, int consumer) {
    (void)t, (void)consumer;
    TS_ATTN_BWD_RT_S s, dp;
    ts_wg_acc_fence(&s);
    ts_wg_acc_fence(&dp);
    ts_wg_fence();
    ts_wg_mm_ABt_async(&s, &out->q, &in->k); /* S = Q K^T */
    ts_wg_commit();
    ts_wg_mm_ABt_async(&dp, &out->d_o, &in->v); /* dP = dO V^T */
    ts_wg_commit();
    ts_wg_wait(1); /* S has landed; P is computed while dP runs */
    ts_wg_acc_fence(&s);

    const long long col0 = (long long)iter * TS_ATTN_BWD_V_BK;
    if (p->causal && col0 + TS_ATTN_BWD_V_BK - 1 > c->row0) ts_causal_mask(&s, &s, c->row0, col0, -INFINITY);
    if (col0 + TS_ATTN_BWD_V_BK > p->seq_kv) ts_mask_cols_from(&s, &s, col0, p->seq_kv, -INFINITY);
    ts_exp2_scale_sub_row(&s, &s, p->scale_log2, &c->lse2); /* P */
    ts_wg_wait(0);
    ts_wg_acc_fence(&dp);
    ts_sub_row(&dp, &dp, &c->delta);
    ts_mul(&dp, &dp, &s); /* dS */

    TS_ATTN_BWD_RT_S16 ds16;
    ts_convert(&ds16, &dp);
    ts_wg_acc_fence(&c->dq);
    ts_wg_a_fence(&ds16);
    ts_wg_fence();
    ts_wg_mma_AB_rs_async(&c->dq, &ds16, &in->k);
    ts_wg_commit();
    ts_wg_wait(0);
    ts_wg_acc_fence(&c->dq);
    ts_wg_a_fence(&ds16);
}

TS_DEVICE void TS_ATTN_BWD_FN(store)(const ts_attn_bwd_dq_params *p, const ts_attn_bwd_q_task *t,
                                     TS_ATTN_BWD_FN(consumer) *c, TS_ATTN_BWD_FN(output) *out, int consumer) {
    (void)out, (void)consumer;
    if (c->row0 >= p->seq_q) return;
    TS_ATTN_BWD_RT_G16 g16;
    ts_mul_scalar(&c->dq, &c->dq, p->scale);
    ts_convert(&g16, &c->dq);
    ts_store_r2g(&p->dq, &g16, t->b, t->hq, c->row0 / 16, 0);
}

TS_DEVICE void TS_ATTN_BWD_FN(finish)(const ts_attn_bwd_dq_params *p, TS_ATTN_BWD_FN(consumer) *c,
                                      TS_ATTN_BWD_FN(output) *out, int consumer) {
    (void)p, (void)c, (void)out, (void)consumer;
}

#define TS_PC_KERNEL TS_ATTN_BWD_FN(kernel)
#define TS_PC_PARAMS ts_attn_bwd_dq_params
#define TS_PC_HOOK(name) TS_ATTN_BWD_FN(name)
#define TS_PC_STAGES TS_ATTN_BWD_STAGES
#define TS_PC_CONSUMERS TS_ATTN_BWD_V_CONSUMERS
#if TS_ATTN_BWD_V_CONSUMERS == 3
#define TS_PC_PRODUCER_REGS 32
#define TS_PC_CONSUMER_REGS 160
#else
#define TS_PC_PRODUCER_REGS 40
#define TS_PC_CONSUMER_REGS 232
#endif
#define TS_PC_CONSUMER_BARRIER 1
#define TS_PC_COMPUTE_WAITS 1
#include "templates/producer_consumer.h"

#undef TS_ATTN_BWD_V_CONSUMERS
#undef TS_ATTN_BWD_V_BLOCK
#undef TS_ATTN_BWD_V_BK
#undef TS_ATTN_BWD_TILE
#undef TS_ATTN_BWD_ST_KV
#undef TS_ATTN_BWD_ST_Q
#undef TS_ATTN_BWD_RT_S16
#undef TS_ATTN_BWD_RT_G16
#undef TS_ATTN_BWD_RT_S
#undef TS_ATTN_BWD_RT_G
#undef TS_ATTN_BWD_FN
