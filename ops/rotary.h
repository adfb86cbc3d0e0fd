/* Rotary position embedding on warp vectors (tiles/warp_vector.h) whose strip is rows of
 * D = 2^d_shift elements (heads; D in 32 .. TS_ROPE_MAX_D). The cosines and sines of one position
 * are a rotary pattern, ts_rope_pattern: for each column chunk of a head that the lane's chunks
 * meet, the cosine and the signed sine of each element's frequency. Every strip of a token meets
 * the same columns, so a pattern is made once per token; on a GPU (D / 8 <= lanes) a lane meets one
 * column chunk, whatever the strip's length, and the pattern is 16 registers.
 *   ts_rope_pattern_table(pat, cos_row, sin_row, d_shift, interleaved)
 *       from one position's fp32 table rows of D/2 entries (16-byte loads where the rows are
 *       aligned)
 *   ts_rope_pattern_angles(pat, pos, inv_freq, d_shift, interleaved)
 *       computed: angle_i = pos * inv_freq[i] in fp32, then cosf / sinf
 *   ts_wv_rope_apply(d, x, pat, d_shift, interleaved)
 *       d = x * cos + partner(x) * signed sin, d and x distinct warp vectors
 *   ts_wv_packed_rope_apply(d, x, pat, d_shift, interleaved)
 *       the same on packed warp vectors (tiles/warp_vector.h), d rounded to their dtype: the strip
 *       in half the registers, its partners fetched as whole words
 *   TS_ROPE_ROWS_PATTERN(E) pat; ts_rope_rows_pattern_table(&pat, cos, sin, pos0, d_shift, interleaved)
 *   ts_wv_packed_rope_apply_rows(d, x, &pat, d_shift, interleaved)
 *       the same for E-element strips whose rows are positions pos0, pos0 + 1, ... of one head (a
 *       layout whose heads hold their tokens back to back): a pattern a lane's chunk, each from
 *       its own row of the fp32 tables; it serves that run of positions in every head
 * The pairs are (i, i + D/2) when rotating halves and (2i, 2i + 1) when interleaved; the first
 * element of a pair gets -sin, the second +sin, so one multiply-add form serves both. The partner
 * of a rotated half lives D/16 chunks away: in another lane, fetched with an xor shuffle, on GPUs
 * (D/16 <= 16 < lanes); in the same one-lane warp's registers on the host. The vectors are in the
 * contiguous layout (tiles/warp_vector.h), which the partners' places assume. */
#ifndef TESSERA_OPS_ROTARY_H
#define TESSERA_OPS_ROTARY_H

#include "ops/warp_vector_packed.h"

#define TS_ROPE_CONTIGUOUS(d)                                                                      \
    TS_STATIC_ASSERT(TS_WV_LAYOUT_OF(d) == TS_WV_CONTIGUOUS, "rotary embedding of a split warp vector")

#define TS_ROPE_MAX_D 256

TS_STATIC_ASSERT(TS_WARP_LANES > TS_ROPE_MAX_D / 16 || TS_WARP_LANES == 1,
                 "rotate-half partners must be a shuffle away (GPU) or in the same lane (host)");

/* The chunk's frequencies and the sign of its sines: rotate-half chunks hold 8 consecutive
 * frequencies, interleaved ones 4, each twice. */
TS_DEVICE int ts_rope_freq0(int e, int d_shift, int interleaved) {
    const int col = e & ((1 << d_shift) - 1);
    return interleaved ? col >> 1 : col & ((1 << (d_shift - 1)) - 1);
}

TS_DEVICE void ts_rope_signs(float *s, int e, int d_shift, int interleaved) {
    const int col = e & ((1 << d_shift) - 1);
    TS_UNROLL
    for (int j = 0; j < TS_WV_CHUNK; ++j) {
        const int first = interleaved ? !(j & 1) : col < (1 << (d_shift - 1));
        if (first) s[j] = -s[j];
    }
}

TS_DEVICE void ts_rope_get4(float *d, const float *p, int aligned) {
    if (aligned) {
        const ts_v16 a = ts_load16(p);
        TS_UNROLL
        for (int i = 0; i < 4; ++i) d[i] = ts_bits_f32(a.w[i]);
    } else {
        TS_UNROLL
        for (int i = 0; i < 4; ++i) d[i] = p[i];
    }
}

/* Pattern chunks per lane: 1 where a warp's lanes cover a head of TS_ROPE_MAX_D (GPUs). Chunk p
 * of a lane holds the column chunk (p * lanes + lane) mod (D / 8). */
#define TS_ROPE_PATTERN_CHUNKS                                                                     \
    (TS_WARP_LANES * TS_WV_CHUNK >= TS_ROPE_MAX_D ? 1 : TS_ROPE_MAX_D / (TS_WV_CHUNK * TS_WARP_LANES))

typedef struct ts_rope_pattern {
    float c[TS_ROPE_PATTERN_CHUNKS][TS_WV_CHUNK];
    float s[TS_ROPE_PATTERN_CHUNKS][TS_WV_CHUNK];
} ts_rope_pattern;

/* The pattern chunk that data chunk k of this lane meets. */
TS_DEVICE int ts_rope_pattern_index(int k, int d_shift) {
    if (TS_ROPE_PATTERN_CHUNKS == 1) return 0;
    return ((k * TS_WARP_LANES + ts_lane_id()) & ((1 << (d_shift - 3)) - 1)) / TS_WARP_LANES;
}

/* Element index (within a head row) of pattern chunk p's first element, for this lane. */
TS_DEVICE int ts_rope_pattern_col(int p, int d_shift) {
    return ((p * TS_WARP_LANES + ts_lane_id()) * TS_WV_CHUNK) & ((1 << d_shift) - 1);
}

/* One chunk of a pattern, the one holding head column e, from one position's table rows. */
TS_DEVICE void ts_rope_chunk_table(float *ck, float *sk, const float *cos_row, const float *sin_row, int e,
                                   int d_shift, int interleaved, int aligned) {
    const int f = ts_rope_freq0(e, d_shift, interleaved);
    if (interleaved) {
        float c4[4], s4[4];
        ts_rope_get4(c4, cos_row + f, aligned);
        ts_rope_get4(s4, sin_row + f, aligned);
        TS_UNROLL
        for (int i = 0; i < 4; ++i) {
            ck[2 * i] = ck[2 * i + 1] = c4[i];
            sk[2 * i] = sk[2 * i + 1] = s4[i];
        }
    } else {
        ts_rope_get4(ck, cos_row + f, aligned);
        ts_rope_get4(ck + 4, cos_row + f + 4, aligned);
        ts_rope_get4(sk, sin_row + f, aligned);
        ts_rope_get4(sk + 4, sin_row + f + 4, aligned);
    }
    ts_rope_signs(sk, e, d_shift, interleaved);
}

TS_DEVICE void ts_rope_pattern_table(ts_rope_pattern *pat, const float *cos_row, const float *sin_row, int d_shift,
                                     int interleaved) {
    const int aligned = ts_wv_aligned(cos_row, 0) && ts_wv_aligned(sin_row, 0);
    TS_UNROLL
    for (int k = 0; k < TS_ROPE_PATTERN_CHUNKS; ++k)
        ts_rope_chunk_table(pat->c[k], pat->s[k], cos_row, sin_row, ts_rope_pattern_col(k, d_shift), d_shift,
                            interleaved, aligned);
}

TS_DEVICE void ts_rope_pattern_angles(ts_rope_pattern *pat, float pos, const float *inv_freq, int d_shift,
                                      int interleaved) {
    TS_UNROLL
    for (int k = 0; k < TS_ROPE_PATTERN_CHUNKS; ++k) {
        const int e = ts_rope_pattern_col(k, d_shift), f = ts_rope_freq0(e, d_shift, interleaved);
        float *ck = pat->c[k], *sk = pat->s[k];
        TS_UNROLL
        for (int j = 0; j < TS_WV_CHUNK; ++j) {
            if (interleaved && (j & 1)) {
                ck[j] = ck[j - 1];
                sk[j] = sk[j - 1];
                continue;
            }
            const float angle = pos * inv_freq[f + (interleaved ? j >> 1 : j)];
            ck[j] = cosf(angle);
            sk[j] = sinf(angle);
        }
        ts_rope_signs(sk, e, d_shift, interleaved);
    }
}

TS_DEVICE void ts_wv_rope_apply_impl(float *d, const float *x, const ts_rope_pattern *pat, int chunks, int d_shift,
                                     int interleaved) {
    const int half = 1 << (d_shift - 4); /* chunks between the two halves of a head */
    TS_UNROLL
    for (int k = 0; k < chunks; ++k) {
        const int pc = ts_rope_pattern_index(k, d_shift);
        TS_UNROLL
        for (int j = 0; j < TS_WV_CHUNK; ++j) {
            const int i = k * TS_WV_CHUNK + j;
            float partner;
            if (interleaved)
                partner = x[i ^ 1];
            else if (TS_WARP_LANES > 1)
                partner = ts_shfl_xor_f32(x[i], half);
            else
                partner = x[(k ^ half) * TS_WV_CHUNK + j];
            d[i] = fmaf(partner, pat->s[pc][j], x[i] * pat->c[pc][j]);
        }
    }
}

/* Chunk k of a packed strip x rotated into dk, with the chunk's cosines c and signed sines s. */
TS_DEVICE void ts_wvp_rope_chunk(unsigned *dk, const unsigned *x, int k, const float *c, const float *s, int dtype,
                                 int d_shift, int interleaved) {
    const int half = 1 << (d_shift - 4), words = ts_wvp_words(dtype), per_word = TS_WV_CHUNK / words;
    const unsigned *xk = x + k * words;
    TS_UNROLL
    for (int i = 0; i < words; ++i) {
        /* The word holding the partners of word i's elements: the matching word of the other
         * half of the head; interleaved, the partner is the element beside, in the same chunk. */
        unsigned pw = xk[i];
        if (!interleaved) pw = TS_WARP_LANES > 1 ? ts_shfl_u32(xk[i], ts_lane_id() ^ half) : x[(k ^ half) * words + i];
        float y[2];
        TS_UNROLL
        for (int h = 0; h < per_word; ++h) {
            const int j = i * per_word + h;
            const float partner = interleaved ? ts_wvp_elem(xk, j ^ 1, dtype) : ts_wvp_elem(&pw, h, dtype);
            y[h] = fmaf(partner, s[j], ts_wvp_elem(xk, j, dtype) * c[j]);
        }
        dk[i] = dtype == TS_DTYPE_F32 ? ts_f32_bits(y[0]) : ts_wv_pack2(y[0], y[1], dtype);
    }
}

TS_DEVICE void ts_wvp_rope_apply_impl(unsigned *d, const unsigned *x, const ts_rope_pattern *pat, int chunks,
                                      int dtype, int d_shift, int interleaved) {
    const int words = ts_wvp_words(dtype);
    TS_UNROLL
    for (int k = 0; k < chunks; ++k) {
        const int pc = ts_rope_pattern_index(k, d_shift);
        ts_wvp_rope_chunk(d + k * words, x, k, pat->c[pc], pat->s[pc], dtype, d_shift, interleaved);
    }
}

/* The pattern of an E-element strip whose rows are consecutive positions of one head (a layout
 * whose heads hold their tokens back to back): for each of the lane's chunks, the cosines and
 * signed sines of that chunk's own row, since a lane's chunks meet different rows. */
#define TS_ROPE_ROWS_PATTERN(E)                                                                    \
    struct {                                                                                       \
        float c[(E) / (TS_WV_CHUNK * TS_WARP_LANES)][TS_WV_CHUNK];                                 \
        float s[(E) / (TS_WV_CHUNK * TS_WARP_LANES)][TS_WV_CHUNK];                                 \
    }

TS_DEVICE void ts_rope_rows_pattern_table_impl(float (*c)[TS_WV_CHUNK], float (*s)[TS_WV_CHUNK], int chunks,
                                               const float *cos, const float *sin, long long pos0, int d_shift,
                                               int interleaved) {
    const int half_d = 1 << (d_shift - 1); /* 16 or more: rows keep the tables' alignment */
    const int aligned = ts_wv_aligned(cos, 0) && ts_wv_aligned(sin, 0);
    TS_UNROLL
    for (int k = 0; k < chunks; ++k) {
        const int e = (k * TS_WARP_LANES + ts_lane_id()) * TS_WV_CHUNK;
        const long long row = (pos0 + (e >> d_shift)) * half_d;
        ts_rope_chunk_table(c[k], s[k], cos + row, sin + row, e & ((1 << d_shift) - 1), d_shift, interleaved, aligned);
    }
}

TS_DEVICE void ts_wvp_rope_apply_rows_impl(unsigned *d, const unsigned *x, const float (*c)[TS_WV_CHUNK],
                                           const float (*s)[TS_WV_CHUNK], int chunks, int dtype, int d_shift,
                                           int interleaved) {
    const int words = ts_wvp_words(dtype);
    TS_UNROLL
    for (int k = 0; k < chunks; ++k) ts_wvp_rope_chunk(d + k * words, x, k, c[k], s[k], dtype, d_shift, interleaved);
}

#define ts_wv_packed_rope_apply(d, x, pat, d_shift, interleaved)                                   \
    do {                                                                                           \
        TS_WV_SAME(d, x);                                                                          \
        TS_ROPE_CONTIGUOUS(d);                                                                     \
        ts_wvp_rope_apply_impl(TS_WV_PACKED_DATA(d), TS_WV_PACKED_CDATA(x), (pat), TS_WV_PACKED_CHUNKS(d),         \
                               TS_WV_PACKED_DTYPE(d), (d_shift), (interleaved));                    \
    } while (0)

/* pat: a TS_ROPE_ROWS_PATTERN of the strips' length. */
#define ts_rope_rows_pattern_table(pat, cos, sin, pos0, d_shift, interleaved)                      \
    ts_rope_rows_pattern_table_impl((pat)->c, (pat)->s, (int)(sizeof((pat)->c) / sizeof((pat)->c[0])), (cos), (sin), \
                                    (pos0), (d_shift), (interleaved))

#define ts_wv_packed_rope_apply_rows(d, x, pat, d_shift, interleaved)                              \
    do {                                                                                           \
        TS_WV_SAME(d, x);                                                                          \
        TS_ROPE_CONTIGUOUS(d);                                                                     \
        TS_STATIC_ASSERT(sizeof((pat)->c) / sizeof((pat)->c[0]) == TS_WV_PACKED_CHUNKS(d), "pattern of another strip length"); \
        ts_wvp_rope_apply_rows_impl(TS_WV_PACKED_DATA(d), TS_WV_PACKED_CDATA(x), (const float(*)[TS_WV_CHUNK])(pat)->c, \
                                    (const float(*)[TS_WV_CHUNK])(pat)->s, TS_WV_PACKED_CHUNKS(d),                 \
                                    TS_WV_PACKED_DTYPE(d), (d_shift), (interleaved));                              \
    } while (0)

#define ts_wv_rope_apply(d, x, pat, d_shift, interleaved)                                          \
    do {                                                                                           \
        TS_WV_SAME(d, x);                                                                          \
        TS_ROPE_CONTIGUOUS(d);                                                                     \
        ts_wv_rope_apply_impl(TS_WV_DATA(d), TS_WV_CDATA(x), (pat), TS_WV_CHUNKS(d), (d_shift),    \
                              (interleaved));                                                      \
    } while (0)

#endif
