/* One LayerNorm / RMSNorm kernel for rows shorter than a slice, several to a warp, for the 16-bit
 * input dtype TS_ROWWISE_DTYPE, instantiated by norm.c once per dtype (ts_norm_*_rows).
 *
 * A row of 512 columns alone in a warp fills half of each lane's loads: the warp has half the bytes
 * of a one-slice row in flight, and blocks an SM cannot make up for it (RMSNorm + residual 131072 x
 * 512 bf16 ran at 0.66x torch.compile on the H200, against 1.0x at 1024 columns). Here a warp's
 * strip of TS_ROWWISE_E elements holds TS_ROWWISE_E >> row_shift rows of 2^row_shift columns laid
 * end to end (ops/warp_vector.h: a strip of rows), each at least a warp's chunks wide, so that
 * every chunk of a lane lies in one row: 256 or 512 columns on CUDA, 512 on HIP
 * (kernels/common/rowwise_plan.h: ts_rowwise_row_shift). The statistics are reduced per row
 * (ts_wv_packed_row_sums), then the weight and the bias, the same for every row, are loaded into
 * registers, and the outputs stored last: the order of the one-slice rows' instance (norm.c,
 * TS_NORM_WHOLE_ROW_BLOCKS). One-warp blocks, a strip each (the last block's may lack rows: below).
 * The launcher has checked that every
 * matrix and row is 16-byte aligned and that the output and the parameters share the input's
 * dtype; LayerNorm or RMSNorm, the residual, its output, the weight and the bias are run-time
 * choices.
 *   reads: TS_NORM_ROWS_NAME (the kernel; its launcher is TS_NORM_ROWS_NAME##_launch),
 *          TS_ROWWISE_DTYPE, TS_NORM_ROWS_BLOCKS (blocks per SM) */
#define TS_NORM_ROWS_STRIP TS_CAT(TS_NORM_ROWS_NAME, _strip)

/* The strip of rows from `first` (step 1), or the row `first` repeated over the strip (step 0). */
TS_DEVICE void TS_NORM_ROWS_STRIP(const ts_norm_params *p, long long first, int step) {
    const int bytes = TS_DTYPE_BYTES(TS_ROWWISE_DTYPE), shift = TS_NORM_ROWS_SHIFT;
    const long long n = TS_ROWWISE_E; /* every strip is whole */
    const long long x_stride = TS_ROWWISE_ALIGNED_STRIDE(p->x_stride, bytes),
                    out_stride = TS_ROWWISE_ALIGNED_STRIDE(p->out_stride, bytes);
    TS_WV_PACKED(TS_ROWWISE_E, TS_ROWWISE_DTYPE) h;
    TS_WV_PACKED(TS_ROWWISE_E, TS_ROWWISE_DTYPE) held_w;
    TS_WV_PACKED(TS_ROWWISE_E, TS_ROWWISE_DTYPE) held_b;
    ts_wv_packed_load_rows(&h, TS_WV_ASSUME_ALIGNED(1, (const unsigned char *)p->x + first * x_stride * bytes), shift,
                           x_stride * step, n);
    if (p->residual) {
        const long long stride = TS_ROWWISE_ALIGNED_STRIDE(p->residual_stride, bytes);
        ts_wv_packed_load_add_round_rows(
            &h, TS_WV_ASSUME_ALIGNED(1, (const unsigned char *)p->residual + first * stride * bytes), shift,
            stride * step, n);
    }
    /* One value per chunk of the lane: its row's mean and 1 / (standard deviation). */
    float mean[TS_WV_PACKED_CHUNKS(&h)], scale[TS_WV_PACKED_CHUNKS(&h)];
    if (p->rms) {
        TS_UNROLL
        for (int k = 0; k < TS_WV_PACKED_CHUNKS(&h); ++k) mean[k] = 0.0f;
    } else {
        ts_wv_packed_row_sums(mean, &h, shift);
        TS_UNROLL
        for (int k = 0; k < TS_WV_PACKED_CHUNKS(&h); ++k) mean[k] *= p->inv_cols;
    }
    ts_wv_packed_row_sums_sq(scale, &h, mean, shift);
    TS_UNROLL
    for (int k = 0; k < TS_WV_PACKED_CHUNKS(&h); ++k) scale[k] = ts_norm_rsqrt(scale[k] * p->inv_cols + p->eps);
    /* Every row reads the same weight and bias: a strip of rows with a row stride of 0. */
    if (p->weight) ts_wv_packed_load_rows(&held_w, TS_WV_ASSUME_ALIGNED(1, p->weight), shift, 0, TS_ROWWISE_E);
    if (p->bias) ts_wv_packed_load_rows(&held_b, TS_WV_ASSUME_ALIGNED(1, p->bias), shift, 0, TS_ROWWISE_E);
    ts_wv_packed_store_rows_normalized_held_params(
        TS_WV_ASSUME_ALIGNED(1, (unsigned char *)p->out + first * out_stride * bytes), &h, mean, scale, &held_w,
        p->weight != NULL, &held_b, p->bias != NULL, shift, out_stride * step, n);
    if (p->residual_out) {
        const long long stride = TS_ROWWISE_ALIGNED_STRIDE(p->residual_out_stride, bytes);
        ts_wv_packed_store_rows(TS_WV_ASSUME_ALIGNED(1, (unsigned char *)p->residual_out + first * stride * bytes), &h,
                                shift, stride * step, n);
    }
}

TS_KERNEL_RESIDENT(TS_NORM_ROWS_NAME, 1, TS_NORM_ROWS_BLOCKS, ts_norm_params, p) {
    const int per_strip = TS_ROWWISE_E >> TS_NORM_ROWS_SHIFT;
    const long long first = (long long)ts_block_x() * per_strip, left = p->rows - first;
    /* The last block's strip may lack rows: it takes its rows one at a time, each repeated over the
     * strip, whose repeats store the same values again. So every strip is whole, with no test per
     * chunk, and the code is one copy (a second one for a partial strip spilled in fp16). */
    const int whole = left >= per_strip;
    for (long long r = 0; r < (whole ? 1 : left); ++r) TS_NORM_ROWS_STRIP(p, first + r, whole);
}

static ts_status TS_CAT(TS_NORM_ROWS_NAME, _launch)(const ts_norm_params *params, ts_stream stream) {
    const ts_norm_params p = *params;
    const long long per_strip = TS_ROWWISE_E >> TS_NORM_ROWS_SHIFT;
    return TS_LAUNCH(TS_NORM_ROWS_NAME, ts_grid_1d((unsigned)((p.rows + per_strip - 1) / per_strip)), 1, 0, stream,
                     p);
}

#undef TS_NORM_ROWS_STRIP
