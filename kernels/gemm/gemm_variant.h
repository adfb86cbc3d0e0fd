/* One GEMM kernel on the producer-consumer template, for one operand dtype and transpose form.
 * Included by gemm.c once per variant after defining:
 *   TS_GEMM_NAME         the variant's prefix (its kernel is TS_GEMM_NAME##_kernel)
 *   TS_GEMM_A_TILE       the A stage tile type: 64 x BK of M x K (A as stored) or BK x 64 (A^T)
 *   TS_GEMM_B_TILE       the B stage tile type: BK x BN (B as stored) or BN x BK (B^T)
 *   TS_GEMM_TRANS_A, TS_GEMM_TRANS_B   0 or 1
 *   TS_GEMM_MMA          the asynchronous warpgroup multiply of that form (ts_wg_mma_AB_async, ...)
 * The hooks below are the whole kernel; the template (templates/producer_consumer.h) runs them. */

#define TS_GEMM_FN(name) TS_CAT(TS_GEMM_NAME, TS_CAT(_, name))

/* One pipeline stage: each consumer's TS_GEMM_WG_TILES x 64 rows of A (64 rows a tile), and the
 * block's BN columns of B. */
typedef struct TS_GEMM_FN(input) {
    TS_GEMM_A_TILE a[TS_GEMM_CONSUMERS * TS_GEMM_WG_TILES];
    TS_GEMM_B_TILE b;
} TS_GEMM_FN(input);

/* A consumer's 64 x TS_GEMM_OUT_COLS results on their way to C (the staged store); the bits are
 * C's 16-bit dtype, bf16 or fp16, which the copy engine moves alike. */
typedef struct TS_GEMM_FN(output) {
#if TS_GEMM_STAGED_STORE
    TS_CAT(ts_st_bf16_64x, TS_GEMM_OUT_COLS) c;
#else
    int unused;
#endif
} TS_GEMM_FN(output);

typedef ts_gemm_task TS_GEMM_FN(task);

/* One accumulator per 64-row A tile: a warp's 16 rows of each. With the staged store, the last
 * task's results packed to 16 bits (a lane's values of each tile, two to a register), the
 * parts of them not yet stored, and where they go: C's 64-row tile and column tile (in
 * TS_GEMM_OUT_COLS units) of the first part. */
typedef struct TS_GEMM_FN(consumer) {
    TS_CAT(ts_rt_f32_16x, TS_GEMM_BN) acc[TS_GEMM_WG_TILES];
#if TS_GEMM_STAGED_STORE
    unsigned packed[TS_GEMM_WG_TILES][TS_GEMM_BN / 16 * TS_RT_SUB_ELEMS / 2];
    int parts_left, out_tile_m, out_tile_n;
#endif
} TS_GEMM_FN(consumer);

TS_DEVICE void TS_GEMM_FN(consumer_start)(const ts_gemm_params *p, TS_GEMM_FN(consumer) *c, int consumer) {
    (void)p, (void)c, (void)consumer;
#if TS_GEMM_STAGED_STORE
    c->parts_left = 0;
#endif
}

#if TS_GEMM_STAGED_STORE
/* Part q of the packed results (64-row tile q / halves, columns q % halves) through the consumer's
 * output tile to C by a TMA store, which reads the tile while the warps go on. q must be a
 * constant where this is inlined: an indexed `packed` would go to local memory. */
TS_DEVICE void TS_GEMM_FN(store_part)(const ts_gemm_params *p, const TS_GEMM_FN(consumer) *c,
                                      TS_GEMM_FN(output) *out, int consumer, int q) {
    const int halves = TS_GEMM_BN / TS_GEMM_OUT_COLS, r = q / halves, h = q % halves;
    const ts_rt_desc part = ts_rt_make_desc(16, TS_GEMM_OUT_COLS, TS_DTYPE_F32, TS_RT_LAYOUT(&c->acc[0]));
    /* The previous store must have read the output tile before it is overwritten. */
    if (ts_warp_in_group() == 0) ts_async_store_wait_read();
    ts_sync_named(consumer, 4);
    ts_gemm_stage_rows(TS_ST_DATA(&out->c), TS_ST_DESC(&out->c), &c->packed[r][h * (TS_GEMM_OUT_COLS / 16 * TS_RT_SUB_ELEMS / 2)], part,
                       ts_warp_in_group() * 16);
    ts_async_fence_shared();
    ts_sync_named(consumer, 4);
    if (ts_warp_in_group() == 0) {
        ts_async_store(&p->c_store, &out->c, 0, 0, c->out_tile_m + r, c->out_tile_n + h);
        ts_async_store_commit();
    }
}

/* The next part not yet stored, if any. */
TS_DEVICE void TS_GEMM_FN(store_next_part)(const ts_gemm_params *p, TS_GEMM_FN(consumer) *c,
                                           TS_GEMM_FN(output) *out, int consumer) {
    if (c->parts_left == 0) return;
    const int next = TS_GEMM_STORE_PARTS - c->parts_left;
    TS_UNROLL
    for (int q = 0; q < TS_GEMM_STORE_PARTS; ++q)
        if (q == next) TS_GEMM_FN(store_part)(p, c, out, consumer, q);
    --c->parts_left;
}
#endif

TS_DEVICE long long TS_GEMM_FN(tasks)(const ts_gemm_params *p) { return p->sched.tasks; }

TS_DEVICE int TS_GEMM_FN(setup)(const ts_gemm_params *p, long long task, ts_gemm_task *t) {
    ts_sched_tile(&p->sched, task, &t->tm, &t->tn);
    /* A cluster's blocks take adjacent tiles down M (sharing B) or, with cluster_n, across N. */
    if (p->cluster_n)
        t->tn = t->tn * TS_GEMM_CLUSTER + ts_cluster_rank();
    else
        t->tm = t->tm * TS_GEMM_CLUSTER + ts_cluster_rank();
    return p->k_iters;
}

/* Tile coordinates of the stored operands: A's (m, k) tile, and B's (k, n) tile. */
#if TS_GEMM_TRANS_A
#define TS_GEMM_A_ROW(m_tile, k_tile) (k_tile)
#define TS_GEMM_A_COL(m_tile, k_tile) (m_tile)
#else
#define TS_GEMM_A_ROW(m_tile, k_tile) (m_tile)
#define TS_GEMM_A_COL(m_tile, k_tile) (k_tile)
#endif
#if TS_GEMM_TRANS_B
#define TS_GEMM_B_ROW(k_tile, n_tile) (n_tile)
#define TS_GEMM_B_COL(k_tile, n_tile) (k_tile)
#else
#define TS_GEMM_B_ROW(k_tile, n_tile) (k_tile)
#define TS_GEMM_B_COL(k_tile, n_tile) (n_tile)
#endif

/* Timing probes for scripts/gpu-ab.sh, never set in a build that computes: TS_GEMM_PROBE_NO_LOAD
 * (stages are announced but never loaded), TS_GEMM_PROBE_NO_MMA (loads without multiplies) and
 * TS_GEMM_PROBE_NO_STORE (no epilogue: what a fully hidden one would give) time one part of the
 * kernel at a time; each gives wrong results on purpose. */
TS_DEVICE void TS_GEMM_FN(load)(const ts_gemm_params *p, const ts_gemm_task *t, TS_GEMM_FN(input) *in,
                                ts_tbar *full, int iter) {
#ifdef TS_GEMM_PROBE_NO_LOAD
    (void)p, (void)t, (void)in, (void)iter;
    if (ts_warp_in_group() == 0) ts_tbar_expect_bytes(full, 0);
    return;
#endif
    const int warp = ts_warp_in_group(); /* 0 .. TS_GEMM_LOAD_WARPS - 1 */
    if (warp == 0)
        ts_tbar_expect_bytes(full, TS_GEMM_CONSUMERS * TS_GEMM_WG_TILES * TS_ASYNC_BYTES(&in->a[0]) +
                                       TS_ASYNC_BYTES(&in->b));
    /* Copy c < a_tiles is A tile c, copy a_tiles is B; warp w issues copies w, w + LOAD_WARPS, ....
     * The operand the cluster's blocks have in common is loaded once for all of them. */
    const int a_tiles = TS_GEMM_CONSUMERS * TS_GEMM_WG_TILES;
    for (int c = warp; c <= a_tiles; c += TS_GEMM_LOAD_WARPS) {
        if (c < a_tiles) {
            const int m_tile = t->tm * a_tiles + c;
            const int row = TS_GEMM_A_ROW(m_tile, iter), col = TS_GEMM_A_COL(m_tile, iter);
            if (p->cluster_n)
                ts_async_load_cluster(&in->a[c], &p->a, 0, 0, row, col, full);
            else
                ts_async_load(&in->a[c], &p->a, 0, 0, row, col, full);
        } else {
            const int row = TS_GEMM_B_ROW(iter, t->tn), col = TS_GEMM_B_COL(iter, t->tn);
            if (p->cluster_n)
                ts_async_load(&in->b, &p->b, 0, 0, row, col, full);
            else
                ts_async_load_cluster(&in->b, &p->b, 0, 0, row, col, full);
        }
    }
}

TS_DEVICE void TS_GEMM_FN(init)(const ts_gemm_params *p, const ts_gemm_task *t, TS_GEMM_FN(consumer) *c,
                                TS_GEMM_FN(output) *out, int consumer) {
    (void)p, (void)t, (void)out, (void)consumer;
    TS_UNROLL
    for (int r = 0; r < TS_GEMM_WG_TILES; ++r) {
        ts_zero(&c->acc[r]);
        ts_wg_acc_fence(&c->acc[r]);
    }
}

TS_DEVICE void TS_GEMM_FN(compute)(const ts_gemm_params *p, const ts_gemm_task *t, TS_GEMM_FN(consumer) *c,
                                   const TS_GEMM_FN(input) *in, TS_GEMM_FN(output) *out, int iter, int consumer) {
    (void)p, (void)t, (void)out, (void)iter;
    /* Issued only: the template commits, and waits one stage later (templates/producer_consumer.h). */
#ifndef TS_GEMM_PROBE_NO_MMA
    ts_wg_fence();
    TS_UNROLL
    for (int r = 0; r < TS_GEMM_WG_TILES; ++r)
        TS_GEMM_MMA(&c->acc[r], &in->a[consumer * TS_GEMM_WG_TILES + r], &in->b);
#else
    (void)in, (void)consumer, (void)c;
#endif
#if TS_GEMM_DEFERRED_STORE
    /* While the task's first multiplies run: the last task's results. */
    if (iter == 0 && p->staged)
        while (c->parts_left > 0) TS_GEMM_FN(store_next_part)(p, c, out, consumer);
#endif
}

TS_DEVICE void TS_GEMM_FN(store)(const ts_gemm_params *p, const ts_gemm_task *t, TS_GEMM_FN(consumer) *c,
                                 TS_GEMM_FN(output) *out, int consumer) {
    TS_UNROLL
    for (int r = 0; r < TS_GEMM_WG_TILES; ++r) ts_wg_acc_fence(&c->acc[r]);
#ifdef TS_GEMM_PROBE_NO_STORE
    /* One element kept in use, so that the multiplies that produce the accumulators stay. */
    (void)t, (void)out, (void)consumer;
    if (c->acc[0].v[0][0][0] == -1.25e-30f) ((unsigned short *)p->c.ptr)[0] = 0;
    return;
#endif
    /* The consumer's 64-row tiles of C, r = 0 .. TS_GEMM_WG_TILES - 1. */
    const int m_tile0 = (t->tm * TS_GEMM_CONSUMERS + consumer) * TS_GEMM_WG_TILES;
#if TS_GEMM_STAGED_STORE
    if (p->staged) {
        /* Parts of the previous task's results that its successor's stages did not store (a task
         * of fewer stages than parts) go first: their registers are reused now. */
        while (c->parts_left > 0) TS_GEMM_FN(store_next_part)(p, c, out, consumer);
        TS_UNROLL
        for (int r = 0; r < TS_GEMM_WG_TILES; ++r)
            ts_gemm_pack(c->packed[r], &c->acc[r].v[0][0][0], TS_GEMM_BN / 16 * TS_RT_SUB_ELEMS, p->alpha,
                         p->c.dtype == TS_DTYPE_BF16);
        c->out_tile_m = m_tile0;
        c->out_tile_n = t->tn * (TS_GEMM_BN / TS_GEMM_OUT_COLS);
        c->parts_left = TS_GEMM_STORE_PARTS;
#if !TS_GEMM_DEFERRED_STORE
        while (c->parts_left > 0) TS_GEMM_FN(store_next_part)(p, c, out, consumer);
#endif
        return;
    }
#else
    (void)out;
#endif
    const long long col0 = (long long)t->tn * TS_GEMM_BN;
    TS_UNROLL
    for (int r = 0; r < TS_GEMM_WG_TILES; ++r) {
        const long long row0 = (long long)(m_tile0 + r) * 64 + ts_warp_in_group() * 16;
        ts_gemm_epilogue(&c->acc[r].v[0][0][0], TS_RT_DESC(&c->acc[r]), &p->c, row0, col0, p->alpha, p->beta);
    }
}

TS_DEVICE void TS_GEMM_FN(finish)(const ts_gemm_params *p, TS_GEMM_FN(consumer) *c, TS_GEMM_FN(output) *out,
                                  int consumer) {
    (void)p, (void)c, (void)out, (void)consumer;
#if TS_GEMM_STAGED_STORE
    /* The last task's results, and every staged store done before the block's shared memory goes away. */
    while (c->parts_left > 0) TS_GEMM_FN(store_next_part)(p, c, out, consumer);
#endif
    if (ts_warp_in_group() == 0) ts_async_store_wait();
}

#define TS_PC_KERNEL TS_GEMM_FN(kernel)
#define TS_PC_PARAMS ts_gemm_params
#define TS_PC_HOOK(name) TS_GEMM_FN(name)
#define TS_PC_STAGES TS_GEMM_STAGES
#define TS_PC_CONSUMERS TS_GEMM_CONSUMERS
#define TS_PC_PRODUCER_REGS 40
#define TS_PC_CONSUMER_REGS 232
#define TS_PC_CLUSTER TS_GEMM_CLUSTER
#define TS_PC_LOAD_WARPS TS_GEMM_LOAD_WARPS
#define TS_PC_PEEL_FIRST_STAGE TS_GEMM_DEFERRED_STORE
#include "templates/producer_consumer.h"

#undef TS_GEMM_NAME
#undef TS_GEMM_A_TILE
#undef TS_GEMM_B_TILE
#undef TS_GEMM_TRANS_A
#undef TS_GEMM_TRANS_B
#undef TS_GEMM_MMA
#undef TS_GEMM_A_ROW
#undef TS_GEMM_A_COL
#undef TS_GEMM_B_ROW
#undef TS_GEMM_B_COL
