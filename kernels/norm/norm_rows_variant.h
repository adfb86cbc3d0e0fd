/* One LayerNorm / RMSNorm kernel for rows shorter than a slice, several to a warp, or of a slice and
 * a half, one a warp (kernels/common/rowwise_rows.h), for the input dtype TS_ROWWISE_DTYPE and rows of
 * TS_ROWWISE_ROWS_COLS columns, instantiated by norm.c through kernels/common/rowwise_rows_instances.h
 * (ts_norm_*_rows256, _rows512, _rows768, _rows1536). The statistics are reduced per row
 * (ts_wv_packed_row_sums), then the weight and the bias, the same for every row, are loaded into
 * registers, and the outputs stored last: the order of the one-slice rows' instance (norm.c,
 * TS_NORM_WHOLE_ROW_BLOCKS). The launcher has checked that every matrix and
 * row is 16-byte aligned and that the output and the parameters share the input's dtype; LayerNorm
 * or RMSNorm, the residual, its output, the weight and the bias are run-time choices. Measured on
 * the H200 against a row a warp (the short instance), RMSNorm + residual bf16 in the PyTorch
 * driver: 131072 x 512 2.81 -> 4.22 TB/s, 262144 x 256 1.48 -> 4.22, 65536 x 768 3.86 -> 4.22
 * (bench/results/nvidia-h200-2026-12-02-rows-a-warp.txt); fp32 262144 x 256 2.89 -> 4.21
 * (...-2026-12-03-norm-f32-rows256.txt).
 *   reads: TS_ROWWISE_ROWS_NAME (the kernel; its launcher is TS_ROWWISE_ROWS_NAME##_launch),
 *          TS_ROWWISE_DTYPE, TS_ROWWISE_ROWS_COLS (the columns), TS_ROWWISE_ROWS_MIN_BLOCKS (blocks
 *          per SM) */
#define TS_NORM_ROWS_PER_STRIP TS_ROWWISE_ROWS_PER_STRIP(TS_ROWWISE_ROWS_COLS)
#define TS_NORM_ROWS_E (TS_NORM_ROWS_PER_STRIP * TS_ROWWISE_ROWS_COLS)
#define TS_NORM_ROWS_STRIP TS_CAT(TS_ROWWISE_ROWS_NAME, _strip)
/* fp32 strips in the split layout (every 16-byte access of the warp contiguous), 16-bit ones
 * contiguous: kernels/common/rowwise.h. */
#define TS_NORM_ROWS_LAYOUT TS_ROWWISE_LAYOUT_FOR(TS_ROWWISE_DTYPE, 1)

/* The strip of rows from `first` (step 1), or the row `first` repeated over the strip (step 0). */
TS_DEVICE void TS_NORM_ROWS_STRIP(const ts_norm_params *p, long long first, int step) {
    const int bytes = TS_DTYPE_BYTES(TS_ROWWISE_DTYPE), row_chunks = TS_ROWWISE_ROWS_COLS / (TS_WV_CHUNK * TS_WARP_LANES);
    const long long n = TS_NORM_ROWS_E; /* every strip is whole */
    const long long x_stride = TS_ROWWISE_ALIGNED_STRIDE(p->x_stride, bytes),
                    out_stride = TS_ROWWISE_ALIGNED_STRIDE(p->out_stride, bytes);
    TS_WV_PACKED_LAYOUT(TS_NORM_ROWS_E, TS_ROWWISE_DTYPE, TS_NORM_ROWS_LAYOUT) h;
    TS_WV_PACKED_LAYOUT(TS_NORM_ROWS_E, TS_ROWWISE_DTYPE, TS_NORM_ROWS_LAYOUT) held_w;
    TS_WV_PACKED_LAYOUT(TS_NORM_ROWS_E, TS_ROWWISE_DTYPE, TS_NORM_ROWS_LAYOUT) held_b;
    ts_wv_packed_load_wide_rows(&h, TS_WV_ASSUME_ALIGNED(1, (const unsigned char *)p->x + first * x_stride * bytes),
                                row_chunks, x_stride * step, n);
    if (p->residual) {
        const long long stride = TS_ROWWISE_ALIGNED_STRIDE(p->residual_stride, bytes);
        ts_wv_packed_load_add_round_wide_rows(
            &h, TS_WV_ASSUME_ALIGNED(1, (const unsigned char *)p->residual + first * stride * bytes), row_chunks,
            stride * step, n);
    }
    /* One value per chunk of the lane: its row's mean and 1 / (standard deviation). */
    float mean[TS_WV_PACKED_CHUNKS(&h)], scale[TS_WV_PACKED_CHUNKS(&h)];
    if (p->rms) {
        TS_UNROLL
        for (int k = 0; k < TS_WV_PACKED_CHUNKS(&h); ++k) mean[k] = 0.0f;
    } else {
        ts_wv_packed_row_sums(mean, &h, row_chunks);
        TS_UNROLL
        for (int k = 0; k < TS_WV_PACKED_CHUNKS(&h); ++k) mean[k] *= p->inv_cols;
    }
    ts_wv_packed_row_sums_sq(scale, &h, mean, row_chunks);
    TS_UNROLL
    for (int k = 0; k < TS_WV_PACKED_CHUNKS(&h); ++k) scale[k] = ts_norm_rsqrt(scale[k] * p->inv_cols + p->eps);
    /* Every row reads the same weight and bias: a strip of rows with a row stride of 0. */
    if (p->weight) ts_wv_packed_load_wide_rows(&held_w, TS_WV_ASSUME_ALIGNED(1, p->weight), row_chunks, 0, n);
    if (p->bias) ts_wv_packed_load_wide_rows(&held_b, TS_WV_ASSUME_ALIGNED(1, p->bias), row_chunks, 0, n);
    ts_wv_packed_store_wide_rows_normalized_held_params(
        TS_WV_ASSUME_ALIGNED(1, (unsigned char *)p->out + first * out_stride * bytes), &h, mean, scale, &held_w,
        p->weight != NULL, &held_b, p->bias != NULL, row_chunks, out_stride * step, n);
    if (p->residual_out) {
        const long long stride = TS_ROWWISE_ALIGNED_STRIDE(p->residual_out_stride, bytes);
        ts_wv_packed_store_wide_rows(TS_WV_ASSUME_ALIGNED(1, (unsigned char *)p->residual_out + first * stride * bytes),
                                     &h, row_chunks, stride * step, n);
    }
}

TS_ROWWISE_ROWS_KERNEL(TS_ROWWISE_ROWS_NAME, TS_NORM_ROWS_STRIP, ts_norm_params, TS_ROWWISE_ROWS_MIN_BLOCKS,
                       TS_NORM_ROWS_PER_STRIP)

#undef TS_NORM_ROWS_STRIP
#undef TS_NORM_ROWS_LAYOUT
#undef TS_NORM_ROWS_E
#undef TS_NORM_ROWS_PER_STRIP
