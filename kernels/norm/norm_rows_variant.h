/* The LayerNorm / RMSNorm rows variant: rows shorter than a slice, several to a warp, or of one to
 * two slices, one a warp (templates/rowwise_rows.h), for the input dtype TS_ROWWISE_DTYPE and rows of
 * TS_ROWWISE_ROWS_COLS columns, compiled into the template's rows instances by norm.c
 * (ts_norm_*_rows256, _rows512, ..., _rows1792). The statistics are reduced per row
 * (ts_wv_packed_row_sums), then the weight and the bias, the same for every row, are loaded into
 * registers, and the outputs stored last: the one-warp-row instances' order. The launcher has checked
 * that every matrix and row is 16-byte aligned and that the output and the parameters share the
 * input's dtype; LayerNorm or RMSNorm, the residual, its output, the weight and the bias are run-time
 * choices.
 *   reads: TS_ROWWISE_ROWS_NAME (the kernel; its launcher is TS_ROWWISE_ROWS_NAME##_launch),
 *          TS_ROWWISE_DTYPE, TS_ROWWISE_ROWS_COLS (the columns), TS_ROWWISE_ROWS_MIN_BLOCKS (blocks
 *          an SM) */
#define TS_NORM_ROWS_PER_STRIP TS_ROWWISE_ROWS_PER_STRIP(TS_ROWWISE_ROWS_COLS)
#define TS_NORM_ROWS_E (TS_NORM_ROWS_PER_STRIP * TS_ROWWISE_ROWS_COLS)
#define TS_NORM_ROWS_STRIP TS_CAT(TS_ROWWISE_ROWS_NAME, _strip)
/* The strip's form (templates/rowwise_rows.h): wide rows, a mean and scale a chunk of a lane, or
 * quad rows, one a quad. */
#define TS_NORM_ROWS_LAYOUT TS_ROWWISE_ROWS_LAYOUT(TS_ROWWISE_DTYPE, TS_ROWWISE_ROWS_COLS)
#define TS_NORM_ROWS_MODE TS_ROWWISE_ROWS_MODE(TS_ROWWISE_ROWS_COLS)
#define TS_NORM_ROWS_SIZE TS_ROWWISE_ROWS_SIZE(TS_ROWWISE_ROWS_COLS)
#define TS_NORM_ROWS_PARTS(v) TS_ROWWISE_ROWS_PARTS(TS_WV_PACKED_CHUNKS(v), TS_ROWWISE_ROWS_COLS)
#if TS_ROWWISE_ROWS_ARE_QUADS(TS_ROWWISE_ROWS_COLS)
#define TS_NORM_ROWS_SUMS ts_wv_packed_quad_row_sums
#define TS_NORM_ROWS_SUMS_SQ ts_wv_packed_quad_row_sums_sq
#define TS_NORM_ROWS_STORE_NORMALIZED ts_wv_packed_store_quad_rows_normalized_held_params
#else
#define TS_NORM_ROWS_SUMS ts_wv_packed_row_sums
#define TS_NORM_ROWS_SUMS_SQ ts_wv_packed_row_sums_sq
#define TS_NORM_ROWS_STORE_NORMALIZED ts_wv_packed_store_wide_rows_normalized_held_params
#endif

/* The strip of rows from `first` (step 1), or the row `first` repeated over the strip (step 0). */
TS_DEVICE void TS_NORM_ROWS_STRIP(const ts_norm_params *p, long long first, int step) {
    const int bytes = TS_DTYPE_BYTES(TS_ROWWISE_DTYPE), size = TS_NORM_ROWS_SIZE;
    const long long n = TS_NORM_ROWS_E; /* every strip is whole */
    const long long x_stride = TS_ROWWISE_ALIGNED_STRIDE(p->x_stride, bytes),
                    out_stride = TS_ROWWISE_ALIGNED_STRIDE(p->out_stride, bytes);
    TS_WV_PACKED_LAYOUT(TS_NORM_ROWS_E, TS_ROWWISE_DTYPE, TS_NORM_ROWS_LAYOUT) h;
    TS_WV_PACKED_LAYOUT(TS_NORM_ROWS_E, TS_ROWWISE_DTYPE, TS_NORM_ROWS_LAYOUT) held_w;
    TS_WV_PACKED_LAYOUT(TS_NORM_ROWS_E, TS_ROWWISE_DTYPE, TS_NORM_ROWS_LAYOUT) held_b;
    TS_WV_PACKED_LOAD(&h, TS_WV_ASSUME_ALIGNED(1, (const unsigned char *)p->x + first * x_stride * bytes), n,
                      TS_NORM_ROWS_MODE, size, x_stride * step, 0);
    if (p->residual) {
        const long long stride = TS_ROWWISE_ALIGNED_STRIDE(p->residual_stride, bytes);
        TS_WV_PACKED_LOAD(&h, TS_WV_ASSUME_ALIGNED(1, (const unsigned char *)p->residual + first * stride * bytes), n,
                          TS_NORM_ROWS_MODE, size, stride * step, 1);
    }
    /* One value per chunk (or quad) of the lane: its row's mean and 1 / (standard deviation). */
    float mean[TS_NORM_ROWS_PARTS(&h)], scale[TS_NORM_ROWS_PARTS(&h)];
    if (p->rms) {
        TS_UNROLL
        for (int k = 0; k < TS_NORM_ROWS_PARTS(&h); ++k) mean[k] = 0.0f;
    } else {
        TS_NORM_ROWS_SUMS(mean, &h, size);
        TS_UNROLL
        for (int k = 0; k < TS_NORM_ROWS_PARTS(&h); ++k) mean[k] *= p->inv_cols;
    }
    TS_NORM_ROWS_SUMS_SQ(scale, &h, mean, size);
    TS_UNROLL
    for (int k = 0; k < TS_NORM_ROWS_PARTS(&h); ++k) scale[k] = ts_norm_rsqrt(scale[k] * p->inv_cols + p->eps);
    /* Every row reads the same weight and bias: a strip of rows with a row stride of 0. */
    if (p->weight) TS_WV_PACKED_LOAD(&held_w, TS_WV_ASSUME_ALIGNED(1, p->weight), n, TS_NORM_ROWS_MODE, size, 0, 0);
    if (p->bias) TS_WV_PACKED_LOAD(&held_b, TS_WV_ASSUME_ALIGNED(1, p->bias), n, TS_NORM_ROWS_MODE, size, 0, 0);
    TS_NORM_ROWS_STORE_NORMALIZED(TS_WV_ASSUME_ALIGNED(1, (unsigned char *)p->out + first * out_stride * bytes), &h,
                                  mean, scale, &held_w, p->weight != NULL, &held_b, p->bias != NULL, size,
                                  out_stride * step, n);
    if (p->residual_out) {
        const long long stride = TS_ROWWISE_ALIGNED_STRIDE(p->residual_out_stride, bytes);
        TS_WV_PACKED_STORE(TS_WV_ASSUME_ALIGNED(1, (unsigned char *)p->residual_out + first * stride * bytes), &h, n,
                           TS_NORM_ROWS_MODE, size, stride * step);
    }
}

TS_ROWWISE_ROWS_KERNEL(TS_ROWWISE_ROWS_NAME, TS_NORM_ROWS_STRIP, ts_norm_params, TS_ROWWISE_ROWS_MIN_BLOCKS,
                       TS_NORM_ROWS_PER_STRIP)

#undef TS_NORM_ROWS_STRIP
#undef TS_NORM_ROWS_LAYOUT
#undef TS_NORM_ROWS_MODE
#undef TS_NORM_ROWS_SIZE
#undef TS_NORM_ROWS_PARTS
#undef TS_NORM_ROWS_SUMS
#undef TS_NORM_ROWS_SUMS_SQ
#undef TS_NORM_ROWS_STORE_NORMALIZED
#undef TS_NORM_ROWS_E
#undef TS_NORM_ROWS_PER_STRIP
