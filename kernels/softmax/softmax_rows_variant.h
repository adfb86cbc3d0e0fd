/* One row-softmax kernel for rows shorter than a slice, several to a warp, or of a slice and a half,
 * one a warp (kernels/common/rowwise_rows.h), for the input dtype TS_ROWWISE_DTYPE (also the output's)
 * and rows of TS_ROWWISE_ROWS_COLS columns, instantiated by softmax.c through
 * kernels/common/rowwise_rows_instances.h (ts_softmax_*_rows256, _rows512, _rows768, _rows1536). As
 * softmax_variant.h, with each row's maximum and sum reduced apart (ts_wv_row_max,
 * ts_wv_row_sums) and the causal mask applied row by row. The launcher has checked that x and out
 * and their rows are 16-byte aligned; the scale and the mask are run-time choices.
 *   reads: TS_ROWWISE_ROWS_NAME (the kernel; its launcher is TS_ROWWISE_ROWS_NAME##_launch),
 *          TS_ROWWISE_DTYPE, TS_ROWWISE_ROWS_COLS (the columns), TS_ROWWISE_ROWS_MIN_BLOCKS (blocks
 *          per SM) */
#define TS_SOFTMAX_ROWS_PER_STRIP TS_ROWWISE_ROWS_PER_STRIP(TS_ROWWISE_ROWS_COLS)
#define TS_SOFTMAX_ROWS_E (TS_SOFTMAX_ROWS_PER_STRIP * TS_ROWWISE_ROWS_COLS)
#define TS_SOFTMAX_ROWS_STRIP TS_CAT(TS_ROWWISE_ROWS_NAME, _strip)

/* The strip of rows from `first` (step 1), or the row `first` repeated over the strip (step 0). */
TS_DEVICE void TS_SOFTMAX_ROWS_STRIP(const ts_softmax_params *p, long long first, int step) {
    const int bytes = TS_DTYPE_BYTES(TS_ROWWISE_DTYPE),
              row_chunks = TS_ROWWISE_ROWS_COLS / (TS_WV_CHUNK * TS_WARP_LANES);
    const long long x_stride = TS_ROWWISE_ALIGNED_STRIDE(p->x_stride, bytes),
                    out_stride = TS_ROWWISE_ALIGNED_STRIDE(p->out_stride, bytes);
    TS_WV_F32_LAYOUT(TS_SOFTMAX_ROWS_E, TS_ROWWISE_LAYOUT_FOR(TS_ROWWISE_DTYPE, 1)) h;
    ts_wv_load_wide_rows(&h, TS_WV_ASSUME_ALIGNED(1, (const unsigned char *)p->x + first * x_stride * bytes),
                         TS_ROWWISE_DTYPE, row_chunks, x_stride * step, TS_SOFTMAX_ROWS_E);
    /* One value per chunk of the lane: its row's. */
    float m[TS_WV_CHUNKS(&h)], sum[TS_WV_CHUNKS(&h)];
    if (p->causal) {
        long long from[TS_WV_CHUNKS(&h)]; /* the first masked column of the chunk's row */
        TS_UNROLL
        for (int k = 0; k < TS_WV_CHUNKS(&h); ++k) {
            const long long row = first + step * (k / row_chunks);
            from[k] = row % p->causal_rows + p->causal_offset + 1;
        }
        ts_wv_fill_rows_from(&h, row_chunks, from, -INFINITY);
    }
    ts_wv_row_max(m, &h, row_chunks);
    TS_UNROLL
    for (int k = 0; k < TS_WV_CHUNKS(&h); ++k)
        if (m[k] == -INFINITY) m[k] = 0.0f; /* a wholly masked row: every weight is exp2(-inf) = 0 */
    ts_wv_sub_row_scalars(&h, &h, m);
    ts_wv_mul_scalar(&h, &h, p->scale_log2);
    ts_wv_exp2(&h, &h);
    ts_wv_row_sums(sum, &h, row_chunks);
    TS_UNROLL
    for (int k = 0; k < TS_WV_CHUNKS(&h); ++k) sum[k] = sum[k] > 0.0f ? 1.0f / sum[k] : 0.0f;
    ts_wv_mul_row_scalars(&h, &h, sum);
    ts_wv_store_wide_rows(TS_WV_ASSUME_ALIGNED(1, (unsigned char *)p->out + first * out_stride * bytes), &h,
                          TS_ROWWISE_DTYPE, row_chunks, out_stride * step, TS_SOFTMAX_ROWS_E);
}

TS_ROWWISE_ROWS_KERNEL(TS_ROWWISE_ROWS_NAME, TS_SOFTMAX_ROWS_STRIP, ts_softmax_params, TS_ROWWISE_ROWS_MIN_BLOCKS,
                       TS_SOFTMAX_ROWS_PER_STRIP)

#undef TS_SOFTMAX_ROWS_STRIP
#undef TS_SOFTMAX_ROWS_E
#undef TS_SOFTMAX_ROWS_PER_STRIP
