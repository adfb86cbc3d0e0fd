/* Attention backward's first pass, a kernel of its own: for every query row, D = rowsum(dO * O)
 * (the term of dS = P (dP - D) that the two main kernels need for every score) and the forward's
 * log-sum-exp in base 2, both into the workspace, in rows padded to TS_ATTN_BWD_ROW_PAD with
 * D = 0 and lse = +inf past N_q, so that a padded query row's probabilities are exactly 0.
 * Memory-bound and small (2 D 16-bit reads a row), so plain register tiles: a warp takes 16 rows,
 * a block 64. */
#include "kernels/attention_backward/attention_backward_common.h"

/* One warp's 16 rows at head dimension D (a constant in each branch, so the tiles' size is). */
#define TS_ATTN_BWD_PRE_ROWS(D, p, b, h, row0, delta)                                              \
    do {                                                                                           \
        ts_rt_f32_16x##D o_, do_;                                                                  \
        ts_load_g2r(&o_, &(p)->o, (b), (h), (row0) / 16, 0);                                       \
        ts_load_g2r(&do_, &(p)->d_o, (b), (h), (row0) / 16, 0);                                    \
        ts_mul(&o_, &o_, &do_);                                                                    \
        ts_row_sum((delta), &o_);                                                                  \
    } while (0)

TS_KERNEL(ts_attn_bwd_preprocess_kernel, TS_ATTN_BWD_PRE_WARPS, ts_attn_bwd_pre_params, p) {
    const unsigned block = ts_block_x();
    const unsigned bh = block / (unsigned)p->row_blocks;
    const long long row0 = (long long)(block - bh * (unsigned)p->row_blocks) * (16 * TS_ATTN_BWD_PRE_WARPS) +
                           16 * ts_warp_id();
    const int b = (int)(bh / (unsigned)p->heads_q), h = (int)(bh - (unsigned)b * (unsigned)p->heads_q);
    ts_rowvec_f32_16 delta, lse, inf;
    /* Rows past N_q load as zeros: D = 0 there. */
    if (p->head_dim == 64)
        TS_ATTN_BWD_PRE_ROWS(64, p, b, h, row0, &delta);
    else
        TS_ATTN_BWD_PRE_ROWS(128, p, b, h, row0, &delta);
    const long long base = (long long)bh * p->nq_pad;
    ts_rv_store(p->delta + base, &delta, row0, p->nq_pad);
    /* +inf on every padded row, then the real rows over it (the same lanes store the same rows). */
    ts_rv_fill(&inf, INFINITY);
    ts_rv_store(p->lse2 + base, &inf, row0, p->nq_pad);
    ts_rv_load(&lse, p->lse + (long long)bh * p->seq_q, row0, p->seq_q);
    ts_rv_mul_scalar(&lse, &lse, 1.4426950408889634f);
    ts_rv_store(p->lse2 + base, &lse, row0, p->seq_q);
}

TS_EXTERN_C ts_status ts_attn_bwd_preprocess_launch(const ts_attn_bwd_pre_params *p, ts_stream stream) {
    return TS_LAUNCH(ts_attn_bwd_preprocess_kernel, ts_grid_1d((unsigned)p->blocks), TS_ATTN_BWD_PRE_WARPS, 0, stream,
                     *p);
}
