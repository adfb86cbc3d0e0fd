/* Based linear attention (ts_based_forward) against a double-precision reference written from the
 * definition, the quadratic form out_i = sum_{j <= i} (1 + s_ij + s_ij^2 / 2) v_j [/ the sum of the
 * weights], s_ij = scale q_i.k_j: ragged sequence lengths around the chunk of 64, several batches
 * and heads, both normalizations, (B, N, H, D) strides and padded rows. The output is poisoned
 * first, and its row padding and the memory before and after it must come back untouched. A
 * second reference, chunked as the kernel is (the explicit feature map phi of 273 features and a
 * running state phi(k)^T v), must agree with the quadratic one in double: the identity
 * phi(q).phi(k) = 1 + s + s^2/2 and the chunking are checked apart from the kernel. Tolerance:
 * the error's 2-norm over the reference's, at most 1e-2 (the scores' weights, the features and the
 * state are rounded to bf16 before their products, as the tensor cores take them). */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "backends/half_bits.h"
#include "support/test_support.h"
#include "tests/kernels/pingpong_kernels.h"
#if defined(TESSERA_BACKEND_HOST)
#include "backends/host/runtime_host.h"
#endif

enum { BASED_F = 16, BASED_D = 64, BASED_GUARD = 64 };

typedef struct {
    int b, h, n, normalize;
    int bnhd;     /* 1: inputs ordered (B, N, H, d), a token's heads side by side */
    int out_pad;  /* elements of padding after each output row */
    float scale;
    int sample;   /* > 1: check rows i % sample == 0 and the last rows only (long sequences) */
    int pingpong_blocks; /* > 0: CDNA's configuration on the ping-pong schedule, on that many blocks */
} based_case;

static double bf(unsigned short b) { return ts_f32_from_bf16_bits(b); }

/* Strides {batch, head, row} of a (B, H, N, d) tensor with rows of `row` elements. */
static void strides_of(long long st[3], const based_case *c, long long row) {
    if (c->bnhd) {
        st[0] = (long long)c->n * c->h * row;
        st[1] = row;
        st[2] = (long long)c->h * row;
    } else {
        st[0] = (long long)c->h * c->n * row;
        st[1] = (long long)c->n * row;
        st[2] = row;
    }
}

/* The quadratic form for row i of head (b, h): out[0..63] in double. */
static void reference_row(const based_case *c, const unsigned short *q, const long long *qs, const unsigned short *k,
                          const long long *ks, const unsigned short *v, const long long *vs, int b, int h, int i,
                          double *out) {
    double num[BASED_D] = {0}, den = 0.0;
    const unsigned short *qi = q + b * qs[0] + h * qs[1] + (long long)i * qs[2];
    for (int j = 0; j <= i; ++j) {
        const unsigned short *kj = k + b * ks[0] + h * ks[1] + (long long)j * ks[2];
        const unsigned short *vj = v + b * vs[0] + h * vs[1] + (long long)j * vs[2];
        double dot = 0.0;
        for (int f = 0; f < BASED_F; ++f) dot += bf(qi[f]) * bf(kj[f]);
        const double s = c->scale * dot, w = 1.0 + s + 0.5 * s * s;
        den += w;
        for (int d = 0; d < BASED_D; ++d) num[d] += w * bf(vj[d]);
    }
    for (int d = 0; d < BASED_D; ++d) out[d] = c->normalize ? num[d] / den : num[d];
}

static void check_based(based_case c) {
    uint64_t seed = ts_test_fresh_seed(), st = seed;
    long long qs[3], vs[3], os[3];
    strides_of(qs, &c, BASED_F);
    strides_of(vs, &c, BASED_D);
    const based_case dense = {c.b, c.h, c.n, c.normalize, 0, 0, c.scale, 1, 0};
    strides_of(os, &dense, BASED_D + c.out_pad);
    const size_t nq = (size_t)c.b * qs[0], nv = (size_t)c.b * vs[0], no = (size_t)c.b * os[0];
    const size_t ob = (no + 2 * BASED_GUARD) * 2;
    unsigned short *q = malloc(nq * 2), *k = malloc(nq * 2), *v = malloc(nv * 2), *o = malloc(ob);
    cr_assert(q && k && v && o);
    for (size_t i = 0; i < nq; ++i) q[i] = ts_bf16_bits_from_f32((float)ts_test_normal(&st));
    for (size_t i = 0; i < nq; ++i) k[i] = ts_bf16_bits_from_f32((float)ts_test_normal(&st));
    for (size_t i = 0; i < nv; ++i) v[i] = ts_bf16_bits_from_f32((float)ts_test_normal(&st));
    void *dq = ts_test_device_copy(q, nq * 2), *dk = ts_test_device_copy(k, nq * 2);
    void *dv = ts_test_device_copy(v, nv * 2);
    unsigned short *dall = ts_test_device_copy(NULL, ob); /* poisoned: 0xFFFF, a bf16 NaN */
    cr_assert(dq && dk && dv && dall);
    const ts_based_shape shape = {c.b, c.h, c.n, BASED_F, BASED_D};
    const ts_status launched =
        c.pingpong_blocks > 0
            ? ts_test_pingpong_based(&shape, dq, qs, dk, qs, dv, vs, dall + BASED_GUARD, os, c.scale, c.normalize,
                                     c.pingpong_blocks)
            : ts_based_forward(&shape, TS_DTYPE_BF16, dq, qs, dk, qs, dv, vs, dall + BASED_GUARD, os, c.scale,
                               c.normalize, NULL);
    cr_assert_eq(launched, TS_SUCCESS);
    cr_assert_eq(ts_device_synchronize(), TS_SUCCESS);
    cr_assert_eq(ts_test_copy_back(o, dall, ob), TS_SUCCESS);
    for (int g = 0; g < BASED_GUARD; ++g) {
        cr_assert_eq(o[g], 0xFFFF, "guard before the output written at %d (seed %llu)", g, (unsigned long long)seed);
        cr_assert_eq(o[BASED_GUARD + no + g], 0xFFFF, "guard after the output written (seed %llu)",
                     (unsigned long long)seed);
    }
    const unsigned short *out = o + BASED_GUARD;
    double err2 = 0.0, ref2 = 0.0, ref[BASED_D];
    int rows = 0;
    for (int b = 0; b < c.b; ++b)
        for (int h = 0; h < c.h; ++h)
            for (int i = 0; i < c.n; ++i) {
                const unsigned short *oi = out + b * os[0] + h * os[1] + (long long)i * os[2];
                for (int d = BASED_D; d < BASED_D + c.out_pad; ++d)
                    cr_assert_eq(oi[d], 0xFFFF, "row padding written at (%d,%d,%d) (seed %llu)", b, h, i,
                                 (unsigned long long)seed);
                if (c.sample > 1 && i % c.sample != 0 && i < c.n - 3) continue;
                reference_row(&c, q, qs, k, qs, v, vs, b, h, i, ref);
                ++rows;
                for (int d = 0; d < BASED_D; ++d) {
                    const double got = bf(oi[d]);
                    cr_assert(isfinite(got), "out(%d,%d,%d,%d) = %g (seed %llu)", b, h, i, d, got,
                              (unsigned long long)seed);
                    err2 += (got - ref[d]) * (got - ref[d]);
                    ref2 += ref[d] * ref[d];
                }
            }
    const double rel = sqrt(err2 / (ref2 + 1e-300));
    cr_assert_leq(rel, 1e-2, "B %d H %d N %d normalize %d: relative error %g over %d rows (seed %llu)", c.b, c.h, c.n,
                  c.normalize, rel, rows, (unsigned long long)seed);
    cr_assert_gt(rows, 0);
    cr_assert_eq(ts_free(dq), TS_SUCCESS);
    cr_assert_eq(ts_free(dk), TS_SUCCESS);
    cr_assert_eq(ts_free(dv), TS_SUCCESS);
    cr_assert_eq(ts_free(dall), TS_SUCCESS);
    free(q);
    free(k);
    free(v);
    free(o);
}

Test(based, ragged_lengths_normalized) {
    TS_TEST_REQUIRE_DEVICE();
    const int ns[] = {1, 17, 63, 64, 65, 200, 1000};
    for (size_t i = 0; i < sizeof ns / sizeof ns[0]; ++i)
        check_based((based_case){1, 2, ns[i], 1, 0, 0, 0.25f, 1, 0});
}

#if defined(TESSERA_BACKEND_HOST)
/* The chunked kernel's protocol with one warp slow (ts_host_set_slow_warp): the producer, then a
 * warp of the first and of the second consumer warpgroup, 1 ms before each of its waits, over
 * many chunks. */
Test(based, slow_warps_keep_the_protocol) {
    TS_TEST_REQUIRE_DEVICE();
    const int warps[3] = {0, 4, 8};
    for (int i = 0; i < 3; ++i) {
        ts_host_set_slow_warp(0, warps[i], 1000);
        check_based((based_case){1, 2, 500, 1, 0, 0, 0.25f, 1, 0});
    }
    ts_host_set_slow_warp(0, -1, 0);
}
#endif

Test(based, ragged_lengths_unnormalized) {
    TS_TEST_REQUIRE_DEVICE();
    const int ns[] = {1, 17, 63, 64, 65, 200, 1000};
    for (size_t i = 0; i < sizeof ns / sizeof ns[0]; ++i)
        check_based((based_case){1, 1, ns[i], 0, 0, 0, 0.25f, 1, 0});
}

Test(based, batches_heads_strides_and_scales) {
    TS_TEST_REQUIRE_DEVICE();
    /* Several (batch, head) tasks per block of the persistent grid, and ragged tails. */
    check_based((based_case){2, 3, 130, 1, 0, 8, 0.25f, 1, 0});
    check_based((based_case){3, 2, 65, 0, 0, 0, 0.25f, 1, 0});
    /* (B, N, H, d) inputs, as heads of a fused projection; padded output rows. */
    check_based((based_case){2, 2, 150, 1, 1, 16, 0.25f, 1, 0});
    /* No 1 / sqrt(16) inside: larger scores, whose squares dominate. */
    check_based((based_case){1, 2, 300, 1, 0, 0, 1.0f, 1, 0});
    check_based((based_case){1, 1, 129, 0, 0, 0, 0.5f, 1, 0});
}

/* CDNA's configuration (one consumer of 16 columns, one stage, four tasks a head) on the ping-pong
 * schedule, which gfx942 and gfx90a build and no GPU here runs: on few blocks, so that each loops
 * over tasks of several heads and column parts. */
Test(based, ping_pong_schedule_cdna_configuration) {
    TS_TEST_REQUIRE_DEVICE();
    if (ts_test_on_gpu()) cr_skip_test("the ping-pong configuration is tested on the host backend");
    check_based((based_case){1, 1, 1, 1, 0, 0, 0.25f, 1, 3});
    check_based((based_case){2, 1, 65, 0, 0, 8, 0.25f, 1, 3});
    check_based((based_case){1, 2, 200, 1, 1, 0, 0.25f, 1, 5});
    check_based((based_case){1, 1, 1000, 0, 0, 0, 0.25f, 1, 2});
}

/* ---- the chunked form, in double ----------------------------------------------------------- */

enum { PHI = 1 + BASED_F + BASED_F * BASED_F };

/* phi(x) of x = sqrt(scale) * the row: [1, x, vec(x x^T) / sqrt 2]. */
static void phi_of(double *f, const double *x, double scale) {
    const double r = sqrt(scale);
    f[0] = 1.0;
    for (int a = 0; a < BASED_F; ++a) f[1 + a] = r * x[a];
    for (int a = 0; a < BASED_F; ++a)
        for (int b = 0; b < BASED_F; ++b) f[1 + BASED_F + a * BASED_F + b] = r * x[a] * r * x[b] / sqrt(2.0);
}

Test(based, chunked_form_equals_quadratic_form_in_double) {
    uint64_t seed = ts_test_fresh_seed(), st = seed;
    const int n = 200, chunk = 64;
    const double scale = 0.25;
    double *q = malloc(sizeof(double) * n * BASED_F), *k = malloc(sizeof(double) * n * BASED_F);
    double *v = malloc(sizeof(double) * n * BASED_D);
    double *kv = calloc((size_t)PHI * BASED_D, sizeof(double)), *z = calloc(PHI, sizeof(double));
    double fq[PHI], fk[PHI];
    cr_assert(q && k && v && kv && z);
    for (int i = 0; i < n * BASED_F; ++i) q[i] = ts_test_normal(&st), k[i] = ts_test_normal(&st);
    for (int i = 0; i < n * BASED_D; ++i) v[i] = ts_test_normal(&st);
    double worst = 0.0;
    for (int c0 = 0; c0 < n; c0 += chunk) {
        const int c1 = c0 + chunk < n ? c0 + chunk : n;
        for (int i = c0; i < c1; ++i) {
            /* Earlier chunks through the state, this chunk through the quadratic weights. */
            double num[BASED_D], den = 0.0;
            phi_of(fq, q + i * BASED_F, scale);
            for (int d = 0; d < BASED_D; ++d) {
                num[d] = 0.0;
                for (int f = 0; f < PHI; ++f) num[d] += fq[f] * kv[f * BASED_D + d];
            }
            for (int f = 0; f < PHI; ++f) den += fq[f] * z[f];
            for (int j = c0; j <= i; ++j) {
                double dot = 0.0;
                for (int f = 0; f < BASED_F; ++f) dot += q[i * BASED_F + f] * k[j * BASED_F + f];
                const double s = scale * dot, w = 1.0 + s + 0.5 * s * s;
                /* The identity the intra-chunk part rests on. */
                phi_of(fk, k + j * BASED_F, scale);
                double w_phi = 0.0;
                for (int f = 0; f < PHI; ++f) w_phi += fq[f] * fk[f];
                cr_assert_leq(fabs(w - w_phi), 1e-12 * (1.0 + fabs(w)), "phi(q).phi(k) %g vs 1 + s + s^2/2 %g", w_phi,
                              w);
                den += w;
                for (int d = 0; d < BASED_D; ++d) num[d] += w * v[j * BASED_D + d];
            }
            /* The quadratic form over all keys j <= i. */
            for (int d = 0; d < BASED_D; ++d) {
                double ref = 0.0, ref_den = 0.0;
                for (int j = 0; j <= i; ++j) {
                    double dot = 0.0;
                    for (int f = 0; f < BASED_F; ++f) dot += q[i * BASED_F + f] * k[j * BASED_F + f];
                    const double s = scale * dot, w = 1.0 + s + 0.5 * s * s;
                    ref += w * v[j * BASED_D + d];
                    ref_den += w;
                }
                const double e1 = fabs(num[d] - ref) / (1.0 + fabs(ref)), e2 = fabs(num[d] / den - ref / ref_den);
                if (e1 > worst) worst = e1;
                if (e2 > worst) worst = e2;
            }
        }
        /* The chunk into the state. */
        for (int j = c0; j < c1; ++j) {
            phi_of(fk, k + j * BASED_F, scale);
            for (int f = 0; f < PHI; ++f) {
                z[f] += fk[f];
                for (int d = 0; d < BASED_D; ++d) kv[f * BASED_D + d] += fk[f] * v[j * BASED_D + d];
            }
        }
    }
    cr_assert_leq(worst, 1e-10, "chunked and quadratic forms differ by %g (seed %llu)", worst,
                  (unsigned long long)seed);
    free(q);
    free(k);
    free(v);
    free(kv);
    free(z);
}

/* A long sequence on a GPU (skipped on the host backend, where the quadratic reference and the
 * kernel's emulation would take minutes): every 13th row and the last ones are checked. */
Test(based, gpu_long_sequence) {
    if (!ts_test_on_gpu()) cr_skip_test("the long-sequence case runs on a GPU backend");
    TS_TEST_REQUIRE_DEVICE();
    check_based((based_case){1, 2, 8192, 1, 0, 0, 0.25f, 13, 0});
    check_based((based_case){2, 1, 8192, 0, 0, 0, 0.25f, 13, 0});
}

Test(based, bad_arguments) {
    unsigned short buf[4096] __attribute__((aligned(16))) = {0};
    unsigned short *p = buf;
    const long long qs[3] = {16 * 16, 16 * 16, 16}, vs[3] = {16 * 64, 16 * 64, 64};
    unsigned short *o = p + 2048;
    const ts_based_shape ok = {1, 1, 16, 16, 64};
    const ts_dtype B = TS_DTYPE_BF16;
    ts_based_shape sh = ok;
    cr_assert_eq(ts_based_forward(NULL, B, p, qs, p, qs, p, vs, o, vs, 0.25f, 1, NULL), TS_ERROR_NULL_POINTER);
    cr_assert_eq(ts_based_forward(&ok, B, NULL, qs, p, qs, p, vs, o, vs, 0.25f, 1, NULL), TS_ERROR_NULL_POINTER);
    cr_assert_eq(ts_based_forward(&ok, B, p, qs, p, NULL, p, vs, o, vs, 0.25f, 1, NULL), TS_ERROR_NULL_POINTER);
    cr_assert_eq(ts_based_forward(&ok, B, p, qs, p, qs, p, vs, NULL, vs, 0.25f, 1, NULL), TS_ERROR_NULL_POINTER);
    cr_assert_eq(ts_based_forward(&ok, (ts_dtype)7, p, qs, p, qs, p, vs, o, vs, 0.25f, 1, NULL), TS_ERROR_INVALID_ENUM);
    cr_assert_eq(ts_based_forward(&ok, TS_DTYPE_FP16, p, qs, p, qs, p, vs, o, vs, 0.25f, 1, NULL),
                 TS_ERROR_UNSUPPORTED);
    sh.seq = 0;
    cr_assert_eq(ts_based_forward(&sh, B, p, qs, p, qs, p, vs, o, vs, 0.25f, 1, NULL), TS_ERROR_INVALID_SIZE);
    sh = ok;
    sh.feature_dim = 32;
    cr_assert_eq(ts_based_forward(&sh, B, p, qs, p, qs, p, vs, o, vs, 0.25f, 1, NULL), TS_ERROR_UNSUPPORTED);
    sh = ok;
    sh.head_dim = 128;
    cr_assert_eq(ts_based_forward(&sh, B, p, qs, p, qs, p, vs, o, vs, 0.25f, 1, NULL), TS_ERROR_UNSUPPORTED);
    cr_assert_eq(ts_based_forward(&ok, B, p, qs, p, qs, p, vs, o, vs, 0.0f, 1, NULL), TS_ERROR_INVALID_VALUE);
    cr_assert_eq(ts_based_forward(&ok, B, p, qs, p, qs, p, vs, o, vs, INFINITY, 1, NULL), TS_ERROR_INVALID_VALUE);
    cr_assert_eq(ts_based_forward(&ok, B, p, qs, p, qs, p, vs, o, vs, 0.25f, 2, NULL), TS_ERROR_INVALID_VALUE);
    /* A row stride shorter than the row. */
    const long long short_row[3] = {16 * 64, 16 * 64, 32};
    cr_assert_eq(ts_based_forward(&ok, B, p, qs, p, qs, p, short_row, o, vs, 0.25f, 1, NULL), TS_ERROR_INVALID_VALUE);
    const long long odd[3] = {16 * 20, 16 * 20, 20};
    cr_assert_eq(ts_based_forward(&ok, B, p, odd, p, qs, p, vs, o, vs, 0.25f, 1, NULL), TS_ERROR_MISALIGNED);
    cr_assert_eq(ts_based_forward(&ok, B, p + 1, qs, p, qs, p, vs, o, vs, 0.25f, 1, NULL), TS_ERROR_MISALIGNED);
    /* The output over an input: over V, and one row into Q's bytes. */
    cr_assert_eq(ts_based_forward(&ok, B, p, qs, p, qs, o, vs, o, vs, 0.25f, 1, NULL), TS_ERROR_INVALID_VALUE);
    cr_assert_eq(ts_based_forward(&ok, B, p + 2048, qs, p, qs, p, vs, o - 64 * 8, vs, 0.25f, 1, NULL),
                 TS_ERROR_INVALID_VALUE);
    /* 2^16 x 2^15 heads: 2^31 tasks at least, past the task map's 32-bit arithmetic; strides past
     * 2^46 elements. The calls stop at their arguments, before any device work. */
    const ts_based_shape many = {1 << 16, 1 << 15, 1, 16, 64};
    const long long many_qs[3] = {(1LL << 15) * 16, 16, 16}, many_vs[3] = {(1LL << 15) * 64, 64, 64};
    cr_assert_eq(ts_based_forward(&many, B, p, many_qs, p, many_qs, p, many_vs, o, many_vs, 0.25f, 1, NULL),
                 TS_ERROR_SIZE_OVERFLOW);
    const long long far[3] = {1LL << 47, 16 * 16, 16};
    cr_assert_eq(ts_based_forward(&ok, B, p, far, p, qs, p, vs, o, vs, 0.25f, 1, NULL), TS_ERROR_SIZE_OVERFLOW);
}
