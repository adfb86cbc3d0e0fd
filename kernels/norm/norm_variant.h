/* One LayerNorm / RMSNorm kernel for the input dtype TS_ROWWISE_DTYPE (x, residual, residual_out),
 * instantiated by norm.c twice per dtype through kernels/common/rowwise_instances.h; LayerNorm or
 * RMSNorm, the residual, weight, bias and the output dtype are run-time choices, uniform across
 * the grid.
 *
 * Each warp holds one TS_ROWWISE_E-element slice of a row in registers (ts_rowwise_wv), loaded with
 * 16-byte accesses, and never reads it twice: the residual sum, both passes of the statistics and
 * the normalization all work on the registers. A longer row is spread over a group of
 * warps that combine their partial sums through shared memory (kernels/common/rowwise.h).
 *   reads: TS_ROWWISE_NAME (the kernel; its launcher is TS_ROWWISE_NAME##_launch), TS_ROWWISE_DTYPE,
 *          TS_ROWWISE_BLOCK_WARPS_MAX (block size limit), TS_ROWWISE_MIN_BLOCKS (blocks per SM) */
TS_KERNEL_RESIDENT(TS_ROWWISE_NAME, TS_ROWWISE_BLOCK_WARPS_MAX, TS_ROWWISE_MIN_BLOCKS, ts_norm_params, p) {
    const int nw = p->warps_per_row, groups = ts_num_warps() / nw;
    const int warp = ts_warp_id(), group = warp / nw, w = warp % nw;
    const int bytes = TS_DTYPE_BYTES(TS_ROWWISE_DTYPE);
    const int out_bytes = TS_DTYPE_BYTES(p->out_dtype), param_bytes = TS_DTYPE_BYTES(p->param_dtype);
    float *slots = (float *)ts_shared_base() + 2 * nw * group;
    int parity = 0;
    const long long col0 = (long long)w * TS_ROWWISE_E, left = p->cols - col0;
    ts_rowwise_wv h;
    for (long long first = (long long)ts_block_x() * groups; first < p->rows;
         first += (long long)ts_grid_x() * groups) {
        /* Groups past the last row still take part in the block's reductions, with nothing valid. */
        const long long row = first + group < p->rows ? first + group : 0;
        const long long n = first + group < p->rows ? left : 0;
        ts_wv_load(&h, (const unsigned char *)p->x + (row * p->x_stride + col0) * bytes, TS_ROWWISE_DTYPE, n);
        if (p->residual) {
            ts_wv_load_add(&h, (const unsigned char *)p->residual + (row * p->residual_stride + col0) * bytes,
                           TS_ROWWISE_DTYPE, n);
            ts_wv_round(&h, &h, TS_ROWWISE_DTYPE);
            if (p->residual_out)
                ts_wv_store((unsigned char *)p->residual_out + (row * p->residual_out_stride + col0) * bytes, &h,
                            TS_ROWWISE_DTYPE, n);
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
        if (p->weight) ts_wv_load_mul(&h, (const unsigned char *)p->weight + col0 * param_bytes, p->param_dtype, left);
        if (p->bias) ts_wv_load_add(&h, (const unsigned char *)p->bias + col0 * param_bytes, p->param_dtype, left);
        ts_wv_store((unsigned char *)p->out + (row * p->out_stride + col0) * out_bytes, &h, p->out_dtype, n);
    }
}

TS_ROWWISE_LAUNCHER(TS_CAT(TS_ROWWISE_NAME, _launch), TS_ROWWISE_NAME, ts_norm_params)
