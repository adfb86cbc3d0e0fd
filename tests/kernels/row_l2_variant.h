/* The slice variant of row_l2.c: y = x / sqrt(sum x^2 + eps), a row at a time. */
TS_KERNEL_RESIDENT(TS_ROWWISE_NAME, TS_ROWWISE_BLOCK_WARPS_MAX, TS_ROWWISE_MIN_BLOCKS, row_l2_params, p) {
    TS_ROWWISE_BLOCK_LAYOUT(p->warps_per_row); /* nw, groups, warp, group, w */
    const int bytes = TS_DTYPE_BYTES(TS_ROWWISE_DTYPE);
    const int out_dtype = TS_ROWWISE_SHORT ? TS_ROWWISE_DTYPE : p->out_dtype;
    float *slots = (float *)ts_shared_base() + 2 * nw * group;
    int parity = 0;
    const long long col0 = (long long)w * TS_ROWWISE_SLICE_E;
    const long long left = TS_ROWWISE_WHOLE ? TS_ROWWISE_SLICE_E : p->cols - col0;
    TS_WV_F32_LAYOUT(TS_ROWWISE_SLICE_E, TS_ROWWISE_LAYOUT_FOR(TS_ROWWISE_DTYPE, TS_ROWWISE_WHOLE)) v;
    for (long long first = (long long)ts_block_x() * groups; first < p->rows;
         first += (long long)ts_grid_x() * groups) {
        /* A group past the last row still takes part in the block's reductions, with nothing valid. */
        const int present = TS_ROWWISE_WHOLE || first + group < p->rows;
        const long long row = present ? first + group : 0, n = present ? left : 0;
        const unsigned char *x = (const unsigned char *)p->x + (row * p->x_stride + col0) * bytes;
        unsigned char *y = (unsigned char *)p->out + (row * p->out_stride + col0) * TS_DTYPE_BYTES(out_dtype);
        ts_wv_load(&v, TS_ROWWISE_ASSUME_ALIGNED(x), TS_ROWWISE_DTYPE, n); /* zero past n */
        float sq = ts_wv_sum_sq(&v);
        if (nw > 1) sq = ts_group_sum(sq, slots, w, nw, &parity);
        ts_wv_mul_scalar(&v, &v, 1.0f / sqrtf(sq + p->eps));
        ts_wv_store((unsigned char *)TS_ROWWISE_ASSUME_ALIGNED(y), &v, out_dtype, n);
        if (TS_ROWWISE_SHORT) break; /* one pass: a row group a block */
    }
}

TS_ROWWISE_LAUNCHER(TS_CAT(TS_ROWWISE_NAME, _launch), TS_ROWWISE_NAME, row_l2_params)
