/* Operations on packed warp vectors (tiles/warp_vector.h, TS_WV_PACKED), destination first. The
 * strip stays in its dtype's bits; elements become fp32 one chunk at a time, inside a reduction or
 * on the way to memory, so a kernel that holds a whole row needs half the registers for it:
 *   ts_wv_packed_load(v, ptr, n)
 *       the strip ptr[0 .. E) of the vector's dtype, elements at and past n zero (n <= 0: none)
 *   ts_wv_packed_load_add_round(v, ptr, n)
 *       v = v + the strip, added in fp32 and rounded back to the dtype (elements at and past n
 *       left alone): a residual add whose sum the caller keeps in the input's precision
 *   ts_wv_packed_store(ptr, v, n)
 *       the strip's elements before n, as they are
 *   ts_wv_packed_load_rows(v, ptr, row_shift, row_stride, n) / ts_wv_packed_store_rows(...)
 *       a strip of rows of 2^row_shift elements, as ts_wv_load_rows (ops/warp_vector.h)
 *   ts_wv_packed_load_wide_rows(v, ptr, row_chunks, row_stride, n), _load_add_round_wide_rows,
 *   ts_wv_packed_store_wide_rows(...)
 *       a strip of wide rows, as ts_wv_load_wide_rows; the second adds one, as
 *       ts_wv_packed_load_add_round
 *   ts_wv_packed_row_sums(out, v, row_chunks), ts_wv_packed_row_sums_sq(out, v, centres, row_chunks)
 *       of a strip of wide rows: per chunk of the lane, the sum of its row, and the sum of (x -
 *       centres[chunk])^2 over its row, the same in every lane
 *   ts_wv_packed_load_quad_rows(v, ptr, row_quads, row_stride, n), _load_add_round_quad_rows,
 *   ts_wv_packed_store_quad_rows, ts_wv_packed_quad_row_sums(out, v, row_quads), _sq(out, v, centres,
 *   row_quads), ts_wv_packed_store_quad_rows_normalized_held_params(...)
 *       the same for a strip of quad rows (ops/warp_vector.h: TS_WV_ROWS_QUADS; split layout), one
 *       value a quad of the lane instead of a chunk
 *   ts_wv_packed_sum(v), ts_wv_packed_sum_sq(v, centre, n)
 *       the sum of the strip, and the sum of (x - centre)^2 over its elements before n, reduced
 *       across the warp in the order of ts_wv_sum / ts_wv_sum_sq, the same in every lane
 *   ts_wv_packed_store_normalized(ptr, out_dtype, v, shift, scale, weight, bias, param_dtype, n)
 *       out = (x - shift) * scale [* weight] [+ bias] for the elements before n, in fp32, stored
 *       as out_dtype; weight and bias are the strip's stretch of a vector of param_dtype, or NULL
 *   ts_wv_packed_store_normalized_held(ptr, v, shift, scale, weight_v, use_weight, bias, n)
 *       the same with the weight held in a packed vector of v's dtype (used where use_weight is
 *       nonzero), bias as above, out and bias in v's dtype: for a kernel that loads the weight
 *       with the row, so that its latency hides under the row's rather than following the
 *       reductions
 *   ts_wv_packed_store_normalized_held_params(ptr, v, shift, scale, weight_v, use_weight, bias_v,
 *                                             use_bias, n)
 *       the same with the bias held too (a packed vector like the weight's, used where use_bias is
 *       nonzero): for a kernel that loads both parameters at once, after its reductions
 *   ts_wv_packed_store_wide_rows_normalized_held_params(ptr, v, shifts, scales, weight_v,
 *                                          use_weight, bias_v, use_bias, row_chunks, row_stride, n)
 *       the same for a strip of wide rows, each row with its own shift and scale (one per chunk)
 * Whole, 16-byte aligned strips take 16-byte accesses, all of a lane's chunks in flight at once,
 * as the fp32 vector ops do (ops/warp_vector.h); anything else goes element by element. */
#ifndef TESSERA_OPS_WARP_VECTOR_PACKED_H
#define TESSERA_OPS_WARP_VECTOR_PACKED_H

#include "ops/warp_vector.h"

#define TS_WV_PACKED_DTYPE(x) ((int)sizeof((x)->dtype_tag))
#define TS_WV_PACKED_CHUNKS(x) ((int)(sizeof((x)->v) / sizeof((x)->v[0])))
#define TS_WV_PACKED_DATA(x) (&(x)->v[0][0])
#define TS_WV_PACKED_CDATA(x) ((const unsigned *)&(x)->v[0][0])

/* ---- loads and stores ---------------------------------------------------------------------- */

#define TS_WV_PACKED_LOAD(dst, ptr, n, rows, row_size, row_stride, op)                             \
    ts_wv_load_impl(TS_WV_PACKED_DATA(dst), 1, TS_WV_PACKED_CHUNKS(dst), (ptr), TS_WV_PACKED_DTYPE(dst), (n), (rows), \
                    (row_size), (row_stride), (op), TS_WV_LAYOUT_OF(dst))
#define TS_WV_PACKED_STORE(ptr, src, n, rows, row_size, row_stride)                                \
    ts_wv_store_impl((ptr), TS_WV_PACKED_CDATA(src), 1, TS_WV_PACKED_CHUNKS(src), TS_WV_PACKED_DTYPE(src), (n),  \
                     (rows), (row_size), (row_stride), TS_WV_LAYOUT_OF(src))
#define ts_wv_packed_load(dst, ptr, n) TS_WV_PACKED_LOAD(dst, ptr, n, TS_WV_PLAIN_ROWS, 0, 0, 0)
#define ts_wv_packed_load_add_round(dst, ptr, n) TS_WV_PACKED_LOAD(dst, ptr, n, TS_WV_PLAIN_ROWS, 0, 0, 1)
#define ts_wv_packed_load_rows(dst, ptr, row_shift, row_stride, n)                                 \
    TS_WV_PACKED_LOAD(dst, ptr, n, TS_WV_ROWS_POW2, row_shift, row_stride, 0)
#define ts_wv_packed_load_wide_rows(dst, ptr, row_chunks, row_stride, n)                           \
    TS_WV_PACKED_LOAD(dst, ptr, n, TS_WV_ROWS_WIDE, row_chunks, row_stride, 0)
#define ts_wv_packed_load_add_round_wide_rows(dst, ptr, row_chunks, row_stride, n)                 \
    TS_WV_PACKED_LOAD(dst, ptr, n, TS_WV_ROWS_WIDE, row_chunks, row_stride, 1)
#define ts_wv_packed_store(ptr, src, n) TS_WV_PACKED_STORE(ptr, src, n, TS_WV_PLAIN_ROWS, 0, 0)
#define ts_wv_packed_store_rows(ptr, src, row_shift, row_stride, n)                                \
    TS_WV_PACKED_STORE(ptr, src, n, TS_WV_ROWS_POW2, row_shift, row_stride)
#define ts_wv_packed_store_wide_rows(ptr, src, row_chunks, row_stride, n)                          \
    TS_WV_PACKED_STORE(ptr, src, n, TS_WV_ROWS_WIDE, row_chunks, row_stride)
#define ts_wv_packed_load_quad_rows(dst, ptr, row_quads, row_stride, n)                            \
    do {                                                                                           \
        TS_WV_QUAD_ROWS(dst);                                                               \
        TS_WV_PACKED_LOAD(dst, ptr, n, TS_WV_ROWS_QUADS, row_quads, row_stride, 0);                \
    } while (0)
#define ts_wv_packed_load_add_round_quad_rows(dst, ptr, row_quads, row_stride, n)                  \
    do {                                                                                           \
        TS_WV_QUAD_ROWS(dst);                                                               \
        TS_WV_PACKED_LOAD(dst, ptr, n, TS_WV_ROWS_QUADS, row_quads, row_stride, 1);                \
    } while (0)
#define ts_wv_packed_store_quad_rows(ptr, src, row_quads, row_stride, n)                           \
    do {                                                                                           \
        TS_WV_QUAD_ROWS(src);                                                               \
        TS_WV_PACKED_STORE(ptr, src, n, TS_WV_ROWS_QUADS, row_quads, row_stride);                  \
    } while (0)

/* ---- reductions ---------------------------------------------------------------------------- */

/* ts_wvp_reduce_impl of a strip in the split layout: the same partials in the same order, only the
 * elements' positions (which elements are before n) differ. A function of its own for the reason
 * of ops/warp_vector.h's ts_wv_split_load: the contiguous layout's code stays as it was. */
TS_DEVICE float ts_wvp_split_sum_sq(const unsigned *v, int chunks, int dtype, float centre, long long n, int op) {
    const int words = ts_wvp_words(dtype), lane = ts_lane_id();
    const int whole = n >= (long long)chunks * TS_WV_CHUNK * TS_WARP_LANES;
    float part[TS_WV_CHUNK];
    TS_UNROLL
    for (int j = 0; j < TS_WV_CHUNK; ++j) part[j] = 0.0f;
    TS_UNROLL
    for (int k = 0; k < chunks; ++k) {
        const int e = ts_wv_chunk_start(k, lane, 1);
        TS_UNROLL
        for (int j = 0; j < TS_WV_CHUNK; ++j) {
            const float x = ts_wvp_elem(v + k * words, j, dtype);
            const float c = op == 0 ? x : whole || ts_wv_pos(e, j, 1) < n ? x - centre : 0.0f;
            part[j] = op == 0 ? part[j] + c : fmaf(c, c, part[j]);
        }
    }
    return ts_wv_reduce_parts(part, 0);
}

/* ts_wvp_reduce_impl's sum of squares of a strip of TS_WV_ROWS_WHOLE_CHUNKS: a chunk wholly before
 * n or wholly past it. */
TS_DEVICE float ts_wvp_chunks_sum_sq(const unsigned *v, int chunks, int dtype, float centre, long long n) {
    const int words = ts_wvp_words(dtype), lane = ts_lane_id();
    float part[TS_WV_CHUNK];
    TS_UNROLL
    for (int j = 0; j < TS_WV_CHUNK; ++j) part[j] = 0.0f;
    TS_UNROLL
    for (int k = 0; k < chunks; ++k) {
        const int inside = (k * TS_WARP_LANES + lane) * TS_WV_CHUNK < n;
        TS_UNROLL
        for (int j = 0; j < TS_WV_CHUNK; ++j) {
            const float c = inside ? ts_wvp_elem_at_use(v + k * words, j, dtype) - centre : 0.0f;
            part[j] = fmaf(c, c, part[j]);
        }
    }
    return ts_wv_reduce_parts(part, 0);
}

/* op 0: the sum of the strip; op 1: the sum of (x - centre)^2 over elements before n. */
TS_DEVICE float ts_wvp_reduce_impl(const unsigned *v, int chunks, int dtype, float centre, long long n, int op,
                                   int rows, int split) {
    if (op == 1 && rows == TS_WV_ROWS_WHOLE_CHUNKS) return ts_wvp_chunks_sum_sq(v, chunks, dtype, centre, n);
    if (split) return ts_wvp_split_sum_sq(v, chunks, dtype, centre, n, op);
    const int words = ts_wvp_words(dtype), lane = ts_lane_id();
    const int whole = n >= (long long)chunks * TS_WV_CHUNK * TS_WARP_LANES;
    float part[TS_WV_CHUNK];
    TS_UNROLL
    for (int j = 0; j < TS_WV_CHUNK; ++j) part[j] = 0.0f;
    TS_UNROLL
    for (int k = 0; k < chunks; ++k) {
        const int e = (k * TS_WARP_LANES + lane) * TS_WV_CHUNK;
        TS_UNROLL
        for (int j = 0; j < TS_WV_CHUNK; ++j) {
            const float x = ts_wvp_elem(v + k * words, j, dtype);
            if (op == 0) {
                part[j] += x;
            } else {
                const float c = whole || e + j < n ? x - centre : 0.0f;
                part[j] = fmaf(c, c, part[j]);
            }
        }
    }
    return ts_wv_reduce_parts(part, 0);
}

#define ts_wv_packed_sum(src)                                                                      \
    ts_wvp_reduce_impl(TS_WV_PACKED_CDATA(src), TS_WV_PACKED_CHUNKS(src), TS_WV_PACKED_DTYPE(src), 0.0f, 0, 0,     \
                       TS_WV_PLAIN_ROWS, TS_WV_LAYOUT_OF(src))
#define ts_wv_packed_sum_sq(src, centre, n)                                                        \
    ts_wvp_reduce_impl(TS_WV_PACKED_CDATA(src), TS_WV_PACKED_CHUNKS(src), TS_WV_PACKED_DTYPE(src), (centre), (n), 1, \
                       TS_WV_PLAIN_ROWS, TS_WV_LAYOUT_OF(src))

/* Of a strip of wide rows of row_chunks chunks a lane (TS_WV_ROWS_WIDE): out[k] (one float a chunk of the lane) =
 * the sum of the row of the lane's chunk k (op 0), or of (x - centre[k])^2 over it (op 1), the
 * same bits in every lane and in every chunk of the row (ops/warp_vector.h: ts_wv_rows_combine).
 * Rows at and past the strip's valid elements give what their zeros give; a caller stores none of
 * them. */
TS_DEVICE void ts_wvp_row_reduce_impl(float *out, const unsigned *v, int chunks, int dtype, const float *centre,
                                      int row_chunks, int op) {
    const int words = ts_wvp_words(dtype);
    TS_UNROLL
    for (int k = 0; k < chunks; ++k) {
        float part[TS_WV_CHUNK];
        TS_UNROLL
        for (int j = 0; j < TS_WV_CHUNK; ++j) {
            const float x = ts_wvp_elem(v + k * words, j, dtype), c = op ? x - centre[k] : x;
            part[j] = op ? c * c : c;
        }
        out[k] = ts_wv_reduce_parts(part, 0);
    }
    ts_wv_rows_combine(out, chunks, row_chunks, 0);
}

/* Of a strip of quad rows of row_quads quad rows each (TS_WV_ROWS_QUADS): out[g] (one float a quad
 * of the lane, g = 2k + h for the half h of the lane's chunk k) = the sum of the row of quad g (op
 * 0), or of (x - centres[g])^2 over it (op 1), combined over the row as ops/warp_vector.h's
 * ts_wv_quad_rows_combine does. */
TS_DEVICE void ts_wvp_quad_row_reduce_impl(float *out, const unsigned *v, int chunks, int dtype, const float *centres,
                                           int row_quads, int op) {
    const int words = ts_wvp_words(dtype);
    TS_UNROLL
    for (int g = 0; g < 2 * chunks; ++g) {
        float s = 0.0f;
        TS_UNROLL
        for (int i = 0; i < TS_WV_QUAD; ++i) {
            const float x = ts_wvp_elem(v + (g / 2) * words, (g % 2) * TS_WV_QUAD + i, dtype);
            const float c = op ? x - centres[g] : x;
            s = op ? fmaf(c, c, s) : s + c;
        }
        out[g] = s;
    }
    ts_wv_quad_rows_combine(out, chunks, row_quads, 0);
}

#define ts_wv_packed_quad_row_sums(out, src, row_quads)                                            \
    ts_wvp_quad_row_reduce_impl((out), TS_WV_PACKED_CDATA(src), TS_WV_PACKED_CHUNKS(src), TS_WV_PACKED_DTYPE(src), \
                                NULL, (row_quads), 0)
#define ts_wv_packed_quad_row_sums_sq(out, src, centres, row_quads)                                \
    ts_wvp_quad_row_reduce_impl((out), TS_WV_PACKED_CDATA(src), TS_WV_PACKED_CHUNKS(src), TS_WV_PACKED_DTYPE(src), \
                                (centres), (row_quads), 1)

#define ts_wv_packed_row_sums(out, src, row_chunks)                                                \
    ts_wvp_row_reduce_impl((out), TS_WV_PACKED_CDATA(src), TS_WV_PACKED_CHUNKS(src), TS_WV_PACKED_DTYPE(src), NULL, \
                           (row_chunks), 0)
#define ts_wv_packed_row_sums_sq(out, src, centres, row_chunks)                                    \
    ts_wvp_row_reduce_impl((out), TS_WV_PACKED_CDATA(src), TS_WV_PACKED_CHUNKS(src), TS_WV_PACKED_DTYPE(src),    \
                           (centres), (row_chunks), 1)

/* ---- the normalized store ------------------------------------------------------------------ */

/* shifts / scales: one per chunk (a strip of wide rows, ts_wv_packed_row_sums) or per quad (quad
 * rows, ts_wv_packed_quad_row_sums), or NULL: shift / scale for every element. rows, row_size, row_stride: the strip's layout (ts_wv_offset); the weight and
 * the bias are one row's, the same for every row of the strip. */
/* ts_wvp_store_normalized_impl of a strip of TS_WV_ROWS_WHOLE_CHUNKS (a shift and scale for every
 * element; the strip, the weight and the bias 16-byte aligned): a chunk wholly before n or wholly
 * past it. */
TS_DEVICE void ts_wvp_chunks_store_normalized(unsigned char *b, int out_dtype, const unsigned *v, int chunks,
                                              int dtype, float shift, float scale, const unsigned char *wt,
                                              const unsigned char *bs, int param_dtype, const unsigned *held_weight,
                                              int use_held_weight, const unsigned *held_bias, int use_held_bias,
                                              long long n) {
    const int words = ts_wvp_words(dtype), lane = ts_lane_id();
    const int out_bytes = TS_DTYPE_BYTES(out_dtype), param_bytes = TS_DTYPE_BYTES(param_dtype);
    TS_UNROLL
    for (int k = 0; k < chunks; ++k) {
        const int e = (k * TS_WARP_LANES + lane) * TS_WV_CHUNK;
        if (e >= n) continue;
        float y[TS_WV_CHUNK];
        TS_UNROLL
        for (int j = 0; j < TS_WV_CHUNK; ++j) {
            y[j] = (ts_wvp_elem_at_use(v + k * words, j, dtype) - shift) * scale;
            if (use_held_weight) y[j] *= ts_wvp_elem(held_weight + k * words, j, dtype);
            if (use_held_bias) y[j] += ts_wvp_elem(held_bias + k * words, j, dtype);
        }
        if (wt) ts_wv_load_chunk(y, wt + (long long)e * param_bytes, wt + (long long)e * param_bytes, param_dtype, 2, 0);
        if (bs) ts_wv_load_chunk(y, bs + (long long)e * param_bytes, bs + (long long)e * param_bytes, param_dtype, 1, 0);
        unsigned char *p = b + (long long)e * out_bytes;
        ts_wv_store_chunk(p, p, y, out_dtype, 0);
    }
}

TS_DEVICE void ts_wvp_store_normalized_impl(void *base, int out_dtype, const unsigned *v, int chunks, int dtype,
                                            float shift, float scale, const float *shifts, const float *scales,
                                            const void *weight, const void *bias, int param_dtype,
                                            const unsigned *held_weight, int use_held_weight, const unsigned *held_bias,
                                            int use_held_bias, long long n, int rows, int row_size,
                                            long long row_stride, int split) {
    if (rows == TS_WV_ROWS_WHOLE_CHUNKS) {
        ts_wvp_chunks_store_normalized((unsigned char *)base, out_dtype, v, chunks, dtype, shift, scale,
                                       (const unsigned char *)weight, (const unsigned char *)bias, param_dtype,
                                       held_weight, use_held_weight, held_bias, use_held_bias, n);
        return;
    }
    const int words = ts_wvp_words(dtype), lane = ts_lane_id();
    const int out_bytes = TS_DTYPE_BYTES(out_dtype), param_bytes = TS_DTYPE_BYTES(param_dtype);
    unsigned char *b = (unsigned char *)base;
    const unsigned char *wt = (const unsigned char *)weight, *bs = (const unsigned char *)bias;
    const int aligned = ts_wv_aligned(b, rows ? row_stride * out_bytes : 0) && (!wt || ts_wv_aligned(wt, 0)) &&
                        (!bs || ts_wv_aligned(bs, 0));
    TS_UNROLL
    for (int k = 0; k < chunks; ++k) {
        const int e = ts_wv_chunk_start(k, lane, split);
        if (e >= n) continue;
        float y[TS_WV_CHUNK];
        TS_UNROLL
        for (int j = 0; j < TS_WV_CHUNK; ++j) {
            /* One shift and scale a chunk, or a quad in quad rows. */
            const int at_s = rows == TS_WV_ROWS_QUADS ? 2 * k + j / TS_WV_QUAD : k;
            const float s = shifts ? shifts[at_s] : shift, c = scales ? scales[at_s] : scale;
            y[j] = (ts_wvp_elem(v + k * words, j, dtype) - s) * c;
            if (use_held_weight) y[j] *= ts_wvp_elem(held_weight + k * words, j, dtype);
            if (use_held_bias) y[j] += ts_wvp_elem(held_bias + k * words, j, dtype);
        }
        /* A single strip's offsets spelled as e (int): ts_wv_offset's long long alone changed the
         * element paths' code of the general instances. The second quad (q, at_hi) is read in the
         * split layout only, 4 * lanes elements on; the contiguous layout passes the first's. */
        const int e_hi = e + TS_WV_QUAD * TS_WARP_LANES;
        unsigned char *p = b + (rows ? ts_wv_offset(e, rows, row_size, row_stride) : e) * out_bytes;
        unsigned char *q = split ? b + (rows ? ts_wv_offset(e_hi, rows, row_size, row_stride) : e_hi) * out_bytes : p;
        /* In the weight and the bias: within a row. */
        const int at = rows ? (int)ts_wv_offset(e, rows, row_size, 0) : e;
        const int at_hi = !split ? at : rows ? (int)ts_wv_offset(e_hi, rows, row_size, 0) : e_hi;
        if (aligned && ts_wv_chunk_end(e, split) <= n) {
            if (wt)
                ts_wv_load_chunk(y, wt + (long long)at * param_bytes, wt + (long long)at_hi * param_bytes, param_dtype,
                                 2, split);
            if (bs)
                ts_wv_load_chunk(y, bs + (long long)at * param_bytes, bs + (long long)at_hi * param_bytes, param_dtype,
                                 1, split);
            ts_wv_store_chunk(p, q, y, out_dtype, split);
            continue;
        }
        TS_UNROLL
        for (int j = 0; j < TS_WV_CHUNK; ++j) {
            if (ts_wv_pos(e, j, split) >= n) continue;
            float x = y[j];
            const int col = split && j >= TS_WV_QUAD ? at_hi + j - TS_WV_QUAD : at + j;
            if (wt) x *= ts_wv_get(wt, param_dtype, col);
            if (bs) x += ts_wv_get(bs, param_dtype, col);
            ts_wv_set(ts_wv_quad(p, q, j, split), out_dtype, ts_wv_quad_index(j, split), x);
        }
    }
}

#define ts_wv_packed_store_normalized(ptr, out_dtype, src, shift, scale, weight, bias, param_dtype, n)  \
    ts_wvp_store_normalized_impl((ptr), (out_dtype), TS_WV_PACKED_CDATA(src), TS_WV_PACKED_CHUNKS(src),   \
                                 TS_WV_PACKED_DTYPE(src), (shift), (scale), NULL, NULL, (weight), (bias),           \
                                 (param_dtype), TS_WV_PACKED_CDATA(src), 0, TS_WV_PACKED_CDATA(src), 0, (n), TS_WV_PLAIN_ROWS, 0, 0,   \
                                 TS_WV_LAYOUT_OF(src))
/* The held vector's words are always passed (a pointer chosen at run time between a vector and
 * NULL would keep the vector out of registers); the flag says whether it is used. */
#define ts_wv_packed_store_normalized_held(ptr, src, shift, scale, weight_v, use_weight, bias, n)               \
    ts_wvp_store_normalized_impl((ptr), TS_WV_PACKED_DTYPE(src), TS_WV_PACKED_CDATA(src), TS_WV_PACKED_CHUNKS(src), \
                                 TS_WV_PACKED_DTYPE(src), (shift), (scale), NULL, NULL, NULL, (bias),               \
                                 TS_WV_PACKED_DTYPE(src), TS_WV_PACKED_CDATA(weight_v), (use_weight),              \
                                 TS_WV_PACKED_CDATA(src), 0, (n), TS_WV_PLAIN_ROWS, 0, 0, TS_WV_COMMON_LAYOUT(src, weight_v))
#define ts_wv_packed_store_normalized_held_params(ptr, src, shift, scale, weight_v, use_weight, bias_v, use_bias, n)   \
    ts_wvp_store_normalized_impl((ptr), TS_WV_PACKED_DTYPE(src), TS_WV_PACKED_CDATA(src), TS_WV_PACKED_CHUNKS(src), \
                                 TS_WV_PACKED_DTYPE(src), (shift), (scale), NULL, NULL, NULL, NULL,                 \
                                 TS_WV_PACKED_DTYPE(src), TS_WV_PACKED_CDATA(weight_v), (use_weight),              \
                                 TS_WV_PACKED_CDATA(bias_v), (use_bias), (n), TS_WV_PLAIN_ROWS, 0, 0,                             \
                                 TS_WV_COMMON_LAYOUT3(src, weight_v, bias_v))
/* A strip of wide rows (ts_wv_packed_load_wide_rows) normalized row by row: shifts and scales hold
 * one value per chunk of the lane (ts_wv_packed_row_sums), weight_v and bias_v the strip of the
 * rows' shared weight and bias (loaded with a row stride of 0), as in
 * ts_wv_packed_store_normalized_held_params. */
#define ts_wv_packed_store_wide_rows_normalized_held_params(ptr, src, shifts, scales, weight_v, use_weight, bias_v,   \
                                                            use_bias, row_chunks, row_stride, n)                      \
    ts_wvp_store_normalized_impl((ptr), TS_WV_PACKED_DTYPE(src), TS_WV_PACKED_CDATA(src), TS_WV_PACKED_CHUNKS(src), \
                                 TS_WV_PACKED_DTYPE(src), 0.0f, 1.0f, (shifts), (scales), NULL, NULL,               \
                                 TS_WV_PACKED_DTYPE(src), TS_WV_PACKED_CDATA(weight_v), (use_weight),              \
                                 TS_WV_PACKED_CDATA(bias_v), (use_bias), (n), TS_WV_ROWS_WIDE, (row_chunks),       \
                                 (row_stride), TS_WV_COMMON_LAYOUT3(src, weight_v, bias_v))

/* The same for a strip of quad rows (ts_wv_packed_load_quad_rows): shifts and scales one value per
 * quad of the lane (ts_wv_packed_quad_row_sums). */
#define ts_wv_packed_store_quad_rows_normalized_held_params(ptr, src, shifts, scales, weight_v, use_weight, bias_v,   \
                                                            use_bias, row_quads, row_stride, n)                       \
    do {                                                                                                              \
        TS_WV_QUAD_ROWS(src);                                                                                  \
        ts_wvp_store_normalized_impl((ptr), TS_WV_PACKED_DTYPE(src), TS_WV_PACKED_CDATA(src), TS_WV_PACKED_CHUNKS(src), \
                                     TS_WV_PACKED_DTYPE(src), 0.0f, 1.0f, (shifts), (scales), NULL, NULL,               \
                                     TS_WV_PACKED_DTYPE(src), TS_WV_PACKED_CDATA(weight_v), (use_weight),              \
                                     TS_WV_PACKED_CDATA(bias_v), (use_bias), (n), TS_WV_ROWS_QUADS, (row_quads),       \
                                     (row_stride), TS_WV_COMMON_LAYOUT3(src, weight_v, bias_v));                       \
    } while (0)

#endif
