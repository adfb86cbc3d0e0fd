/* Warp dot products: a warp's share of a matrix-vector product of few rows (decoding's GEMV,
 * kernels/gemv/), 16-bit operands, fp32 accumulation, weights read once in 16-byte accesses.
 *
 * A warp dot accumulator `ts_wdot_f32_<R>x<C>` is a grid of partial sums each lane keeps; the ops
 * below say what its rows and columns are. Two forms:
 *
 *   rows form (weights N x K, K contiguous: nn.Linear's weight, ts_gemm's trans_b = 1):
 *     acc is R weight rows x M activation rows. ts_wdot_rows_step(acc, w, ldw, nr, a, lda, nm,
 *     dtype, k, kend, vec) adds the products over elements [k, k + TS_WDOT_ROWS_STEP) of K: each
 *     lane reads 16 bytes (8 elements) of each of the R weight rows and of each of the M rows of
 *     A at the same place, and uses each weight chunk for all M rows. Weight rows from nr on and
 *     activation rows from nm on are neither read nor computed; elements from kend on are skipped.
 *     ts_wdot_rows_reduce_store(slots, acc) sums each of the R x M values over the warp's lanes
 *     and writes it to slots[r * M + m] (shared memory; one lane each).
 *
 *   cols form (weights K x N, N contiguous: ts_gemm's trans_b = 0):
 *     acc is M activation rows x 8 columns. The warp covers a band of 8 * band_lanes consecutive
 *     columns (band_lanes a power of two up to TS_WARP_LANES): lane l takes the 8 columns
 *     8 * (l % band_lanes) of the band and the 8 rows of K 8 * (l / band_lanes) of the step.
 *     ts_wdot_cols_step(acc, w, ldw, a, lda, nm, dtype, k, kend, n0, nend, band_lanes, vec) adds
 *     the products over rows [k, k + ts_wdot_cols_step_rows(band_lanes)) of K for the band's
 *     columns from n0 (those from nend on skipped). ts_wdot_cols_reduce_store(slots, acc,
 *     band_lanes) sums each value over the lanes of its columns and writes it to
 *     slots[m * 8 * band_lanes + column of the band].
 *
 *   ts_wdot_zero(acc): every partial sum 0.
 *
 * A step is a warp-wide call (every lane makes it). Pointers are bytes (unsigned char); strides
 * are in bytes; k, kend, n0, nend in elements. vec nonzero promises 16-byte aligned pointers and
 * strides: a lane whose chunk lies wholly before kend (and nend) then reads it in single 16-byte
 * loads; otherwise (vec 0, or a chunk that straddles the end) it reads element by element, 2 bytes
 * at a time, and skips what lies past the ends: any size, any 2-byte aligned layout. dtype
 * (TS_DTYPE_BF16 or TS_DTYPE_FP16), R and M must be compile-time constants where a step is
 * inlined, so that the accumulators and the chunks stay in registers (docs/row-template.md, "the
 * input dtype is a compile-time constant").
 *
 * The sums are in a fixed order: each lane's products in element order, then a fixed tree across
 * the lanes (no atomics), so a result is the same in every run. ts_wdot_block_store then adds
 * the warps' slots in warp order and stores C with alpha and beta (block scope).
 *
 * Lane-level code for these lives here, so that the kernels name no lane. */
#ifndef TESSERA_OPS_WARP_DOT_H
#define TESSERA_OPS_WARP_DOT_H

#include "backends/lane_ops.h"
#include "backends/vector_memory.h"
#include "ops/bits.h"
#include "ops/memory.h"

/* 16-bit elements of a lane's 16-byte access. */
#define TS_WDOT_CHUNK 8
/* log2 of the lanes of a warp: the steps of an exchange across them. */
#define TS_WDOT_LANE_BITS (TS_WARP_LANES == 64 ? 6 : TS_WARP_LANES == 32 ? 5 : TS_WARP_LANES == 1 ? 0 : -1)
TS_STATIC_ASSERT(TS_WDOT_LANE_BITS >= 0, "ops/warp_dot.h: a warp of 1, 32 or 64 lanes");
/* The largest R or M (and so C) the ops take. */
#define TS_WDOT_MAX 8
/* Elements of K a warp covers in one rows-form step. */
#define TS_WDOT_ROWS_STEP (TS_WDOT_CHUNK * TS_WARP_LANES)

#define TS_WDOT_DEFINE(R, C)                                                                       \
    typedef struct ts_wdot_f32_##R##x##C {                                                         \
        float v[R][C];                                                                             \
    } ts_wdot_f32_##R##x##C;

/* The rows form's accumulators, 4 weight rows by 1, 2, 4 or 8 activation rows, and the cols
 * form's, 1, 2, 4 or 8 activation rows by the 8 columns of a lane's chunk. */
TS_WDOT_DEFINE(4, 1)
TS_WDOT_DEFINE(4, 2)
TS_WDOT_DEFINE(4, 4)
TS_WDOT_DEFINE(4, 8)
TS_WDOT_DEFINE(1, 8)
TS_WDOT_DEFINE(2, 8)
TS_WDOT_DEFINE(8, 8)

/* The shape of an accumulator, read back from its type at compile time. */
#define TS_WDOT_ROWS(acc) ((int)(sizeof((acc)->v) / sizeof((acc)->v[0])))
#define TS_WDOT_COLS(acc) ((int)(sizeof((acc)->v[0]) / sizeof(float)))
#define TS_WDOT_DATA(acc) (&(acc)->v[0][0])

/* Every partial sum 0. */
TS_DEVICE void ts_wdot_zero_impl(float *v, int count) {
    TS_UNROLL
    for (int i = 0; i < count; ++i) v[i] = 0.0f;
}
#define ts_wdot_zero(acc) ts_wdot_zero_impl(TS_WDOT_DATA(acc), TS_WDOT_ROWS(acc) * TS_WDOT_COLS(acc))

/* Rows of K a cols-form step covers: 8 for each group of band_lanes lanes. */
#define ts_wdot_cols_step_rows(band_lanes) ((long long)(TS_WARP_LANES / (band_lanes)) * TS_WDOT_CHUNK)

/* ---- lane-level helpers --------------------------------------------------------------------- */

/* The 8 elements of a 16-byte chunk (four words, low half first) as fp32. */
TS_DEVICE void ts_wdot_unpack8(float *f, const unsigned *w, int dtype) {
    TS_UNROLL
    for (int j = 0; j < TS_WDOT_CHUNK / 2; ++j) {
        if (dtype == TS_DTYPE_BF16) {
            f[2 * j] = ts_unpack_bf16((unsigned short)(w[j] & 0xffffu));
            f[2 * j + 1] = ts_unpack_bf16((unsigned short)(w[j] >> 16));
        } else {
            f[2 * j] = ts_unpack_fp16((unsigned short)(w[j] & 0xffffu));
            f[2 * j + 1] = ts_unpack_fp16((unsigned short)(w[j] >> 16));
        }
    }
}

/* A chunk of 8 elements at p (16-byte aligned) into w. */
TS_DEVICE void ts_wdot_load_chunk(unsigned *w, const unsigned char *p) {
    const ts_v16 v = ts_load16(p);
    TS_UNROLL
    for (int j = 0; j < 4; ++j) w[j] = v.w[j];
}

/* ---- rows form -------------------------------------------------------------------------------- */

/* One element of a 16-bit matrix as fp32. */
TS_DEVICE float ts_wdot_elem(const unsigned char *p, int dtype) {
    const unsigned short bits = (unsigned short)ts_raw_get(p, 2, 0);
    return dtype == TS_DTYPE_BF16 ? ts_unpack_bf16(bits) : ts_unpack_fp16(bits);
}

TS_DEVICE void ts_wdot_rows_step_impl(float *acc, int R, int M, const unsigned char *w, long long ldw, int nr,
                                      const unsigned char *a, long long lda, int nm, int dtype, long long k,
                                      long long kend, int vec) {
    const long long k0 = k + (long long)ts_lane_id() * TS_WDOT_CHUNK;
    if (k0 >= kend) return;
    const long long left = kend - k0;
    if (vec && left >= TS_WDOT_CHUNK) {
        /* Every load first, so that they are all in flight together. */
        unsigned wb[TS_WDOT_MAX][4] = {{0}}, ab[TS_WDOT_MAX][4] = {{0}};
        TS_UNROLL
        for (int r = 0; r < R; ++r)
            if (r < nr) ts_wdot_load_chunk(wb[r], w + r * ldw + k0 * 2);
        TS_UNROLL
        for (int m = 0; m < M; ++m)
            if (m < nm) ts_wdot_load_chunk(ab[m], a + m * lda + k0 * 2);
        float wf[TS_WDOT_MAX][TS_WDOT_CHUNK] = {{0.0f}};
        TS_UNROLL
        for (int r = 0; r < R; ++r)
            if (r < nr) ts_wdot_unpack8(wf[r], wb[r], dtype);
        TS_UNROLL
        for (int m = 0; m < M; ++m) {
            if (m >= nm) continue;
            float af[TS_WDOT_CHUNK];
            ts_wdot_unpack8(af, ab[m], dtype);
            TS_UNROLL
            for (int r = 0; r < R; ++r) {
                if (r >= nr) continue;
                float s = acc[r * M + m];
                TS_UNROLL
                for (int j = 0; j < TS_WDOT_CHUNK; ++j) s = fmaf(wf[r][j], af[j], s);
                acc[r * M + m] = s;
            }
        }
    } else {
        /* Element by element, in the same order as above (the same sums, bit for bit), one
         * element of K at a time so that little is live: the edges and misaligned data. */
        const int count = left < TS_WDOT_CHUNK ? (int)left : TS_WDOT_CHUNK;
        TS_NO_UNROLL
        for (int e = 0; e < count; ++e) {
            float wf[TS_WDOT_MAX] = {0.0f};
            TS_UNROLL
            for (int r = 0; r < R; ++r)
                if (r < nr) wf[r] = ts_wdot_elem(w + r * ldw + (k0 + e) * 2, dtype);
            TS_UNROLL
            for (int m = 0; m < M; ++m) {
                if (m >= nm) continue;
                const float x = ts_wdot_elem(a + m * lda + (k0 + e) * 2, dtype);
                TS_UNROLL
                for (int r = 0; r < R; ++r)
                    if (r < nr) acc[r * M + m] = fmaf(wf[r], x, acc[r * M + m]);
            }
        }
    }
}

#define ts_wdot_rows_step(acc, w, ldw, nr, a, lda, nm, dtype, k, kend, vec)                        \
    ts_wdot_rows_step_impl(TS_WDOT_DATA(acc), TS_WDOT_ROWS(acc), TS_WDOT_COLS(acc), (w), (ldw), (nr), (a), \
                           (lda), (nm), (dtype), (k), (kend), (vec))

/* V values of every lane summed over the warp, then each sum written once to slots[0 .. V).
 * Where V is a power of two, a halving exchange: at each step a lane keeps one half of its
 * values, sends the other half to its partner and adds what comes back, so the warp moves V - 1
 * values a lane instead of V for every step of a butterfly; the lane then holds values
 * q * lane .. q * lane + q - 1 (q = V / lanes), or, for fewer values than lanes, value
 * lane / (lanes / V) with lanes / V lanes holding each. Otherwise a butterfly over every value,
 * stored by lane 0. */
TS_DEVICE void ts_wdot_reduce_store_impl(float *slots, float *v, int V) {
    const int lane = ts_lane_id();
    if ((V & (V - 1)) == 0) {
        /* Counted loops, not shifts: a loop the compiler cannot count is not unrolled, and the
         * values' indices would become run-time ones (the accumulators in local memory). */
        TS_UNROLL
        for (int t = 0; t < TS_WDOT_LANE_BITS; ++t) {
            const int s = TS_WARP_LANES >> (t + 1), c = V >> t;
            if (c > 1) {
                /* The halves chosen by masks on the bits, not by `upper ? v[j] : v[j + half]`,
                 * which the compiler turned into a choice of address (and so the values into
                 * local memory). */
                const int half = c / 2;
                const unsigned upper = (lane & s) != 0 ? 0xffffffffu : 0u;
                /* Bounded by V, not by half (which changes with t): the compiler unrolls only
                 * loops whose counts it knows before it unrolls the loop around them. */
                TS_UNROLL
                for (int j = 0; j < V / 2; ++j) {
                    if (j >= half) break;
                    const unsigned lo = ts_f32_bits(v[j]), hi = ts_f32_bits(v[j + half]);
                    const float send = ts_bits_f32((lo & upper) | (hi & ~upper));
                    const float keep = ts_bits_f32((hi & upper) | (lo & ~upper));
                    v[j] = keep + ts_shfl_xor_f32(send, s);
                }
            } else {
                v[0] += ts_shfl_xor_f32(v[0], s);
            }
        }
        if (V >= TS_WARP_LANES) {
            const int q = V / TS_WARP_LANES;
            TS_UNROLL
            for (int j = 0; j < q; ++j) slots[q * lane + j] = v[j];
        } else {
            const int per = TS_WARP_LANES / V;
            if (lane % per == 0) slots[lane / per] = v[0];
        }
    } else {
        TS_UNROLL
        for (int t = 0; t < TS_WDOT_LANE_BITS; ++t) {
            TS_UNROLL
            for (int j = 0; j < V; ++j) v[j] += ts_shfl_xor_f32(v[j], TS_WARP_LANES >> (t + 1));
        }
        if (lane == 0) {
            TS_UNROLL
            for (int j = 0; j < V; ++j) slots[j] = v[j];
        }
    }
}

#define ts_wdot_rows_reduce_store(slots, acc)                                                      \
    ts_wdot_reduce_store_impl((slots), TS_WDOT_DATA(acc), TS_WDOT_ROWS(acc) * TS_WDOT_COLS(acc))

/* ---- cols form -------------------------------------------------------------------------------- */

TS_DEVICE void ts_wdot_cols_step_impl(float *acc, int M, const unsigned char *w, long long ldw, const unsigned char *a,
                                      long long lda, int nm, int dtype, long long k, long long kend, long long n0,
                                      long long nend, int band_lanes, int vec) {
    const int lane = ts_lane_id();
    const long long k0 = k + (long long)(lane / band_lanes) * TS_WDOT_CHUNK;
    const long long col = n0 + (long long)(lane % band_lanes) * TS_WDOT_CHUNK;
    if (k0 >= kend || col >= nend) return;
    const long long rows = kend - k0, cols = nend - col;
    const unsigned char *wp = w + k0 * ldw + col * 2;
    if (vec && rows >= TS_WDOT_CHUNK && cols >= TS_WDOT_CHUNK) {
        unsigned wb[TS_WDOT_CHUNK][4], ab[TS_WDOT_MAX][4] = {{0}};
        TS_UNROLL
        for (int i = 0; i < TS_WDOT_CHUNK; ++i) ts_wdot_load_chunk(wb[i], wp + i * ldw);
        TS_UNROLL
        for (int m = 0; m < M; ++m)
            if (m < nm) ts_wdot_load_chunk(ab[m], a + m * lda + k0 * 2);
        /* Each element of A widened where it is used (once: row i of the chunk), not all M x 8
         * ahead, which would hold 64 more registers at M = 8. */
        TS_UNROLL
        for (int i = 0; i < TS_WDOT_CHUNK; ++i) {
            float wf[TS_WDOT_CHUNK];
            ts_wdot_unpack8(wf, wb[i], dtype);
            TS_UNROLL
            for (int m = 0; m < M; ++m) {
                if (m >= nm) continue;
                const unsigned word = ab[m][i / 2];
                const unsigned short bits = (unsigned short)(i % 2 ? word >> 16 : word & 0xffffu);
                const float x = dtype == TS_DTYPE_BF16 ? ts_unpack_bf16(bits) : ts_unpack_fp16(bits);
                TS_UNROLL
                for (int j = 0; j < TS_WDOT_CHUNK; ++j)
                    acc[m * TS_WDOT_CHUNK + j] = fmaf(x, wf[j], acc[m * TS_WDOT_CHUNK + j]);
            }
        }
    } else {
        /* Row by row of K and element by element, in the same order as above (the same sums, bit
         * for bit), so that little is live: the edges and misaligned data. */
        const int nrows = rows < TS_WDOT_CHUNK ? (int)rows : TS_WDOT_CHUNK;
        TS_NO_UNROLL
        for (int i = 0; i < nrows; ++i) {
            float wf[TS_WDOT_CHUNK];
            TS_UNROLL
            for (int j = 0; j < TS_WDOT_CHUNK; ++j)
                wf[j] = j < cols ? ts_wdot_elem(wp + i * ldw + j * 2, dtype) : 0.0f;
            TS_UNROLL
            for (int m = 0; m < M; ++m) {
                if (m >= nm) continue;
                const float x = ts_wdot_elem(a + m * lda + (k0 + i) * 2, dtype);
                TS_UNROLL
                for (int j = 0; j < TS_WDOT_CHUNK; ++j)
                    acc[m * TS_WDOT_CHUNK + j] = fmaf(x, wf[j], acc[m * TS_WDOT_CHUNK + j]);
            }
        }
    }
}

#define TS_WDOT_COLS_FORM(acc)                                                                     \
    TS_STATIC_ASSERT(TS_WDOT_COLS(acc) == TS_WDOT_CHUNK, #acc ": a cols-form accumulator is M x 8")
#define ts_wdot_cols_step(acc, w, ldw, a, lda, nm, dtype, k, kend, n0, nend, band_lanes, vec)      \
    do {                                                                                           \
        TS_WDOT_COLS_FORM(acc);                                                                    \
        ts_wdot_cols_step_impl(TS_WDOT_DATA(acc), TS_WDOT_ROWS(acc), (w), (ldw), (a), (lda), (nm), (dtype), (k), \
                               (kend), (n0), (nend), (band_lanes), (vec));                         \
    } while (0)

/* Each value summed over the lanes that hold the same columns (a butterfly over the lane bits
 * from band_lanes up), then written by the first of them: slots[m * 8 * band_lanes + column]. */
TS_DEVICE void ts_wdot_cols_reduce_store_impl(float *slots, float *v, int M, int band_lanes) {
    const int lane = ts_lane_id();
    TS_UNROLL
    for (int t = 0; t < TS_WDOT_LANE_BITS; ++t) {
        const int s = TS_WARP_LANES >> (t + 1);
        if (s < band_lanes) break;
        TS_UNROLL
        for (int j = 0; j < M * TS_WDOT_CHUNK; ++j) v[j] += ts_shfl_xor_f32(v[j], s);
    }
    if (lane < band_lanes) {
        const int band = band_lanes * TS_WDOT_CHUNK;
        TS_UNROLL
        for (int m = 0; m < M; ++m) {
            TS_UNROLL
            for (int j = 0; j < TS_WDOT_CHUNK; ++j) slots[m * band + lane * TS_WDOT_CHUNK + j] = v[m * TS_WDOT_CHUNK + j];
        }
    }
}

#define ts_wdot_cols_reduce_store(slots, acc, band_lanes)                                          \
    ts_wdot_cols_reduce_store_impl((slots), TS_WDOT_DATA(acc), TS_WDOT_ROWS(acc), (band_lanes))

/* ---- block scope ------------------------------------------------------------------------------ */

/* After a block barrier: the `count` values of each of `warps` warps' slots (warp w's at
 * slots + w * stride) added in warp order, then C = alpha * sum + beta * C (C not read where beta
 * is 0), every thread of the block taking values in turn. Value i is C's element (m, n0 + col)
 * with m = i % inner, col = i / inner where inner_is_m (the rows form: i = r * M + m), else
 * m = i / inner, col = i % inner (the cols form: i = m * band + column); elements with m >= mend
 * or n0 + col >= nend are not stored. c is bytes, ldc in elements; every warp of the block calls. */
TS_DEVICE void ts_wdot_block_store(unsigned char *c, int c_dtype, long long ldc, const float *slots, int stride,
                                   int warps, int count, int inner, int inner_is_m, long long n0, int mend,
                                   long long nend, float alpha, float beta) {
    const int threads = ts_num_warps() * TS_WARP_LANES;
    const int first = ts_warp_id() * TS_WARP_LANES + ts_lane_id();
    for (int i = first; i < count; i += threads) {
        const int m = inner_is_m ? i % inner : i / inner, col = inner_is_m ? i / inner : i % inner;
        if (m >= mend || n0 + col >= nend) continue;
        float s = 0.0f;
        for (int w = 0; w < warps; ++w) s += slots[w * stride + i];
        const long long at = (long long)m * ldc + n0 + col;
        float out = alpha * s;
        if (beta != 0.0f) out = fmaf(beta, ts_dtype_get_f32(c, c_dtype, at), out);
        ts_dtype_set_f32(c, c_dtype, at, out);
    }
}

#endif
