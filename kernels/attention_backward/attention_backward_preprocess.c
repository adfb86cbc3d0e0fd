/* Attention backward's first and last passes, kernels of their own. The first: for every query
 * row, D = rowsum(dO * O) (the term of dS = P (dP - D) that the main kernels need for every score)
 * and the forward's log-sum-exp in base 2, both into the workspace, in rows padded to
 * TS_ATTN_BWD_ROW_PAD with D = 0 and lse = +inf past N_q, so that a padded query row's
 * probabilities are exactly 0; in the atomic form it also zeroes the rows' fp32 dQ sums. The last
 * (atomic form only): dQ = scale x those sums, in dQ's dtype and strides. Memory-bound and small,
 * so plain register tiles: a warp takes 16 rows, a block 64. */
#include "kernels/attention_backward/attention_backward_common.h"

/* One warp's 16 rows at head dimension D (a constant in each branch, so the tiles' size is). */
#define TS_ATTN_BWD_PRE_ROWS(D, p, b, h, row0, delta)                                              \
    do {                                                                                           \
        ts_rt_f32_16x##D o_, do_;                                                                  \
        ts_load_g2r(&o_, &(p)->o, (b), (h), (row0) / 16, 0);                                       \
        ts_load_g2r(&do_, &(p)->d_o, (b), (h), (row0) / 16, 0);                                    \
        ts_mul(&o_, &o_, &do_);                                                                    \
        ts_row_sum((delta), &o_);                                                                  \
        if ((p)->dq_acc.ptr) {                                                                     \
            ts_zero(&o_);                                                                          \
            ts_store_r2g(&(p)->dq_acc, &o_, (b), (h), (row0) / 16, 0);                             \
        }                                                                                          \
    } while (0)

/* dQ's 16 rows of a warp in dtype DT, from the fp32 sums (the atomic form runs at D = 128 only:
 * TS_ATTN_BWD_DQ_ATOMIC_OF). */
#define TS_ATTN_BWD_DQ_ROWS(DT, p, b, h, row0)                                                     \
    do {                                                                                           \
        ts_rt_f32_16x128 acc_;                                                                     \
        ts_rt_##DT##_16x128 out_;                                                                  \
        ts_load_g2r(&acc_, &(p)->dq_acc, (b), (h), (row0) / 16, 0);                                \
        ts_mul_scalar(&acc_, &acc_, (p)->scale);                                                   \
        ts_convert(&out_, &acc_);                                                                  \
        ts_store_r2g(&(p)->dq, &out_, (b), (h), (row0) / 16, 0); /* rows past N_q are not stored */ \
    } while (0)

TS_KERNEL(ts_attn_bwd_preprocess_kernel, TS_ATTN_BWD_PRE_WARPS, ts_attn_bwd_pre_params, p) {
    int b, h;
    long long row0;
    ts_attn_bwd_pass_rows(p, &b, &h, &row0);
    const long long bh = (long long)b * p->heads_q + h;
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

TS_KERNEL(ts_attn_bwd_dq_convert_kernel, TS_ATTN_BWD_PRE_WARPS, ts_attn_bwd_pre_params, p) {
    int b, h;
    long long row0;
    ts_attn_bwd_pass_rows(p, &b, &h, &row0);
    if (p->dq.dtype == TS_DTYPE_FP16)
        TS_ATTN_BWD_DQ_ROWS(fp16, p, b, h, row0);
    else
        TS_ATTN_BWD_DQ_ROWS(bf16, p, b, h, row0);
}

TS_EXTERN_C ts_status ts_attn_bwd_dq_convert_launch(const ts_attn_bwd_pre_params *p, ts_stream stream) {
    return TS_LAUNCH(ts_attn_bwd_dq_convert_kernel, ts_grid_1d((unsigned)p->blocks), TS_ATTN_BWD_PRE_WARPS, 0,
                     stream, *p);
}
