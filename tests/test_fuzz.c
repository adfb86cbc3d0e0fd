/* A seeded random fuzzer of the kernels' public functions over small valid calls: each case draws
 * a shape, dtypes, options, padded strides, offsets and (where a function allows it) in-place or
 * interleaved outputs, places every tensor of the call at its own place in one device arena with
 * random gaps between them, runs the call, and compares every output element with a
 * double-precision reference and every other byte of the arena (the gaps around each output, the
 * padding of its rows, the inputs) with what it held before. Cases per function: TS_FUZZ_CASES
 * (default 60 to 300 by function: about 15 s on two cores under AddressSanitizer); the seed is
 * fresh each run, or TS_FUZZ_SEED, and every failure names the seed and the case, which
 * TS_FUZZ_SEED and TS_FUZZ_FIRST replay. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support/dtype_io.h"
#include "support/test_support.h"

/* ---- cases, draws and the arena -------------------------------------------------------------- */

static long long fz_env(const char *name, long long fallback) {
    const char *text = getenv(name);
    if (!text || !*text) return fallback;
    char *end = NULL;
    const long long v = strtoll(text, &end, 0);
    return end && *end == '\0' ? v : fallback;
}

static uint64_t fz_next(uint64_t *st) {
    uint64_t z = (*st += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Uniform in lo .. hi, both included. */
static long long fz_int(uint64_t *st, long long lo, long long hi) {
    return lo + (long long)(fz_next(st) % (uint64_t)(hi - lo + 1));
}
static int fz_chance(uint64_t *st, int percent) { return fz_int(st, 1, 100) <= percent; }
static ts_dtype fz_dtype(uint64_t *st) {
    static const ts_dtype all[3] = {TS_DTYPE_BF16, TS_DTYPE_FP16, TS_DTYPE_F32};
    return all[fz_int(st, 0, 2)];
}

/* What every case carries: its seed and number (for the messages), and the arena. */
typedef struct fz_case {
    uint64_t seed;
    long long index;
    const char *what;
    uint64_t st;
    size_t used;          /* bytes placed so far */
    size_t bytes;
    unsigned char *before; /* host: the arena as the call gets it */
    unsigned char *after;  /* host: as the call leaves it */
    unsigned char *output; /* 1 where a byte belongs to an output element (or a workspace) */
    unsigned char *dev;
} fz_case;

#define FZ_ASSERT(cond, ...)                                                                       \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            char fz_msg_[512];                                                                     \
            snprintf(fz_msg_, sizeof fz_msg_, __VA_ARGS__);                                        \
            cr_assert_fail("%s case %lld (TS_FUZZ_SEED=%llu TS_FUZZ_FIRST=%lld): %s", c->what, c->index, \
                           (unsigned long long)c->seed, c->index, fz_msg_);                        \
        }                                                                                          \
    } while (0)

/* A place for `bytes` bytes after a random gap, at a multiple of align. */
static size_t fz_place(fz_case *c, size_t bytes, size_t align) {
    const size_t at = (c->used + (size_t)fz_int(&c->st, 16, 300) + align - 1) / align * align;
    c->used = at + bytes;
    return at;
}

/* An offset aligned to 256, 16 or only the element: the kernels' fast and general paths. */
static size_t fz_align(fz_case *c, size_t elem) {
    const long long pick = fz_int(&c->st, 0, 2);
    return pick == 0 ? 256 : pick == 1 ? 16 : elem;
}

/* After placement: the arena, poisoned with 0xFF (NaN in every dtype) until inputs are written. */
static void fz_open(fz_case *c) {
    c->bytes = c->used + 64;
    c->before = malloc(c->bytes);
    c->after = malloc(c->bytes);
    c->output = calloc(c->bytes, 1);
    cr_assert(c->before && c->after && c->output);
    memset(c->before, 0xFF, c->bytes);
}

static void fz_put(fz_case *c, size_t at, ts_dtype t, double v) { ts_test_put(c->before + at, t, 0, v); }
static double fz_in(const fz_case *c, size_t at, ts_dtype t) { return ts_test_get(c->before + at, t, 0); }
static double fz_out(fz_case *c, size_t at, ts_dtype t) {
    memset(c->output + at, 1, ts_test_dtype_bytes(t));
    return ts_test_get(c->after + at, t, 0);
}

/* Copies the arena to the device; then the call runs on c->dev. */
static void fz_upload(fz_case *c) {
    c->dev = ts_test_device_copy(c->before, c->bytes);
    cr_assert(c->dev, "device arena of %zu bytes", c->bytes);
}

static void fz_download(fz_case *c) {
    cr_assert_eq(ts_device_synchronize(), TS_SUCCESS);
    cr_assert_eq(ts_test_copy_back(c->after, c->dev, c->bytes), TS_SUCCESS);
}

/* Every byte that is not an output element's is as it was: nothing written outside the outputs. */
static void fz_close(fz_case *c) {
    for (size_t i = 0; i < c->bytes; ++i)
        FZ_ASSERT(c->output[i] || c->after[i] == c->before[i], "byte %zu written outside the outputs (%02x -> %02x)", i,
                  c->before[i], c->after[i]);
    cr_assert_eq(ts_free(c->dev), TS_SUCCESS);
    free(c->before), free(c->after), free(c->output);
}

/* Runs `count` cases of one function, case i from (seed, i). */
static void fz_run(const char *what, void (*one)(fz_case *), long long default_count) {
    const uint64_t seed = (uint64_t)fz_env("TS_FUZZ_SEED", (long long)ts_test_fresh_seed());
    const long long first = fz_env("TS_FUZZ_FIRST", 0), count = fz_env("TS_FUZZ_CASES", default_count);
    for (long long i = first; i < first + count; ++i) {
        fz_case c;
        memset(&c, 0, sizeof c);
        c.seed = seed;
        c.index = i;
        c.what = what;
        c.st = seed ^ (0x51ED270B27A3F1ull * (uint64_t)(i + 1));
        (void)fz_next(&c.st);
        one(&c);
    }
}

/* Tolerance of an output of dtype t computed in fp32 and rounded to t. */
static double fz_tol(ts_dtype t) { return ts_test_tol(t); }

/* ---- GEMM ------------------------------------------------------------------------------------ */

static void fz_gemm_one(fz_case *c) {
    const ts_trans ta = (ts_trans)fz_int(&c->st, 0, 1), tb = (ts_trans)fz_int(&c->st, 0, 1);
    const long long size_pick = fz_int(&c->st, 0, 2);
    const int m = (int)fz_int(&c->st, 1, size_pick == 0 ? 16 : size_pick == 1 ? 64 : 150);
    const int n = (int)fz_int(&c->st, 1, 300), k = (int)fz_int(&c->st, 1, 130);
    const ts_dtype in = fz_chance(&c->st, 50) ? TS_DTYPE_BF16 : TS_DTYPE_FP16, out = fz_dtype(&c->st);
    const float alpha = (float)fz_int(&c->st, -8, 8) / 4.0f;
    const float beta = fz_chance(&c->st, 50) ? 0.0f : (float)fz_int(&c->st, -8, 8) / 4.0f;
    const long long a_rows = ta ? k : m, a_cols = ta ? m : k, b_rows = tb ? n : k, b_cols = tb ? k : n;
    const long long lda = (a_cols + 7) / 8 * 8 + 8 * fz_int(&c->st, 0, 1);
    const long long ldb = (b_cols + 7) / 8 * 8 + 8 * fz_int(&c->st, 0, 1);
    const long long ldc = (n + 7) / 8 * 8 + 8 * fz_int(&c->st, 0, 1);
    const size_t ob = ts_test_dtype_bytes(out);
    const size_t oa = fz_place(c, (size_t)(a_rows * lda) * 2, 16 * (size_t)fz_int(&c->st, 1, 16));
    const size_t obb = fz_place(c, (size_t)(b_rows * ldb) * 2, 16 * (size_t)fz_int(&c->st, 1, 16));
    const size_t oc = fz_place(c, (size_t)(m * ldc) * ob, 16 * (size_t)fz_int(&c->st, 1, 16));
    size_t ws_bytes = 0, ow = 0;
    const int with_workspace = fz_chance(&c->st, 30);
    if (with_workspace) {
        cr_assert_eq(ts_gemm_workspace_size(&ws_bytes), TS_SUCCESS);
        ow = fz_place(c, ws_bytes, 256);
    }
    fz_open(c);
    for (long long i = 0; i < a_rows; ++i)
        for (long long j = 0; j < a_cols; ++j) fz_put(c, oa + (size_t)(i * lda + j) * 2, in, ts_test_normal(&c->st));
    for (long long i = 0; i < b_rows; ++i)
        for (long long j = 0; j < b_cols; ++j) fz_put(c, obb + (size_t)(i * ldb + j) * 2, in, ts_test_normal(&c->st));
    if (beta != 0.0f)
        for (long long i = 0; i < m; ++i)
            for (long long j = 0; j < n; ++j) fz_put(c, oc + (size_t)(i * ldc + j) * ob, out, ts_test_normal(&c->st));
    if (with_workspace) {
        memset(c->before + ow, 0, ws_bytes); /* zeroed before its first use */
        memset(c->output + ow, 1, ws_bytes);  /* left as the next call needs it */
    }
    fz_upload(c);
    const ts_status s = ts_gemm_ex(ta, tb, m, n, k, alpha, c->dev + oa, in, lda, c->dev + obb, in, ldb, beta,
                                   c->dev + oc, out, ldc, with_workspace ? c->dev + ow : NULL, ws_bytes, NULL);
    FZ_ASSERT(s == TS_SUCCESS, "ts_gemm_ex %d x %d x %d: %s", m, n, k, ts_status_string(s));
    fz_download(c);
    const double out_eps = out == TS_DTYPE_F32 ? 0.0 : out == TS_DTYPE_BF16 ? 1.0 / 256 : 1.0 / 2048;
    for (long long i = 0; i < m; ++i)
        for (long long j = 0; j < n; ++j) {
            double acc = 0.0, mag = 0.0;
            for (long long kk = 0; kk < k; ++kk) {
                const double x = fz_in(c, oa + (size_t)(ta ? kk * lda + i : i * lda + kk) * 2, in);
                const double y = fz_in(c, obb + (size_t)(tb ? j * ldb + kk : kk * ldb + j) * 2, in);
                acc += x * y;
                mag += fabs(x * y);
            }
            const size_t at = oc + (size_t)(i * ldc + j) * ob;
            const double cin = beta != 0.0f ? fz_in(c, at, out) : 0.0;
            const double ref = alpha * acc + beta * cin, got = fz_out(c, at, out);
            /* fp32 accumulation, then rounding to C's dtype (fp16's subnormals in steps of 2^-24). */
            const double tol = 1e-5 * fabs(alpha) * (mag + 1.0) + out_eps * fabs(ref) + 1e-6 * fabs(beta * cin) +
                               (out == TS_DTYPE_FP16 ? 0x1p-24 : 1e-30);
            FZ_ASSERT(fabs(got - ref) <= tol, "ta%d tb%d %dx%dx%d in %s out %s ws %d: C(%lld,%lld) = %.7g, not %.7g",
                      ta, tb, m, n, k, ts_test_dtype_name(in), ts_test_dtype_name(out), with_workspace, i, j, got, ref);
        }
    fz_close(c);
}

/* ---- C = A + B --------------------------------------------------------------------------------- */

static void fz_tile_add_one(fz_case *c) {
    const int rows = (int)fz_int(&c->st, 1, 70), cols = (int)fz_int(&c->st, 1, 70);
    const int in_place = (int)fz_int(&c->st, 0, 3); /* 1: C is A, 2: C is B */
    const int lda = cols + (int)fz_int(&c->st, 0, 5), ldb = cols + (int)fz_int(&c->st, 0, 5);
    const int ldc = in_place == 1 ? lda : in_place == 2 ? ldb : cols + (int)fz_int(&c->st, 0, 5);
    const size_t oa = fz_place(c, (size_t)rows * lda * 4, fz_align(c, 4));
    const size_t ob = fz_place(c, (size_t)rows * ldb * 4, fz_align(c, 4));
    const size_t oc = in_place == 1 ? oa : in_place == 2 ? ob : fz_place(c, (size_t)rows * ldc * 4, fz_align(c, 4));
    fz_open(c);
    for (int i = 0; i < rows; ++i)
        for (int j = 0; j < cols; ++j) {
            fz_put(c, oa + (size_t)(i * lda + j) * 4, TS_DTYPE_F32, ts_test_normal(&c->st));
            fz_put(c, ob + (size_t)(i * ldb + j) * 4, TS_DTYPE_F32, ts_test_normal(&c->st));
        }
    fz_upload(c);
    const ts_status s = ts_tile_add_f32((float *)(c->dev + oc), (const float *)(c->dev + oa),
                                        (const float *)(c->dev + ob), rows, cols, ldc, lda, ldb, NULL);
    FZ_ASSERT(s == TS_SUCCESS, "ts_tile_add_f32 %d x %d: %s", rows, cols, ts_status_string(s));
    fz_download(c);
    for (int i = 0; i < rows; ++i)
        for (int j = 0; j < cols; ++j) {
            const float want = (float)fz_in(c, oa + (size_t)(i * lda + j) * 4, TS_DTYPE_F32) +
                               (float)fz_in(c, ob + (size_t)(i * ldb + j) * 4, TS_DTYPE_F32);
            const double got = fz_out(c, oc + (size_t)(i * ldc + j) * 4, TS_DTYPE_F32);
            FZ_ASSERT(got == (double)want, "%d x %d in place %d: C(%d,%d) = %.9g, not %.9g", rows, cols, in_place, i, j,
                      got, (double)want);
        }
    fz_close(c);
}

/* ---- attention --------------------------------------------------------------------------------- */

/* A (B, H, N, D) tensor's element strides {batch, head, row} in one of three layouts: head-major
 * (B, H, N, D), token-major (B, N, H, D), or a slice of a fused (B, N, total heads, D) buffer (its
 * strides those of the whole buffer); rows of `row` elements, the head's D and padding. */
static void fz_attn_strides(int layout, long long h, long long n, long long row, long long total, long long s[3]) {
    if (layout == 0) {
        s[2] = row, s[1] = n * row, s[0] = h * n * row;
    } else if (layout == 1) {
        s[2] = h * row, s[1] = row, s[0] = n * h * row;
    } else {
        s[2] = total * row, s[1] = row, s[0] = n * total * row;
    }
}

static void fz_attention_one(fz_case *c) {
    const int b = (int)fz_int(&c->st, 1, 2), hkv = (int)fz_int(&c->st, 1, 2), hq = hkv * (int)fz_int(&c->st, 1, 3);
    const int nq = (int)fz_int(&c->st, 1, 100), nkv = (int)fz_int(&c->st, 1, 100);
    const int d = fz_chance(&c->st, 50) ? 64 : 128, causal = fz_chance(&c->st, 50), with_lse = fz_chance(&c->st, 60);
    const ts_dtype dt = fz_chance(&c->st, 50) ? TS_DTYPE_BF16 : TS_DTYPE_FP16;
    const long long pad = 8 * fz_int(&c->st, 0, 1), row = d + pad;
    /* Q, K and V one fused projection (the same number of query and key rows), or apart. */
    const int fused = nq == nkv ? fz_chance(&c->st, 30) : 0;
    const float scale = (float)(fz_int(&c->st, 5, 30) / 100.0);
    long long qs[3], ks[3], vs[3], os[3];
    size_t oq, ok, ov, oo, ol = 0;
    if (fused) {
        const long long total = hq + 2 * hkv;
        fz_attn_strides(2, hq, nq, row, total, qs);
        fz_attn_strides(2, hkv, nkv, row, total, ks);
        fz_attn_strides(2, hkv, nkv, row, total, vs);
        oq = fz_place(c, (size_t)(b * nq * total * row) * 2, 16);
        ok = oq + (size_t)(hq * row) * 2;
        ov = ok + (size_t)(hkv * row) * 2;
    } else {
        fz_attn_strides((int)fz_int(&c->st, 0, 1), hq, nq, row, 0, qs);
        fz_attn_strides((int)fz_int(&c->st, 0, 1), hkv, nkv, row, 0, ks);
        fz_attn_strides((int)fz_int(&c->st, 0, 1), hkv, nkv, row, 0, vs);
        oq = fz_place(c, (size_t)(b * hq * nq * row) * 2, 16);
        ok = fz_place(c, (size_t)(b * hkv * nkv * row) * 2, 16);
        ov = fz_place(c, (size_t)(b * hkv * nkv * row) * 2, 16);
    }
    fz_attn_strides((int)fz_int(&c->st, 0, 1), hq, nq, row, 0, os);
    oo = fz_place(c, (size_t)(b * hq * nq * row) * 2, 16);
    if (with_lse) ol = fz_place(c, (size_t)(b * hq * nq) * 4, 4 * (size_t)fz_int(&c->st, 1, 4));
    fz_open(c);
    for (int x = 0; x < b; ++x)
        for (int i = 0; i < nq; ++i)
            for (int h = 0; h < hq; ++h)
                for (int e = 0; e < d; ++e)
                    fz_put(c, oq + (size_t)(x * qs[0] + h * qs[1] + i * qs[2] + e) * 2, dt, ts_test_normal(&c->st));
    for (int x = 0; x < b; ++x)
        for (int j = 0; j < nkv; ++j)
            for (int h = 0; h < hkv; ++h)
                for (int e = 0; e < d; ++e) {
                    fz_put(c, ok + (size_t)(x * ks[0] + h * ks[1] + j * ks[2] + e) * 2, dt, ts_test_normal(&c->st));
                    fz_put(c, ov + (size_t)(x * vs[0] + h * vs[1] + j * vs[2] + e) * 2, dt, ts_test_normal(&c->st));
                }
    fz_upload(c);
    const ts_attention_shape shape = {b, hq, hkv, nq, nkv, d};
    const ts_status s = ts_attention_forward(&shape, dt, c->dev + oq, qs, c->dev + ok, ks, c->dev + ov, vs, c->dev + oo,
                                             os, with_lse ? (float *)(c->dev + ol) : NULL, scale, causal, NULL);
    FZ_ASSERT(s == TS_SUCCESS, "attention B%d H%d/%d N%d/%d D%d: %s", b, hq, hkv, nq, nkv, d, ts_status_string(s));
    fz_download(c);
    double *sc = malloc(sizeof(double) * nkv), *acc = malloc(sizeof(double) * d);
    cr_assert(sc && acc);
    for (int x = 0; x < b; ++x)
        for (int h = 0; h < hq; ++h) {
            const int hk = h / (hq / hkv);
            for (int i = 0; i < nq; ++i) {
                double m = -INFINITY;
                for (int j = 0; j < nkv; ++j) {
                    double dot = 0.0;
                    for (int e = 0; e < d; ++e)
                        dot += fz_in(c, oq + (size_t)(x * qs[0] + h * qs[1] + i * qs[2] + e) * 2, dt) *
                               fz_in(c, ok + (size_t)(x * ks[0] + hk * ks[1] + j * ks[2] + e) * 2, dt);
                    sc[j] = causal && j > i ? -INFINITY : scale * dot;
                    if (sc[j] > m) m = sc[j];
                }
                double l = 0.0;
                for (int e = 0; e < d; ++e) acc[e] = 0.0;
                for (int j = 0; j < nkv; ++j) {
                    if (sc[j] == -INFINITY) continue;
                    const double p = exp(sc[j] - m);
                    l += p;
                    for (int e = 0; e < d; ++e)
                        acc[e] += p * fz_in(c, ov + (size_t)(x * vs[0] + hk * vs[1] + j * vs[2] + e) * 2, dt);
                }
                for (int e = 0; e < d; ++e) {
                    const double ref = l > 0.0 ? acc[e] / l : 0.0;
                    const double got = fz_out(c, oo + (size_t)(x * os[0] + h * os[1] + i * os[2] + e) * 2, dt);
                    FZ_ASSERT(fabs(got - ref) <= 3e-2 * (1.0 + fabs(ref)),
                              "B%d H%d/%d N%d/%d D%d causal %d fused %d: O(%d,%d,%d,%d) %g vs %g", b, hq, hkv, nq, nkv,
                              d, causal, fused, x, h, i, e, got, ref);
                }
                if (with_lse) {
                    const double ref = l > 0.0 ? m + log(l) : -INFINITY;
                    const double got = fz_out(c, ol + (size_t)((x * hq + h) * nq + i) * 4, TS_DTYPE_F32);
                    FZ_ASSERT(ref == -INFINITY ? got == -INFINITY : fabs(got - ref) <= 1e-3 * (1.0 + fabs(ref)),
                              "lse(%d,%d,%d) %g vs %g", x, h, i, got, ref);
                }
            }
        }
    free(sc), free(acc);
    fz_close(c);
}

/* ---- decode attention over a paged cache ------------------------------------------------------- */

static void fz_put_i32(fz_case *c, size_t at, int v) { memcpy(c->before + at, &v, 4); }

static void fz_attention_decode_one(fz_case *c) {
    const int b = (int)fz_int(&c->st, 1, 3), hkv = (int)fz_int(&c->st, 1, 2), hq = hkv * (int)fz_int(&c->st, 1, 8);
    const int nq = (int)fz_int(&c->st, 1, 16), d = fz_chance(&c->st, 50) ? 64 : 128;
    const int page = 16 * (int)fz_int(&c->st, 1, 16), causal = fz_chance(&c->st, 50), with_lse = fz_chance(&c->st, 60);
    const ts_dtype dt = fz_chance(&c->st, 50) ? TS_DTYPE_BF16 : TS_DTYPE_FP16;
    const float scale = (float)(fz_int(&c->st, 5, 30) / 100.0);
    int lens[3], max_pages = 1, used = 0;
    for (int x = 0; x < b; ++x) {
        lens[x] = fz_chance(&c->st, 10) ? 0 : (int)fz_int(&c->st, 1, 400);
        const int pages = (lens[x] + page - 1) / page;
        max_pages = pages > max_pages ? pages : max_pages;
        used += pages;
    }
    const int num_pages = used + (int)fz_int(&c->st, 1, 3);
    const size_t q_bytes = (size_t)b * hq * nq * d * 2, cache_bytes = (size_t)num_pages * hkv * page * d * 2;
    const ts_attention_decode_desc desc = {b, hq, hkv, nq, d, page, num_pages, max_pages, scale, causal};
    size_t ws_bytes = 0;
    cr_assert_eq(ts_attention_decode_workspace_size(&desc, &ws_bytes), TS_SUCCESS);
    const size_t oq = fz_place(c, q_bytes, 16), ok = fz_place(c, cache_bytes, 16), ov = fz_place(c, cache_bytes, 16);
    const size_t ot = fz_place(c, (size_t)b * max_pages * 4, 4), os = fz_place(c, (size_t)b * 4, 4);
    const size_t oo = fz_place(c, q_bytes, 16), ow = fz_place(c, ws_bytes, 16);
    const size_t ol = with_lse ? fz_place(c, (size_t)b * hq * nq * 4, 4) : 0;
    fz_open(c);
    memset(c->output + ow, 1, ws_bytes); /* the workspace is the call's to write */
    /* Each sequence's pages, drawn without repeats from the cache; table slots past them hold junk. */
    int *table = malloc(sizeof(int) * (size_t)b * max_pages), *taken = calloc((size_t)num_pages, sizeof(int));
    cr_assert(table && taken);
    for (int x = 0; x < b; ++x)
        for (int s = 0; s < max_pages; ++s) {
            int pg = (int)fz_int(&c->st, -3, num_pages + 3);
            if (s * page < lens[x]) {
                pg = (int)fz_int(&c->st, 0, num_pages - 1);
                while (taken[pg]) pg = (pg + 1) % num_pages;
                taken[pg] = 1;
            }
            table[x * max_pages + s] = pg;
            fz_put_i32(c, ot + (size_t)(x * max_pages + s) * 4, pg);
        }
    for (int x = 0; x < b; ++x) fz_put_i32(c, os + (size_t)x * 4, lens[x]);
    for (size_t i = 0; i < q_bytes / 2; ++i) fz_put(c, oq + i * 2, dt, ts_test_normal(&c->st));
    /* Keys and values in the slots of each sequence's tokens; NaN (the poison) elsewhere. */
    for (int x = 0; x < b; ++x)
        for (int t = 0; t < lens[x]; ++t)
            for (int h = 0; h < hkv; ++h)
                for (int e = 0; e < d; ++e) {
                    const size_t at = (((size_t)table[x * max_pages + t / page] * hkv + h) * page + t % page) * d + e;
                    fz_put(c, ok + at * 2, dt, ts_test_normal(&c->st));
                    fz_put(c, ov + at * 2, dt, ts_test_normal(&c->st));
                }
    fz_upload(c);
    const ts_status s =
        ts_attention_decode(&desc, dt, c->dev + oq, c->dev + ok, c->dev + ov, (const int *)(c->dev + ot),
                            (const int *)(c->dev + os), c->dev + oo, with_lse ? (float *)(c->dev + ol) : NULL,
                            c->dev + ow, ws_bytes, NULL);
    FZ_ASSERT(s == TS_SUCCESS, "decode B%d H%d/%d N_q %d D%d page %d: %s", b, hq, hkv, nq, d, page,
              ts_status_string(s));
    fz_download(c);
    double *sc = malloc(sizeof(double) * 400), *acc = malloc(sizeof(double) * d);
    cr_assert(sc && acc);
    for (int x = 0; x < b; ++x)
        for (int h = 0; h < hq; ++h) {
            const int hk = h / (hq / hkv);
            for (int i = 0; i < nq; ++i) {
                const size_t row = ((size_t)x * hq + h) * nq + i;
                int keys = causal ? lens[x] - nq + 1 + i : lens[x];
                keys = keys < 0 ? 0 : keys;
                double m = -INFINITY, l = 0.0;
                for (int j = 0; j < keys; ++j) {
                    const size_t kr = (((size_t)table[x * max_pages + j / page] * hkv + hk) * page + j % page) * d;
                    double dot = 0.0;
                    for (int e = 0; e < d; ++e) dot += fz_in(c, oq + (row * d + e) * 2, dt) * fz_in(c, ok + (kr + e) * 2, dt);
                    sc[j] = scale * dot;
                    m = sc[j] > m ? sc[j] : m;
                }
                for (int e = 0; e < d; ++e) acc[e] = 0.0;
                for (int j = 0; j < keys; ++j) {
                    const size_t vr = (((size_t)table[x * max_pages + j / page] * hkv + hk) * page + j % page) * d;
                    const double p = exp(sc[j] - m);
                    l += p;
                    for (int e = 0; e < d; ++e) acc[e] += p * fz_in(c, ov + (vr + e) * 2, dt);
                }
                for (int e = 0; e < d; ++e) {
                    const double ref = l > 0.0 ? acc[e] / l : 0.0, got = fz_out(c, oo + (row * d + e) * 2, dt);
                    FZ_ASSERT(fabs(got - ref) <= 3e-2 * (1.0 + fabs(ref)),
                              "decode B%d H%d/%d N_q %d D%d page %d causal %d: O(%d,%d,%d,%d) %g vs %g", b, hq, hkv,
                              nq, d, page, causal, x, h, i, e, got, ref);
                }
                if (with_lse) {
                    const double ref = l > 0.0 ? m + log(l) : -INFINITY;
                    const double got = fz_out(c, ol + row * 4, TS_DTYPE_F32);
                    FZ_ASSERT(ref == -INFINITY ? got == -INFINITY : fabs(got - ref) <= 1e-3 * (1.0 + fabs(ref)),
                              "decode lse(%d,%d,%d) %g vs %g", x, h, i, got, ref);
                }
            }
        }
    free(sc), free(acc), free(table), free(taken);
    fz_close(c);
}

/* ---- attention backward ------------------------------------------------------------------------ */

/* Random shapes, layouts (as the forward's, Q, K and V fused or apart) and dtypes; O and lse from a
 * double forward; dQ, dK and dV against a double backward, norm-relative per tensor (dS sums terms
 * of both signs, so single elements may carry the whole rounding of their row); either form of dQ
 * (ts_attention_backward_ex's flags); the workspace counts as an output and nothing else may
 * change. */
static void fz_attention_backward_one(fz_case *c) {
    const int b = (int)fz_int(&c->st, 1, 2), hkv = (int)fz_int(&c->st, 1, 2), hq = hkv * (int)fz_int(&c->st, 1, 3);
    const int nq = (int)fz_int(&c->st, 1, 80), nkv = (int)fz_int(&c->st, 1, 80);
    const int d = fz_chance(&c->st, 50) ? 64 : 128, causal = fz_chance(&c->st, 50);
    const ts_dtype dt = fz_chance(&c->st, 50) ? TS_DTYPE_BF16 : TS_DTYPE_FP16;
    const long long pad = 8 * fz_int(&c->st, 0, 1), row = d + pad;
    const int fused = nq == nkv ? fz_chance(&c->st, 30) : 0;
    const float scale = (float)(fz_int(&c->st, 5, 30) / 100.0);
    const unsigned flags = fz_chance(&c->st, 50) ? TS_ATTENTION_DETERMINISTIC : 0u;
    const ts_attention_shape shape = {b, hq, hkv, nq, nkv, d};
    size_t ws_bytes = 0;
    cr_assert_eq(ts_attention_backward_workspace_size(&shape, &ws_bytes), TS_SUCCESS);
    long long qs[3], ks[3], vs[3], os[3], dos[3], dqs[3], dks[3], dvs[3];
    size_t oq, ok, ov;
    if (fused) {
        const long long total = hq + 2 * hkv;
        fz_attn_strides(2, hq, nq, row, total, qs);
        fz_attn_strides(2, hkv, nkv, row, total, ks);
        fz_attn_strides(2, hkv, nkv, row, total, vs);
        oq = fz_place(c, (size_t)(b * nq * total * row) * 2, 16);
        ok = oq + (size_t)(hq * row) * 2;
        ov = ok + (size_t)(hkv * row) * 2;
    } else {
        fz_attn_strides((int)fz_int(&c->st, 0, 1), hq, nq, row, 0, qs);
        fz_attn_strides((int)fz_int(&c->st, 0, 1), hkv, nkv, row, 0, ks);
        fz_attn_strides((int)fz_int(&c->st, 0, 1), hkv, nkv, row, 0, vs);
        oq = fz_place(c, (size_t)(b * hq * nq * row) * 2, 16);
        ok = fz_place(c, (size_t)(b * hkv * nkv * row) * 2, 16);
        ov = fz_place(c, (size_t)(b * hkv * nkv * row) * 2, 16);
    }
    fz_attn_strides((int)fz_int(&c->st, 0, 1), hq, nq, row, 0, os);
    fz_attn_strides((int)fz_int(&c->st, 0, 1), hq, nq, row, 0, dos);
    fz_attn_strides((int)fz_int(&c->st, 0, 1), hq, nq, row, 0, dqs);
    fz_attn_strides((int)fz_int(&c->st, 0, 1), hkv, nkv, row, 0, dks);
    fz_attn_strides((int)fz_int(&c->st, 0, 1), hkv, nkv, row, 0, dvs);
    const size_t oo = fz_place(c, (size_t)(b * hq * nq * row) * 2, 16);
    const size_t odo = fz_place(c, (size_t)(b * hq * nq * row) * 2, 16);
    const size_t ol = fz_place(c, (size_t)(b * hq * nq) * 4, 4 * (size_t)fz_int(&c->st, 1, 4));
    const size_t odq = fz_place(c, (size_t)(b * hq * nq * row) * 2, 16);
    const size_t odk = fz_place(c, (size_t)(b * hkv * nkv * row) * 2, 16);
    const size_t odv = fz_place(c, (size_t)(b * hkv * nkv * row) * 2, 16);
    const size_t ow = fz_place(c, ws_bytes, 16 * (size_t)fz_int(&c->st, 1, 2));
    fz_open(c);
#define FZ_AT(base, st, x, h, i, e) ((base) + (size_t)((x) * (st)[0] + (h) * (st)[1] + (i) * (st)[2] + (e)) * 2)
    for (int x = 0; x < b; ++x)
        for (int i = 0; i < nq; ++i)
            for (int h = 0; h < hq; ++h)
                for (int e = 0; e < d; ++e) {
                    fz_put(c, FZ_AT(oq, qs, x, h, i, e), dt, ts_test_normal(&c->st));
                    fz_put(c, FZ_AT(odo, dos, x, h, i, e), dt, ts_test_normal(&c->st));
                }
    for (int x = 0; x < b; ++x)
        for (int j = 0; j < nkv; ++j)
            for (int h = 0; h < hkv; ++h)
                for (int e = 0; e < d; ++e) {
                    fz_put(c, FZ_AT(ok, ks, x, h, j, e), dt, ts_test_normal(&c->st));
                    fz_put(c, FZ_AT(ov, vs, x, h, j, e), dt, ts_test_normal(&c->st));
                }
    /* The double forward: P kept per row, O rounded into the arena, lse stored. */
    const size_t rows_q = (size_t)b * hq * nq, rows_k = (size_t)b * hkv * nkv;
    double *p = calloc(rows_q * nkv, sizeof(double));
    double *gq = calloc(rows_q * d, sizeof(double)), *gk = calloc(rows_k * d, sizeof(double));
    double *gv = calloc(rows_k * d, sizeof(double));
    cr_assert(p && gq && gk && gv);
    for (int x = 0; x < b; ++x)
        for (int h = 0; h < hq; ++h) {
            const int hk = h / (hq / hkv);
            for (int i = 0; i < nq; ++i) {
                const size_t r = ((size_t)x * hq + h) * nq + i;
                double m = -INFINITY, l = 0.0;
                for (int j = 0; j < nkv; ++j) {
                    double dot = 0.0;
                    for (int e = 0; e < d; ++e)
                        dot += fz_in(c, FZ_AT(oq, qs, x, h, i, e), dt) * fz_in(c, FZ_AT(ok, ks, x, hk, j, e), dt);
                    p[r * nkv + j] = causal && j > i ? -INFINITY : scale * dot;
                    if (p[r * nkv + j] > m) m = p[r * nkv + j];
                }
                for (int j = 0; j < nkv; ++j) l += p[r * nkv + j] == -INFINITY ? 0.0 : exp(p[r * nkv + j] - m);
                for (int j = 0; j < nkv; ++j) p[r * nkv + j] = p[r * nkv + j] == -INFINITY ? 0.0 : exp(p[r * nkv + j] - m) / l;
                fz_put(c, ol + r * 4, TS_DTYPE_F32, m + log(l));
                for (int e = 0; e < d; ++e) {
                    double acc = 0.0;
                    for (int j = 0; j < nkv; ++j) acc += p[r * nkv + j] * fz_in(c, FZ_AT(ov, vs, x, hk, j, e), dt);
                    fz_put(c, FZ_AT(oo, os, x, h, i, e), dt, acc);
                }
            }
        }
    /* The double backward from the inputs the kernel is given: D = rowsum(dO * O) from O as stored
     * (rounded to the dtype). With the exact O instead, O's rounding alone moves D by up to 2^-9 of
     * |dO| |O|, and where a row's dP - D nearly cancels (a few keys under the causal mask) that is
     * the whole of dS: B2 H2/2 N2/23 D64 causal measured a dK error of 0.0207 that way, the same on
     * the host and the H100, and 0.0017 from the stored O. */
    for (int x = 0; x < b; ++x)
        for (int h = 0; h < hq; ++h) {
            const int hk = h / (hq / hkv);
            for (int i = 0; i < nq; ++i) {
                const size_t r = ((size_t)x * hq + h) * nq + i;
                double D = 0.0;
                for (int e = 0; e < d; ++e)
                    D += fz_in(c, FZ_AT(odo, dos, x, h, i, e), dt) * fz_in(c, FZ_AT(oo, os, x, h, i, e), dt);
                for (int j = 0; j < nkv; ++j) {
                    const double pj = p[r * nkv + j];
                    if (pj == 0.0) continue;
                    const size_t rk = ((size_t)x * hkv + hk) * nkv + j;
                    double dp = 0.0;
                    for (int e = 0; e < d; ++e)
                        dp += fz_in(c, FZ_AT(odo, dos, x, h, i, e), dt) * fz_in(c, FZ_AT(ov, vs, x, hk, j, e), dt);
                    const double ds = pj * (dp - D) * scale;
                    for (int e = 0; e < d; ++e) {
                        gv[rk * d + e] += pj * fz_in(c, FZ_AT(odo, dos, x, h, i, e), dt);
                        gq[r * d + e] += ds * fz_in(c, FZ_AT(ok, ks, x, hk, j, e), dt);
                        gk[rk * d + e] += ds * fz_in(c, FZ_AT(oq, qs, x, h, i, e), dt);
                    }
                }
            }
        }
    fz_upload(c);
    const ts_status s = ts_attention_backward_ex(&shape, dt, c->dev + oq, qs, c->dev + ok, ks, c->dev + ov, vs,
                                                 c->dev + oo, os, c->dev + odo, dos, (const float *)(c->dev + ol),
                                                 c->dev + odq, dqs, c->dev + odk, dks, c->dev + odv, dvs, scale,
                                                 causal, flags, c->dev + ow, ws_bytes, NULL);
    FZ_ASSERT(s == TS_SUCCESS, "attention backward B%d H%d/%d N%d/%d D%d flags %u: %s", b, hq, hkv, nq, nkv, d, flags,
              ts_status_string(s));
    fz_download(c);
    memset(c->output + ow, 1, ws_bytes);
    /* Norm-relative, with a floor of 1e-3 RMS for gradients that are all but zero (one key). */
    const double tol = dt == TS_DTYPE_BF16 ? 2e-2 : 5e-3;
    double e2[3] = {0, 0, 0}, r2[3] = {0, 0, 0};
    for (int x = 0; x < b; ++x)
        for (int h = 0; h < hq; ++h)
            for (int i = 0; i < nq; ++i)
                for (int e = 0; e < d; ++e) {
                    const double ref = gq[(((size_t)x * hq + h) * nq + i) * d + e];
                    const double got = fz_out(c, FZ_AT(odq, dqs, x, h, i, e), dt);
                    FZ_ASSERT(isfinite(got), "dQ(%d,%d,%d,%d) = %g", x, h, i, e, got);
                    e2[0] += (got - ref) * (got - ref), r2[0] += ref * ref + 1e-6;
                }
    for (int x = 0; x < b; ++x)
        for (int h = 0; h < hkv; ++h)
            for (int j = 0; j < nkv; ++j)
                for (int e = 0; e < d; ++e) {
                    const size_t at = (((size_t)x * hkv + h) * nkv + j) * d + e;
                    const double got_k = fz_out(c, FZ_AT(odk, dks, x, h, j, e), dt);
                    const double got_v = fz_out(c, FZ_AT(odv, dvs, x, h, j, e), dt);
                    FZ_ASSERT(isfinite(got_k) && isfinite(got_v), "dK, dV(%d,%d,%d,%d) = %g, %g", x, h, j, e, got_k, got_v);
                    e2[1] += (got_k - gk[at]) * (got_k - gk[at]), r2[1] += gk[at] * gk[at] + 1e-6;
                    e2[2] += (got_v - gv[at]) * (got_v - gv[at]), r2[2] += gv[at] * gv[at] + 1e-6;
                }
#undef FZ_AT
    for (int t = 0; t < 3; ++t)
        FZ_ASSERT(sqrt(e2[t] / r2[t]) <= tol, "B%d H%d/%d N%d/%d D%d causal %d fused %d flags %u: %s relative error %g",
                  b, hq, hkv, nq, nkv, d, causal, fused, flags, t == 0 ? "dQ" : t == 1 ? "dK" : "dV",
                  sqrt(e2[t] / r2[t]));
    free(p), free(gq), free(gk), free(gv);
    fz_close(c);
}

/* ---- LayerNorm and RMSNorm ------------------------------------------------------------------- */

static void fz_norm_one(fz_case *c) {
    const long long rows = fz_int(&c->st, 1, 20);
    const int cols = (int)(fz_chance(&c->st, 15) ? fz_int(&c->st, 2100, 9000) : fz_int(&c->st, 1, 2100));
    const int rms = fz_chance(&c->st, 50), residual = fz_chance(&c->st, 50);
    const int residual_out = residual && fz_chance(&c->st, 60), weight = fz_chance(&c->st, 60);
    const int bias = fz_chance(&c->st, 40);
    const int in_place = fz_chance(&c->st, 25), residual_in_place = residual_out && fz_chance(&c->st, 40);
    const ts_dtype dt = fz_dtype(&c->st), out_dt = in_place ? dt : fz_dtype(&c->st), param_dt = fz_dtype(&c->st);
    const size_t xb = ts_test_dtype_bytes(dt), ob = ts_test_dtype_bytes(out_dt), pb = ts_test_dtype_bytes(param_dt);
    const long long xs = cols + fz_int(&c->st, 0, 9), rs = cols + fz_int(&c->st, 0, 9);
    const long long os = in_place ? xs : cols + fz_int(&c->st, 0, 9);
    const long long ros = residual_in_place ? rs : cols + fz_int(&c->st, 0, 9);
    const float eps = (float)fz_int(&c->st, 1, 100) * 1e-6f;
    const size_t ox = fz_place(c, (size_t)(rows * xs) * xb, fz_align(c, xb));
    const size_t orr = residual ? fz_place(c, (size_t)(rows * rs) * xb, fz_align(c, xb)) : 0;
    const size_t oro = !residual_out     ? 0
                       : residual_in_place ? orr
                                           : fz_place(c, (size_t)(rows * ros) * xb, fz_align(c, xb));
    const size_t ow = weight ? fz_place(c, (size_t)cols * pb, fz_align(c, pb)) : 0;
    const size_t obias = bias ? fz_place(c, (size_t)cols * pb, fz_align(c, pb)) : 0;
    const size_t oo = in_place ? ox : fz_place(c, (size_t)(rows * os) * ob, fz_align(c, ob));
    fz_open(c);
    const double mean_shift = fz_chance(&c->st, 20) ? 30.0 : 0.0;
    for (long long i = 0; i < rows; ++i)
        for (int j = 0; j < cols; ++j) {
            fz_put(c, ox + (size_t)(i * xs + j) * xb, dt, mean_shift + ts_test_normal(&c->st));
            if (residual) fz_put(c, orr + (size_t)(i * rs + j) * xb, dt, ts_test_normal(&c->st));
        }
    for (int j = 0; j < cols; ++j) {
        if (weight) fz_put(c, ow + (size_t)j * pb, param_dt, 1.0 + 0.5 * ts_test_normal(&c->st));
        if (bias) fz_put(c, obias + (size_t)j * pb, param_dt, ts_test_normal(&c->st));
    }
    fz_upload(c);
    const ts_norm_desc desc = {
        .rows = rows, .cols = cols, .dtype = dt, .out_dtype = out_dt, .param_dtype = param_dt,
        .x = c->dev + ox, .x_stride = xs, .residual = residual ? c->dev + orr : NULL, .residual_stride = rs,
        .residual_out = residual_out ? c->dev + oro : NULL, .residual_out_stride = ros,
        .weight = weight ? c->dev + ow : NULL, .bias = bias ? c->dev + obias : NULL,
        .out = c->dev + oo, .out_stride = os, .eps = eps,
    };
    const ts_status s = rms ? ts_rmsnorm(&desc, NULL) : ts_layernorm(&desc, NULL);
    FZ_ASSERT(s == TS_SUCCESS, "%s %lld x %d: %s", rms ? "rmsnorm" : "layernorm", rows, cols, ts_status_string(s));
    fz_download(c);
    double *h = malloc(sizeof(double) * cols);
    cr_assert(h);
    const double tol = fz_tol(out_dt), rtol = fz_tol(dt);
    for (long long i = 0; i < rows; ++i) {
        for (int j = 0; j < cols; ++j) {
            h[j] = fz_in(c, ox + (size_t)(i * xs + j) * xb, dt);
            if (residual) h[j] = ts_test_round(dt, h[j] + fz_in(c, orr + (size_t)(i * rs + j) * xb, dt));
        }
        double mean = 0.0, var = 0.0;
        if (!rms) {
            for (int j = 0; j < cols; ++j) mean += h[j];
            mean /= cols;
        }
        for (int j = 0; j < cols; ++j) var += (h[j] - mean) * (h[j] - mean);
        const double rstd = 1.0 / sqrt(var / cols + (double)eps);
        for (int j = 0; j < cols; ++j) {
            if (residual_out) {
                const double got = fz_out(c, oro + (size_t)(i * ros + j) * xb, dt);
                FZ_ASSERT(fabs(got - h[j]) <= 0.5 * rtol * fabs(h[j]) + 1e-30, "residual_out(%lld,%d) %g vs %g", i, j,
                          got, h[j]);
            }
            double ref = (h[j] - mean) * rstd;
            if (weight) ref *= fz_in(c, ow + (size_t)j * pb, param_dt);
            if (bias) ref += fz_in(c, obias + (size_t)j * pb, param_dt);
            const double got = fz_out(c, oo + (size_t)(i * os + j) * ob, out_dt);
            const double slack = mean_shift != 0.0 ? 1e-6 * fabs(mean_shift) * rstd : 0.0;
            FZ_ASSERT(fabs(got - ref) <= tol * (1.0 + fabs(ref)) + slack,
                      "%s %lld x %d %s->%s params %s res %d/%d/%d in place %d w %d b %d: out(%lld,%d) %g vs %g",
                      rms ? "rms" : "ln", rows, cols, ts_test_dtype_name(dt), ts_test_dtype_name(out_dt),
                      ts_test_dtype_name(param_dt), residual, residual_out, residual_in_place, in_place, weight, bias,
                      i, j, got, ref);
        }
    }
    free(h);
    fz_close(c);
}

/* ---- softmax ----------------------------------------------------------------------------------- */

static void fz_softmax_one(fz_case *c) {
    const long long rows = fz_int(&c->st, 1, 20);
    const int cols = (int)(fz_chance(&c->st, 10) ? fz_int(&c->st, 3000, 20000) : fz_int(&c->st, 1, 3000));
    const int in_place = fz_chance(&c->st, 25), causal = fz_chance(&c->st, 40);
    const ts_dtype dt = fz_dtype(&c->st), out_dt = in_place ? dt : fz_dtype(&c->st);
    const size_t xb = ts_test_dtype_bytes(dt), ob = ts_test_dtype_bytes(out_dt);
    const long long xs = cols + fz_int(&c->st, 0, 9), os = in_place ? xs : cols + fz_int(&c->st, 0, 9);
    const float scale = (float)fz_int(&c->st, 10, 300) / 100.0f;
    long long causal_rows = fz_int(&c->st, 1, rows + 3), causal_offset = fz_int(&c->st, -cols - 5, cols + 5);
    const long long extreme = fz_int(&c->st, 0, 9);
    if (extreme == 0) causal_offset = 0x7fffffffffffffffLL;
    if (extreme == 1) causal_offset = -0x7fffffffffffffffLL - 1;
    if (extreme == 2) causal_rows = 0x7fffffffffffffffLL;
    const size_t ox = fz_place(c, (size_t)(rows * xs) * xb, fz_align(c, xb));
    const size_t oo = in_place ? ox : fz_place(c, (size_t)(rows * os) * ob, fz_align(c, ob));
    fz_open(c);
    for (long long i = 0; i < rows; ++i)
        for (int j = 0; j < cols; ++j) fz_put(c, ox + (size_t)(i * xs + j) * xb, dt, 2.0 * ts_test_normal(&c->st));
    fz_upload(c);
    const ts_softmax_desc desc = {.rows = rows, .cols = cols, .dtype = dt, .out_dtype = out_dt, .x = c->dev + ox,
                                  .x_stride = xs, .out = c->dev + oo, .out_stride = os, .scale = scale,
                                  .causal = causal, .causal_rows = causal_rows, .causal_offset = causal_offset};
    const ts_status s = ts_softmax(&desc, NULL);
    FZ_ASSERT(s == TS_SUCCESS, "softmax %lld x %d: %s", rows, cols, ts_status_string(s));
    fz_download(c);
    double *ref = malloc(sizeof(double) * cols);
    cr_assert(ref);
    const double tol = fz_tol(out_dt);
    double slack = 1e-6 * (cols > 1000 ? 1000.0 / cols : 1.0);
    if (out_dt == TS_DTYPE_FP16 && slack < 0x1p-24) slack = 0x1p-24;
    for (long long i = 0; i < rows; ++i) {
        /* The last visible column, in double arithmetic that cannot overflow. */
        const double last = causal ? (double)(i % causal_rows) + (double)causal_offset : cols - 1;
        double m = -INFINITY, sum = 0.0;
        for (int j = 0; j < cols; ++j) {
            ref[j] = j > last ? -INFINITY : scale * fz_in(c, ox + (size_t)(i * xs + j) * xb, dt);
            if (ref[j] > m) m = ref[j];
        }
        for (int j = 0; j < cols; ++j) sum += ref[j] == -INFINITY ? 0.0 : exp(ref[j] - m);
        for (int j = 0; j < cols; ++j) {
            const double want = ref[j] == -INFINITY || sum == 0.0 ? 0.0 : exp(ref[j] - m) / sum;
            const double got = fz_out(c, oo + (size_t)(i * os + j) * ob, out_dt);
            FZ_ASSERT(fabs(got - want) <= tol * want + slack,
                      "%lld x %d %s->%s causal %d rows %lld offset %lld in place %d: y(%lld,%d) %g vs %g", rows, cols,
                      ts_test_dtype_name(dt), ts_test_dtype_name(out_dt), causal, causal_rows, causal_offset, in_place,
                      i, j, got, want);
        }
    }
    free(ref);
    fz_close(c);
}

/* ---- rotary embedding -------------------------------------------------------------------------- */

static void fz_rotary_one(fz_case *c) {
    static const int dims[4] = {32, 64, 128, 256};
    const int b = (int)fz_int(&c->st, 1, 2), n = (int)fz_int(&c->st, 1, 12), hq = (int)fz_int(&c->st, 1, 9);
    const int hk = (int)fz_int(&c->st, 0, 5), d = dims[fz_int(&c->st, 0, 3)], half = d / 2;
    const ts_dtype dt = fz_dtype(&c->st);
    const size_t eb = ts_test_dtype_bytes(dt);
    const ts_rotary_layout layout = (ts_rotary_layout)fz_int(&c->st, 0, 1);
    const ts_rotary_convention conv = (ts_rotary_convention)fz_int(&c->st, 0, 1);
    const int table = fz_chance(&c->st, 50), custom = fz_chance(&c->st, 50);
    /* fused: Q and K heads side by side in one (B, N, hq + hk, D) buffer, rotated in place. */
    const int fused = hk > 0 && fz_chance(&c->st, 25), in_place = fused || fz_chance(&c->st, 40);
    const long long offset = fz_int(&c->st, 0, 20), table_rows = n + offset + fz_int(&c->st, 0, 3);
    const long long pad = custom ? fz_int(&c->st, 0, 5) : 0, row = d + pad;
    long long sq[3], sk[3];
    size_t oq, ok = 0, oqo, oko = 0, oc = 0, osn = 0;
    if (fused) {
        const long long total = hq + hk;
        sq[0] = sk[0] = n * total * row, sq[1] = sk[1] = total * row, sq[2] = sk[2] = row;
        oq = fz_place(c, (size_t)(b * sq[0]) * eb, fz_align(c, eb));
        ok = oq + (size_t)(hq * row) * eb;
    } else {
        for (int w = 0; w < 2; ++w) {
            long long *s = w ? sk : sq;
            const long long h = w ? (hk > 0 ? hk : 1) : hq;
            if (layout == TS_ROTARY_BNHD)
                s[2] = row, s[1] = h * row, s[0] = n * h * row;
            else
                s[1] = row, s[2] = n * row, s[0] = h * n * row;
        }
        oq = fz_place(c, (size_t)(b * sq[0]) * eb, fz_align(c, eb));
        if (hk > 0) ok = fz_place(c, (size_t)(b * sk[0]) * eb, fz_align(c, eb));
    }
    oqo = in_place ? oq : fz_place(c, (size_t)(b * sq[0]) * eb, fz_align(c, eb));
    if (hk > 0) oko = in_place ? ok : fz_place(c, (size_t)(b * sk[0]) * eb, fz_align(c, eb));
    if (table) {
        oc = fz_place(c, (size_t)(table_rows * half) * 4, fz_align(c, 4));
        osn = fz_place(c, (size_t)(table_rows * half) * 4, fz_align(c, 4));
    }
    fz_open(c);
    for (int w = 0; w < (hk > 0 ? 2 : 1); ++w) {
        const long long *s = w ? sk : sq;
        for (int x = 0; x < b; ++x)
            for (int t = 0; t < n; ++t)
                for (int h = 0; h < (w ? hk : hq); ++h)
                    for (int e = 0; e < d; ++e)
                        fz_put(c, (w ? ok : oq) + (size_t)(x * s[0] + t * s[1] + h * s[2] + e) * eb, dt,
                               ts_test_normal(&c->st));
    }
    if (table)
        for (long long i = 0; i < table_rows * half; ++i) {
            const double a = 6.283185307179586 * ts_test_uniform(&c->st);
            fz_put(c, oc + (size_t)i * 4, TS_DTYPE_F32, cos(a));
            fz_put(c, osn + (size_t)i * 4, TS_DTYPE_F32, sin(a));
        }
    fz_upload(c);
    const int dense = !custom && !fused;
    const ts_rotary_desc desc = {
        .batch = b, .seq = n, .heads_q = hq, .heads_k = hk, .head_dim = d, .dtype = dt, .layout = layout,
        .convention = conv, .q = c->dev + oq, .q_out = c->dev + oqo, .q_strides = dense ? NULL : sq,
        .k = hk ? c->dev + ok : NULL, .k_out = hk ? c->dev + oko : NULL, .k_strides = dense ? NULL : sk,
        .cos_table = table ? (const float *)(c->dev + oc) : NULL,
        .sin_table = table ? (const float *)(c->dev + osn) : NULL,
        .table_rows = table_rows, .theta_base = 10000.0f, .position_offset = offset,
    };
    const ts_status s = ts_rotary(&desc, NULL);
    FZ_ASSERT(s == TS_SUCCESS, "rotary B%d N%d H%d/%d D%d fused %d in place %d: %s", b, n, hq, hk, d, fused, in_place,
              ts_status_string(s));
    fz_download(c);
    const double tol = fz_tol(dt);
    for (int w = 0; w < (hk > 0 ? 2 : 1); ++w) {
        const long long *s = w ? sk : sq;
        const size_t in = w ? ok : oq, out = w ? oko : oqo;
        for (int x = 0; x < b; ++x)
            for (int t = 0; t < n; ++t)
                for (int h = 0; h < (w ? hk : hq); ++h) {
                    const size_t base = (size_t)(x * s[0] + t * s[1] + h * s[2]);
                    const long long pos = t + offset;
                    for (int i = 0; i < half; ++i) {
                        double co, si;
                        if (table) {
                            co = fz_in(c, oc + (size_t)(pos * half + i) * 4, TS_DTYPE_F32);
                            si = fz_in(c, osn + (size_t)(pos * half + i) * 4, TS_DTYPE_F32);
                        } else {
                            const float angle = (float)pos * (float)pow(10000.0, -2.0 * i / d);
                            co = cos(angle), si = sin(angle);
                        }
                        const int ia = conv == TS_ROTARY_INTERLEAVED ? 2 * i : i;
                        const int ib = conv == TS_ROTARY_INTERLEAVED ? 2 * i + 1 : i + half;
                        const double a = fz_in(c, in + (base + ia) * eb, dt), bb = fz_in(c, in + (base + ib) * eb, dt);
                        const double ra = a * co - bb * si, rb = bb * co + a * si;
                        const double ga = fz_out(c, out + (base + ia) * eb, dt);
                        const double gb = fz_out(c, out + (base + ib) * eb, dt);
                        FZ_ASSERT(fabs(ga - ra) <= tol * (1.0 + fabs(ra)) && fabs(gb - rb) <= tol * (1.0 + fabs(rb)),
                                  "B%d N%d H%d/%d D%d %s layout %d conv %d table %d fused %d in place %d: "
                                  "%c(%d,%d,%d)[%d] %g %g vs %g %g",
                                  b, n, hq, hk, d, ts_test_dtype_name(dt), layout, conv, table, fused, in_place,
                                  w ? 'k' : 'q', x, t, h, i, ga, gb, ra, rb);
                    }
                }
    }
    fz_close(c);
}

/* ---- the tests --------------------------------------------------------------------------------- */

/* CPU-side: the draws are reproducible from (seed, case) and spread over their ranges. */
Test(fuzz, draws_replay_and_cover_their_range) {
    uint64_t a = 12345, b = 12345;
    int seen[7] = {0};
    for (int i = 0; i < 2000; ++i) {
        const long long x = fz_int(&a, -3, 3);
        cr_assert_eq(x, fz_int(&b, -3, 3));
        cr_assert(x >= -3 && x <= 3);
        seen[x + 3] = 1;
    }
    for (int i = 0; i < 7; ++i) cr_assert(seen[i], "value %d never drawn", i - 3);
    fz_case c;
    memset(&c, 0, sizeof c);
    c.st = 99;
    const size_t p0 = fz_place(&c, 100, 256), p1 = fz_place(&c, 10, 16);
    cr_assert(p0 % 256 == 0 && p1 % 16 == 0 && p0 >= 16 && p1 >= p0 + 100 + 16, "gaps between placed tensors");
}

Test(fuzz, gemm) {
    TS_TEST_REQUIRE_DEVICE();
    fz_run("gemm", fz_gemm_one, 100);
}

Test(fuzz, tile_add) {
    TS_TEST_REQUIRE_DEVICE();
    fz_run("tile_add", fz_tile_add_one, 200);
}

Test(fuzz, attention) {
    TS_TEST_REQUIRE_DEVICE();
    fz_run("attention", fz_attention_one, 60);
}

Test(fuzz, attention_decode) {
    TS_TEST_REQUIRE_DEVICE();
    fz_run("attention_decode", fz_attention_decode_one, 40);
}

Test(fuzz, attention_backward) {
    TS_TEST_REQUIRE_DEVICE();
    fz_run("attention_backward", fz_attention_backward_one, 30);
}

Test(fuzz, norms) {
    TS_TEST_REQUIRE_DEVICE();
    fz_run("norm", fz_norm_one, 300);
}

Test(fuzz, softmax) {
    TS_TEST_REQUIRE_DEVICE();
    fz_run("softmax", fz_softmax_one, 300);
}

Test(fuzz, rotary) {
    TS_TEST_REQUIRE_DEVICE();
    fz_run("rotary", fz_rotary_one, 300);
}

/* ---- Based linear attention ---------------------------------------------------------------------- */

/* ts_based_forward: B, H, N drawn (N up to 150: ragged chunks of 64), head-major or token-major
 * strides each tensor on its own, rows padded or not, either normalization, scales around Based's
 * 1/4. Each output element against the quadratic form in double, within 3e-2 of the sum of its
 * terms' magnitudes (the weights, the features and the state are rounded to bf16 before their
 * products: each term's error is a few 2^-9 of it). */
static void fz_based_one(fz_case *c) {
    const int b = (int)fz_int(&c->st, 1, 2), h = (int)fz_int(&c->st, 1, 3), n = (int)fz_int(&c->st, 1, 150);
    const int normalize = fz_chance(&c->st, 50);
    const float scale = (float)(fz_int(&c->st, 10, 50) / 100.0);
    const ts_dtype dt = TS_DTYPE_BF16;
    long long qs[3], ks[3], vs[3], os[3];
    fz_attn_strides((int)fz_int(&c->st, 0, 1), h, n, 16 + 8 * fz_int(&c->st, 0, 1), 0, qs);
    fz_attn_strides((int)fz_int(&c->st, 0, 1), h, n, 16 + 8 * fz_int(&c->st, 0, 1), 0, ks);
    fz_attn_strides((int)fz_int(&c->st, 0, 1), h, n, 64 + 8 * fz_int(&c->st, 0, 1), 0, vs);
    fz_attn_strides((int)fz_int(&c->st, 0, 1), h, n, 64 + 8 * fz_int(&c->st, 0, 1), 0, os);
    const size_t oq = fz_place(c, (size_t)(b * qs[0]) * 2, 16), ok = fz_place(c, (size_t)(b * ks[0]) * 2, 16);
    const size_t ov = fz_place(c, (size_t)(b * vs[0]) * 2, 16), oo = fz_place(c, (size_t)(b * os[0]) * 2, 16);
    fz_open(c);
    for (int x = 0; x < b; ++x)
        for (int hh = 0; hh < h; ++hh)
            for (int i = 0; i < n; ++i) {
                for (int e = 0; e < 16; ++e) {
                    fz_put(c, oq + (size_t)(x * qs[0] + hh * qs[1] + i * qs[2] + e) * 2, dt, ts_test_normal(&c->st));
                    fz_put(c, ok + (size_t)(x * ks[0] + hh * ks[1] + i * ks[2] + e) * 2, dt, ts_test_normal(&c->st));
                }
                for (int e = 0; e < 64; ++e)
                    fz_put(c, ov + (size_t)(x * vs[0] + hh * vs[1] + i * vs[2] + e) * 2, dt, ts_test_normal(&c->st));
            }
    fz_upload(c);
    const ts_based_shape shape = {b, h, n, 16, 64};
    const ts_status s = ts_based_forward(&shape, dt, c->dev + oq, qs, c->dev + ok, ks, c->dev + ov, vs, c->dev + oo, os,
                                         scale, normalize, NULL);
    FZ_ASSERT(s == TS_SUCCESS, "based B%d H%d N%d: %s", b, h, n, ts_status_string(s));
    fz_download(c);
    double *w = malloc(sizeof(double) * n);
    cr_assert(w);
    for (int x = 0; x < b; ++x)
        for (int hh = 0; hh < h; ++hh)
            for (int i = 0; i < n; ++i) {
                double den = 0.0;
                for (int j = 0; j <= i; ++j) {
                    double dot = 0.0;
                    for (int e = 0; e < 16; ++e)
                        dot += fz_in(c, oq + (size_t)(x * qs[0] + hh * qs[1] + i * qs[2] + e) * 2, dt) *
                               fz_in(c, ok + (size_t)(x * ks[0] + hh * ks[1] + j * ks[2] + e) * 2, dt);
                    const double sc = scale * dot;
                    w[j] = 1.0 + sc + 0.5 * sc * sc;
                    den += w[j];
                }
                for (int e = 0; e < 64; ++e) {
                    double ref = 0.0, mag = 0.0;
                    for (int j = 0; j <= i; ++j) {
                        const double t = w[j] * fz_in(c, ov + (size_t)(x * vs[0] + hh * vs[1] + j * vs[2] + e) * 2, dt);
                        ref += t;
                        mag += fabs(t);
                    }
                    if (normalize) ref /= den, mag /= den;
                    const double got = fz_out(c, oo + (size_t)(x * os[0] + hh * os[1] + i * os[2] + e) * 2, dt);
                    FZ_ASSERT(fabs(got - ref) <= 3e-2 * mag + 1e-6,
                              "based B%d H%d N%d normalize %d out(%d,%d,%d,%d) %g vs %g", b, h, n, normalize, x, hh, i,
                              e, got, ref);
                }
            }
    free(w);
    fz_close(c);
}

Test(fuzz, based) {
    TS_TEST_REQUIRE_DEVICE();
    fz_run("based", fz_based_one, 40);
}
