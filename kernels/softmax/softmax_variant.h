/* The row-softmax slice variant for the input dtype TS_ROWWISE_DTYPE, compiled into the row-wise
 * template's instances (templates/rowwise_instances.h, read there for the settings) by softmax.c;
 * scale, the causal mask and the output dtype are run-time choices (the one-pass instances,
 * TS_ROWWISE_SHORT, store the input's dtype).
 *
 * As the norms (kernels/norm/norm_variant.h): a warp holds a TS_ROWWISE_SLICE_E-element slice of a
 * row in registers, read once with 16-byte loads; masked and padding elements become -inf, the row
 * maximum and then the sum of exp2((x - max) * scale * log2 e) are reduced across the warp (and
 * across the row's warps through shared memory), and the slice is scaled and stored. */
TS_KERNEL_RESIDENT(TS_ROWWISE_NAME, TS_ROWWISE_BLOCK_WARPS_MAX, TS_ROWWISE_MIN_BLOCKS, ts_softmax_params, p) {
    TS_ROWWISE_BLOCK_LAYOUT(p->warps_per_row);
    const int out_dtype = TS_ROWWISE_SHORT ? TS_ROWWISE_DTYPE : p->out_dtype;
    const int bytes = TS_DTYPE_BYTES(TS_ROWWISE_DTYPE), out_bytes = TS_DTYPE_BYTES(out_dtype);
    float *slots = (float *)ts_shared_base() + 2 * nw * group;
    int parity = 0;
    /* The whole instance: every slice whole and aligned, every row present (TS_ROWWISE_WHOLE); a
     * long-row instance: every row present and aligned, its slice the row. */
    const long long col0 = (long long)w * TS_ROWWISE_SLICE_E, left = TS_ROWWISE_WHOLE && !TS_ROWWISE_LONG_ROW ? TS_ROWWISE_SLICE_E : p->cols - col0;
    TS_WV_F32_LAYOUT(TS_ROWWISE_SLICE_E, TS_ROWWISE_LAYOUT_FOR(TS_ROWWISE_DTYPE, TS_ROWWISE_WHOLE)) h;
    for (long long first = (long long)ts_block_x() * groups; first < p->rows;
         first += (long long)ts_grid_x() * groups) {
        const long long row = TS_ROWWISE_WHOLE || first + group < p->rows ? first + group : 0;
        const long long n = TS_ROWWISE_WHOLE || first + group < p->rows ? left : 0;
        ts_wv_load(&h, TS_ROWWISE_ASSUME_ALIGNED((const unsigned char *)p->x + (row * p->x_stride + col0) * bytes),
                   TS_ROWWISE_DTYPE, n);
        long long live = n; /* elements of the slice that are neither padding nor masked */
        if (p->causal) {
            const long long from = ts_softmax_masked_from(p, row) - col0; /* in the slice */
            if (from < live) live = from;
        }
        if (live < TS_ROWWISE_SLICE_E) ts_wv_fill_from(&h, live, -INFINITY);
        float m = ts_wv_max(&h);
        if (nw > 1) m = ts_group_max(m, slots, w, nw, &parity);
        if (m == -INFINITY) m = 0.0f; /* a wholly masked row: every weight is exp2(-inf) = 0 */
        ts_wv_sub_scalar(&h, &h, m);
        ts_wv_mul_scalar(&h, &h, p->scale_log2);
        ts_wv_exp2(&h, &h);
        float sum = ts_wv_sum(&h);
        if (nw > 1) sum = ts_group_sum(sum, slots, w, nw, &parity);
        ts_wv_mul_scalar(&h, &h, sum > 0.0f ? 1.0f / sum : 0.0f);
        ts_wv_store((unsigned char *)TS_ROWWISE_ASSUME_ALIGNED((unsigned char *)p->out + (row * p->out_stride + col0) * out_bytes),
                    &h, out_dtype, n);
        if (TS_ROWWISE_SHORT) break;
    }
}

TS_ROWWISE_LAUNCHER(TS_CAT(TS_ROWWISE_NAME, _launch), TS_ROWWISE_NAME, ts_softmax_params)
