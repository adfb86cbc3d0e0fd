/* The dK/dV kernel of attention backward on the producer-consumer template, for one head dimension
 * and dtype. Included by attention_backward.c once per instance after defining:
 *   TS_ATTN_BWD_NAME   the instance's prefix
 *   TS_ATTN_BWD_D      the head dimension (64 or 128)
 *   TS_ATTN_BWD_DT     the dtype as it appears in tile names (bf16 or fp16)
 *   TS_ATTN_BWD_DQ_ADD 1: the instance of the atomic form of dQ (below; D = 128, where the
 *                      architecture has it: TS_ATTN_BWD_DQ_ATOMIC_OF); 0: dK and dV only. Two
 *                      instances rather than a flag tested at run time: the test's second path cost
 *                      the kernel the registers to keep its products in flight.
 *
 * A task is a block of 64 x consumers keys of one (batch, key-value head); each consumer warpgroup
 * keeps its 64 keys' K and V in its own shared area and dK, dV in registers (each warp 16 keys).
 * The producer streams, per stage, one query tile of BQ rows of Q and dO and the tile's log-sum-exp
 * and D (preprocessed, in the workspace), walking every query tile that sees the block, for every
 * query head of the group: dK and dV come out summed over the group, with no second pass. Per
 * stage each consumer computes, keys as rows (so that every product's A operand is either a shared
 * tile it holds or a register tile it just computed):
 *   S^T  = K Q^T                       (shared K, shared Q)
 *   P^T  = 2^(S^T scale log2(e) - lse2) (lse2 a per-column vector)
 *   dV  += P^T dO                      (P^T from registers)
 *   dP^T = V dO^T                      (shared V, shared dO)
 *   dS^T = P^T (dP^T - D)
 *   dK  += dS^T Q                      (dS^T from registers)
 * and at the end stores dK scale and dV. S^T and dP^T are issued together and P^T is computed while
 * dP^T runs; dV's product runs while dS^T is computed. In the atomic form of dQ each stage also
 * stores dS^T to a shared slot, and the two consumers split the columns of the stage's share of dQ,
 * each summing over the block's 128 keys:
 *   dQ[:, 64c .. 64c + 63] = dS K[:, 64c .. 64c + 63]   (both consumers' dS^T and K, from shared)
 * issued a stage late, beside the next stage's dK product (the task's last one in P_store): by then
 * the other consumer's dS^T of that stage has long been written, so the consumers wait for each
 * other only through one announcement a slot (bar.arrive by the writer, bar.sync by the reader)
 * and keep their own pace, their exponentials overlapping the other's products. A barrier of both
 * every stage instead cost 12-14% (docs/attention-backward.md). Each warp stores its 16 x 64 rows
 * to a shared tile of its own and adds them into the workspace's fp32 sums with an asynchronous
 * reduce-add copy (ts_async_store_add), which runs while the next stage computes. */

#define TS_ATTN_BWD_FN(name) TS_CAT(TS_ATTN_BWD_NAME, TS_CAT(_, name))
#define TS_ATTN_BWD_V_CONSUMERS TS_ATTN_BWD_CONSUMERS_OF(TS_ATTN_BWD_D)
#define TS_ATTN_BWD_V_BLOCK TS_ATTN_BWD_BLOCK_OF(TS_ATTN_BWD_D)
#if TS_ATTN_BWD_D == 64
#define TS_ATTN_BWD_V_BQ TS_ATTN_BWD_BQ_D64
#else
#define TS_ATTN_BWD_V_BQ TS_ATTN_BWD_BQ_D128
#endif
#define TS_ATTN_BWD_TILE(kind, R, C)                                                               \
    TS_CAT(TS_CAT(kind, TS_ATTN_BWD_DT), TS_CAT(_, TS_CAT(R, TS_CAT(x, C))))
#define TS_ATTN_BWD_ST_Q TS_ATTN_BWD_TILE(ts_st_, TS_ATTN_BWD_V_BQ, TS_ATTN_BWD_D)
#define TS_ATTN_BWD_ST_KV TS_ATTN_BWD_TILE(ts_st_, 64, TS_ATTN_BWD_D)
#define TS_ATTN_BWD_RT_P16 TS_ATTN_BWD_TILE(ts_rt_, 16, TS_ATTN_BWD_V_BQ)
#define TS_ATTN_BWD_RT_G16 TS_ATTN_BWD_TILE(ts_rt_, 16, TS_ATTN_BWD_D)
#define TS_ATTN_BWD_RT_S TS_CAT(ts_rt_f32_16x, TS_ATTN_BWD_V_BQ)
#define TS_ATTN_BWD_RT_G TS_CAT(ts_rt_f32_16x, TS_ATTN_BWD_D)
#define TS_ATTN_BWD_SV TS_CAT(ts_sv_f32_, TS_ATTN_BWD_V_BQ)
#define TS_ATTN_BWD_CV TS_CAT(ts_colvec_f32_, TS_ATTN_BWD_V_BQ)
#define TS_ATTN_BWD_V_DQ_ATOMIC (TS_ATTN_BWD_DQ_ADD && TS_ATTN_BWD_DQ_ATOMIC_OF(TS_ATTN_BWD_D))
#define TS_ATTN_BWD_ST_DS TS_ATTN_BWD_TILE(ts_st_, 64, TS_ATTN_BWD_V_BQ)
#define TS_ATTN_BWD_ST_K64 TS_ATTN_BWD_TILE(ts_st_, 64, 64)

/* The vectors' bytes, padded so that a stage keeps the next stage's tiles on the 1024-byte
 * alignment of the swizzle. */
#define TS_ATTN_BWD_VEC_BYTES (2u * 4u * TS_ATTN_BWD_V_BQ)
#define TS_ATTN_BWD_VEC_PAD ((1024u - TS_ATTN_BWD_VEC_BYTES % 1024u) % 1024u)
typedef struct TS_ATTN_BWD_FN(input) {
    TS_ATTN_BWD_ST_Q q, d_o;
    TS_ATTN_BWD_SV lse2, delta;
#if TS_ATTN_BWD_VEC_PAD
    unsigned char pad[TS_ATTN_BWD_VEC_PAD];
#endif
} TS_ATTN_BWD_FN(input);

/* A consumer's keys, for the whole task; in the atomic form of dQ also its dS^T of the last stages
 * (TS_ATTN_BWD_DS_SLOTS, used in turn) and each warp's 16 rows of dQ on their way to global
 * memory. */
typedef struct TS_ATTN_BWD_FN(output) {
    TS_ATTN_BWD_ST_KV k, v;
#if TS_ATTN_BWD_V_DQ_ATOMIC
    TS_ATTN_BWD_ST_DS ds[TS_ATTN_BWD_DS_SLOTS];
    ts_st_f32_16x64 dq[4];
#endif
} TS_ATTN_BWD_FN(output);

TS_STATIC_ASSERT(sizeof(TS_ATTN_BWD_FN(input)) % 1024u == 0, "a stage keeps the swizzle's alignment");
TS_STATIC_ASSERT(TS_ATTN_BWD_DS_BARRIER(1, TS_ATTN_BWD_DS_SLOTS - 1) < TS_NAMED_BARRIERS,
                 "the dS^T announcements' named barriers exist");
TS_STATIC_ASSERT(TS_ATTN_BWD_STAGES * sizeof(TS_ATTN_BWD_FN(input)) +
                         TS_ATTN_BWD_V_CONSUMERS * sizeof(TS_ATTN_BWD_FN(output)) + 1024u <=
                     TS_MAX_SHARED_BYTES,
                 "the dK/dV kernel's stages do not fit in shared memory");

typedef ts_attn_bwd_kv_task TS_ATTN_BWD_FN(task);

typedef struct TS_ATTN_BWD_FN(consumer) {
    ts_pc_consumer pc; /* the warpgroup's barrier for its K and V */
    TS_ATTN_BWD_RT_G dk, dv;
    long long key0; /* the warp's first key */
#if TS_ATTN_BWD_V_DQ_ATOMIC
    int ds_slot;         /* the slot of this stage's dS^T */
    int dq_pending;      /* the last stage's dQ is still to be computed and added */
    int dq_hq, dq_qt;    /* and its query head and tile */
#endif
} TS_ATTN_BWD_FN(consumer);

TS_DEVICE long long TS_ATTN_BWD_FN(tasks)(const ts_attn_bwd_dkdv_params *p) { return p->tasks; }

TS_DEVICE int TS_ATTN_BWD_FN(setup)(const ts_attn_bwd_dkdv_params *p, long long task, ts_attn_bwd_kv_task *t) {
    return ts_attn_bwd_kv_setup(p, task, TS_ATTN_BWD_V_BLOCK, TS_ATTN_BWD_V_BQ, t);
}

TS_DEVICE void TS_ATTN_BWD_FN(load)(const ts_attn_bwd_dkdv_params *p, const ts_attn_bwd_kv_task *t,
                                    TS_ATTN_BWD_FN(input) *in, ts_tbar *full, int iter) {
    int hq, qt;
    ts_attn_bwd_kv_stage(p, t, iter, &hq, &qt);
    ts_tbar_expect_bytes(full, TS_ASYNC_BYTES(&in->q) + TS_ASYNC_BYTES(&in->d_o) + TS_ATTN_BWD_VEC_BYTES);
    ts_async_load(&in->q, &p->q, t->b, hq, qt, 0, full);
    ts_async_load(&in->d_o, &p->d_o, t->b, hq, qt, 0, full);
    const long long row = ((long long)t->b * p->heads_q + hq) * p->nq_pad + (long long)qt * TS_ATTN_BWD_V_BQ;
    ts_copy_async_g2s(in->lse2.v, p->lse2 + row, 4u * TS_ATTN_BWD_V_BQ, full);
    ts_copy_async_g2s(in->delta.v, p->delta + row, 4u * TS_ATTN_BWD_V_BQ, full);
}

TS_DEVICE void TS_ATTN_BWD_FN(init)(const ts_attn_bwd_dkdv_params *p, const ts_attn_bwd_kv_task *t,
                                    TS_ATTN_BWD_FN(consumer) *c, TS_ATTN_BWD_FN(output) *out, int consumer) {
    const int warp = ts_warp_in_group();
    /* The last task's products have read out->k and out->v in every warp of the group before the
     * copies overwrite them (in the atomic form at D = 128, of every consumer: each reads the
     * others' K). */
#if TS_ATTN_BWD_V_DQ_ATOMIC
    ts_sync_named(TS_ATTN_BWD_ALL_CONSUMERS_BARRIER, 4 * TS_ATTN_BWD_V_CONSUMERS);
#else
    ts_sync_named(consumer, 4);
#endif
    const int tile = t->kt * TS_ATTN_BWD_V_CONSUMERS + consumer; /* the consumer's 64 keys */
    if (warp == 0) {
        ts_tbar_expect_bytes(c->pc.bar, TS_ASYNC_BYTES(&out->k) + TS_ASYNC_BYTES(&out->v));
        ts_async_load(&out->k, &p->k, t->b, t->hkv, tile, 0, c->pc.bar);
        ts_async_load(&out->v, &p->v, t->b, t->hkv, tile, 0, c->pc.bar);
    }
    c->key0 = (long long)tile * 64 + warp * 16;
#if TS_ATTN_BWD_V_DQ_ATOMIC
    /* The slots start over with each task: the barrier above has every warp of the block past the
     * last task's products and announcements. */
    c->ds_slot = 0;
    c->dq_pending = 0;
#endif
    ts_zero(&c->dk);
    ts_zero(&c->dv);
    ts_wg_acc_fence(&c->dk);
    ts_wg_acc_fence(&c->dv);
    ts_tbar_wait(c->pc.bar, c->pc.round & 1);
}

#if TS_ATTN_BWD_V_DQ_ATOMIC
/* Issues (and commits) the product of a stage's share of dQ from the dS^T in `slot`: columns
 * 64 consumer .. 64 consumer + 63 over both consumers' keys (their dS^T and the same 64-column
 * chunk of their K; a chunk of a 64 x 128 tile is a 64 x 64 tile), once the other consumer has
 * announced its dS^T (`announced`: the slot was written this task; else the product runs on
 * whatever the slot holds, and its result is not used). */
TS_DEVICE void TS_ATTN_BWD_FN(dq_issue)(ts_rt_f32_16x64 *dq, const TS_ATTN_BWD_FN(output) *out, int consumer,
                                        int slot, int announced) {
    if (announced) ts_sync_named(TS_ATTN_BWD_DS_BARRIER(1 - consumer, slot), 4 * TS_ATTN_BWD_V_CONSUMERS);
    const TS_ATTN_BWD_FN(output) *outs = out - consumer;
    ts_wg_acc_fence(dq);
    ts_wg_fence();
    ts_wg_mm_AtB_async(dq, &outs[0].ds[slot], (const TS_ATTN_BWD_ST_K64 *)(const void *)&outs[0].k + consumer);
    ts_wg_mma_AtB_async(dq, &outs[1].ds[slot], (const TS_ATTN_BWD_ST_K64 *)(const void *)&outs[1].k + consumer);
    ts_wg_commit();
}

/* Adds a warp's 16 rows of a stage's share of dQ (query head and tile from c) into the workspace's
 * fp32 sums through its shared tile, once the warp's last reduce-add has read the tile. */
TS_DEVICE void TS_ATTN_BWD_FN(dq_add)(const ts_attn_bwd_dkdv_params *p, const ts_attn_bwd_kv_task *t,
                                      const TS_ATTN_BWD_FN(consumer) *c, TS_ATTN_BWD_FN(output) *out, int consumer,
                                      const ts_rt_f32_16x64 *dq) {
    const int warp = ts_warp_in_group();
    ts_async_store_wait_read();
    ts_store_r2s(&out->dq[warp], dq);
    ts_async_fence_shared();
    ts_async_store_add_unchecked(&p->dq_add, &out->dq[warp], t->b, c->dq_hq,
                                 c->dq_qt * (TS_ATTN_BWD_V_BQ / 16) + warp, consumer);
    ts_async_store_commit();
}
#endif

TS_DEVICE void TS_ATTN_BWD_FN(compute)(const ts_attn_bwd_dkdv_params *p, const ts_attn_bwd_kv_task *t,
                                       TS_ATTN_BWD_FN(consumer) *c, const TS_ATTN_BWD_FN(input) *in,
                                       TS_ATTN_BWD_FN(output) *out, int iter, int consumer) {
    (void)consumer;
    TS_ATTN_BWD_RT_S s, dp;
    /* Three groups in flight in order: S^T, dP^T, then dV's product; each wait retires the oldest. */
    ts_wg_acc_fence(&s);
    ts_wg_acc_fence(&dp);
    ts_wg_fence();
    ts_wg_mm_ABt_async(&s, &out->k, &in->q); /* S^T = K Q^T */
    ts_wg_commit();
    ts_wg_mm_ABt_async(&dp, &out->v, &in->d_o); /* dP^T = V dO^T */
    ts_wg_commit();
    ts_wg_wait(1); /* S^T has landed; dP^T may still run */
    ts_wg_acc_fence(&s);

    /* The query columns' log-sum-exp and D (rows past N_q: +inf and 0). */
    TS_ATTN_BWD_CV lse2, delta;
    ts_rv_load_s(&lse2, &in->lse2);
    ts_rv_load_s(&delta, &in->delta);
    int hq, qt;
    ts_attn_bwd_kv_stage(p, t, iter, &hq, &qt);
    (void)hq;
    const long long q0 = (long long)qt * TS_ATTN_BWD_V_BQ;
    /* Key j is masked for query i < j: keep col - row >= 0. Only tiles that reach below the
     * diagonal need it. */
    if (p->causal && c->key0 + 15 > q0) ts_triu(&s, &s, c->key0, q0, 0, -INFINITY);
    ts_exp2_scale_sub_col(&s, &s, p->scale_log2, &lse2); /* P^T */

    /* dV += P^T dO runs while dS^T is formed in fp32; dK's product is issued once it has landed,
     * so that P^T's 16-bit copy is dead before dS^T's is made (at D = 128 both beside dK, dV, S^T
     * and dP^T spilled). */
    TS_ATTN_BWD_RT_P16 p16, ds16;
    ts_convert(&p16, &s);
    ts_wg_acc_fence(&c->dv);
    ts_wg_a_fence(&p16);
    ts_wg_fence();
    ts_wg_mma_AB_rs_async(&c->dv, &p16, &in->d_o);
    ts_wg_commit();
    ts_wg_wait(1); /* dP^T has landed; dV's product may still run */
    ts_wg_acc_fence(&dp);
    ts_sub_col(&dp, &dp, &delta);
    ts_mul(&dp, &dp, &s); /* dS^T */
    ts_wg_wait(0);
    ts_wg_acc_fence(&c->dv);
    ts_wg_a_fence(&p16);

    ts_convert(&ds16, &dp);
#if TS_ATTN_BWD_V_DQ_ATOMIC
    /* dS^T to this stage's slot, published to the tensor cores and, at D = 128, announced to the
     * other consumer (its product of the next stage reads it). */
    const int slot = c->ds_slot, last = TS_ATTN_BWD_DS_SLOT_BEFORE(slot);
    ts_store_r2s_at(&out->ds[slot], &ds16, ts_warp_in_group() * 16, 0);
    ts_async_fence_shared();
    ts_arrive_named(TS_ATTN_BWD_DS_BARRIER(consumer, slot), 4 * TS_ATTN_BWD_V_CONSUMERS);
#endif
    ts_wg_acc_fence(&c->dk);
    ts_wg_a_fence(&ds16);
    ts_wg_fence();
    ts_wg_mma_AB_rs_async(&c->dk, &ds16, &in->q);
    ts_wg_commit();
#if TS_ATTN_BWD_V_DQ_ATOMIC
    /* The last stage's dQ beside this stage's dK (at a task's first stage the product runs on
     * whatever the slot holds and is not added). */
    ts_rt_f32_16x64 dq;
    TS_ATTN_BWD_FN(dq_issue)(&dq, out, consumer, last, iter > 0);
#endif
    ts_wg_wait(0);
    ts_wg_acc_fence(&c->dk);
    ts_wg_a_fence(&ds16);
#if TS_ATTN_BWD_V_DQ_ATOMIC
    ts_wg_acc_fence(&dq);
    if (iter > 0) TS_ATTN_BWD_FN(dq_add)(p, t, c, out, consumer, &dq);
    c->dq_hq = hq;
    c->dq_qt = qt;
    c->dq_pending = 1;
    c->ds_slot = TS_ATTN_BWD_DS_SLOT_AFTER(slot);
#endif
}

TS_DEVICE void TS_ATTN_BWD_FN(store)(const ts_attn_bwd_dkdv_params *p, const ts_attn_bwd_kv_task *t,
                                     TS_ATTN_BWD_FN(consumer) *c, TS_ATTN_BWD_FN(output) *out, int consumer) {
    (void)out, (void)consumer;
#if TS_ATTN_BWD_V_DQ_ATOMIC
    /* The task's last stage's dQ, while its K tiles are still here; then its reduce-adds have read
     * their tiles, so that none is in flight when the block's shared memory goes. */
    {
        const int last = TS_ATTN_BWD_DS_SLOT_BEFORE(c->ds_slot);
        ts_rt_f32_16x64 dq;
        TS_ATTN_BWD_FN(dq_issue)(&dq, out, consumer, last, c->dq_pending);
        ts_wg_wait(0);
        ts_wg_acc_fence(&dq);
        if (c->dq_pending) TS_ATTN_BWD_FN(dq_add)(p, t, c, out, consumer, &dq);
        c->dq_pending = 0;
        ts_async_store_wait_read();
    }
#endif
    if (c->key0 >= p->seq_kv) return;
    /* dS was taken with respect to the scaled scores: dK carries the scale once more. */
    TS_ATTN_BWD_RT_G16 g16;
    ts_mul_scalar(&c->dk, &c->dk, p->scale);
    ts_convert(&g16, &c->dk);
    ts_store_r2g(&p->dk, &g16, t->b, t->hkv, c->key0 / 16, 0);
    ts_convert(&g16, &c->dv);
    ts_store_r2g(&p->dv, &g16, t->b, t->hkv, c->key0 / 16, 0);
}

TS_DEVICE void TS_ATTN_BWD_FN(finish)(const ts_attn_bwd_dkdv_params *p, TS_ATTN_BWD_FN(consumer) *c,
                                      TS_ATTN_BWD_FN(output) *out, int consumer) {
    (void)p, (void)c, (void)out, (void)consumer;
}

#define TS_PC_KERNEL TS_ATTN_BWD_FN(kernel)
#define TS_PC_PARAMS ts_attn_bwd_dkdv_params
#define TS_PC_HOOK(name) TS_ATTN_BWD_FN(name)
#define TS_PC_STAGES TS_ATTN_BWD_STAGES
#define TS_PC_CONSUMERS TS_ATTN_BWD_V_CONSUMERS
#if TS_ATTN_BWD_V_CONSUMERS == 3
#define TS_PC_PRODUCER_REGS 32
#define TS_PC_CONSUMER_REGS 160
#else
#define TS_PC_PRODUCER_REGS 24
#define TS_PC_CONSUMER_REGS 240
#endif
#define TS_PC_CONSUMER_BARRIER 1
#define TS_PC_COMPUTE_WAITS 1
#include "templates/producer_consumer.h"

#undef TS_ATTN_BWD_V_CONSUMERS
#undef TS_ATTN_BWD_V_BLOCK
#undef TS_ATTN_BWD_V_BQ
#undef TS_ATTN_BWD_TILE
#undef TS_ATTN_BWD_ST_Q
#undef TS_ATTN_BWD_ST_KV
#undef TS_ATTN_BWD_RT_P16
#undef TS_ATTN_BWD_RT_G16
#undef TS_ATTN_BWD_RT_S
#undef TS_ATTN_BWD_RT_G
#undef TS_ATTN_BWD_SV
#undef TS_ATTN_BWD_CV
#undef TS_ATTN_BWD_V_DQ_ATOMIC
#undef TS_ATTN_BWD_ST_DS
#undef TS_ATTN_BWD_ST_K64
#undef TS_ATTN_BWD_VEC_BYTES
#undef TS_ATTN_BWD_VEC_PAD
#undef TS_ATTN_BWD_FN
