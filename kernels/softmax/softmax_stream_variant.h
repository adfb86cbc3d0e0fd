/* The row softmax for rows longer than a block holds in registers (softmax.c: past
 * TS_ROWWISE_BACKEND_MAX_COLS, the vocabulary-sized rows of a language model's logits; any row where
 * the stream limits say so, softmax_stream.h), instantiated twice per input dtype (staged and not)
 * through softmax_stream_instances.h; scale, the causal mask and the output dtype are run-time
 * choices, as in the general instance (softmax_variant.h).
 *
 * A block takes a row at a time and goes over it twice, a TS_ROWWISE_E-element strip a warp at a
 * time. The first pass keeps, in each lane, the running maximum m of its elements and the sum of
 * exp2((x - m) * scale * log2 e), the sum rescaled whenever m grows (the online softmax,
 * ops/warp_stream.h), with no exchange between lanes until the row's end; then the lanes' and the
 * warps' pairs are combined into the row's. The second pass scales each strip and stores it. The
 * strips cover the row's body, from its first 16-byte boundary, so that a row of any length and
 * stride is read and written in 16-byte accesses; the few elements outside it (the edge: a head of up
 * to 7 and, staged, a tail) are the first warp's, an element a lane (ts_stream_edge_online,
 * ts_stream_edge_store_softmax).
 *
 * Staged (TS_SOFTMAX_STREAM_STAGED 1), the block copies the row's body into shared memory with one
 * asynchronous bulk copy (ts_copy_async_g2s), whose bytes are all in flight at once without a
 * register, and both passes read it there: the row is read from memory once. The body is then whole
 * 16-byte units (its tail is edge), at most p->stage_bytes; the blocks an SM are as many as their
 * buffers fit, and one block's passes overlap the others' copies. A body longer than the stage is
 * staged in part: the stage (p->stage_bytes, whole strips) takes its first columns, the rest is read
 * from global memory, in the first pass while the copy is in flight, so that only the rest is read
 * twice. Not staged, both passes read the row from global memory. Read twice, the second pass goes
 * over each warp's strips in the opposite order (the last read first), to find them in the L2: rows of
 * any length, few in flight (two blocks an SM, a row each).
 *   reads: TS_SOFTMAX_STREAM_NAME (the kernel), TS_SOFTMAX_STREAM_DTYPE (the input dtype),
 *          TS_SOFTMAX_STREAM_STAGED, TS_SOFTMAX_STREAM_BOUND_WARPS and _BLOCKS (the most warps a block has, the blocks an SM it
 *          is built for). */
TS_KERNEL_RESIDENT(TS_SOFTMAX_STREAM_NAME, TS_SOFTMAX_STREAM_BOUND_WARPS, TS_SOFTMAX_STREAM_BOUND_BLOCKS,
                   ts_softmax_params, p) {
    const int nw = ts_num_warps(), w = ts_warp_id();
    const ts_stream_lane lane = ts_stream_lane_get();
    const int bytes = TS_DTYPE_BYTES(TS_SOFTMAX_STREAM_DTYPE), out_bytes = TS_DTYPE_BYTES(p->out_dtype);
    const int step = nw * TS_ROWWISE_E, first = w * TS_ROWWISE_E; /* the warp's strips: first + i * step */
    const float k = p->scale_log2;
    unsigned char *stage = ts_shared_base();
    ts_tbar *landed = (ts_tbar *)(stage + p->stage_bytes);
    float *slots = (float *)(stage + p->stage_bytes + TS_SOFTMAX_STREAM_TBAR_BYTES);
    int parity = 0, phase = 0;
    if (TS_SOFTMAX_STREAM_STAGED) {
        if (w == 0) ts_tbar_init(landed, 1);
        ts_sync_block();
    }
    TS_WV_F32_LAYOUT(TS_ROWWISE_E, TS_ROWWISE_LAYOUT_FOR(TS_SOFTMAX_STREAM_DTYPE, 1)) h;
    for (long long row = ts_block_x(); row < p->rows; row += ts_grid_x()) {
        const unsigned char *x = (const unsigned char *)p->x + row * p->x_stride * bytes;
        unsigned char *y = (unsigned char *)p->out + row * p->out_stride * out_bytes;
        int live = p->cols; /* the columns before the causal mask */
        if (p->causal) {
            const long long from = ts_softmax_masked_from(p, row);
            if (from < live) live = from < 0 ? 0 : (int)from;
        }
        /* The body: columns head .. head + body - 1; the edge: the rest, edge index j at column
         * j < head ? j : body + j. The body's first `staged` columns are read in the stage, the rest
         * in x. Staged whole, the body is whole 16-byte units; in part, the stage whole strips. */
        const int head_max = (int)((16u - ((uintptr_t)x & 15u)) & 15u) / bytes;
        const int head = head_max < p->cols ? head_max : p->cols;
        const int whole = (p->cols - head) / (16 / bytes) * (16 / bytes);
        const int staged_whole = TS_SOFTMAX_STREAM_STAGED && (long long)whole * bytes <= p->stage_bytes;
        const int body = staged_whole ? whole : p->cols - head;
        const int staged = staged_whole               ? body
                           : TS_SOFTMAX_STREAM_STAGED ? p->stage_bytes / bytes / TS_ROWWISE_E * TS_ROWWISE_E
                                                      : 0;
        const int edge = p->cols - body;
        const unsigned char *xb = x + head * bytes;
        if (staged > 0) {
            ts_sync_block(); /* every warp is done with the stage's last row */
            if (w == 0) {
                ts_tbar_expect_bytes(landed, (unsigned)staged * bytes);
                ts_copy_async_g2s(stage, xb, (unsigned)staged * bytes, landed);
            }
        }
        /* The lane's running maximum and sum; strips wholly masked are not read. */
        float m = -INFINITY, s = 0.0f;
        if (w == 0) ts_stream_edge_online(lane, m, s, x, TS_SOFTMAX_STREAM_DTYPE, head, body, edge, live, k);
        /* The body's columns before the mask (or its end: staged whole, the tail past it is edge): the
         * warp's strips in x first (while the copy lands), then those in the stage. */
        const int live_body = live - head < body ? live - head : body;
        const int live_staged = staged < live_body ? staged : live_body;
        int c0 = staged <= first ? first : first + (staged - first + step - 1) / step * step, in_stage = 0;
        for (;;) {
            if (c0 >= (in_stage ? live_staged : live_body)) {
                if (in_stage || staged == 0) break;
                in_stage = 1;
                c0 = first;
                ts_tbar_wait(landed, phase);
                phase ^= 1;
                continue;
            }
            ts_wv_load(&h, c0 < staged ? stage + c0 * bytes : xb + (size_t)c0 * bytes, TS_SOFTMAX_STREAM_DTYPE,
                       body - c0);
            if (live_body - c0 < TS_ROWWISE_E) ts_wv_fill_from(&h, live_body - c0, -INFINITY);
            ts_stream_strip_online(m, s, &h, k);
            c0 += step;
        }
        float row_max = ts_group_max(ts_wv_warp_combine(m, 2), slots, w, nw, &parity);
        if (row_max == -INFINITY) row_max = 0.0f; /* a wholly masked row: every weight is 0 */
        const float sum = ts_group_sum(ts_wv_warp_combine(s * exp2f((m - row_max) * k), 0), slots, w, nw, &parity);
        const float inv = sum > 0.0f ? 1.0f / sum : 0.0f;
        if (w == 0)
            ts_stream_edge_store_softmax(lane, y, p->out_dtype, x, TS_SOFTMAX_STREAM_DTYPE, head, body, edge, live,
                                         row_max, k, inv);
        if (first >= body) continue;
        unsigned char *dst = y + head * out_bytes;
        for (int c0 = first + (body - 1 - first) / step * step; c0 >= first; c0 -= step) {
            if (c0 < live_body) {
                ts_wv_load(&h, c0 < staged ? stage + c0 * bytes : xb + (size_t)c0 * bytes, TS_SOFTMAX_STREAM_DTYPE,
                           body - c0);
                if (live_body - c0 < TS_ROWWISE_E) ts_wv_fill_from(&h, live_body - c0, -INFINITY);
                ts_wv_sub_scalar(&h, &h, row_max);
                ts_wv_mul_scalar(&h, &h, k);
                ts_wv_exp2_approx(&h, &h);
                ts_wv_mul_scalar(&h, &h, inv);
            } else {
                ts_wv_fill(&h, 0.0f);
            }
            ts_wv_store(dst + (size_t)c0 * out_bytes, &h, p->out_dtype, body - c0);
        }
    }
}

TS_ROWWISE_LAUNCHER(TS_CAT(TS_SOFTMAX_STREAM_NAME, _launch), TS_SOFTMAX_STREAM_NAME, ts_softmax_params)
