/* One rotary-embedding kernel for the dtype TS_ROPE_DTYPE of Q and K, instantiated by rotary.c once
 * per dtype; layout (strides), head dimension, convention and table or computed angles are run-time
 * choices.
 *
 * A warp takes one token at a time. It first makes the token's rotary pattern (ops/rotary.h: the
 * cosines and signed sines of its position for the head columns its lanes meet, once per token),
 * then walks the token's heads of Q and then of K in 512-element strips (packed warp vectors in
 * the tensor's dtype, tiles/warp_vector.h: 512 / D heads side by side), TS_ROPE_VARIANT_STRIPS at
 * a time (rotary.c), all loaded before the first is used so that their bytes are in flight
 * together, rotates them and stores them.
 *
 * The whole instance (TS_ROPE_VARIANT_WHOLE, rotary.c: ts_rope_whole) takes the common case alone:
 * angles from a table, every row and table row 16-byte aligned, every strip full of heads, fewer
 * than 2^31 tokens. The alignment is promised to the compiler (the strides' low bits masked off,
 * which the launch has checked are zero), so that the loads and stores compile without their
 * element-by-element paths, and the token splits with 32-bit arithmetic.
 *   defines: TS_ROPE_NAME (kernel; the launcher is TS_ROPE_NAME##_launch), TS_ROPE_DTYPE,
 *            TS_ROPE_VARIANT_STRIPS, TS_ROPE_VARIANT_MIN_BLOCKS, TS_ROPE_VARIANT_WHOLE (rotary.c) */

TS_KERNEL_RESIDENT(TS_ROPE_NAME, TS_ROPE_WARPS, TS_ROPE_VARIANT_MIN_BLOCKS, ts_rope_params, p) {
    const int bytes = TS_DTYPE_BYTES(TS_ROPE_DTYPE), d_shift = p->d_shift, half_d = 1 << (d_shift - 1);
    const int per_strip = TS_ROPE_STRIP >> d_shift; /* heads in one strip */
    const long long warps = (long long)ts_grid_x() * ts_num_warps();
    ts_rope_pattern pat;
    TS_WV_PACKED(TS_ROPE_STRIP, TS_ROPE_DTYPE) x[TS_ROPE_VARIANT_STRIPS], y;
    /* In the whole instance the strides are multiples of 16 bytes: masking their low bits changes
     * nothing but tells the compiler so. */
    const long long stride_mask = TS_ROPE_VARIANT_WHOLE ? ~(long long)(16 / bytes - 1) : ~0LL;
    for (long long t = (long long)ts_block_x() * ts_num_warps() + ts_warp_id(); t < p->tokens; t += warps) {
        long long b, n;
        if (TS_ROPE_VARIANT_WHOLE) {
            b = (unsigned)t / (unsigned)p->seq;
            n = (unsigned)t - (unsigned)b * (unsigned)p->seq;
        } else {
            b = t / p->seq;
            n = t % p->seq;
        }
        const long long pos = n + p->offset;
        if (TS_ROPE_VARIANT_WHOLE || p->cos)
            ts_rope_pattern_table(&pat, (const float *)TS_ROPE_ASSUME_ALIGNED(p->cos + pos * half_d),
                                  (const float *)TS_ROPE_ASSUME_ALIGNED(p->sin + pos * half_d), d_shift,
                                  p->interleaved);
        else
            ts_rope_pattern_angles(&pat, (float)pos, p->inv_freq, d_shift, p->interleaved);
        for (int which = 0; which < 2; ++which) {
            const int heads = p->heads[which];
            const long long sh = p->stride_h[which] & stride_mask;
            const long long token = b * (p->stride_b[which] & stride_mask) + n * (p->stride_n[which] & stride_mask);
            const unsigned char *in =
                (const unsigned char *)TS_ROPE_ASSUME_ALIGNED((const unsigned char *)p->in[which] + token * bytes);
            unsigned char *out = (unsigned char *)TS_ROPE_ASSUME_ALIGNED((unsigned char *)p->out[which] + token * bytes);
            for (int h0 = 0; h0 < heads; h0 += TS_ROPE_VARIANT_STRIPS * per_strip) {
                /* Strip s holds heads hs[s] ..; one past the last head holds nothing (ns[s] = 0). In
                 * the whole instance every strip is full. */
                int hs[TS_ROPE_VARIANT_STRIPS], ns[TS_ROPE_VARIANT_STRIPS];
                TS_UNROLL
                for (int s = 0; s < TS_ROPE_VARIANT_STRIPS; ++s) {
                    const int h = h0 + s * per_strip;
                    hs[s] = TS_ROPE_VARIANT_WHOLE || h < heads ? h : h0;
                    ns[s] = TS_ROPE_VARIANT_WHOLE ? TS_ROPE_STRIP
                            : h < heads           ? (heads - h < per_strip ? heads - h : per_strip) << d_shift
                                                  : 0;
                }
                TS_UNROLL
                for (int s = 0; s < TS_ROPE_VARIANT_STRIPS; ++s)
                    ts_wv_packed_load_rows(&x[s], in + hs[s] * sh * bytes, d_shift, sh, ns[s]);
                TS_UNROLL
                for (int s = 0; s < TS_ROPE_VARIANT_STRIPS; ++s) {
                    ts_wv_packed_rope_apply(&y, &x[s], &pat, d_shift, p->interleaved);
                    ts_wv_packed_store_rows(out + hs[s] * sh * bytes, &y, d_shift, sh, ns[s]);
                }
            }
        }
    }
}

#if TS_ROPE_VARIANT_WHOLE
/* The whole instance for layouts whose heads hold their tokens back to back (token stride D, as
 * (B, H, N, D) has; rotary.c: ts_rope_token_rows). A strip is then 512 / D consecutive tokens of
 * one head, one contiguous stretch, rather than 512 / D heads of one token, which such a layout
 * spreads N x D elements apart. A warp takes such a run of tokens at a time: its pattern, one a
 * lane's chunk (ops/rotary.h: TS_ROPE_ROWS_PATTERN, 32 registers), is made once and serves the
 * run in every head of Q and K, TS_ROPE_VARIANT_STRIPS heads in flight. */
TS_KERNEL_RESIDENT(TS_CAT(TS_ROPE_NAME, _rows), TS_ROPE_WARPS, TS_ROPE_ROWS_MIN_BLOCKS, ts_rope_params, p) {
    const int bytes = TS_DTYPE_BYTES(TS_ROPE_DTYPE), d_shift = p->d_shift;
    const int run_shift = 9 - d_shift; /* log2 of the tokens in a strip, 512 / D */
    const unsigned runs_per_seq = (unsigned)(p->seq >> run_shift);
    const long long units = p->tokens >> run_shift, warps = (long long)ts_grid_x() * ts_num_warps();
    const long long stride_mask = ~(long long)(16 / bytes - 1);
    TS_ROPE_ROWS_PATTERN(TS_ROPE_STRIP) pat;
    TS_WV_PACKED(TS_ROPE_STRIP, TS_ROPE_DTYPE) x[TS_ROPE_VARIANT_STRIPS], y;
    for (long long u = (long long)ts_block_x() * ts_num_warps() + ts_warp_id(); u < units; u += warps) {
        const unsigned b = (unsigned)u / runs_per_seq;
        const long long n0 = (long long)((unsigned)u - b * runs_per_seq) << run_shift;
        ts_rope_rows_pattern_table(&pat, (const float *)TS_ROPE_ASSUME_ALIGNED(p->cos),
                                   (const float *)TS_ROPE_ASSUME_ALIGNED(p->sin), p->offset + n0, d_shift,
                                   p->interleaved);
        for (int which = 0; which < 2; ++which) {
            const long long sh = p->stride_h[which] & stride_mask;
            const long long first = b * (p->stride_b[which] & stride_mask) + (n0 << d_shift);
            const unsigned char *in =
                (const unsigned char *)TS_ROPE_ASSUME_ALIGNED((const unsigned char *)p->in[which] + first * bytes);
            unsigned char *out = (unsigned char *)TS_ROPE_ASSUME_ALIGNED((unsigned char *)p->out[which] + first * bytes);
            for (int h0 = 0; h0 < p->heads[which]; h0 += TS_ROPE_VARIANT_STRIPS) {
                TS_UNROLL
                for (int s = 0; s < TS_ROPE_VARIANT_STRIPS; ++s)
                    ts_wv_packed_load(&x[s], in + (h0 + s) * sh * bytes, TS_ROPE_STRIP);
                TS_UNROLL
                for (int s = 0; s < TS_ROPE_VARIANT_STRIPS; ++s) {
                    ts_wv_packed_rope_apply_rows(&y, &x[s], &pat, d_shift, p->interleaved);
                    ts_wv_packed_store(out + (h0 + s) * sh * bytes, &y, TS_ROPE_STRIP);
                }
            }
        }
    }
}

static ts_status TS_CAT(TS_ROPE_NAME, _rows_launch)(const ts_rope_params *params, unsigned grid, ts_stream stream) {
    const ts_rope_params p = *params;
    return TS_LAUNCH(TS_CAT(TS_ROPE_NAME, _rows), ts_grid_1d(grid), TS_ROPE_WARPS, 0, stream, p);
}
#endif

static ts_status TS_CAT(TS_ROPE_NAME, _launch)(const ts_rope_params *params, unsigned grid, ts_stream stream) {
    const ts_rope_params p = *params;
    return TS_LAUNCH(TS_ROPE_NAME, ts_grid_1d(grid), TS_ROPE_WARPS, 0, stream, p);
}

#undef TS_ROPE_NAME
#undef TS_ROPE_DTYPE
#undef TS_ROPE_VARIANT_STRIPS
#undef TS_ROPE_VARIANT_MIN_BLOCKS
#undef TS_ROPE_VARIANT_WHOLE
