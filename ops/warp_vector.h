/* Operations on warp vectors (tiles/warp_vector.h), destination first:
 *   ts_wv_load(v, ptr, dtype, n) / ts_wv_store(ptr, v, dtype, n)
 *       the strip ptr[0 .. E) of a bf16, fp16 or fp32 array; elements at and past n are zero-filled
 *       on load and left alone on store (n <= 0: none)
 *   ts_wv_load_add(v, ptr, dtype, n) / ts_wv_load_mul(v, ptr, dtype, n)
 *       v += / *= the strip as loaded, elements at and past n left alone: no second vector in the
 *       kernel, only the loaded words while they are in flight (all of a lane's chunks, whole
 *       strip or not: a partial strip's chunks are all loaded before the first is combined)
 *   ts_wv_load_rows(v, ptr, dtype, row_shift, row_stride, n) / ts_wv_store_rows(...)
 *       a strip of rows of 2^row_shift elements (a multiple of 8), row i at ptr + i * row_stride
 *       elements; n counts elements of the strip as above
 *   ts_wv_load_wide_rows(v, ptr, dtype, row_chunks, row_stride, n) / ts_wv_store_wide_rows(...)
 *       a strip of wide rows, each row_chunks chunks of every lane (row_chunks * 8 * lanes
 *       elements: 768 is three on CUDA), so that each chunk of a lane lies in one row
 *   ts_wv_fill(v, x), ts_wv_copy, ts_wv_add/sub/mul(d, a, b), ts_wv_add/sub/mul_scalar(d, a, s),
 *   ts_wv_exp2(d, a), ts_wv_exp2_approx(d, a) (the backend's one-instruction 2^x),
 *   ts_wv_round(d, a, dtype) (to the dtype's precision and back),
 *   ts_wv_fill_from(v, start, x) (strip elements start, start + 1, ... become x)
 *   the element-wise set of the tiles' maps (ops/maps.h), named ts_wv_<op>: ts_wv_div and
 *   ts_wv_div_scalar, ts_wv_maximum / ts_wv_minimum (element-wise; ts_wv_max reduces) and their
 *   _scalar forms, ts_wv_exp, ts_wv_log, ts_wv_abs, ts_wv_relu, ts_wv_neg, ts_wv_sqrt, ts_wv_rsqrt,
 *   ts_wv_tanh, ts_wv_sigmoid, ts_wv_silu, ts_wv_gelu_tanh, ts_wv_gelu_erf, ts_wv_erf, the
 *   comparisons ts_wv_eq/ne/lt/le/gt/ge (and _scalar) to 1.0f or 0.0f, ts_wv_fma(_scalar,
 *   _scalars), ts_wv_where(_scalar, _scalars), ts_wv_where_eq(_scalars) and the user maps
 *   TS_WV_MAP / TS_WV_MAP2 / TS_WV_MAP3 (d = fn(a), fn(a, b), fn(a, b, c), fn a TS_DEVICE function
 *   or a function-like macro); ts_wv_iota is in ops/index.h
 *   ts_wv_sum(v), ts_wv_sum_sq(v), ts_wv_max(v): the whole warp's strip reduced to one float,
 *       the same (bit for bit) in every lane
 *   ts_wv_lane_sum(v), ts_wv_lane_max(v): the lane's own elements only (statistics a lane keeps
 *       over many strips), and ts_wv_warp_combine(x, op): one value of every lane combined across
 *       the warp, the same in every lane
 *   of a strip of wide rows, with one value a chunk of the lane (its row's):
 *   ts_wv_row_sums(out, v, row_chunks), ts_wv_row_max(out, v, row_chunks) (out[k]: the row of
 *   chunk k reduced, the same in every lane), ts_wv_sub_row_scalars(d, a, s) and
 *   ts_wv_mul_row_scalars(d, a, s) (each element with its row's s), ts_wv_fill_rows_from(v,
 *   row_chunks, starts, x) (each row's elements at and past column starts[k] become x)
 *   of a strip of quad rows (TS_WV_ROWS_QUADS, split layout), the same with one value a quad of
 *   the lane (g = 2k + h): ts_wv_load_quad_rows, ts_wv_store_quad_rows, ts_wv_quad_row_sums,
 *   ts_wv_quad_row_max, ts_wv_sub_quad_row_scalars, ts_wv_mul_quad_row_scalars,
 *   ts_wv_fill_quad_rows_from (row_quads a compile-time constant: the reductions' loops over a row's
 *   quads must unroll, which HIP's build checks)
 *   ts_group_sum(x, slots, index, count, &parity) and ts_group_max: block-scope combination of one
 *       value from each of `count` warps through shared memory (every warp of the block calls)
 * Accesses are 16-byte vectors when the base address (and the row stride in bytes) is 16-byte
 * aligned, and all of a lane's chunks are in flight at once: a strip that is wholly valid is one
 * run of unconditional loads; of a partial one, chunks past n are skipped where they are only
 * stored in v, and where they are used on arrival (combined, or widened from 16 bits) every chunk is
 * loaded unconditionally (one past n reads the strip's first chunk again and is zeroed) and used
 * after the last load; a partly valid chunk goes element by element. On store, chunks past n are
 * skipped. An unaligned strip goes element by element. Arithmetic is fp32; the dtype of a load or store
 * may be a run-time value (the branch is uniform across the warp). The loads and stores here also
 * serve the packed warp vectors (ops/warp_vector_packed.h), whose chunk helpers (ts_wvp_*) they
 * call. */
#ifndef TESSERA_OPS_WARP_VECTOR_H
#define TESSERA_OPS_WARP_VECTOR_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "backends/lane_ops.h"
#include "backends/vector_memory.h"
#include "ops/bits.h"
#include "ops/maps.h"
#include "tiles/register_tile.h"
#include "tiles/warp_vector.h"

/* ---- elements ------------------------------------------------------------------------------ */

TS_DEVICE float ts_wv_from16(unsigned bits, int dtype) {
    return dtype == TS_DTYPE_BF16 ? ts_unpack_bf16((unsigned short)bits) : ts_unpack_fp16((unsigned short)bits);
}

/* One element's raw bits (ts_raw_get) as fp32. */
TS_DEVICE float ts_wv_from_bits(unsigned bits, int dtype) {
    return dtype == TS_DTYPE_F32 ? ts_bits_f32(bits) : ts_wv_from16(bits, dtype);
}

TS_DEVICE unsigned ts_wv_pack2(float lo, float hi, int dtype) {
    return dtype == TS_DTYPE_BF16 ? ts_pack_bf16x2(lo, hi) : ts_pack_fp16x2(lo, hi);
}

TS_DEVICE float ts_wv_get(const unsigned char *p, int dtype, long long i) {
    return ts_wv_from_bits(ts_raw_get(p, TS_DTYPE_BYTES(dtype), i), dtype);
}

TS_DEVICE void ts_wv_set(unsigned char *p, int dtype, long long i, float x) {
    if (dtype == TS_DTYPE_F32)
        ((float *)p)[i] = x;
    else
        ((unsigned short *)p)[i] = (unsigned short)(ts_wv_pack2(x, 0.0f, dtype) & 0xffffu);
}

/* The forms of a strip (the `rows` and `row_size` of the loads and stores below): 0, one contiguous
 * run of elements; TS_WV_ROWS_POW2, rows of 2^row_size elements; TS_WV_ROWS_WIDE, wide rows of
 * row_size chunks of every lane (row_size * TS_WV_CHUNK * TS_WARP_LANES elements), so that each
 * chunk of a lane lies in one row, row k / row_size for the lane's chunk k, the same in every lane;
 * TS_WV_ROWS_QUADS (split layout only), rows of row_size quad rows (row_size * TS_WV_QUAD *
 * TS_WARP_LANES elements: 384 columns are 3 on CUDA), a quad row being the 4 * lanes elements of one
 * 16-byte or 8-byte access of the warp, so that each quad of a lane lies in one row: quad g = 2k + h
 * (the lane's chunk k, its half h) in row g / row_size. ts_wv_offset takes the first elements of the
 * lane's quads there (the loads and stores ask for no others; ts_wv_fill_rows_from would, and does
 * not take quad rows). */
#define TS_WV_ROWS_POW2 1
#define TS_WV_ROWS_WIDE 2
#define TS_WV_ROWS_QUADS 3
/* TS_WV_ROWS_WHOLE_CHUNKS: one contiguous run, as 0, whose n is whole chunks (a multiple of
 * TS_WV_CHUNK) in the contiguous layout, so that each chunk of a lane is wholly inside it or wholly
 * past it: its loads and stores and sums of squares take paths of their own with no element-by-element
 * code (ts_wv_chunks_load, ...). The plain forms (ts_wv_load, ts_wv_packed_load, ts_wv_packed_sum_sq,
 * ...) take TS_WV_PLAIN_ROWS, 0 unless code whose every n is whole chunks redefines it for its span
 * (templates/rowwise_long_row.h). */
#define TS_WV_ROWS_WHOLE_CHUNKS 4
#define TS_WV_PLAIN_ROWS 0

/* Element offset of strip element e: contiguous, or in its row (row_stride elements apart). */
TS_DEVICE long long ts_wv_offset(int e, int rows, int row_size, long long row_stride) {
    if (!rows || rows == TS_WV_ROWS_WHOLE_CHUNKS) return e;
    if (rows == TS_WV_ROWS_POW2) return (long long)(e >> row_size) * row_stride + (e & ((1 << row_size) - 1));
    if (rows == TS_WV_ROWS_QUADS) {
        /* e is the first element of one of this lane's quads, 4 * lane into its quad row g: with the
         * lane's part taken off, g is a constant where the chunk loop is unrolled (so that the loads
         * of a weight repeated over the strip's rows are seen to be the same). */
        const int lane4 = TS_WV_QUAD * ts_lane_id();
        const unsigned g = (unsigned)(e - lane4) / (TS_WV_QUAD * TS_WARP_LANES), size = (unsigned)row_size;
        return (long long)(g / size) * row_stride + (long long)((g % size) * (TS_WV_QUAD * TS_WARP_LANES) + lane4);
    }
    /* A lane's chunk k = e / (TS_WV_CHUNK * TS_WARP_LANES), a constant where the chunk loop is unrolled. */
    const unsigned u = (unsigned)e, k = u / (TS_WV_CHUNK * TS_WARP_LANES), size = (unsigned)row_size;
    return (long long)(k / size) * row_stride + (long long)((k % size) * (TS_WV_CHUNK * TS_WARP_LANES) +
                                                            u % (TS_WV_CHUNK * TS_WARP_LANES));
}

/* The strip position of the lane's chunk k (its first element), of element j of the chunk that
 * starts at `start`, and one past the chunk's last element, in the layout `split`, at this backend's
 * warp width (tiles/warp_vector_layout.h). */
#define ts_wv_chunk_start(k, lane, split) TS_WV_CHUNK_START(k, lane, split, TS_WARP_LANES)
#define ts_wv_pos(start, j, split) TS_WV_POS(start, j, split, TS_WARP_LANES)
#define ts_wv_chunk_end(start, split) TS_WV_CHUNK_END(start, split, TS_WARP_LANES)

/* A chunk in memory is its two quads, at p and q. In the contiguous layout the second quad follows
 * the first and q is not read (callers pass p); element j is element ts_wv_quad_index(j) of
 * ts_wv_quad(p, q, j), in the contiguous layout element j of p. */
#define ts_wv_quad(p, q, j, split) ((split) && (j) >= TS_WV_QUAD ? (q) : (p))
#define ts_wv_quad_index(j, split) ((split) && (j) >= TS_WV_QUAD ? (j)-TS_WV_QUAD : (j))

/* The 16 bytes of a 16-bit chunk, whose quads lie at p and q: one 16-byte access in the contiguous
 * layout (q is p + 8 there and not read), two 8-byte ones in the split layout. */
TS_DEVICE ts_v16 ts_wv_load16_halves(const unsigned char *p, const unsigned char *q, int split) {
    if (!split) return ts_load16(p);
    const ts_v8 lo = ts_load8(p), hi = ts_load8(q);
    ts_v16 r;
    r.w[0] = lo.w[0];
    r.w[1] = lo.w[1];
    r.w[2] = hi.w[0];
    r.w[3] = hi.w[1];
    return r;
}

TS_DEVICE void ts_wv_store16_halves(unsigned char *p, unsigned char *q, ts_v16 v, int split) {
    if (!split) {
        ts_store16(p, v);
        return;
    }
    ts_v8 lo, hi;
    lo.w[0] = v.w[0];
    lo.w[1] = v.w[1];
    hi.w[0] = v.w[2];
    hi.w[1] = v.w[3];
    ts_store8(p, lo);
    ts_store8(q, hi);
}

/* A loaded value x into *d: op 0 sets it, 1 adds it, 2 multiplies by it. */
TS_DEVICE void ts_wv_take(float *d, float x, int op) { *d = op == 0 ? x : op == 1 ? *d + x : *d * x; }

/* One whole chunk of 8 elements (quads at p and q, 16-byte aligned), taken into d as op says
 * (ts_wv_take). */
TS_DEVICE void ts_wv_load_chunk(float *d, const unsigned char *p, const unsigned char *q, int dtype, int op,
                                int split) {
    if (dtype == TS_DTYPE_F32) {
        const ts_v16 a = ts_load16(p), b = ts_load16(split ? q : p + 16);
        TS_UNROLL
        for (int i = 0; i < 4; ++i) {
            ts_wv_take(&d[i], ts_bits_f32(a.w[i]), op);
            ts_wv_take(&d[4 + i], ts_bits_f32(b.w[i]), op);
        }
    } else {
        const ts_v16 a = ts_wv_load16_halves(p, q, split);
        TS_UNROLL
        for (int i = 0; i < 4; ++i) {
            ts_wv_take(&d[2 * i], ts_wv_from16(a.w[i] & 0xffffu, dtype), op);
            ts_wv_take(&d[2 * i + 1], ts_wv_from16(a.w[i] >> 16, dtype), op);
        }
    }
}

TS_DEVICE void ts_wv_store_chunk(unsigned char *p, unsigned char *q, const float *s, int dtype, int split) {
    if (dtype == TS_DTYPE_F32) {
        ts_v16 a, b;
        TS_UNROLL
        for (int i = 0; i < 4; ++i) {
            a.w[i] = ts_f32_bits(s[i]);
            b.w[i] = ts_f32_bits(s[4 + i]);
        }
        ts_store16(p, a);
        ts_store16(split ? q : p + 16, b);
    } else {
        ts_v16 a;
        TS_UNROLL
        for (int i = 0; i < 4; ++i) a.w[i] = ts_wv_pack2(s[2 * i], s[2 * i + 1], dtype);
        ts_wv_store16_halves(p, q, a, split);
    }
}

/* ---- packed elements (a chunk of the dtype's bits, ops/warp_vector_packed.h) ---------------- */

/* 32-bit words per chunk of 8 elements. */
TS_DEVICE int ts_wvp_words(int dtype) { return dtype == TS_DTYPE_F32 ? TS_WV_CHUNK : TS_WV_CHUNK / 2; }

/* The bits of element j of a chunk held in words w, and the element as fp32. */
TS_DEVICE unsigned ts_wvp_bits(const unsigned *w, int j, int dtype) {
    return dtype == TS_DTYPE_F32 ? w[j] : ts_rt16_get(w, j);
}

TS_DEVICE float ts_wvp_elem(const unsigned *w, int j, int dtype) {
    return ts_wv_from_bits(ts_wvp_bits(w, j, dtype), dtype);
}

/* The same value, a bf16 one converted afresh where it is used (ts_unpack_bf16_at_use): for a kernel
 * that holds the packed words anyway and reads each element in more than one pass. */
TS_DEVICE float ts_wvp_elem_at_use(const unsigned *w, int j, int dtype) {
    return dtype == TS_DTYPE_BF16 ? ts_unpack_bf16_at_use(w[j >> 1], j & 1) : ts_wvp_elem(w, j, dtype);
}

TS_DEVICE void ts_wvp_set_bits(unsigned *w, int j, unsigned bits, int dtype) {
    if (dtype == TS_DTYPE_F32)
        w[j] = bits;
    else
        ts_rt16_set(w, j, (unsigned short)bits);
}

/* x rounded to the dtype, as the bits of one element. */
TS_DEVICE unsigned ts_wvp_round_bits(float x, int dtype) {
    return dtype == TS_DTYPE_F32 ? ts_f32_bits(x) : ts_wv_pack2(x, 0.0f, dtype) & 0xffffu;
}

/* The sum of two words' elements, rounded to the dtype: one word again. */
TS_DEVICE unsigned ts_wvp_add_word(unsigned a, unsigned b, int dtype) {
    if (dtype == TS_DTYPE_F32) return ts_f32_bits(ts_bits_f32(a) + ts_bits_f32(b));
    return ts_wv_pack2(ts_wv_from16(a & 0xffffu, dtype) + ts_wv_from16(b & 0xffffu, dtype),
                       ts_wv_from16(a >> 16, dtype) + ts_wv_from16(b >> 16, dtype), dtype);
}

/* One whole chunk (quads at p and q, 16-byte aligned) into d: set (add 0) or added and rounded
 * (add 1). */
TS_DEVICE void ts_wvp_load_chunk(unsigned *d, const unsigned char *p, const unsigned char *q, int dtype, int add,
                                 int split) {
    const ts_v16 a = dtype == TS_DTYPE_F32 ? ts_load16(p) : ts_wv_load16_halves(p, q, split);
    ts_v16 b = a;
    if (dtype == TS_DTYPE_F32) b = ts_load16(split ? q : p + 16);
    TS_UNROLL
    for (int i = 0; i < ts_wvp_words(dtype); ++i) {
        const unsigned w = i < 4 ? a.w[i] : b.w[i - 4];
        d[i] = add ? ts_wvp_add_word(d[i], w, dtype) : w;
    }
}

/* One whole chunk of words (quads at p and q, 16-byte aligned), as they are. */
TS_DEVICE void ts_wvp_store_chunk(unsigned char *p, unsigned char *q, const unsigned *s, int dtype, int split) {
    TS_UNROLL
    for (int h = 0; h < ts_wvp_words(dtype); h += 4) {
        ts_v16 t;
        TS_UNROLL
        for (int i = 0; i < 4; ++i) t.w[i] = s[h + i];
        if (dtype == TS_DTYPE_F32)
            ts_store16(h == 0 ? p : split ? q : p + 16, t);
        else
            ts_wv_store16_halves(p, q, t, split);
    }
}

/* ---- loads and stores ---------------------------------------------------------------------- */

TS_DEVICE int ts_wv_aligned(const void *base, long long row_stride_bytes) {
    return (((uintptr_t)base | (uintptr_t)row_stride_bytes) & 15u) == 0;
}

/* ptr, promised to the compiler as 16-byte aligned where `whole` (a preprocessor 0 or 1: a kernel
 * instance whose launch has checked the alignment) is 1, and as it is where 0. With the promise,
 * ts_wv_aligned folds and the loads and stores compile without their element-by-element paths. */
#define TS_WV_ASSUME_ALIGNED(whole, ptr) TS_CAT(TS_WV_ASSUME_ALIGNED_, whole)(ptr)
#define TS_WV_ASSUME_ALIGNED_0(ptr) (ptr)
#define TS_WV_ASSUME_ALIGNED_1(ptr) __builtin_assume_aligned((ptr), 16)

/* The loads and stores of both storage forms: v holds fp32 values (packed 0; op 0 sets, 1 adds,
 * 2 multiplies, ts_wv_take) or the dtype's bits (packed 1; op 0 sets, 1 adds and rounds). packed,
 * op and split (the layout) are constants where the ops' macros call these, so each call compiles
 * to one form. A chunk's memory is its quads at p and q (ts_wv_quad). */
TS_DEVICE void ts_wv_load_whole_chunk(void *v, int packed, int at, const unsigned char *p, const unsigned char *q,
                                      int dtype, int op, int split) {
    if (packed)
        ts_wvp_load_chunk((unsigned *)v + at, p, q, dtype, op, split);
    else
        ts_wv_load_chunk((float *)v + at, p, q, dtype, op, split);
}

/* Element j of the chunk at p, q into the chunk at `at` of v, or, past the valid ones, zero on a set. */
TS_DEVICE void ts_wv_load_element(void *v, int packed, int at, int j, const unsigned char *p, const unsigned char *q,
                                  int dtype, int op, int valid, int split) {
    const unsigned char *src = ts_wv_quad(p, q, j, split);
    const int i = ts_wv_quad_index(j, split);
    if (!packed) {
        float *d = (float *)v + at;
        if (valid)
            ts_wv_take(&d[j], ts_wv_get(src, dtype, i), op);
        else if (op == 0)
            d[j] = 0.0f;
        return;
    }
    unsigned *d = (unsigned *)v + at;
    if (valid) {
        const unsigned x = ts_raw_get(src, TS_DTYPE_BYTES(dtype), i);
        ts_wvp_set_bits(d, j, op ? ts_wvp_round_bits(ts_wvp_elem(d, j, dtype) + ts_wv_from_bits(x, dtype), dtype) : x,
                        dtype);
    } else if (op == 0) {
        ts_wvp_set_bits(d, j, 0u, dtype);
    }
}

/* The most 32-bit words a lane holds of the longest strip whose partial loads go through a buffer
 * of its bits (ts_wv_load_impl): 4096 elements of fp32. */
#define TS_WV_LANE_WORDS_MAX (4096 / TS_WARP_LANES)

/* v op= the loaded strip (the dtype's bits, packed, zero past n: ts_wv_load_impl) for the elements
 * before n; op 0 (an fp32 v only: a widening load) sets every element, zero past n. */
TS_DEVICE void ts_wv_combine(void *v, const unsigned *loaded, int packed, int chunks, int dtype, long long n, int op) {
    const int words = ts_wvp_words(dtype), lane = ts_lane_id();
    TS_UNROLL
    for (int k = 0; k < chunks; ++k) {
        const int e = (k * TS_WARP_LANES + lane) * TS_WV_CHUNK;
        const unsigned *l = loaded + k * words;
        if (!packed) {
            float *d = (float *)v + k * TS_WV_CHUNK;
            TS_UNROLL
            for (int j = 0; j < TS_WV_CHUNK; ++j)
                if (op == 0 || e + j < n) ts_wv_take(&d[j], ts_wvp_elem(l, j, dtype), op);
            continue;
        }
        if (e >= n) continue;
        unsigned *d = (unsigned *)v + k * words;
        if (e + TS_WV_CHUNK <= n) {
            TS_UNROLL
            for (int i = 0; i < words; ++i) d[i] = ts_wvp_add_word(d[i], l[i], dtype);
            continue;
        }
        TS_UNROLL
        for (int j = 0; j < TS_WV_CHUNK; ++j)
            if (e + j < n)
                ts_wvp_set_bits(d, j, ts_wvp_round_bits(ts_wvp_elem(d, j, dtype) + ts_wvp_elem(l, j, dtype), dtype),
                                dtype);
    }
}

/* The strip's chunks into v as op says, each where it is loaded: whole strips (every chunk in
 * flight at once, nothing in between), unaligned ones and strips of fewer than 8 elements. */
TS_DEVICE void ts_wv_load_chunks(void *v, int packed, int chunks, const void *base, int dtype, long long n, int rows,
                                 int row_size, long long row_stride, int op) {
    const int bytes = TS_DTYPE_BYTES(dtype), lane = ts_lane_id();
    const int per_chunk = packed ? ts_wvp_words(dtype) : TS_WV_CHUNK; /* 32-bit values of v */
    const unsigned char *b = (const unsigned char *)base;
    const long long len = (long long)chunks * TS_WV_CHUNK * TS_WARP_LANES;
    const int aligned = ts_wv_aligned(b, rows ? row_stride * bytes : 0);
    if (aligned && n >= len) {
        /* The whole strip: straight-line loads, every chunk in flight before the first use. */
        TS_UNROLL
        for (int k = 0; k < chunks; ++k) {
            const int e = (k * TS_WARP_LANES + lane) * TS_WV_CHUNK;
            const unsigned char *p = b + ts_wv_offset(e, rows, row_size, row_stride) * bytes;
            ts_wv_load_whole_chunk(v, packed, k * per_chunk, p, p, dtype, op, 0);
        }
        return;
    }
    TS_UNROLL
    for (int k = 0; k < chunks; ++k) {
        const int e = (k * TS_WARP_LANES + lane) * TS_WV_CHUNK;
        const unsigned char *p = b + (e < n ? ts_wv_offset(e, rows, row_size, row_stride) * bytes : 0);
        if (aligned && e + TS_WV_CHUNK <= n) {
            ts_wv_load_whole_chunk(v, packed, k * per_chunk, p, p, dtype, op, 0);
            continue;
        }
        TS_UNROLL
        for (int j = 0; j < TS_WV_CHUNK; ++j)
            ts_wv_load_element(v, packed, k * per_chunk, j, p, p, dtype, op, e + j < n, 0);
    }
}

/* The loads and stores of a strip in the split layout (tiles/warp_vector.h), which the kernels
 * take for whole strips only (templates/rowwise.h): a chunk at a time, its quads at p and q,
 * whole chunks with two accesses and any other element by element; a whole, aligned strip is one
 * run of unconditional accesses. The contiguous layout keeps its own paths below, as they were
 * before the split layout: written as one with these, its partial strips compiled differently and
 * the fp32 norms of 256 columns ran slower (docs/tiles.md, "Where the ops' choices come from"). */
TS_DEVICE void ts_wv_split_load(void *v, int packed, int chunks, const void *base, int dtype, long long n, int rows,
                                int row_size, long long row_stride, int op) {
    const int bytes = TS_DTYPE_BYTES(dtype), lane = ts_lane_id();
    const int per_chunk = packed ? ts_wvp_words(dtype) : TS_WV_CHUNK;
    const unsigned char *b = (const unsigned char *)base;
    const int aligned = ts_wv_aligned(b, rows ? row_stride * bytes : 0);
    const int whole = n >= (long long)chunks * TS_WV_CHUNK * TS_WARP_LANES; /* no test a chunk */
    TS_UNROLL
    for (int k = 0; k < chunks; ++k) {
        const int e = ts_wv_chunk_start(k, lane, 1);
        const unsigned char *p = b + ts_wv_offset(e, rows, row_size, row_stride) * bytes;
        const unsigned char *q = b + ts_wv_offset(ts_wv_pos(e, TS_WV_QUAD, 1), rows, row_size, row_stride) * bytes;
        if (aligned && (whole || ts_wv_chunk_end(e, 1) <= n)) {
            ts_wv_load_whole_chunk(v, packed, k * per_chunk, p, q, dtype, op, 1);
            continue;
        }
        TS_UNROLL
        for (int j = 0; j < TS_WV_CHUNK; ++j)
            ts_wv_load_element(v, packed, k * per_chunk, j, p, q, dtype, op, ts_wv_pos(e, j, 1) < n, 1);
    }
}

TS_DEVICE void ts_wv_split_store(void *base, const void *v, int packed, int chunks, int dtype, long long n, int rows,
                                 int row_size, long long row_stride) {
    const int bytes = TS_DTYPE_BYTES(dtype), lane = ts_lane_id();
    const int per_chunk = packed ? ts_wvp_words(dtype) : TS_WV_CHUNK;
    unsigned char *b = (unsigned char *)base;
    const int aligned = ts_wv_aligned(b, rows ? row_stride * bytes : 0);
    const int whole = n >= (long long)chunks * TS_WV_CHUNK * TS_WARP_LANES; /* no test a chunk */
    TS_UNROLL
    for (int k = 0; k < chunks; ++k) {
        const int e = ts_wv_chunk_start(k, lane, 1);
        if (!whole && e >= n) continue;
        unsigned char *p = b + ts_wv_offset(e, rows, row_size, row_stride) * bytes;
        unsigned char *q = b + ts_wv_offset(ts_wv_pos(e, TS_WV_QUAD, 1), rows, row_size, row_stride) * bytes;
        const float *sf = (const float *)v + k * per_chunk;
        const unsigned *sw = (const unsigned *)v + k * per_chunk;
        if (aligned && (whole || ts_wv_chunk_end(e, 1) <= n)) {
            if (packed)
                ts_wvp_store_chunk(p, q, sw, dtype, 1);
            else
                ts_wv_store_chunk(p, q, sf, dtype, 1);
            continue;
        }
        TS_UNROLL
        for (int j = 0; j < TS_WV_CHUNK; ++j) {
            if (ts_wv_pos(e, j, 1) >= n) continue;
            unsigned char *dst = ts_wv_quad(p, q, j, 1);
            if (packed)
                ts_raw_set(dst, bytes, ts_wv_quad_index(j, 1), ts_wvp_bits(sw, j, dtype));
            else
                ts_wv_set(dst, dtype, ts_wv_quad_index(j, 1), sf[j]);
        }
    }
}

/* The loads and stores of a strip of TS_WV_ROWS_WHOLE_CHUNKS (contiguous layout): a chunk past n
 * is loaded from the strip's first chunk (inside it, as n > 0) and zeroed, so that every load is
 * unconditional and in flight at once, and is not stored. */
TS_DEVICE void ts_wv_chunks_load(void *v, int packed, int chunks, const void *base, int dtype, long long n, int op) {
    const int bytes = TS_DTYPE_BYTES(dtype), words = ts_wvp_words(dtype), lane = ts_lane_id();
    const unsigned char *b = (const unsigned char *)base;
    TS_UNROLL
    for (int k = 0; k < chunks; ++k) {
        const int e = (k * TS_WARP_LANES + lane) * TS_WV_CHUNK, inside = e < n;
        const unsigned char *p = b + (inside ? e : 0) * bytes;
        unsigned l[TS_WV_CHUNK];
        ts_wvp_load_chunk(l, p, p, dtype, 0, 0);
        TS_UNROLL
        for (int i = 0; i < words; ++i) l[i] = inside ? l[i] : 0u;
        if (!packed) {
            float *d = (float *)v + k * TS_WV_CHUNK;
            TS_UNROLL
            for (int j = 0; j < TS_WV_CHUNK; ++j)
                if (op == 0 || inside) ts_wv_take(&d[j], ts_wvp_elem(l, j, dtype), op);
            continue;
        }
        unsigned *d = (unsigned *)v + k * words;
        TS_UNROLL
        for (int i = 0; i < words; ++i) d[i] = op == 0 ? l[i] : inside ? ts_wvp_add_word(d[i], l[i], dtype) : d[i];
    }
}

TS_DEVICE void ts_wv_chunks_store(void *base, const void *v, int packed, int chunks, int dtype, long long n) {
    const int bytes = TS_DTYPE_BYTES(dtype), lane = ts_lane_id();
    const int per_chunk = packed ? ts_wvp_words(dtype) : TS_WV_CHUNK;
    unsigned char *b = (unsigned char *)base;
    TS_UNROLL
    for (int k = 0; k < chunks; ++k) {
        const int e = (k * TS_WARP_LANES + lane) * TS_WV_CHUNK;
        if (e >= n) continue;
        unsigned char *p = b + (long long)e * bytes;
        if (packed)
            ts_wvp_store_chunk(p, p, (const unsigned *)v + k * per_chunk, dtype, 0);
        else
            ts_wv_store_chunk(p, p, (const float *)v + k * per_chunk, dtype, 0);
    }
}

TS_DEVICE void ts_wv_load_impl(void *v, int packed, int chunks, const void *base, int dtype, long long n, int rows,
                               int row_size, long long row_stride, int op, int split) {
    if (rows == TS_WV_ROWS_WHOLE_CHUNKS) {
        ts_wv_chunks_load(v, packed, chunks, base, dtype, n, op);
        return;
    }
    if (split) {
        ts_wv_split_load(v, packed, chunks, base, dtype, n, rows, row_size, row_stride, op);
        return;
    }
    const int bytes = TS_DTYPE_BYTES(dtype), words = ts_wvp_words(dtype), lane = ts_lane_id();
    const unsigned char *b = (const unsigned char *)base;
    const int aligned = ts_wv_aligned(b, rows ? row_stride * bytes : 0);
    /* Where each loaded chunk is used at once: combined (op), or widened from 16 bits. */
    const int used_at_load = op != 0 || (!packed && dtype != TS_DTYPE_F32);
    if (!used_at_load || !aligned || n < TS_WV_CHUNK || n >= (long long)chunks * TS_WV_CHUNK * TS_WARP_LANES ||
        chunks * words > TS_WV_LANE_WORDS_MAX) {
        ts_wv_load_chunks(v, packed, chunks, base, dtype, n, rows, row_size, row_stride, op);
        return;
    }
    /* A partial, aligned strip. Chunks loaded under branches, each used where it is loaded (combined,
     * or widened from 16 bits), wait one round trip a chunk, which left short rows well behind
     * torch.compile (docs/tiles.md, "Where the ops' choices come from"). So every chunk
     * is loaded unconditionally, one that is not valid from the strip's first chunk (valid, as n >= 8)
     * and then zeroed, a partly valid one completed element by element, and the bits are used after. */
    unsigned loaded[TS_WV_LANE_WORDS_MAX];
    TS_UNROLL
    for (int k = 0; k < chunks; ++k) {
        const int e = (k * TS_WARP_LANES + lane) * TS_WV_CHUNK;
        const int valid = e + TS_WV_CHUNK <= n;
        unsigned *l = loaded + k * words;
        const unsigned char *p = b + (valid ? ts_wv_offset(e, rows, row_size, row_stride) * bytes : 0);
        ts_wvp_load_chunk(l, p, p, dtype, 0, 0);
        TS_UNROLL
        for (int i = 0; i < words; ++i) l[i] = valid ? l[i] : 0u;
    }
    TS_UNROLL
    for (int k = 0; k < chunks; ++k) {
        const int e = (k * TS_WARP_LANES + lane) * TS_WV_CHUNK;
        if (e >= n || e + TS_WV_CHUNK <= n) continue;
        const unsigned char *p = b + ts_wv_offset(e, rows, row_size, row_stride) * bytes;
        TS_UNROLL
        for (int j = 0; j < TS_WV_CHUNK; ++j) ts_wv_load_element(loaded, 1, k * words, j, p, p, dtype, 0, e + j < n, 0);
    }
    ts_wv_combine(v, loaded, packed, chunks, dtype, n, op);
}

TS_DEVICE void ts_wv_store_impl(void *base, const void *v, int packed, int chunks, int dtype, long long n, int rows,
                                int row_size, long long row_stride, int split) {
    if (rows == TS_WV_ROWS_WHOLE_CHUNKS) {
        ts_wv_chunks_store(base, v, packed, chunks, dtype, n);
        return;
    }
    if (split) {
        ts_wv_split_store(base, v, packed, chunks, dtype, n, rows, row_size, row_stride);
        return;
    }
    const int bytes = TS_DTYPE_BYTES(dtype), lane = ts_lane_id();
    const int per_chunk = packed ? ts_wvp_words(dtype) : TS_WV_CHUNK;
    unsigned char *b = (unsigned char *)base;
    const int aligned = ts_wv_aligned(b, rows ? row_stride * bytes : 0);
    /* The whole strip: no test per chunk (one the compiler folds where n is a constant, as the
     * loads' whole path). */
    const int whole = n >= (long long)chunks * TS_WV_CHUNK * TS_WARP_LANES;
    TS_UNROLL
    for (int k = 0; k < chunks; ++k) {
        const int e = (k * TS_WARP_LANES + lane) * TS_WV_CHUNK;
        if (!whole && e >= n) continue;
        unsigned char *p = b + ts_wv_offset(e, rows, row_size, row_stride) * bytes;
        const float *sf = (const float *)v + k * per_chunk;
        const unsigned *sw = (const unsigned *)v + k * per_chunk;
        if (aligned && (whole || e + TS_WV_CHUNK <= n)) {
            if (packed)
                ts_wvp_store_chunk(p, p, sw, dtype, 0);
            else
                ts_wv_store_chunk(p, p, sf, dtype, 0);
            continue;
        }
        TS_UNROLL
        for (int j = 0; j < TS_WV_CHUNK; ++j) {
            if (e + j >= n) continue;
            if (packed)
                ts_raw_set(p, bytes, j, ts_wvp_bits(sw, j, dtype));
            else
                ts_wv_set(p, dtype, j, sf[j]);
        }
    }
}

#define ts_wv_load(dst, ptr, dtype, n)                                                             \
    ts_wv_load_impl(TS_WV_DATA(dst), 0, TS_WV_CHUNKS(dst), (ptr), (dtype), (n), TS_WV_PLAIN_ROWS, 0, 0, 0, \
                    TS_WV_LAYOUT_OF(dst))
#define ts_wv_load_add(dst, ptr, dtype, n)                                                         \
    ts_wv_load_impl(TS_WV_DATA(dst), 0, TS_WV_CHUNKS(dst), (ptr), (dtype), (n), TS_WV_PLAIN_ROWS, 0, 0, 1, \
                    TS_WV_LAYOUT_OF(dst))
#define ts_wv_load_mul(dst, ptr, dtype, n)                                                         \
    ts_wv_load_impl(TS_WV_DATA(dst), 0, TS_WV_CHUNKS(dst), (ptr), (dtype), (n), TS_WV_PLAIN_ROWS, 0, 0, 2, \
                    TS_WV_LAYOUT_OF(dst))
#define ts_wv_load_rows(dst, ptr, dtype, row_shift, row_stride, n)                                 \
    ts_wv_load_impl(TS_WV_DATA(dst), 0, TS_WV_CHUNKS(dst), (ptr), (dtype), (n), TS_WV_ROWS_POW2, (row_shift), \
                    (row_stride), 0, TS_WV_LAYOUT_OF(dst))
#define ts_wv_load_wide_rows(dst, ptr, dtype, row_chunks, row_stride, n)                           \
    ts_wv_load_impl(TS_WV_DATA(dst), 0, TS_WV_CHUNKS(dst), (ptr), (dtype), (n), TS_WV_ROWS_WIDE, (row_chunks), \
                    (row_stride), 0, TS_WV_LAYOUT_OF(dst))
#define ts_wv_store(ptr, src, dtype, n)                                                            \
    ts_wv_store_impl((ptr), TS_WV_CDATA(src), 0, TS_WV_CHUNKS(src), (dtype), (n), TS_WV_PLAIN_ROWS, 0, 0, \
                     TS_WV_LAYOUT_OF(src))
#define ts_wv_store_rows(ptr, src, dtype, row_shift, row_stride, n)                                \
    ts_wv_store_impl((ptr), TS_WV_CDATA(src), 0, TS_WV_CHUNKS(src), (dtype), (n), TS_WV_ROWS_POW2, (row_shift), \
                     (row_stride), TS_WV_LAYOUT_OF(src))
#define ts_wv_store_wide_rows(ptr, src, dtype, row_chunks, row_stride, n)                          \
    ts_wv_store_impl((ptr), TS_WV_CDATA(src), 0, TS_WV_CHUNKS(src), (dtype), (n), TS_WV_ROWS_WIDE, (row_chunks), \
                     (row_stride), TS_WV_LAYOUT_OF(src))
/* Any form of strip (rows: 0 or TS_WV_ROWS_*, as ts_wv_offset), for code that picks it at compile time. */
#define TS_WV_LOAD(dst, ptr, dtype, n, rows, row_size, row_stride, op)                             \
    ts_wv_load_impl(TS_WV_DATA(dst), 0, TS_WV_CHUNKS(dst), (ptr), (dtype), (n), (rows), (row_size), (row_stride), \
                    (op), TS_WV_LAYOUT_OF(dst))
#define TS_WV_STORE(ptr, src, dtype, n, rows, row_size, row_stride)                                \
    ts_wv_store_impl((ptr), TS_WV_CDATA(src), 0, TS_WV_CHUNKS(src), (dtype), (n), (rows), (row_size), (row_stride), \
                     TS_WV_LAYOUT_OF(src))
/* A strip of quad rows (TS_WV_ROWS_QUADS) takes the split layout. */
#define TS_WV_QUAD_ROWS(v) TS_STATIC_ASSERT(TS_WV_LAYOUT_OF(v) == TS_WV_SPLIT, "quad rows need the split layout")
#define ts_wv_load_quad_rows(dst, ptr, dtype, row_quads, row_stride, n)                            \
    do {                                                                                           \
        TS_WV_QUAD_ROWS(dst);                                                                      \
        TS_WV_LOAD(dst, ptr, dtype, n, TS_WV_ROWS_QUADS, row_quads, row_stride, 0);                \
    } while (0)
#define ts_wv_store_quad_rows(ptr, src, dtype, row_quads, row_stride, n)                           \
    do {                                                                                           \
        TS_WV_QUAD_ROWS(src);                                                                      \
        TS_WV_STORE(ptr, src, dtype, n, TS_WV_ROWS_QUADS, row_quads, row_stride);                  \
    } while (0)

/* ---- maps ---------------------------------------------------------------------------------- */

#define TS_WV_ELEMS(x) (TS_WV_CHUNKS(x) * TS_WV_CHUNK)
#define TS_WV_SAME(a, b)                                                                           \
    TS_STATIC_ASSERT(sizeof(*(a)) == sizeof(*(b)) && TS_WV_LAYOUT_OF(a) == TS_WV_LAYOUT_OF(b),                \
                     #a " and " #b ": warp vectors of different lengths or layouts")

TS_DEVICE void ts_wv_fill_impl(float *d, int count, float x) {
    TS_UNROLL
    for (int i = 0; i < count; ++i) d[i] = x;
}

/* op: 0 add, 1 sub, 2 mul; b_per: elements that share one value of b (1: b is a vector, TS_WV_CHUNK:
 * one value a chunk, 0: b is a scalar). */
TS_DEVICE void ts_wv_binary_impl(float *d, const float *a, const float *b, int b_per, int count, int op) {
    TS_UNROLL
    for (int i = 0; i < count; ++i) {
        const float y = b[b_per ? i / b_per : 0];
        d[i] = op == 0 ? a[i] + y : op == 1 ? a[i] - y : a[i] * y;
    }
}

TS_DEVICE void ts_wv_exp2_impl(float *d, const float *a, int count) {
    TS_UNROLL
    for (int i = 0; i < count; ++i) d[i] = exp2f(a[i]);
}

/* 2^a in one approximate instruction each where the backend has one (ts_exp2_approx: on CUDA
 * relative error about 2^-22, results below 2^-126 flushed to 0). */
TS_DEVICE void ts_wv_exp2_approx_impl(float *d, const float *a, int count) {
    TS_UNROLL
    for (int i = 0; i < count; ++i) d[i] = ts_exp2_approx(a[i]);
}

TS_DEVICE void ts_wv_round_impl(float *d, const float *a, int count, int dtype) {
    if (dtype == TS_DTYPE_F32) {
        TS_UNROLL
        for (int i = 0; i < count; ++i) d[i] = a[i];
        return;
    }
    TS_UNROLL
    for (int i = 0; i < count; i += 2) {
        const unsigned w = ts_wv_pack2(a[i], a[i + 1], dtype);
        d[i] = ts_wv_from16(w & 0xffffu, dtype);
        d[i + 1] = ts_wv_from16(w >> 16, dtype);
    }
}

/* starts: one start a chunk (a column of the chunk's row, in a strip of rows: rows, row_size as
 * ts_wv_offset), or NULL: start, for the whole strip. */
TS_DEVICE void ts_wv_fill_from_impl(float *d, int chunks, long long start, const long long *starts, int rows,
                                    int row_size, float x, int split) {
    const int lane = ts_lane_id();
    TS_UNROLL
    for (int k = 0; k < chunks; ++k) {
        const long long from = starts ? starts[k] : start;
        if (split) {
            const int e = ts_wv_chunk_start(k, lane, 1);
            TS_UNROLL
            for (int j = 0; j < TS_WV_CHUNK; ++j)
                if (ts_wv_offset(ts_wv_pos(e, j, 1), rows, row_size, 0) >= from) d[k * TS_WV_CHUNK + j] = x;
            continue;
        }
        const int e = (k * TS_WARP_LANES + lane) * TS_WV_CHUNK, at = (int)ts_wv_offset(e, rows, row_size, 0);
        TS_UNROLL
        for (int j = 0; j < TS_WV_CHUNK; ++j)
            if (at + j >= from) d[k * TS_WV_CHUNK + j] = x;
    }
}

#define ts_wv_fill(dst, x) ts_wv_fill_impl(TS_WV_DATA(dst), TS_WV_ELEMS(dst), (x))
#define ts_wv_copy(dst, a)                                                                         \
    do {                                                                                           \
        TS_WV_SAME(dst, a);                                                                        \
        ts_wv_round_impl(TS_WV_DATA(dst), TS_WV_CDATA(a), TS_WV_ELEMS(dst), TS_DTYPE_F32);        \
    } while (0)
#define TS_WV_BINARY(dst, a, b, op)                                                                \
    do {                                                                                           \
        TS_WV_SAME(dst, a);                                                                        \
        TS_WV_SAME(dst, b);                                                                        \
        ts_wv_binary_impl(TS_WV_DATA(dst), TS_WV_CDATA(a), TS_WV_CDATA(b), 1, TS_WV_ELEMS(dst), op); \
    } while (0)
#define TS_WV_SCALAR(dst, a, s, op)                                                                \
    do {                                                                                           \
        TS_WV_SAME(dst, a);                                                                        \
        const float ts_wv_s_ = (s);                                                                \
        ts_wv_binary_impl(TS_WV_DATA(dst), TS_WV_CDATA(a), &ts_wv_s_, 0, TS_WV_ELEMS(dst), op);   \
    } while (0)
/* s: one value a chunk of the lane, each its row's (a strip of rows: ts_wv_row_sums), or with
 * per = TS_WV_QUAD one a quad (quad rows: ts_wv_quad_row_sums). */
#define TS_WV_ROW_SCALARS_PER(dst, a, s, per, op)                                                  \
    do {                                                                                           \
        TS_WV_SAME(dst, a);                                                                        \
        ts_wv_binary_impl(TS_WV_DATA(dst), TS_WV_CDATA(a), (s), (per), TS_WV_ELEMS(dst), op);     \
    } while (0)
#define TS_WV_ROW_SCALARS(dst, a, s, op) TS_WV_ROW_SCALARS_PER(dst, a, s, TS_WV_CHUNK, op)
#define ts_wv_add(dst, a, b) TS_WV_BINARY(dst, a, b, 0)
#define ts_wv_sub(dst, a, b) TS_WV_BINARY(dst, a, b, 1)
#define ts_wv_mul(dst, a, b) TS_WV_BINARY(dst, a, b, 2)
#define ts_wv_add_scalar(dst, a, s) TS_WV_SCALAR(dst, a, s, 0)
#define ts_wv_sub_scalar(dst, a, s) TS_WV_SCALAR(dst, a, s, 1)
#define ts_wv_mul_scalar(dst, a, s) TS_WV_SCALAR(dst, a, s, 2)
#define ts_wv_sub_row_scalars(dst, a, s) TS_WV_ROW_SCALARS(dst, a, s, 1)
#define ts_wv_mul_row_scalars(dst, a, s) TS_WV_ROW_SCALARS(dst, a, s, 2)
#define ts_wv_sub_quad_row_scalars(dst, a, s) TS_WV_ROW_SCALARS_PER(dst, a, s, TS_WV_QUAD, 1)
#define ts_wv_mul_quad_row_scalars(dst, a, s) TS_WV_ROW_SCALARS_PER(dst, a, s, TS_WV_QUAD, 2)
#define ts_wv_exp2(dst, a)                                                                         \
    do {                                                                                           \
        TS_WV_SAME(dst, a);                                                                        \
        ts_wv_exp2_impl(TS_WV_DATA(dst), TS_WV_CDATA(a), TS_WV_ELEMS(dst));                        \
    } while (0)
#define ts_wv_exp2_approx(dst, a)                                                                  \
    do {                                                                                           \
        TS_WV_SAME(dst, a);                                                                        \
        ts_wv_exp2_approx_impl(TS_WV_DATA(dst), TS_WV_CDATA(a), TS_WV_ELEMS(dst));                 \
    } while (0)
#define ts_wv_round(dst, a, dtype)                                                                 \
    do {                                                                                           \
        TS_WV_SAME(dst, a);                                                                        \
        ts_wv_round_impl(TS_WV_DATA(dst), TS_WV_CDATA(a), TS_WV_ELEMS(dst), (dtype));             \
    } while (0)
#define ts_wv_fill_from(dst, start, x)                                                             \
    ts_wv_fill_from_impl(TS_WV_DATA(dst), TS_WV_CHUNKS(dst), (start), NULL, 0, 0, (x), TS_WV_LAYOUT_OF(dst))
#define ts_wv_fill_rows_from(dst, row_chunks, starts, x)                                           \
    ts_wv_fill_from_impl(TS_WV_DATA(dst), TS_WV_CHUNKS(dst), 0, (starts), TS_WV_ROWS_WIDE, (row_chunks), (x),      \
                         TS_WV_LAYOUT_OF(dst))

/* ---- more maps: the element-wise set of the tiles (ops/maps.h) -------------------------------- */

/* Element by element on the lane's own values, so one loop serves both layouts and every backend;
 * the same op codes, scalar functions and forms as the tiles' maps. */
#define TS_WV_UNARY(dst, a, op)                                                                    \
    do {                                                                                           \
        TS_WV_SAME(dst, a);                                                                        \
        ts_map_unary((op), TS_WV_DATA(dst), TS_WV_CDATA(a), TS_WV_ELEMS(dst));                     \
    } while (0)
#define TS_WV_MAP_BINARY(dst, a, b, op)                                                            \
    do {                                                                                           \
        TS_WV_SAME(dst, a);                                                                        \
        TS_WV_SAME(dst, b);                                                                        \
        ts_map_binary((op), TS_WV_DATA(dst), TS_WV_CDATA(a), TS_WV_CDATA(b), TS_WV_ELEMS(dst));    \
    } while (0)
#define TS_WV_MAP_SCALAR(dst, a, s, op)                                                            \
    do {                                                                                           \
        TS_WV_SAME(dst, a);                                                                        \
        ts_map_scalar((op), TS_WV_DATA(dst), TS_WV_CDATA(a), (s), TS_WV_ELEMS(dst));               \
    } while (0)
#define ts_wv_div(dst, a, b) TS_WV_MAP_BINARY(dst, a, b, TS_OP_DIV)
#define ts_wv_div_scalar(dst, a, s) TS_WV_MAP_SCALAR(dst, a, s, TS_OP_DIV)
/* Element-wise maximum and minimum (ts_wv_max is the strip's maximum, a reduction). */
#define ts_wv_maximum(dst, a, b) TS_WV_MAP_BINARY(dst, a, b, TS_OP_MAX)
#define ts_wv_minimum(dst, a, b) TS_WV_MAP_BINARY(dst, a, b, TS_OP_MIN)
#define ts_wv_maximum_scalar(dst, a, s) TS_WV_MAP_SCALAR(dst, a, s, TS_OP_MAX)
#define ts_wv_minimum_scalar(dst, a, s) TS_WV_MAP_SCALAR(dst, a, s, TS_OP_MIN)
#define ts_wv_exp(dst, a) TS_WV_UNARY(dst, a, TS_OP_EXP)
#define ts_wv_log(dst, a) TS_WV_UNARY(dst, a, TS_OP_LOG)
#define ts_wv_abs(dst, a) TS_WV_UNARY(dst, a, TS_OP_ABS)
#define ts_wv_relu(dst, a) TS_WV_UNARY(dst, a, TS_OP_RELU)
#define ts_wv_neg(dst, a) TS_WV_UNARY(dst, a, TS_OP_NEG)
#define ts_wv_sqrt(dst, a) TS_WV_UNARY(dst, a, TS_OP_SQRT)
#define ts_wv_rsqrt(dst, a) TS_WV_UNARY(dst, a, TS_OP_RSQRT)
#define ts_wv_tanh(dst, a) TS_WV_UNARY(dst, a, TS_OP_TANH)
#define ts_wv_sigmoid(dst, a) TS_WV_UNARY(dst, a, TS_OP_SIGMOID)
#define ts_wv_silu(dst, a) TS_WV_UNARY(dst, a, TS_OP_SILU)
#define ts_wv_gelu_tanh(dst, a) TS_WV_UNARY(dst, a, TS_OP_GELU_TANH)
#define ts_wv_gelu_erf(dst, a) TS_WV_UNARY(dst, a, TS_OP_GELU_ERF)
#define ts_wv_erf(dst, a) TS_WV_UNARY(dst, a, TS_OP_ERF)
#define ts_wv_eq(dst, a, b) TS_WV_MAP_BINARY(dst, a, b, TS_OP_EQ)
#define ts_wv_ne(dst, a, b) TS_WV_MAP_BINARY(dst, a, b, TS_OP_NE)
#define ts_wv_lt(dst, a, b) TS_WV_MAP_BINARY(dst, a, b, TS_OP_LT)
#define ts_wv_le(dst, a, b) TS_WV_MAP_BINARY(dst, a, b, TS_OP_LE)
#define ts_wv_gt(dst, a, b) TS_WV_MAP_BINARY(dst, a, b, TS_OP_GT)
#define ts_wv_ge(dst, a, b) TS_WV_MAP_BINARY(dst, a, b, TS_OP_GE)
#define ts_wv_eq_scalar(dst, a, s) TS_WV_MAP_SCALAR(dst, a, s, TS_OP_EQ)
#define ts_wv_ne_scalar(dst, a, s) TS_WV_MAP_SCALAR(dst, a, s, TS_OP_NE)
#define ts_wv_lt_scalar(dst, a, s) TS_WV_MAP_SCALAR(dst, a, s, TS_OP_LT)
#define ts_wv_le_scalar(dst, a, s) TS_WV_MAP_SCALAR(dst, a, s, TS_OP_LE)
#define ts_wv_gt_scalar(dst, a, s) TS_WV_MAP_SCALAR(dst, a, s, TS_OP_GT)
#define ts_wv_ge_scalar(dst, a, s) TS_WV_MAP_SCALAR(dst, a, s, TS_OP_GE)

/* fp32 warp vectors as operands of the fma, select and user-map forms of ops/maps.h. */
#define TS_WV_VEC_MAPS TS_WV_SAME, TS_WV_DATA, TS_WV_ELEMS
#define ts_wv_fma(dst, a, b, c) TS_MAPS_CALL_(TS_MAPS_FMA, TS_WV_VEC_MAPS, dst, a, b, c)
#define ts_wv_fma_scalar(dst, a, s, c) TS_MAPS_CALL_(TS_MAPS_FMA_SCALAR, TS_WV_VEC_MAPS, dst, a, s, c)
#define ts_wv_fma_scalars(dst, a, s, t) TS_MAPS_CALL_(TS_MAPS_FMA_SCALARS, TS_WV_VEC_MAPS, dst, a, s, t)
#define ts_wv_where(dst, mask, a, b) TS_MAPS_CALL_(TS_MAPS_SELECT_XY, TS_WV_VEC_MAPS, dst, mask, TS_OP_NE, 0.0f, a, b)
#define ts_wv_where_scalar(dst, mask, a, y) TS_MAPS_CALL_(TS_MAPS_SELECT_XS, TS_WV_VEC_MAPS, dst, mask, TS_OP_NE, 0.0f, a, y)
#define ts_wv_where_scalars(dst, mask, x, y) TS_MAPS_CALL_(TS_MAPS_SELECT_SS, TS_WV_VEC_MAPS, dst, mask, TS_OP_NE, 0.0f, x, y)
#define ts_wv_where_eq(dst, index, k, a, b) TS_MAPS_CALL_(TS_MAPS_SELECT_XY, TS_WV_VEC_MAPS, dst, index, TS_OP_EQ, (float)(k), a, b)
#define ts_wv_where_eq_scalars(dst, index, k, x, y)                                                \
    TS_MAPS_CALL_(TS_MAPS_SELECT_SS, TS_WV_VEC_MAPS, dst, index, TS_OP_EQ, (float)(k), x, y)
#define TS_WV_MAP(dst, a, fn) TS_MAPS_CALL_(TS_MAPS_USER1, TS_WV_VEC_MAPS, dst, a, fn)
#define TS_WV_MAP2(dst, a, b, fn) TS_MAPS_CALL_(TS_MAPS_USER2, TS_WV_VEC_MAPS, dst, a, b, fn)
#define TS_WV_MAP3(dst, a, b, c, fn) TS_MAPS_CALL_(TS_MAPS_USER3, TS_WV_VEC_MAPS, dst, a, b, c, fn)

/* Of a strip of quad rows (split layout): each row's elements at and past column starts[g] become x,
 * starts holding one column a quad of the lane (g = 2k + h: its row's). */
TS_DEVICE void ts_wv_fill_quad_rows_from_impl(float *d, int chunks, const long long *starts, int row_quads, float x) {
    const int lane4 = TS_WV_QUAD * ts_lane_id();
    TS_UNROLL
    for (int g = 0; g < 2 * chunks; ++g) {
        const int col = (g % row_quads) * (TS_WV_QUAD * TS_WARP_LANES) + lane4;
        TS_UNROLL
        for (int i = 0; i < TS_WV_QUAD; ++i)
            if (col + i >= starts[g]) d[g * TS_WV_QUAD + i] = x;
    }
}
#define ts_wv_fill_quad_rows_from(dst, row_quads, starts, x)                                       \
    do {                                                                                           \
        TS_WV_QUAD_ROWS(dst);                                                                      \
        ts_wv_fill_quad_rows_from_impl(TS_WV_DATA(dst), TS_WV_CHUNKS(dst), (starts), (row_quads), (x)); \
    } while (0)

/* ---- reductions ---------------------------------------------------------------------------- */

/* x of every lane combined across the warp (op: 0 and 1 add, 2 max) by a butterfly of xor
 * shuffles, whose every step combines the same two values in every lane, so every lane ends with the
 * same bits. */
TS_DEVICE float ts_wv_warp_combine(float x, int op) {
    TS_UNROLL
    for (int m = 1; m < TS_WARP_LANES; m <<= 1) {
        const float o = ts_shfl_xor_f32(x, m);
        x = op == 2 ? fmaxf(x, o) : x + o;
    }
    return x;
}

/* The eight running partials of a lane combined (op: 0 and 1 add, 2 max): the lane's value. */
TS_DEVICE float ts_wv_lane_parts(float *part, int op) {
    TS_UNROLL
    for (int w = TS_WV_CHUNK / 2; w > 0; w >>= 1) {
        TS_UNROLL
        for (int j = 0; j < w; ++j) part[j] = op == 2 ? fmaxf(part[j], part[j + w]) : part[j] + part[j + w];
    }
    return part[0];
}

/* The eight running partials of a lane combined, then across the warp. */
TS_DEVICE float ts_wv_reduce_parts(float *part, int op) { return ts_wv_warp_combine(ts_wv_lane_parts(part, op), op); }

/* The lane's own elements reduced (op: 0 sum, 1 sum of squares, 2 max), with no exchange across the
 * warp. Eight running partials (one per chunk position) keep the dependency chains short. */
TS_DEVICE float ts_wv_lane_reduce_impl(const float *a, int chunks, int op) {
    float part[TS_WV_CHUNK];
    TS_UNROLL
    for (int j = 0; j < TS_WV_CHUNK; ++j) part[j] = op == 2 ? -INFINITY : 0.0f;
    TS_UNROLL
    for (int k = 0; k < chunks; ++k) {
        TS_UNROLL
        for (int j = 0; j < TS_WV_CHUNK; ++j) {
            const float x = a[k * TS_WV_CHUNK + j];
            part[j] = op == 0 ? part[j] + x : op == 1 ? fmaf(x, x, part[j]) : fmaxf(part[j], x);
        }
    }
    return ts_wv_lane_parts(part, op);
}

/* op: 0 sum, 1 sum of squares, 2 max, over the warp: the lane's reduction, then the butterfly
 * (ts_wv_warp_combine), so every lane ends with the same bits. */
TS_DEVICE float ts_wv_reduce_impl(const float *a, int chunks, int op) {
    return ts_wv_warp_combine(ts_wv_lane_reduce_impl(a, chunks, op), op);
}

/* Of the lane's elements only, for statistics a lane keeps over many strips and combines across the
 * warp once, at the end (ts_wv_warp_combine): kernels/softmax/softmax_stream_variant.h. */
#define ts_wv_lane_sum(a) ts_wv_lane_reduce_impl(TS_WV_CDATA(a), TS_WV_CHUNKS(a), 0)
#define ts_wv_lane_max(a) ts_wv_lane_reduce_impl(TS_WV_CDATA(a), TS_WV_CHUNKS(a), 2)
#define ts_wv_sum(a) ts_wv_reduce_impl(TS_WV_CDATA(a), TS_WV_CHUNKS(a), 0)
#define ts_wv_sum_sq(a) ts_wv_reduce_impl(TS_WV_CDATA(a), TS_WV_CHUNKS(a), 1)
#define ts_wv_max(a) ts_wv_reduce_impl(TS_WV_CDATA(a), TS_WV_CHUNKS(a), 2)

/* A strip of wide rows of row_chunks chunks of every lane (TS_WV_ROWS_WIDE): out[k] holds one value
 * a chunk of the lane, each already reduced across the warp; every chunk of a row takes the row's
 * combination (op 0 and 1 add, 2 max) of them, taken in chunk order, so the same bits in every
 * lane and every chunk of the row. */
TS_DEVICE void ts_wv_rows_combine(float *out, int chunks, int row_chunks, int op) {
    float run = 0.0f;
    TS_UNROLL
    for (int k = 0; k < chunks; ++k) {
        run = k % row_chunks == 0 ? out[k] : op == 2 ? fmaxf(run, out[k]) : run + out[k];
        out[k] = run;
    }
    /* Every chunk of a row takes the value at its last chunk. */
    TS_UNROLL
    for (int k = chunks - 2; k >= 0; --k)
        if (k % row_chunks != row_chunks - 1) out[k] = out[k + 1];
}

/* out[k]: the sum (op 0) or the maximum (op 2) of the row of the lane's chunk k (above). */
TS_DEVICE void ts_wv_row_reduce_impl(float *out, const float *a, int chunks, int row_chunks, int op) {
    TS_UNROLL
    for (int k = 0; k < chunks; ++k) {
        float part[TS_WV_CHUNK];
        TS_UNROLL
        for (int j = 0; j < TS_WV_CHUNK; ++j) part[j] = a[k * TS_WV_CHUNK + j];
        out[k] = ts_wv_reduce_parts(part, op);
    }
    ts_wv_rows_combine(out, chunks, row_chunks, op);
}

/* out[g]: one lane value a quad of a strip of quad rows of row_quads quad rows each (2 * chunks
 * quads), made the combination (op 0 add, 2 max) of quad g's row: the lane's quads of the row in quad
 * order, then a butterfly of xor shuffles, so the same bits in every lane and every quad of the row.
 * A last row the strip holds only part of gives its part's. */
TS_DEVICE void ts_wv_quad_rows_combine(float *out, int chunks, int row_quads, int op) {
    TS_UNROLL
    for (int first = 0; first < 2 * chunks; first += row_quads) {
        float s = out[first];
        TS_UNROLL
        for (int g = first + 1; g < first + row_quads && g < 2 * chunks; ++g) s = op == 2 ? fmaxf(s, out[g]) : s + out[g];
        TS_UNROLL
        for (int m = 1; m < TS_WARP_LANES; m <<= 1) {
            const float o = ts_shfl_xor_f32(s, m);
            s = op == 2 ? fmaxf(s, o) : s + o;
        }
        TS_UNROLL
        for (int g = first; g < first + row_quads && g < 2 * chunks; ++g) out[g] = s;
    }
}

/* Of a strip of quad rows (split layout): out[g] (one float a quad of the lane, g = 2k + h) = the sum
 * (op 0) or the maximum (op 2) of quad g's row (ts_wv_quad_rows_combine). */
TS_DEVICE void ts_wv_quad_row_reduce_impl(float *out, const float *a, int chunks, int row_quads, int op) {
    TS_UNROLL
    for (int g = 0; g < 2 * chunks; ++g) {
        float s = a[g * TS_WV_QUAD];
        TS_UNROLL
        for (int i = 1; i < TS_WV_QUAD; ++i) s = op == 2 ? fmaxf(s, a[g * TS_WV_QUAD + i]) : s + a[g * TS_WV_QUAD + i];
        out[g] = s;
    }
    ts_wv_quad_rows_combine(out, chunks, row_quads, op);
}

#define ts_wv_quad_row_sums(out, a, row_quads)                                                     \
    ts_wv_quad_row_reduce_impl((out), TS_WV_CDATA(a), TS_WV_CHUNKS(a), (row_quads), 0)
#define ts_wv_quad_row_max(out, a, row_quads)                                                      \
    ts_wv_quad_row_reduce_impl((out), TS_WV_CDATA(a), TS_WV_CHUNKS(a), (row_quads), 2)

#define ts_wv_row_sums(out, a, row_chunks)                                                         \
    ts_wv_row_reduce_impl((out), TS_WV_CDATA(a), TS_WV_CHUNKS(a), (row_chunks), 0)
#define ts_wv_row_max(out, a, row_chunks)                                                          \
    ts_wv_row_reduce_impl((out), TS_WV_CDATA(a), TS_WV_CHUNKS(a), (row_chunks), 2)

/* Warps index = 0 .. count-1 of a group each give x; each gets the combination, taken in index
 * order so that it is the same in every warp. slots: 2 * count floats of shared memory owned by the
 * group; *parity alternates between the two halves so that one block barrier per call suffices
 * (a warp writing the half of call i + 2 has passed the barrier of call i + 1, which every warp
 * reached after reading call i). Every warp of the block must make the same calls. */
TS_DEVICE float ts_group_reduce_impl(float x, float *slots, int index, int count, int *parity, int op) {
    float *half = slots + *parity * count;
    *parity ^= 1;
    half[index] = x; /* every lane stores the same value */
    ts_sync_block();
    float r = half[0];
    for (int i = 1; i < count; ++i) r = op == 2 ? fmaxf(r, half[i]) : r + half[i];
    return r;
}

#define ts_group_sum(x, slots, index, count, parity) ts_group_reduce_impl((x), (slots), (index), (count), (parity), 0)
#define ts_group_max(x, slots, index, count, parity) ts_group_reduce_impl((x), (slots), (index), (count), (parity), 2)

#endif
