/* One GEMM kernel on the producer-consumer template, for one operand dtype and transpose form.
 * Included once per variant (gemm_instances.h; the ping-pong test kernels) after gemm_common.h,
 * after defining:
 *   TS_GEMM_NAME         the variant's prefix (its kernel is TS_GEMM_NAME##_kernel)
 *   TS_GEMM_A_TILE       the A stage tile type: 64 x BK of M x K (A as stored) or BK x 64 (A^T)
 *   TS_GEMM_B_TILE       the B stage tile type: BK x BN (B as stored) or BN x BK (B^T)
 *   TS_GEMM_TRANS_A, TS_GEMM_TRANS_B   0 or 1
 *   TS_GEMM_MMA          the asynchronous warpgroup multiply of that form (ts_wg_mma_AB_async, ...)
 *   TS_GEMM_SPLIT_K      1: a split instance, whose tasks are the pieces of a split-K schedule
 *                        (templates/tile_scheduler.h), or whole tiles where it has one piece a
 *                        tile; 0: whole tiles
 * The hooks below are the whole kernel; the template (templates/producer_consumer.h) runs them. */

#define TS_GEMM_FN(name) TS_CAT(TS_GEMM_NAME, TS_CAT(_, name))

/* The deferred store: with the staged store, a task's results wait in registers (C's 16 bits) and
 * go out a part a stage during the next task's first stages, each after that stage's multiplies
 * are issued (the last task's in finish), so that the tensor cores work through the epilogue
 * (measured: docs/gemm.md, "Where the tuning numbers come from"). TS_GEMM_HELD is the parts
 * held: all of them, but none in the split instances, which store at the task's end (a split
 * schedule gives each cluster one task, so no next task would cover them). */
#if TS_GEMM_SPLIT_K || !TS_GEMM_STAGED_STORE
#define TS_GEMM_HELD 0
#else
#define TS_GEMM_HELD TS_GEMM_STORE_PARTS
#endif

/* One pipeline stage: each consumer's TS_GEMM_WG_TILES x 64 rows of A (64 rows a tile), and the
 * block's BN columns of B. */
typedef struct TS_GEMM_FN(input) {
    TS_GEMM_A_TILE a[TS_GEMM_CONSUMERS * TS_GEMM_WG_TILES];
    TS_GEMM_B_TILE b;
} TS_GEMM_FN(input);

/* A consumer's results on their way to C (the staged store), TS_GEMM_OUT_COLS columns at a time:
 * two 16-row tiles per warp, used in turn. The bits are C's 16-bit dtype, bf16 or fp16, which the
 * copy engine moves alike. */
typedef struct TS_GEMM_FN(output) {
#if TS_GEMM_STAGED_STORE
    TS_CAT(ts_st_bf16_16x, TS_GEMM_OUT_COLS) c[4][2]; /* [warp][tile used in turn] */
#else
    int unused;
#endif
} TS_GEMM_FN(output);

typedef ts_gemm_task TS_GEMM_FN(task);

/* One part of a warp's results for the staged store: 16 x TS_GEMM_OUT_COLS in C's 16 bits (bf16 or
 * fp16 bits alike). */
#define TS_GEMM_PART_TILE TS_CAT(ts_rt_bf16_16x, TS_GEMM_OUT_COLS)

/* One accumulator per 64-row A tile: a warp's 16 rows of each. With the deferred store, the
 * previous task's parts too, in C's 16 bits, while pending (with their task's first 64-row tile of
 * C and first TS_GEMM_OUT_COLS-column tile). */
typedef struct TS_GEMM_FN(consumer) {
    TS_CAT(ts_rt_f32_16x, TS_GEMM_BN) acc[TS_GEMM_WG_TILES];
#if TS_GEMM_HELD
    TS_GEMM_PART_TILE held[TS_GEMM_HELD];
    int pending, pending_m, pending_n;
#endif
} TS_GEMM_FN(consumer);

#if TS_GEMM_STAGED_STORE
/* Part q of a consumer warp's results in 16 bits to C through shared memory and a TMA store, which
 * reads the tile while the warp goes on: 64-row tile q / halves, columns q % halves; C's tile
 * (m_tile, n_tile) in 64 x TS_GEMM_OUT_COLS units is the consumer's first. q must be a constant
 * where this is inlined: an indexed register tile would go to local memory. checked 0:
 * the tensor store does not check the tile against C's descriptor (ops/tma.h: for stores issued
 * inside the main loop; the task's store checked it). Each warp stores its own 16 rows, waiting
 * only for its own stores, and parts alternate between its two tiles (an even count of parts a
 * task keeps the turn). */
TS_DEVICE void TS_GEMM_FN(store_part)(const ts_gemm_params *p, const TS_GEMM_PART_TILE *part,
                                      TS_GEMM_FN(output) *out, int m_tile, int n_tile, int q, int checked) {
    const int halves = TS_GEMM_BN / TS_GEMM_OUT_COLS, r = q / halves, h = q % halves;
    const int warp = ts_warp_in_group();
    ts_async_store_wait_read_but_last();
    TS_CAT(ts_st_bf16_16x, TS_GEMM_OUT_COLS) *tile = &out->c[warp][q % 2];
    ts_store_r2s_impl(TS_ST_DATA(tile), TS_ST_DESC(tile), TS_RT_CDATA(part), TS_RT_DESC(part), 0, 0);
    ts_async_fence_shared();
    if (checked)
        ts_async_store(&p->c_store, tile, 0, 0, (m_tile + r) * 4 + warp, n_tile + h);
    else
        ts_async_store_unchecked(&p->c_store, tile, 0, 0, (m_tile + r) * 4 + warp, n_tile + h);
    ts_async_store_commit();
}

/* Part q of c16 (c16[r] holds 64-row tile r's results: a warp's 16 rows) into dst. */
#define TS_GEMM_TAKE_PART(dst, c16, q)                                                             \
    ts_rt_copy_cols((dst), &(c16)[(q) / (TS_GEMM_BN / TS_GEMM_OUT_COLS)],                          \
                    (q) % (TS_GEMM_BN / TS_GEMM_OUT_COLS) * TS_GEMM_OUT_COLS)

#if TS_GEMM_HELD
/* Held parts from `from` on (all, from 0; the others went out during the task's first stages);
 * nothing is held afterwards. */
TS_DEVICE void TS_GEMM_FN(store_held)(const ts_gemm_params *p, TS_GEMM_FN(consumer) *c, TS_GEMM_FN(output) *out,
                                      int from) {
    if (!c->pending) return;
    TS_UNROLL /* constant parts keep the results in registers */
    for (int k = 0; k < TS_GEMM_HELD; ++k)
        if (k >= from) TS_GEMM_FN(store_part)(p, &c->held[k], out, c->pending_m, c->pending_n, k, 0);
    c->pending = 0;
}
#endif
#endif

TS_DEVICE long long TS_GEMM_FN(tasks)(const ts_gemm_params *p) {
#if TS_GEMM_SPLIT_K
    return ts_split_tasks(&p->split);
#else
    return p->sched.tasks;
#endif
}

TS_DEVICE int TS_GEMM_FN(setup)(const ts_gemm_params *p, long long task, ts_gemm_task *t) {
    long long unit = task;
    int k_end = p->k_iters;
    t->tm = t->tn = t->k0 = 0;
    t->slot = -1;
#if TS_GEMM_SPLIT_K
    /* Tasks and units far fewer than 2^31 (split-K's are fewer than the clusters, the skinny
     * kernels' whole units N / 256 at most): no 64-bit division (a call) in the task loops. */
    ts_split_piece(&p->split, task, &unit, &t->k0, &k_end);
    if (p->split.split > 1 && !p->cluster_pieces) t->slot = (int)task;
    ts_sched_tile_narrow(&p->sched, (unsigned)unit, &t->tm, &t->tn);
#else
    ts_sched_tile(&p->sched, unit, &t->tm, &t->tn);
#endif
    /* A cluster's blocks take adjacent tiles down M (sharing B) or, with cluster_n, across N. (The
     * clusters of split-K in clusters are made at launch, not by TS_GEMM_CLUSTER: their blocks
     * are a tile's pieces.) */
#if TS_GEMM_CLUSTER > 1
    if (p->cluster_n)
        t->tn = t->tn * TS_GEMM_CLUSTER + ts_cluster_rank();
    else
        t->tm = t->tm * TS_GEMM_CLUSTER + ts_cluster_rank();
#endif
    t->iters = k_end - t->k0;
    return t->iters;
}

#if TS_GEMM_SPLIT_K
/* Split-K: a piece's partial results, the block's whole tile in fp32, into its slot of the
 * workspace (gemm_common.h) as the warps hold them, with whole 16-byte stores; the reduction kernel
 * adds a tile's pieces and stores C. Warps with no row or column of C (a product of 16 rows
 * leaves 7 of a 128-row tile's 8 warps empty) store nothing. */
TS_DEVICE void TS_GEMM_FN(store_split_piece)(const ts_gemm_params *p, const ts_gemm_task *t, TS_GEMM_FN(consumer) *c,
                                             int consumer) {
    const int warp = ts_warp_in_group();
    if ((long long)t->tn * TS_GEMM_BN >= p->c.cols) return;
    float *slot = ts_gemm_split_slot(p, t->slot, ts_cluster_rank());
    TS_UNROLL
    for (int r = 0; r < TS_GEMM_WG_TILES; ++r) {
        const int fb = (consumer * TS_GEMM_WG_TILES + r) * 4 + warp;
        if ((long long)t->tm * TS_GEMM_BM + fb * 16 < p->c.rows)
            ts_store_r2g_groups(slot + fb * TS_GEMM_FRAGMENT_FLOATS, &c->acc[r]);
    }
}
#endif

#if TS_GEMM_SPLIT_K && TS_CLUSTER_MAX > 1
/* Split-K in clusters (gemm_common.h, cluster_pieces): the blocks of a thread-block cluster are the
 * pieces of one tile. Each parks its partial tile in its own ring of stages, free once every
 * consumer warp is past its last multiply (a block of this schedule has one task, whose stages are
 * all consumed); after the cluster barrier, block r adds fragment blocks' groups r, r + pieces, ...
 * of every block's partial tile in rank order (the same sums in every run) and stores them to C;
 * a last barrier keeps every block's shared memory until the others have read it. No workspace,
 * no second kernel. */
#define TS_GEMM_RING_FLOATS (TS_GEMM_STAGES * (int)sizeof(TS_GEMM_FN(input)) / 4)
TS_DEVICE void TS_GEMM_FN(add_in_cluster)(const ts_gemm_params *p, const ts_gemm_task *t, TS_GEMM_FN(consumer) *c,
                                          int consumer) {
    TS_STATIC_ASSERT(TS_GEMM_TILE_FLOATS <= TS_GEMM_RING_FLOATS, "a partial tile fits the ring of stages");
    const int warp = ts_warp_in_group(), warps = 4 * TS_GEMM_CONSUMERS;
    ts_smem sm = ts_smem_begin();
    float *area = (float *)ts_smem_take(&sm, (size_t)TS_GEMM_TILE_FLOATS * sizeof(float), TS_SHARED_ALIGN);
    ts_sync_named(0, warps);
    TS_UNROLL
    for (int r = 0; r < TS_GEMM_WG_TILES; ++r) {
        const int fb = (consumer * TS_GEMM_WG_TILES + r) * 4 + warp;
        ts_store_r2g_groups(area + fb * TS_GEMM_FRAGMENT_FLOATS, &c->acc[r]);
    }
    ts_cluster_sync();
    const long long row_base = (long long)t->tm * TS_GEMM_BM, col0 = (long long)t->tn * TS_GEMM_BN;
    const ts_rt_desc d = TS_GEMM_FRAGMENT_DESC;
    const int groups = TS_RT_GROUPS(d), pieces = p->cluster_pieces;
    const long long rows = p->c.rows - row_base < TS_GEMM_BM ? p->c.rows - row_base : TS_GEMM_BM;
    const int items = col0 < p->c.cols && rows > 0 ? (int)((rows + 15) / 16) * groups : 0;
    for (int item = ts_cluster_rank() * warps + consumer * 4 + warp; item < items; item += pieces * warps) {
        const int fb = item / groups, group = item - fb * groups;
        ts_reduce_groups_cluster_axpby(&p->c, d, area + fb * TS_GEMM_FRAGMENT_FLOATS, pieces, group,
                                       row_base + fb * 16, col0, p->alpha, p->beta, TS_GEMM_C_TRANSPOSED);
    }
    ts_cluster_sync();
}
#undef TS_GEMM_RING_FLOATS
#endif

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

TS_DEVICE void TS_GEMM_FN(load)(const ts_gemm_params *p, const ts_gemm_task *t, TS_GEMM_FN(input) *in,
                                ts_tbar *full, int iter) {
    const int warp = ts_warp_in_group(); /* 0 .. TS_GEMM_LOAD_WARPS - 1 */
    if (warp == 0)
        ts_tbar_expect_bytes(full, TS_GEMM_CONSUMERS * TS_GEMM_WG_TILES * TS_ASYNC_BYTES(&in->a[0]) +
                                       TS_ASYNC_BYTES(&in->b));
    /* Copy c < a_tiles is A tile c, copy a_tiles is B; warp w issues copies w, w + LOAD_WARPS, ....
     * The operand the cluster's blocks have in common is loaded once for all of them. */
    const int a_tiles = TS_GEMM_CONSUMERS * TS_GEMM_WG_TILES;
    /* The tiles are checked against their descriptors at a task's first stage only: the checks
     * lengthen the path from a stage's release to its refill (ops/tma.h). */
    if (iter == 0) {
        ts_async_check(&p->a, &in->a[0]);
        ts_async_check(&p->b, &in->b);
    }
    for (int c = warp; c <= a_tiles; c += TS_GEMM_LOAD_WARPS) {
        if (c < a_tiles) {
            const int m_tile = t->tm * a_tiles + c;
            const int row = TS_GEMM_A_ROW(m_tile, t->k0 + iter), col = TS_GEMM_A_COL(m_tile, t->k0 + iter);
            if (TS_GEMM_CLUSTER > 1 && p->cluster_n)
                ts_async_load_cluster_unchecked(&in->a[c], &p->a, 0, 0, row, col, full);
            else
                ts_async_load_unchecked(&in->a[c], &p->a, 0, 0, row, col, full);
        } else {
            const int row = TS_GEMM_B_ROW(t->k0 + iter, t->tn), col = TS_GEMM_B_COL(t->k0 + iter, t->tn);
            if (TS_GEMM_CLUSTER > 1 && !p->cluster_n)
                ts_async_load_cluster_unchecked(&in->b, &p->b, 0, 0, row, col, full);
            else
                ts_async_load_unchecked(&in->b, &p->b, 0, 0, row, col, full);
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
    ts_wg_fence();
    TS_UNROLL
    for (int r = 0; r < TS_GEMM_WG_TILES; ++r)
        TS_GEMM_MMA(&c->acc[r], &in->a[consumer * TS_GEMM_WG_TILES + r], &in->b);
#if TS_GEMM_HELD
    /* The first stages of a task store the previous task's results a part each while their
     * multiplies run. */
    ts_wg_commit();
    if (c->pending && iter < TS_GEMM_HELD) {
        TS_UNROLL /* constant parts keep the results in registers */
        for (int k = 0; k < TS_GEMM_HELD; ++k)
            if (k == iter) TS_GEMM_FN(store_part)(p, &c->held[k], out, c->pending_m, c->pending_n, k, 0);
    }
    ts_wg_wait(0);
#endif
    /* Without the deferred store the multiplies are only issued here: the template commits them
     * and waits (templates/producer_consumer.h). */
}

TS_DEVICE void TS_GEMM_FN(store)(const ts_gemm_params *p, const ts_gemm_task *t, TS_GEMM_FN(consumer) *c,
                                 TS_GEMM_FN(output) *out, int consumer) {
    TS_UNROLL
    for (int r = 0; r < TS_GEMM_WG_TILES; ++r) ts_wg_acc_fence(&c->acc[r]);
#if TS_GEMM_HELD
    /* What this task's stages left of the previous task's results. */
    TS_GEMM_FN(store_held)(p, c, out, t->iters < TS_GEMM_HELD ? t->iters : TS_GEMM_HELD);
#endif
#if TS_GEMM_SPLIT_K && TS_CLUSTER_MAX > 1
    if (p->cluster_pieces) {
        TS_GEMM_FN(add_in_cluster)(p, t, c, consumer);
        return;
    }
#endif
#if TS_GEMM_SPLIT_K
    if (t->slot >= 0) {
        TS_GEMM_FN(store_split_piece)(p, t, c, consumer);
        return;
    }
#endif
    /* The consumer's 64-row tiles of C, r = 0 .. TS_GEMM_WG_TILES - 1. */
    const int m_tile0 = (t->tm * TS_GEMM_CONSUMERS + consumer) * TS_GEMM_WG_TILES;
#if TS_GEMM_STAGED_STORE
    if (p->staged) {
        /* alpha, then 16 bits: one uniform branch each, not a choice per element. */
        if (p->alpha != 1.0f) {
            TS_UNROLL
            for (int r = 0; r < TS_GEMM_WG_TILES; ++r) ts_mul_scalar(&c->acc[r], &c->acc[r], p->alpha);
        }
        TS_CAT(ts_rt_bf16_16x, TS_GEMM_BN) c16[TS_GEMM_WG_TILES];
        if (p->c.dtype == TS_DTYPE_BF16) {
            TS_UNROLL
            for (int r = 0; r < TS_GEMM_WG_TILES; ++r) ts_convert(&c16[r], &c->acc[r]);
        } else {
            /* fp16 values in the same registers */
            const ts_rt_desc fp16 = ts_rt_make_desc(16, TS_GEMM_BN, TS_DTYPE_FP16, TS_LAYOUT_ROW);
            TS_UNROLL
            for (int r = 0; r < TS_GEMM_WG_TILES; ++r)
                ts_convert_impl(TS_RT_DATA(&c16[r]), fp16, TS_RT_CDATA(&c->acc[r]), TS_RT_DESC(&c->acc[r]));
        }
        const int n_tile0 = t->tn * (TS_GEMM_BN / TS_GEMM_OUT_COLS);
#if TS_GEMM_HELD
        /* The parts go out during the next task's first stages (or finish); none checks the tile
         * against C's descriptor again: that is done once here. */
        ts_async_check(&p->c_store, &out->c[0][0]);
        TS_UNROLL
        for (int k = 0; k < TS_GEMM_HELD; ++k) TS_GEMM_TAKE_PART(&c->held[k], c16, k);
        c->pending = 1;
        c->pending_m = m_tile0;
        c->pending_n = n_tile0;
#else
        TS_UNROLL /* constant parts keep the results in registers */
        for (int q = 0; q < TS_GEMM_STORE_PARTS; ++q) {
            TS_GEMM_PART_TILE part;
            TS_GEMM_TAKE_PART(&part, c16, q);
            TS_GEMM_FN(store_part)(p, &part, out, m_tile0, n_tile0, q, 1);
        }
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
        ts_store_r2g_axpby(&p->c, &c->acc[r], row0, col0, p->alpha, p->beta, TS_GEMM_C_TRANSPOSED);
    }
}

TS_DEVICE void TS_GEMM_FN(finish)(const ts_gemm_params *p, TS_GEMM_FN(consumer) *c, TS_GEMM_FN(output) *out,
                                  int consumer) {
    (void)p, (void)c, (void)out, (void)consumer;
#if TS_GEMM_HELD
    TS_GEMM_FN(store_held)(p, c, out, 0);
#endif
    /* The last staged stores must be done before the block's shared memory goes away (each warp
     * waits for those it issued). */
    ts_async_store_wait();
}

#if TS_GEMM_SPLIT_K
/* The split instances serve products of few rows (split-K's pieces, the skinny kernels' tiles),
 * whose kernels are short: their launch and set-up overlap the stream's previous kernel, the tensor
 * maps are fetched while the barriers are set up, and the reduction kernel after them launches
 * early in turn. */
TS_DEVICE void TS_GEMM_FN(prefetch)(const ts_gemm_params *p) {
    ts_async_prefetch(&p->a);
    ts_async_prefetch(&p->b);
}
#define TS_PC_EARLY 1
#define TS_PC_PREFETCH 1
#endif

#define TS_PC_KERNEL TS_GEMM_FN(kernel)
#define TS_PC_PARAMS ts_gemm_params
#define TS_PC_HOOK(name) TS_GEMM_FN(name)
#define TS_PC_STAGES TS_GEMM_STAGES
#define TS_PC_CONSUMERS TS_GEMM_CONSUMERS
#define TS_PC_PRODUCER_REGS TS_GEMM_PRODUCER_REGS
#define TS_PC_CONSUMER_REGS TS_GEMM_CONSUMER_REGS
#define TS_PC_CLUSTER TS_GEMM_CLUSTER
#define TS_PC_LOAD_WARPS TS_GEMM_LOAD_WARPS
#if TS_GEMM_HELD
#define TS_PC_COMPUTE_WAITS 1 /* compute stores between its multiplies' commit and wait */
#define TS_PC_PERSISTENT_CONSUMER 1 /* the held results cross into the next task */
#endif
#include "templates/producer_consumer.h"

#undef TS_GEMM_HELD
#undef TS_GEMM_PART_TILE
#undef TS_GEMM_TAKE_PART
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
