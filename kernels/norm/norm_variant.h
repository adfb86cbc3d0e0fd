/* One LayerNorm / RMSNorm kernel for the input dtype TS_ROWWISE_DTYPE (x, residual, residual_out),
 * instantiated by norm.c three times per dtype through templates/rowwise_instances.h;
 * LayerNorm or RMSNorm, the residual, weight, bias and the output dtype are run-time choices,
 * uniform across the grid.
 *
 * Each warp holds one TS_ROWWISE_SLICE_E-element slice of a row in registers, loaded with 16-byte
 * accesses, and never reads it twice: the residual sum, both passes of the statistics and the
 * normalization all work on the registers. The slice stays packed in the input dtype (16
 * registers a lane for a 16-bit row on CUDA, tiles/warp_vector.h): the residual sum is rounded to
 * that dtype anyway, and LayerNorm's centred values are formed where they are used, in the sum of
 * squares and in the store. A longer row is spread over a group of warps that combine their
 * partial sums through shared memory (templates/rowwise.h).
 *
 * The short instance (TS_ROWWISE_SHORT) is the fast path, specialized so that it fits the 64
 * registers its launch bounds allow (four 8-warp blocks per SM) with no spills: one row group per
 * block (templates/rowwise.h: ts_rowwise_make_plan), with no grid-stride loop whose loop-carried pointers
 * the registers would have to hold, and the output and weight/bias dtype the input's, so that one
 * load and store path is compiled. norm.c sends every other case to the general instance.
 *   reads: TS_ROWWISE_NAME (the kernel; its launcher is TS_ROWWISE_NAME##_launch), TS_ROWWISE_DTYPE,
 *          TS_ROWWISE_BLOCK_WARPS_MAX (block size limit), TS_ROWWISE_MIN_BLOCKS (blocks per SM),
 *          TS_ROWWISE_SHORT, TS_ROWWISE_WHOLE (the short instance for whole, aligned slices, whose
 *          loads and stores compile without their element-by-element paths: rowwise_instances.h),
 *          TS_ROWWISE_ONE_WARP_ROW (its one-slice rows apart, whose 16-bit kernels take the statistics
 *          first and then load the weight and the bias together: norm.c, TS_NORM_WHOLE_ROW_BLOCKS),
 *          TS_NORM_RMS_ROW (1: that one-slice instance once more with RMSNorm, the residual and the
 *          weight present and no bias fixed at compile time: norm.c, ts_norm_*_rms_row) */
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
    /* The 16-bit fast instances load the weight (in the input dtype) before the row and hold it in
     * registers, so that its latency hides under the row's rather than following the reductions
     * (the bias as well spilled; fp32 rows leave no registers for it). */
    const int hold = TS_ROWWISE_SHORT && bytes == 2;
    TS_WV_PACKED_LAYOUT(TS_ROWWISE_SLICE_E, TS_ROWWISE_DTYPE, TS_NORM_LAYOUT) held_w;
    TS_WV_PACKED_LAYOUT(TS_ROWWISE_SLICE_E, TS_ROWWISE_DTYPE, TS_NORM_LAYOUT) held_b;
    /* The one-slice rows' instance holds both parameters, loaded after the statistics (norm.c). */
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
