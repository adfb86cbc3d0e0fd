/* The row softmax for rows longer than a block holds in registers (softmax.c: past
 * TS_ROWWISE_BACKEND_MAX_COLS, or TS_SOFTMAX_STREAM_MIN_COLS; the vocabulary-sized rows of a language
 * model's logits), instantiated once per input dtype; scale, the causal mask and the output dtype
 * are run-time choices, as in the general instance (softmax_variant.h).
 *
 * A block takes a row at a time and streams it through its warps twice, a TS_ROWWISE_E-element
 * strip a warp at a time. The first pass keeps, in each lane, the running maximum m of its elements
 * and the sum of exp2((x - m) * scale * log2 e), the sum rescaled whenever m grows (the online
 * softmax), with no exchange between lanes until the row's end; then the lanes' and the warps'
 * pairs are combined into the row's. The second pass reads the row again, scales each strip and
 * stores it, each warp's strips in the opposite order, the last read first: the L2 holds the rows a
 * block reads twice where few are in flight (TS_SOFTMAX_STREAM_WARPS warps a block, a row each,
 * TS_SOFTMAX_STREAM_BLOCKS_PER_SM blocks an SM), and the last read the surest. The strips start at
 * the row's first 16-byte aligned element, so that a row of any length and stride is read and
 * written in 16-byte accesses; the few elements before it (a head of up to 7) are the first warp's,
 * an element a lane.
 *   reads: TS_SOFTMAX_STREAM_NAME (the kernel), TS_SOFTMAX_STREAM_DTYPE (the input dtype),
 *          TS_SOFTMAX_STREAM_WARPS (the block's warps), TS_SOFTMAX_STREAM_BLOCKS_PER_SM (blocks an SM). */
TS_KERNEL_RESIDENT(TS_SOFTMAX_STREAM_NAME, TS_SOFTMAX_STREAM_WARPS, TS_SOFTMAX_STREAM_BLOCKS_PER_SM, ts_softmax_params, p) {
    const int nw = ts_num_warps(), w = ts_warp_id(), lane = ts_lane_id();
    const int bytes = TS_DTYPE_BYTES(TS_SOFTMAX_STREAM_DTYPE), out_bytes = TS_DTYPE_BYTES(p->out_dtype);
    const long long step = (long long)nw * TS_ROWWISE_E;
    const float k = p->scale_log2;
    float *slots = (float *)ts_shared_base();
    int parity = 0;
    TS_WV_F32_LAYOUT(TS_ROWWISE_E, TS_ROWWISE_LAYOUT_FOR(TS_SOFTMAX_STREAM_DTYPE, 1)) h;
    for (long long row = ts_block_x(); row < p->rows; row += ts_grid_x()) {
        const unsigned char *x = (const unsigned char *)p->x + row * p->x_stride * bytes;
        unsigned char *y = (unsigned char *)p->out + row * p->out_stride * out_bytes;
        long long live = p->cols; /* the columns before the causal mask */
        if (p->causal) {
            const long long last = row % p->causal_rows + p->causal_offset; /* last unmasked */
            if (last + 1 < live) live = last + 1;
        }
        /* The head: the elements before the first 16-byte boundary of the row. */
        const int head_max = (int)((16u - ((uintptr_t)x & 15u)) & 15u) / bytes;
        const int head = head_max < p->cols ? head_max : p->cols;
        const long long first = head + (long long)w * TS_ROWWISE_E; /* the warp's first strip */
        /* The lane's running maximum and sum; strips wholly masked are not read. */
        float m = -INFINITY, s = 0.0f;
        if (w == 0)
            for (int j = lane; j < head && j < live; j += TS_WARP_LANES) {
                const float v = ts_wv_get(x, TS_SOFTMAX_STREAM_DTYPE, j), grown = fmaxf(m, v);
                if (grown == -INFINITY) continue;
                s = s * exp2f((m - grown) * k) + exp2f((v - grown) * k);
                m = grown;
            }
        for (long long c0 = first; c0 < live; c0 += step) {
            ts_wv_load(&h, x + c0 * bytes, TS_SOFTMAX_STREAM_DTYPE, p->cols - c0);
            if (live - c0 < TS_ROWWISE_E) ts_wv_fill_from(&h, live - c0, -INFINITY);
            const float grown = fmaxf(m, ts_wv_lane_max(&h));
            if (grown == -INFINITY) continue; /* nothing but -inf yet: the sum stays 0 */
            ts_wv_sub_scalar(&h, &h, grown);
            ts_wv_mul_scalar(&h, &h, k);
            ts_wv_exp2(&h, &h);
            s = s * exp2f((m - grown) * k) + ts_wv_lane_sum(&h); /* m = -inf: s is 0, times 0 */
            m = grown;
        }
        float row_max = ts_group_max(ts_wv_warp_combine(m, 2), slots, w, nw, &parity);
        if (row_max == -INFINITY) row_max = 0.0f; /* a wholly masked row: every weight is 0 */
        const float sum = ts_group_sum(ts_wv_warp_combine(s * exp2f((m - row_max) * k), 0), slots, w, nw, &parity);
        const float inv = sum > 0.0f ? 1.0f / sum : 0.0f;
        if (w == 0)
            for (int j = lane; j < head; j += TS_WARP_LANES) {
                const float v = ts_wv_get(x, TS_SOFTMAX_STREAM_DTYPE, j);
                ts_wv_set(y, p->out_dtype, j, j < live ? exp2f((v - row_max) * k) * inv : 0.0f);
            }
        if (first >= p->cols) continue;
        for (long long c0 = first + (p->cols - 1 - first) / step * step; c0 >= first; c0 -= step) {
            if (c0 < live) {
                ts_wv_load(&h, x + c0 * bytes, TS_SOFTMAX_STREAM_DTYPE, p->cols - c0);
                if (live - c0 < TS_ROWWISE_E) ts_wv_fill_from(&h, live - c0, -INFINITY);
                ts_wv_sub_scalar(&h, &h, row_max);
                ts_wv_mul_scalar(&h, &h, k);
                ts_wv_exp2(&h, &h);
                ts_wv_mul_scalar(&h, &h, inv);
            } else {
                ts_wv_fill(&h, 0.0f);
            }
            ts_wv_store(y + c0 * out_bytes, &h, p->out_dtype, p->cols - c0);
        }
    }
}

TS_ROWWISE_LAUNCHER(TS_CAT(TS_SOFTMAX_STREAM_NAME, _launch), TS_SOFTMAX_STREAM_NAME, ts_softmax_params)
