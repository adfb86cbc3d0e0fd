/* One LayerNorm / RMSNorm kernel for the input dtype TS_NORM_DTYPE (x, residual, residual_out),
 * instantiated by norm.c once per dtype; LayerNorm or RMSNorm, the residual, weight, bias and the
 * output dtype are run-time choices, uniform across the grid.
 *
 * Each warp holds one TS_ROWWISE_E-element slice of a row in registers (ts_rowwise_wv), loaded with
 * 16-byte accesses, and never reads it twice: the residual sum, both passes of the statistics and
 * the normalization all work on the registers. A longer row is spread over a group of
 * warps that combine their partial sums through shared memory (kernels/common/rowwise.h).
 *   defines: TS_NORM_NAME (kernel; the launcher is TS_NORM_NAME##_launch), TS_NORM_DTYPE,
 *            TS_NORM_MAX_WARPS (block size limit), TS_NORM_MIN_BLOCKS (blocks per SM, TS_KERNEL_RESIDENT),
 *            TS_NORM_RING (1: the instance can take its inputs through the prefetch ring of
 *            norm_common.h when the launcher sets p->ring; 16-bit dtypes only) */
#define TS_NORM_CAT2(a, b) a##b
#define TS_NORM_CAT(a, b) TS_NORM_CAT2(a, b)

TS_KERNEL_RESIDENT(TS_NORM_NAME, TS_NORM_MAX_WARPS, TS_NORM_MIN_BLOCKS, ts_norm_params, p) {
    const int nw = p->warps_per_row, groups = ts_num_warps() / nw;
    const int warp = ts_warp_id(), group = warp / nw, w = warp % nw;
    const int bytes = TS_DTYPE_BYTES(TS_NORM_DTYPE);
    const int out_bytes = TS_DTYPE_BYTES(p->out_dtype), param_bytes = TS_DTYPE_BYTES(p->param_dtype);
    const int ring = TS_NORM_RING && p->ring;
    unsigned char *const shared = ts_shared_base();
    float *slots = (float *)(shared + (ring ? TS_NORM_RING_BYTES(ts_num_warps()) : 0)) + 2 * nw * group;
    int parity = 0;
    const long long col0 = (long long)w * TS_ROWWISE_E, left = p->cols - col0;
    const long long step = (long long)ts_grid_x() * groups;
    const long long first0 = (long long)ts_block_x() * groups;
    ts_rowwise_wv h, t;
#if TS_NORM_RING
    /* This warp's slots and barriers; slot k % SLOTS holds the row of iteration k. */
    ts_tbar *bars = (ts_tbar *)shared + warp * TS_NORM_RING_SLOTS;
    unsigned char *ring_data = shared + TS_NORM_RING_BARRIER_BYTES(ts_num_warps()) +
                               (size_t)warp * TS_NORM_RING_SLOTS * 2 * TS_NORM_RING_SLICE_BYTES;
    const unsigned slice = (unsigned)((left < TS_ROWWISE_E ? left : TS_ROWWISE_E) * bytes);
    if (ring)
        for (int k = 0; k < TS_NORM_RING_SLOTS; ++k) ts_tbar_init(&bars[k], 1);
    /* Starts the copies of iteration k's row into its slot (none past the last row). */
#define TS_NORM_RING_ISSUE(k)                                                                      \
    do {                                                                                           \
        const long long row_ = first0 + (long long)(k) * step + group;                             \
        if (row_ < p->rows) {                                                                      \
            const int s_ = (int)((k) % TS_NORM_RING_SLOTS);                                        \
            unsigned char *d_ = ring_data + (size_t)s_ * 2 * TS_NORM_RING_SLICE_BYTES;             \
            ts_tbar_expect_bytes(&bars[s_], p->residual ? 2 * slice : slice);                      \
            ts_copy_async_g2s(d_, (const unsigned char *)p->x + (row_ * p->x_stride + col0) * bytes, slice, \
                              &bars[s_]);                                                          \
            if (p->residual)                                                                       \
                ts_copy_async_g2s(d_ + TS_NORM_RING_SLICE_BYTES,                                   \
                                  (const unsigned char *)p->residual + (row_ * p->residual_stride + col0) * bytes, \
                                  slice, &bars[s_]);                                               \
        }                                                                                          \
    } while (0)
    if (ring)
        for (int k = 0; k < TS_NORM_RING_SLOTS; ++k) TS_NORM_RING_ISSUE(k);
#endif
    long long iter = 0;
    for (long long first = first0; first < p->rows; first += step, ++iter) {
        /* Groups past the last row still take part in the block's reductions, with nothing valid. */
        const long long row = first + group < p->rows ? first + group : 0;
        const long long n = first + group < p->rows ? left : 0;
#if TS_NORM_RING
        if (ring) {
            const int s = (int)(iter % TS_NORM_RING_SLOTS);
            const unsigned char *d = ring_data + (size_t)s * 2 * TS_NORM_RING_SLICE_BYTES;
            if (n > 0) ts_tbar_wait(&bars[s], (int)((iter / TS_NORM_RING_SLOTS) & 1));
            ts_wv_load(&h, d, TS_NORM_DTYPE, n);
            if (p->residual) ts_wv_load(&t, d + TS_NORM_RING_SLICE_BYTES, TS_NORM_DTYPE, n);
            /* Every lane has read the slot before the next copy into it is issued. */
            ts_sync_warp();
            ts_async_fence_shared();
            TS_NORM_RING_ISSUE(iter + TS_NORM_RING_SLOTS);
        } else
#endif
        {
            ts_wv_load(&h, (const unsigned char *)p->x + (row * p->x_stride + col0) * bytes, TS_NORM_DTYPE, n);
            if (p->residual)
                ts_wv_load(&t, (const unsigned char *)p->residual + (row * p->residual_stride + col0) * bytes,
                           TS_NORM_DTYPE, n);
        }
        if (p->residual) {
            ts_wv_add(&h, &h, &t);
            ts_wv_round(&h, &h, TS_NORM_DTYPE);
            if (p->residual_out)
                ts_wv_store((unsigned char *)p->residual_out + (row * p->residual_out_stride + col0) * bytes, &h,
                            TS_NORM_DTYPE, n);
        }
        if (!p->rms) {
            float sum = ts_wv_sum(&h);
            if (nw > 1) sum = ts_group_sum(sum, slots, w, nw, &parity);
            ts_wv_sub_scalar(&h, &h, sum * p->inv_cols);
            if (n < TS_ROWWISE_E) ts_wv_fill_from(&h, n, 0.0f); /* the padding would add mean^2 */
        }
        float sq = ts_wv_sum_sq(&h);
        if (nw > 1) sq = ts_group_sum(sq, slots, w, nw, &parity);
        ts_wv_mul_scalar(&h, &h, 1.0f / sqrtf(sq * p->inv_cols + p->eps));
        if (p->weight) {
            ts_wv_load(&t, (const unsigned char *)p->weight + col0 * param_bytes, p->param_dtype, left);
            ts_wv_mul(&h, &h, &t);
        }
        if (p->bias) {
            ts_wv_load(&t, (const unsigned char *)p->bias + col0 * param_bytes, p->param_dtype, left);
            ts_wv_add(&h, &h, &t);
        }
        ts_wv_store((unsigned char *)p->out + (row * p->out_stride + col0) * out_bytes, &h, p->out_dtype, n);
    }
}

static ts_status TS_NORM_CAT(TS_NORM_NAME, _launch)(const ts_norm_params *params, const ts_rowwise_plan *plan,
                                                    ts_stream stream) {
    const ts_norm_params p = *params;
    return TS_LAUNCH(TS_NORM_NAME, ts_grid_1d(plan->grid), plan->warps, plan->shared_bytes, stream, p);
}

#undef TS_NORM_RING_ISSUE
#undef TS_NORM_NAME
#undef TS_NORM_RING
#undef TS_NORM_MAX_WARPS
#undef TS_NORM_MIN_BLOCKS
#undef TS_NORM_DTYPE
#undef TS_NORM_CAT
#undef TS_NORM_CAT2
