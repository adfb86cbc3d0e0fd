/* The LayerNorm / RMSNorm slice variant for the input dtype TS_ROWWISE_DTYPE (x, residual,
 * residual_out), compiled into the row-wise template's instances (templates/rowwise_instances.h, read
 * there for the settings) by norm.c; LayerNorm or RMSNorm, the residual, weight, bias and the output
 * dtype are run-time choices, uniform across the grid.
 *
 * Each warp holds one TS_ROWWISE_SLICE_E-element slice of a row in registers, loaded with 16-byte
 * accesses, and never reads it twice: the residual sum, both passes of the statistics and the
 * normalization all work on the registers. The slice stays packed in the input dtype (16 registers a
 * lane for a 16-bit row on CUDA, tiles/warp_vector.h): the residual sum is rounded to that dtype
 * anyway, and LayerNorm's centred values are formed where they are used, in the sum of squares and in
 * the store. A longer row is spread over a group of warps that combine their partial sums through
 * shared memory.
 *
 * The one-pass instances (TS_ROWWISE_SHORT) are specialized to fit their launch bounds without
 * spills: no grid-stride loop (whose loop-carried pointers would take registers) and one dtype path,
 * the input's. Their 16-bit forms load the weight with the row and hold it, so that its latency hides
 * under the row's; the one-warp-row instances (TS_ROWWISE_ONE_WARP_ROW) take the statistics first,
 * then load the weight and the bias together and hold both, and scale by the reciprocal square root.
 * TS_NORM_RMS_ROW 1 (norm.c: the RMSNorm rows' instance) fixes RMSNorm, the residual and the weight
 * present and no bias at compile time. */
#define TS_NORM_LAYOUT TS_ROWWISE_LAYOUT_FOR(TS_ROWWISE_DTYPE, TS_ROWWISE_WHOLE)
TS_KERNEL_RESIDENT(TS_ROWWISE_NAME, TS_ROWWISE_BLOCK_WARPS_MAX, TS_ROWWISE_MIN_BLOCKS, ts_norm_params, p) {
    TS_ROWWISE_BLOCK_LAYOUT(p->warps_per_row);
    const int bytes = TS_DTYPE_BYTES(TS_ROWWISE_DTYPE);
    const int out_dtype = TS_ROWWISE_SHORT ? TS_ROWWISE_DTYPE : p->out_dtype;
    const int param_dtype = TS_ROWWISE_SHORT ? TS_ROWWISE_DTYPE : p->param_dtype;
    const int out_bytes = TS_DTYPE_BYTES(out_dtype), param_bytes = TS_DTYPE_BYTES(param_dtype);
    float *slots = (float *)ts_shared_base() + 2 * nw * group;
    int parity = 0;
    /* The whole instance: every slice whole and aligned, every row present (TS_ROWWISE_WHOLE); a
     * long-row instance: every row present and aligned, its slice the row. */
    const long long col0 = (long long)w * TS_ROWWISE_SLICE_E, left = TS_ROWWISE_WHOLE && !TS_ROWWISE_LONG_ROW ? TS_ROWWISE_SLICE_E : p->cols - col0;
    /* The RMSNorm rows' instance knows its options (norm.c checks them before it launches it). */
    const int rms = p->rms || TS_NORM_RMS_ROW, residual = p->residual != NULL || TS_NORM_RMS_ROW;
    const void *weight = TS_NORM_RMS_ROW || p->weight ? (const unsigned char *)p->weight + col0 * param_bytes : NULL;
    const void *bias = !TS_NORM_RMS_ROW && p->bias ? (const unsigned char *)p->bias + col0 * param_bytes : NULL;
    TS_WV_PACKED_LAYOUT(TS_ROWWISE_SLICE_E, TS_ROWWISE_DTYPE, TS_NORM_LAYOUT) h;
    /* The 16-bit one-pass instances hold the weight (in the input dtype), loaded before the row (the
     * bias as well spilled; fp32 rows leave no registers for it). */
    const int hold = TS_ROWWISE_SHORT && bytes == 2;
    TS_WV_PACKED_LAYOUT(TS_ROWWISE_SLICE_E, TS_ROWWISE_DTYPE, TS_NORM_LAYOUT) held_w;
    TS_WV_PACKED_LAYOUT(TS_ROWWISE_SLICE_E, TS_ROWWISE_DTYPE, TS_NORM_LAYOUT) held_b;
    /* The one-warp-row instances hold both parameters, loaded after the statistics. */
    const int stats_first = hold && TS_ROWWISE_ONE_WARP_ROW;
    if (hold && weight && !stats_first)
        ts_wv_packed_load(&held_w, TS_ROWWISE_ASSUME_ALIGNED(weight), left);
    for (long long first = (long long)ts_block_x() * groups; first < p->rows;
         first += (long long)ts_grid_x() * groups) {
        /* Groups past the last row still take part in the block's reductions, with nothing valid. */
        const long long row = TS_ROWWISE_WHOLE || first + group < p->rows ? first + group : 0;
        const long long n = TS_ROWWISE_WHOLE || first + group < p->rows ? left : 0;
        ts_wv_packed_load(&h, TS_ROWWISE_ASSUME_ALIGNED((const unsigned char *)p->x + (row * p->x_stride + col0) * bytes),
                          n);
        if (residual) {
            ts_wv_packed_load_add_round(
                &h,
                TS_ROWWISE_ASSUME_ALIGNED((const unsigned char *)p->residual + (row * p->residual_stride + col0) * bytes),
                n);
            if (p->residual_out && !stats_first)
                ts_wv_packed_store((unsigned char *)TS_ROWWISE_ASSUME_ALIGNED(
                                       (unsigned char *)p->residual_out + (row * p->residual_out_stride + col0) * bytes),
                                   &h, n);
        }
        float mean = 0.0f;
        if (!rms) {
            float sum = ts_wv_packed_sum(&h);
            if (nw > 1) sum = ts_group_sum(sum, slots, w, nw, &parity);
            mean = sum * p->inv_cols;
        }
        float sq = ts_wv_packed_sum_sq(&h, mean, n);
        if (nw > 1) sq = ts_group_sum(sq, slots, w, nw, &parity);
        unsigned char *out =
            (unsigned char *)TS_ROWWISE_ASSUME_ALIGNED((unsigned char *)p->out + (row * p->out_stride + col0) * out_bytes);
        const float var_eps = sq * p->inv_cols + p->eps;
        const float scale = TS_ROWWISE_ONE_WARP_ROW ? ts_norm_rsqrt(var_eps) : 1.0f / sqrtf(var_eps);
        if (stats_first) {
            if (weight) ts_wv_packed_load(&held_w, TS_ROWWISE_ASSUME_ALIGNED(weight), left);
            /* Without a bias the bias vector is never loaded, so it is not passed either (gcc would warn
             * of a read of unset values). */
            if (TS_NORM_RMS_ROW)
                ts_wv_packed_store_normalized_held(out, &h, mean, scale, &held_w, 1, NULL, n);
            else {
                if (bias) ts_wv_packed_load(&held_b, TS_ROWWISE_ASSUME_ALIGNED(bias), left);
                ts_wv_packed_store_normalized_held_params(out, &h, mean, scale, &held_w, weight != NULL, &held_b,
                                                          bias != NULL, n);
            }
        } else if (hold)
            ts_wv_packed_store_normalized_held(out, &h, mean, scale, &held_w, weight != NULL,
                                               TS_ROWWISE_ASSUME_ALIGNED(bias), n);
        else
            ts_wv_packed_store_normalized(out, out_dtype, &h, mean, scale, TS_ROWWISE_ASSUME_ALIGNED(weight),
                                          TS_ROWWISE_ASSUME_ALIGNED(bias), param_dtype, n);
        if (stats_first && residual && p->residual_out)
            ts_wv_packed_store((unsigned char *)TS_ROWWISE_ASSUME_ALIGNED(
                                   (unsigned char *)p->residual_out + (row * p->residual_out_stride + col0) * bytes),
                               &h, n);
        if (TS_ROWWISE_SHORT) break;
    }
}

TS_ROWWISE_LAUNCHER(TS_CAT(TS_ROWWISE_NAME, _launch), TS_ROWWISE_NAME, ts_norm_params)
#undef TS_NORM_LAYOUT
