/* The row-softmax rows variant: rows shorter than a slice, several to a warp, or of one to two
 * slices, one a warp (templates/rowwise_rows.h), for the input dtype TS_ROWWISE_DTYPE (also the
 * output's) and rows of TS_ROWWISE_ROWS_COLS columns, compiled into the template's rows instances by
 * softmax.c (ts_softmax_*_rows256, _rows512, ..., _rows1792). As softmax_variant.h, with each row's
 * maximum and sum reduced apart (ts_wv_row_max, ts_wv_row_sums) and the causal mask applied row by
 * row. The launcher has checked that x and out and their rows are 16-byte aligned; the scale and the
 * mask are run-time choices.
 *   reads: TS_ROWWISE_ROWS_NAME (the kernel; its launcher is TS_ROWWISE_ROWS_NAME##_launch),
 *          TS_ROWWISE_DTYPE, TS_ROWWISE_ROWS_COLS (the columns), TS_ROWWISE_ROWS_MIN_BLOCKS (blocks
 *          an SM) */
#define TS_SOFTMAX_ROWS_PER_STRIP TS_ROWWISE_ROWS_PER_STRIP(TS_ROWWISE_ROWS_COLS)
#define TS_SOFTMAX_ROWS_E (TS_SOFTMAX_ROWS_PER_STRIP * TS_ROWWISE_ROWS_COLS)
#define TS_SOFTMAX_ROWS_STRIP TS_CAT(TS_ROWWISE_ROWS_NAME, _strip)

/* The strip's form (templates/rowwise_rows.h): wide rows, a maximum and sum a chunk of a lane,
 * or quad rows, one a quad. */
#define TS_SOFTMAX_ROWS_LAYOUT TS_ROWWISE_ROWS_LAYOUT(TS_ROWWISE_DTYPE, TS_ROWWISE_ROWS_COLS)
#define TS_SOFTMAX_ROWS_MODE TS_ROWWISE_ROWS_MODE(TS_ROWWISE_ROWS_COLS)
#define TS_SOFTMAX_ROWS_SIZE TS_ROWWISE_ROWS_SIZE(TS_ROWWISE_ROWS_COLS)
#define TS_SOFTMAX_ROWS_PARTS(v) TS_ROWWISE_ROWS_PARTS(TS_WV_CHUNKS(v), TS_ROWWISE_ROWS_COLS)
#if TS_ROWWISE_ROWS_ARE_QUADS(TS_ROWWISE_ROWS_COLS)
#define TS_SOFTMAX_ROWS_MAX ts_wv_quad_row_max
#define TS_SOFTMAX_ROWS_SUMS ts_wv_quad_row_sums
#define TS_SOFTMAX_ROWS_SUB ts_wv_sub_quad_row_scalars
#define TS_SOFTMAX_ROWS_MUL ts_wv_mul_quad_row_scalars
#define TS_SOFTMAX_ROWS_FILL ts_wv_fill_quad_rows_from
#else
#define TS_SOFTMAX_ROWS_MAX ts_wv_row_max
#define TS_SOFTMAX_ROWS_SUMS ts_wv_row_sums
#define TS_SOFTMAX_ROWS_SUB ts_wv_sub_row_scalars
#define TS_SOFTMAX_ROWS_MUL ts_wv_mul_row_scalars
#define TS_SOFTMAX_ROWS_FILL ts_wv_fill_rows_from
#endif

/* The strip of rows from `first` (step 1), or the row `first` repeated over the strip (step 0). */
TS_DEVICE void TS_SOFTMAX_ROWS_STRIP(const ts_softmax_params *p, long long first, int step) {
    const int bytes = TS_DTYPE_BYTES(TS_ROWWISE_DTYPE), size = TS_SOFTMAX_ROWS_SIZE;
    const long long x_stride = TS_ROWWISE_ALIGNED_STRIDE(p->x_stride, bytes),
                    out_stride = TS_ROWWISE_ALIGNED_STRIDE(p->out_stride, bytes);
    TS_WV_F32_LAYOUT(TS_SOFTMAX_ROWS_E, TS_SOFTMAX_ROWS_LAYOUT) h;
    TS_WV_LOAD(&h, TS_WV_ASSUME_ALIGNED(1, (const unsigned char *)p->x + first * x_stride * bytes), TS_ROWWISE_DTYPE,
               TS_SOFTMAX_ROWS_E, TS_SOFTMAX_ROWS_MODE, size, x_stride * step, 0);
    /* One value per chunk (or quad) of the lane: its row's. */
    float m[TS_SOFTMAX_ROWS_PARTS(&h)], sum[TS_SOFTMAX_ROWS_PARTS(&h)];
    if (p->causal) {
        long long from[TS_SOFTMAX_ROWS_PARTS(&h)]; /* the first masked column of the part's row */
        TS_UNROLL
        for (int k = 0; k < TS_SOFTMAX_ROWS_PARTS(&h); ++k)
            from[k] = ts_softmax_masked_from(p, first + step * (k / size));
        TS_SOFTMAX_ROWS_FILL(&h, size, from, -INFINITY);
    }
    TS_SOFTMAX_ROWS_MAX(m, &h, size);
    TS_UNROLL
    for (int k = 0; k < TS_SOFTMAX_ROWS_PARTS(&h); ++k)
        if (m[k] == -INFINITY) m[k] = 0.0f; /* a wholly masked row: every weight is exp2(-inf) = 0 */
    TS_SOFTMAX_ROWS_SUB(&h, &h, m);
    ts_wv_mul_scalar(&h, &h, p->scale_log2);
    ts_wv_exp2(&h, &h);
    TS_SOFTMAX_ROWS_SUMS(sum, &h, size);
    TS_UNROLL
    for (int k = 0; k < TS_SOFTMAX_ROWS_PARTS(&h); ++k) sum[k] = sum[k] > 0.0f ? 1.0f / sum[k] : 0.0f;
    TS_SOFTMAX_ROWS_MUL(&h, &h, sum);
    TS_WV_STORE(TS_WV_ASSUME_ALIGNED(1, (unsigned char *)p->out + first * out_stride * bytes), &h, TS_ROWWISE_DTYPE,
                TS_SOFTMAX_ROWS_E, TS_SOFTMAX_ROWS_MODE, size, out_stride * step);
}

TS_ROWWISE_ROWS_KERNEL(TS_ROWWISE_ROWS_NAME, TS_SOFTMAX_ROWS_STRIP, ts_softmax_params, TS_ROWWISE_ROWS_MIN_BLOCKS,
                       TS_SOFTMAX_ROWS_PER_STRIP)

#undef TS_SOFTMAX_ROWS_STRIP
#undef TS_SOFTMAX_ROWS_LAYOUT
#undef TS_SOFTMAX_ROWS_MODE
#undef TS_SOFTMAX_ROWS_SIZE
#undef TS_SOFTMAX_ROWS_PARTS
#undef TS_SOFTMAX_ROWS_MAX
#undef TS_SOFTMAX_ROWS_SUMS
#undef TS_SOFTMAX_ROWS_SUB
#undef TS_SOFTMAX_ROWS_MUL
#undef TS_SOFTMAX_ROWS_FILL
#undef TS_SOFTMAX_ROWS_E
#undef TS_SOFTMAX_ROWS_PER_STRIP
