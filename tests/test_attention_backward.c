/* Attention backward against a double-precision reference: the forward and its gradients computed
 * in double from the same 16-bit inputs, at ragged lengths (N_q, N_kv not multiples of any tile),
 * causal and not, grouped-query ratios 1 and 4, D 64 and 128, bf16 and fp16, padded strides. The
 * backward is given O rounded to the dtype and the reference's log-sum-exp, so that it is checked
 * alone; one case chains the library's own forward into it. The reference itself is checked
 * against finite differences of the double forward. Errors are norm-relative per gradient tensor,
 * ||got - ref||_2 / ||ref||_2 (elementwise bounds mean little where dS sums terms of both signs).
 * Outputs are poisoned (NaN) first, their row padding must stay poisoned and guard elements past
 * their ends untouched; a second call must give the same bits. CDNA's tiles run on its ping-pong
 * schedule on the host too. A GPU-only case runs B 2 H 4 N 2048
 * D 128 and prints its largest errors. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/half_bits.h"
#include "support/test_support.h"
#include "tests/kernels/attention_backward_pingpong_kernels.h"
#if defined(TESSERA_BACKEND_HOST)
#include "backends/host/runtime_host.h"
#endif

static unsigned short to_bits(double x, ts_dtype t) {
    return t == TS_DTYPE_BF16 ? ts_bf16_bits_from_f32((float)x) : ts_fp16_bits_from_f32((float)x);
}
static double from_bits(unsigned short b, ts_dtype t) {
    return t == TS_DTYPE_BF16 ? ts_f32_from_bf16_bits(b) : ts_f32_from_fp16_bits(b);
}

/* ---- the reference, in double, on dense (B, H, N, D) arrays ------------------------------------ */

typedef struct {
    int b, hq, hkv, nq, nkv, d, causal;
    double scale;
} ref_shape;

static size_t qi(const ref_shape *s, int b, int h, int i) { return (((size_t)b * s->hq + h) * s->nq + i) * s->d; }
static size_t ki(const ref_shape *s, int b, int h, int j) { return (((size_t)b * s->hkv + h) * s->nkv + j) * s->d; }

/* The scores of row (b, h, i) into sc (masked: -inf) and the row's log-sum-exp. */
static double ref_row(const ref_shape *s, const double *q, const double *k, int b, int h, int i, double *sc) {
    const int hk = h / (s->hq / s->hkv);
    double m = -INFINITY, l = 0.0;
    for (int j = 0; j < s->nkv; ++j) {
        double dot = 0.0;
        for (int d = 0; d < s->d; ++d) dot += q[qi(s, b, h, i) + d] * k[ki(s, b, hk, j) + d];
        sc[j] = (s->causal && j > i) ? -INFINITY : dot * s->scale;
        if (sc[j] > m) m = sc[j];
    }
    for (int j = 0; j < s->nkv; ++j) l += sc[j] == -INFINITY ? 0.0 : exp(sc[j] - m);
    return m + log(l);
}

/* O and lse. */
static void ref_forward(const ref_shape *s, const double *q, const double *k, const double *v, double *o, double *lse) {
    double *sc = calloc(s->nkv, sizeof(double));
    for (int b = 0; b < s->b; ++b)
        for (int h = 0; h < s->hq; ++h) {
            const int hk = h / (s->hq / s->hkv);
            for (int i = 0; i < s->nq; ++i) {
                const double L = ref_row(s, q, k, b, h, i, sc);
                lse[((size_t)b * s->hq + h) * s->nq + i] = L;
                /* Each element of O sums its keys in key order, as one exp a key and rows of V
                 * read whole (the large GPU case's reference was most of its time otherwise). */
                double *orow = o + qi(s, b, h, i);
                for (int d = 0; d < s->d; ++d) orow[d] = 0.0;
                for (int j = 0; j < s->nkv; ++j) {
                    if (sc[j] == -INFINITY) continue;
                    const double p = exp(sc[j] - L);
                    const double *vrow = v + ki(s, b, hk, j);
                    for (int d = 0; d < s->d; ++d) orow[d] += p * vrow[d];
                }
            }
        }
    free(sc);
}

/* dQ, dK, dV of the loss sum(dO * O), with O from ref_forward. */
static void ref_backward(const ref_shape *s, const double *q, const double *k, const double *v, const double *o,
                         const double *d_o, double *dq, double *dk, double *dv) {
    double *sc = calloc(s->nkv, sizeof(double));
    memset(dq, 0, sizeof(double) * qi(s, s->b, 0, 0));
    memset(dk, 0, sizeof(double) * ki(s, s->b, 0, 0));
    memset(dv, 0, sizeof(double) * ki(s, s->b, 0, 0));
    for (int b = 0; b < s->b; ++b)
        for (int h = 0; h < s->hq; ++h) {
            const int hk = h / (s->hq / s->hkv);
            for (int i = 0; i < s->nq; ++i) {
                const double L = ref_row(s, q, k, b, h, i, sc);
                double D = 0.0;
                for (int d = 0; d < s->d; ++d) D += d_o[qi(s, b, h, i) + d] * o[qi(s, b, h, i) + d];
                for (int j = 0; j < s->nkv; ++j) {
                    if (sc[j] == -INFINITY) continue;
                    const double p = exp(sc[j] - L);
                    double dp = 0.0;
                    for (int d = 0; d < s->d; ++d) dp += d_o[qi(s, b, h, i) + d] * v[ki(s, b, hk, j) + d];
                    const double ds = p * (dp - D) * s->scale;
                    for (int d = 0; d < s->d; ++d) {
                        dv[ki(s, b, hk, j) + d] += p * d_o[qi(s, b, h, i) + d];
                        dq[qi(s, b, h, i) + d] += ds * k[ki(s, b, hk, j) + d];
                        dk[ki(s, b, hk, j) + d] += ds * q[qi(s, b, h, i) + d];
                    }
                }
            }
        }
    free(sc);
}

static double ref_loss(const ref_shape *s, const double *q, const double *k, const double *v, const double *d_o) {
    const size_t nq = qi(s, s->b, 0, 0);
    double *o = calloc(nq, sizeof(double)), *lse = calloc(s->b * s->hq * s->nq, sizeof(double)), loss = 0.0;
    ref_forward(s, q, k, v, o, lse);
    for (size_t i = 0; i < nq; ++i) loss += o[i] * d_o[i];
    free(o);
    free(lse);
    return loss;
}

/* The reference's gradients against central differences of its own forward, element by element on
 * a few shapes small enough for it (in double, steps of 1e-5: truncation and rounding both far
 * below the 1e-6 relative bound). */
Test(attention_backward, reference_matches_finite_differences) {
    const ref_shape shapes[] = {
        {1, 2, 1, 5, 7, 16, 0, 0.3},
        {1, 4, 2, 6, 4, 16, 1, 0.25},
        {2, 1, 1, 3, 9, 8, 1, 0.5},
    };
    uint64_t seed = ts_test_fresh_seed(), st = seed;
    for (size_t c = 0; c < sizeof shapes / sizeof shapes[0]; ++c) {
        const ref_shape *s = &shapes[c];
        const size_t nq = qi(s, s->b, 0, 0), nk = ki(s, s->b, 0, 0);
        double *q = calloc(nq, sizeof(double)), *k = calloc(nk, sizeof(double)), *v = calloc(nk, sizeof(double));
        double *d_o = calloc(nq, sizeof(double)), *o = calloc(nq, sizeof(double));
        double *lse = calloc(s->b * s->hq * s->nq, sizeof(double));
        double *dq = calloc(nq, sizeof(double)), *dk = calloc(nk, sizeof(double)), *dv = calloc(nk, sizeof(double));
        for (size_t i = 0; i < nq; ++i) q[i] = ts_test_normal(&st), d_o[i] = ts_test_normal(&st);
        for (size_t i = 0; i < nk; ++i) k[i] = ts_test_normal(&st), v[i] = ts_test_normal(&st);
        ref_forward(s, q, k, v, o, lse);
        ref_backward(s, q, k, v, o, d_o, dq, dk, dv);
        double *xs[3] = {q, k, v}, *gs[3] = {dq, dk, dv};
        const size_t ns[3] = {nq, nk, nk};
        const char *names[3] = {"dQ", "dK", "dV"};
        for (int t = 0; t < 3; ++t)
            for (size_t i = 0; i < ns[t]; ++i) {
                const double x = xs[t][i], h = 1e-5;
                xs[t][i] = x + h;
                const double up = ref_loss(s, q, k, v, d_o);
                xs[t][i] = x - h;
                const double down = ref_loss(s, q, k, v, d_o);
                xs[t][i] = x;
                const double fd = (up - down) / (2 * h);
                cr_assert_leq(fabs(fd - gs[t][i]), 1e-6 * (1.0 + fabs(fd)), "shape %zu %s[%zu]: %g vs finite difference %g (seed %llu)",
                              c, names[t], i, gs[t][i], fd, (unsigned long long)seed);
            }
        free(q), free(k), free(v), free(d_o), free(o), free(lse), free(dq), free(dk), free(dv);
    }
}

/* ---- the library against the reference --------------------------------------------------------- */

typedef struct {
    int b, hq, hkv, nq, nkv, d, causal, pad;
    ts_dtype dtype;
    int chain_forward; /* 1: O and lse from ts_attention_forward instead of the reference */
    int pingpong_blocks; /* > 0: CDNA's tiles on the ping-pong schedule, on that many blocks */
} bwd_case;

#define GUARD 64 /* poisoned elements past each output's end */

typedef struct {
    double dq, dk, dv;          /* norm-relative errors */
    double worst_dq, worst_dk, worst_dv; /* largest absolute errors */
} bwd_errors;

static double norm_rel(const double *ref, const unsigned short *got, const ref_shape *s, long long row, int nrows,
                       ts_dtype t, double *worst) {
    double e2 = 0.0, r2 = 0.0;
    *worst = 0.0;
    for (long long r = 0; r < nrows; ++r)
        for (int d = 0; d < s->d; ++d) {
            const double g = from_bits(got[r * row + d], t), x = ref[r * s->d + d];
            cr_assert(isfinite(g), "element (%lld, %d) = %g", r, d, g);
            e2 += (g - x) * (g - x);
            r2 += x * x;
            if (fabs(g - x) > *worst) *worst = fabs(g - x);
        }
    /* A floor of 1e-3 RMS where the reference is all but zero (a single key: dQ = dK = 0, which the
     * kernel gives up to the rounding of dP - D). */
    return sqrt(e2 / (r2 + 1e-6 * nrows * s->d));
}

/* ts_attention_backward (flags ~0u) or ts_attention_backward_ex with flags, or with pingpong_blocks
 * > 0 the test kernels' ping-pong schedule on that many blocks (its form whatever the flags); Q, O, dO and dQ share the strides qs, K, V, dK and dV the strides ks. */
static ts_status run_backward(int pingpong_blocks, unsigned flags, const ts_attention_shape *shape, ts_dtype t, const void *q,
                              const void *k, const void *v, const void *o, const void *d_o, const long long qs[3],
                              const long long ks[3], const float *lse, void *dq, void *dk, void *dv, float scale,
                              int causal, void *ws, size_t ws_bytes) {
    if (pingpong_blocks > 0)
        return ts_test_pingpong_attention_backward(shape, t, q, qs, k, ks, v, ks, o, qs, d_o, qs, lse, dq, qs, dk, ks,
                                                   dv, ks, scale, causal, ws, ws_bytes, pingpong_blocks);
    if (flags == ~0u)
        return ts_attention_backward(shape, t, q, qs, k, ks, v, ks, o, qs, d_o, qs, lse, dq, qs, dk, ks, dv, ks, scale,
                                     causal, ws, ws_bytes, NULL);
    return ts_attention_backward_ex(shape, t, q, qs, k, ks, v, ks, o, qs, d_o, qs, lse, dq, qs, dk, ks, dv, ks, scale,
                                    causal, flags, ws, ws_bytes, NULL);
}

static bwd_errors check_backward(bwd_case c) {
    uint64_t seed = ts_test_fresh_seed(), st = seed;
    const ts_dtype t = c.dtype;
    const ref_shape s = {c.b, c.hq, c.hkv, c.nq, c.nkv, c.d, c.causal, 1.0 / sqrt((double)c.d)};
    const float scale = (float)s.scale;
    const long long row = c.d + c.pad;
    const long long qs[3] = {(long long)c.hq * c.nq * row, (long long)c.nq * row, row};
    const long long ks[3] = {(long long)c.hkv * c.nkv * row, (long long)c.nkv * row, row};
    const size_t nq = (size_t)c.b * qs[0], nk = (size_t)c.b * ks[0];
    const size_t dq_elems = qi(&s, c.b, 0, 0), dk_elems = ki(&s, c.b, 0, 0);
    /* Inputs: random normals rounded to the dtype, strided; their doubles dense. */
    unsigned short *hq_ = malloc(nq * 2), *hk_ = malloc(nk * 2), *hv_ = malloc(nk * 2), *hdo = malloc(nq * 2);
    unsigned short *ho = malloc(nq * 2);
    double *q = calloc(dq_elems, sizeof(double)), *k = calloc(dk_elems, sizeof(double));
    double *v = calloc(dk_elems, sizeof(double)), *d_o = calloc(dq_elems, sizeof(double));
    double *o = calloc(dq_elems, sizeof(double)), *lse = calloc(c.b * c.hq * c.nq, sizeof(double));
    double *rdq = calloc(dq_elems, sizeof(double)), *rdk = calloc(dk_elems, sizeof(double));
    double *rdv = calloc(dk_elems, sizeof(double));
    float *flse = calloc(c.b * c.hq * c.nq, sizeof(float));
    memset(hq_, 0, nq * 2), memset(hk_, 0, nk * 2), memset(hv_, 0, nk * 2), memset(hdo, 0, nq * 2), memset(ho, 0, nq * 2);
    for (int b = 0; b < c.b; ++b)
        for (int h = 0; h < c.hq; ++h)
            for (int i = 0; i < c.nq; ++i)
                for (int d = 0; d < c.d; ++d) {
                    const size_t at = (size_t)b * qs[0] + h * qs[1] + i * qs[2] + d;
                    hq_[at] = to_bits(ts_test_normal(&st), t);
                    hdo[at] = to_bits(ts_test_normal(&st), t);
                    q[qi(&s, b, h, i) + d] = from_bits(hq_[at], t);
                    d_o[qi(&s, b, h, i) + d] = from_bits(hdo[at], t);
                }
    for (int b = 0; b < c.b; ++b)
        for (int h = 0; h < c.hkv; ++h)
            for (int j = 0; j < c.nkv; ++j)
                for (int d = 0; d < c.d; ++d) {
                    const size_t at = (size_t)b * ks[0] + h * ks[1] + j * ks[2] + d;
                    hk_[at] = to_bits(ts_test_normal(&st), t);
                    hv_[at] = to_bits(ts_test_normal(&st), t);
                    k[ki(&s, b, h, j) + d] = from_bits(hk_[at], t);
                    v[ki(&s, b, h, j) + d] = from_bits(hv_[at], t);
                }
    ref_forward(&s, q, k, v, o, lse);
    ref_backward(&s, q, k, v, o, d_o, rdq, rdk, rdv);
    for (int b = 0; b < c.b; ++b)
        for (int h = 0; h < c.hq; ++h)
            for (int i = 0; i < c.nq; ++i)
                for (int d = 0; d < c.d; ++d)
                    ho[(size_t)b * qs[0] + h * qs[1] + i * qs[2] + d] = to_bits(o[qi(&s, b, h, i) + d], t);
    for (size_t i = 0; i < (size_t)c.b * c.hq * c.nq; ++i) flse[i] = (float)lse[i];

    const ts_attention_shape shape = {c.b, c.hq, c.hkv, c.nq, c.nkv, c.d};
    size_t ws_bytes = 0;
    cr_assert_eq(ts_attention_backward_workspace_size(&shape, &ws_bytes), TS_SUCCESS);
    void *dq_in = ts_test_device_copy(hq_, nq * 2), *dk_in = ts_test_device_copy(hk_, nk * 2);
    void *dv_in = ts_test_device_copy(hv_, nk * 2), *ddo = ts_test_device_copy(hdo, nq * 2);
    void *d_o_ = ts_test_device_copy(c.chain_forward ? NULL : ho, nq * 2);
    float *dlse = ts_test_device_copy(c.chain_forward ? NULL : flse, sizeof(float) * c.b * c.hq * c.nq);
    /* Outputs poisoned, with guard elements past their ends. */
    unsigned short *gq = ts_test_device_copy(NULL, (nq + GUARD) * 2), *gk = ts_test_device_copy(NULL, (nk + GUARD) * 2);
    unsigned short *gv = ts_test_device_copy(NULL, (nk + GUARD) * 2);
    void *ws = ts_test_device_copy(NULL, ws_bytes);
    cr_assert(dq_in && dk_in && dv_in && ddo && d_o_ && dlse && gq && gk && gv && ws);
    if (c.chain_forward) {
        cr_assert_eq(ts_attention_forward(&shape, t, dq_in, qs, dk_in, ks, dv_in, ks, d_o_, qs, dlse, scale, c.causal, NULL),
                     TS_SUCCESS);
    }
    /* The default form first (ts_attention_backward: dQ summed with atomics). */
    cr_assert_eq(run_backward(c.pingpong_blocks, ~0u, &shape, t, dq_in, dk_in, dv_in, d_o_, ddo, qs, ks, dlse, gq, gk, gv,
                              scale, c.causal, ws, ws_bytes),
                 TS_SUCCESS);
    cr_assert_eq(ts_device_synchronize(), TS_SUCCESS);
    unsigned short *rq = malloc((nq + GUARD) * 2), *rk = malloc((nk + GUARD) * 2), *rv = malloc((nk + GUARD) * 2);
    cr_assert_eq(ts_test_copy_back(rq, gq, (nq + GUARD) * 2), TS_SUCCESS);
    cr_assert_eq(ts_test_copy_back(rk, gk, (nk + GUARD) * 2), TS_SUCCESS);
    cr_assert_eq(ts_test_copy_back(rv, gv, (nk + GUARD) * 2), TS_SUCCESS);

    /* Padding and guards untouched. */
    for (size_t i = 0; i < nq + GUARD; ++i)
        if (i >= nq || (long long)(i % row) >= c.d) cr_assert_eq(rq[i], 0xFFFF, "dQ wrote element %zu outside the tensor", i);
    for (size_t i = 0; i < nk + GUARD; ++i)
        if (i >= nk || (long long)(i % row) >= c.d) {
            cr_assert_eq(rk[i], 0xFFFF, "dK wrote element %zu outside the tensor", i);
            cr_assert_eq(rv[i], 0xFFFF, "dV wrote element %zu outside the tensor", i);
        }

    bwd_errors e = {0, 0, 0, 0, 0, 0};
    /* Dense (B H N) x D views: consecutive heads and rows are `row` apart in the strided buffers. */
    e.dq = norm_rel(rdq, rq, &s, row, c.b * c.hq * c.nq, t, &e.worst_dq);
    e.dk = norm_rel(rdk, rk, &s, row, c.b * c.hkv * c.nkv, t, &e.worst_dk);
    e.dv = norm_rel(rdv, rv, &s, row, c.b * c.hkv * c.nkv, t, &e.worst_dv);
    /* bf16 keeps 8 bits (P, dS and the outputs are rounded to it), fp16 11. */
    const double tol = t == TS_DTYPE_BF16 ? 1e-2 : 2e-3;
    cr_assert_leq(e.dq, tol, "dQ relative error %g (largest %g; B %d H %d/%d N %d/%d D %d causal %d, seed %llu)", e.dq,
                  e.worst_dq, c.b, c.hq, c.hkv, c.nq, c.nkv, c.d, c.causal, (unsigned long long)seed);
    cr_assert_leq(e.dk, tol, "dK relative error %g (largest %g; B %d H %d/%d N %d/%d D %d causal %d, seed %llu)", e.dk,
                  e.worst_dk, c.b, c.hq, c.hkv, c.nq, c.nkv, c.d, c.causal, (unsigned long long)seed);
    cr_assert_leq(e.dv, tol, "dV relative error %g (largest %g; B %d H %d/%d N %d/%d D %d causal %d, seed %llu)", e.dv,
                  e.worst_dv, c.b, c.hq, c.hkv, c.nq, c.nkv, c.d, c.causal, (unsigned long long)seed);

    /* The deterministic form: as accurate; dK and dV the same bits as the default form's (only dQ is
     * summed differently); and a second deterministic call gives the same bits everywhere. */
    const size_t most = (nq > nk ? nq : nk) + GUARD;
    unsigned short *first = malloc(most * 2), *again = malloc(most * 2);
    cr_assert(first && again);
    cr_assert_eq(run_backward(c.pingpong_blocks, TS_ATTENTION_DETERMINISTIC, &shape, t, dq_in, dk_in, dv_in, d_o_, ddo, qs, ks,
                              dlse, gq, gk, gv, scale, c.causal, ws, ws_bytes), TS_SUCCESS);
    cr_assert_eq(ts_device_synchronize(), TS_SUCCESS);
    cr_assert_eq(ts_test_copy_back(first, gq, (nq + GUARD) * 2), TS_SUCCESS);
    double worst = 0;
    const double det_dq = norm_rel(rdq, first, &s, row, c.b * c.hq * c.nq, t, &worst);
    cr_assert_leq(det_dq, tol, "deterministic dQ relative error %g (largest %g; seed %llu)", det_dq, worst,
                  (unsigned long long)seed);
    cr_assert_eq(ts_test_copy_back(again, gk, (nk + GUARD) * 2), TS_SUCCESS);
    cr_assert(memcmp(again, rk, (nk + GUARD) * 2) == 0, "dK differs between the two forms");
    cr_assert_eq(ts_test_copy_back(again, gv, (nk + GUARD) * 2), TS_SUCCESS);
    cr_assert(memcmp(again, rv, (nk + GUARD) * 2) == 0, "dV differs between the two forms");
    cr_assert_eq(run_backward(c.pingpong_blocks, TS_ATTENTION_DETERMINISTIC, &shape, t, dq_in, dk_in, dv_in, d_o_, ddo, qs, ks,
                              dlse, gq, gk, gv, scale, c.causal, ws, ws_bytes), TS_SUCCESS);
    cr_assert_eq(ts_device_synchronize(), TS_SUCCESS);
    cr_assert_eq(ts_test_copy_back(again, gq, (nq + GUARD) * 2), TS_SUCCESS);
    cr_assert(memcmp(again, first, (nq + GUARD) * 2) == 0, "deterministic dQ differs between two calls");
    cr_assert_eq(ts_test_copy_back(again, gk, (nk + GUARD) * 2), TS_SUCCESS);
    cr_assert(memcmp(again, rk, (nk + GUARD) * 2) == 0, "dK differs between two calls");
    cr_assert_eq(ts_test_copy_back(again, gv, (nk + GUARD) * 2), TS_SUCCESS);
    cr_assert(memcmp(again, rv, (nk + GUARD) * 2) == 0, "dV differs between two calls");

    void *bufs[] = {dq_in, dk_in, dv_in, ddo, d_o_, dlse, gq, gk, gv, ws};
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; ++i) cr_assert_eq(ts_free(bufs[i]), TS_SUCCESS);
    free(hq_), free(hk_), free(hv_), free(hdo), free(ho), free(q), free(k), free(v), free(d_o), free(o), free(lse);
    free(rdq), free(rdk), free(rdv), free(flse), free(rq), free(rk), free(rv), free(first), free(again);
    return e;
}

Test(attention_backward, ragged_lengths_d64_bf16) {
    TS_TEST_REQUIRE_DEVICE();
    for (int causal = 0; causal < 2; ++causal) {
        check_backward((bwd_case){1, 1, 1, 1, 1, 64, causal, 0, TS_DTYPE_BF16, 0, 0});
        check_backward((bwd_case){1, 2, 2, 17, 100, 64, causal, 0, TS_DTYPE_BF16, 0, 0});
        check_backward((bwd_case){1, 1, 1, 193, 17, 64, causal, 8, TS_DTYPE_BF16, 0, 0});
        check_backward((bwd_case){1, 1, 1, 100, 193, 64, causal, 0, TS_DTYPE_BF16, 0, 0});
    }
}

Test(attention_backward, ragged_lengths_d128_fp16) {
    TS_TEST_REQUIRE_DEVICE();
    for (int causal = 0; causal < 2; ++causal) {
        check_backward((bwd_case){1, 1, 1, 17, 1, 128, causal, 0, TS_DTYPE_FP16, 0, 0});
        check_backward((bwd_case){1, 1, 1, 193, 100, 128, causal, 16, TS_DTYPE_FP16, 0, 0});
        check_backward((bwd_case){1, 1, 1, 100, 193, 128, causal, 0, TS_DTYPE_FP16, 0, 0});
    }
}

Test(attention_backward, grouped_query_heads) {
    TS_TEST_REQUIRE_DEVICE();
    /* Four query heads a key-value head: dK and dV sum over them. */
    check_backward((bwd_case){2, 4, 1, 70, 130, 64, 1, 0, TS_DTYPE_FP16, 0, 0});
    check_backward((bwd_case){1, 8, 2, 100, 65, 128, 0, 0, TS_DTYPE_BF16, 0, 0});
    check_backward((bwd_case){1, 4, 1, 129, 193, 128, 1, 8, TS_DTYPE_BF16, 0, 0});
}

#if defined(TESSERA_BACKEND_HOST)
/* Both forms' protocols with one warp slow (ts_host_set_slow_warp): the producer, then a warp of
 * the first and of the second consumer warpgroup, 1 ms before each of its waits. The deterministic
 * form's dK/dV and dQ kernels (D = 64, causal, grouped heads), and the atomic form (D = 128, not
 * causal) over ten stages a task, so that its three dS^T slots and their announcements go round
 * three times while one consumer lags. */
Test(attention_backward, slow_warps_keep_the_protocol) {
    TS_TEST_REQUIRE_DEVICE();
    const int warps[3] = {0, 4, 8};
    for (int i = 0; i < 3; ++i) {
        ts_host_set_slow_warp(0, warps[i], 1000);
        check_backward((bwd_case){1, 2, 1, 200, 300, 64, 1, 0, TS_DTYPE_BF16, 0, 0});
        check_backward((bwd_case){1, 2, 1, 300, 260, 128, 0, 0, TS_DTYPE_FP16, 0, 0});
    }
    ts_host_set_slow_warp(0, -1, 0);
}
#endif

Test(attention_backward, after_the_library_forward) {
    TS_TEST_REQUIRE_DEVICE();
    check_backward((bwd_case){1, 2, 1, 150, 150, 64, 1, 0, TS_DTYPE_BF16, 1, 0});
    check_backward((bwd_case){1, 2, 2, 77, 200, 128, 0, 0, TS_DTYPE_FP16, 1, 0});
}

Test(attention_backward, cdna_tiles_on_the_pingpong_schedule) {
    TS_TEST_REQUIRE_DEVICE();
    /* One consumer, one stage, 32-row stages at D = 128; three blocks loop over the tasks. */
    for (int causal = 0; causal < 2; ++causal) {
        check_backward((bwd_case){1, 4, 1, 100, 130, 64, causal, 0, TS_DTYPE_BF16, 0, 3});
        check_backward((bwd_case){1, 2, 2, 193, 70, 128, causal, 8, TS_DTYPE_FP16, 0, 3});
    }
}

/* Long sequences on a GPU (the host backend would take minutes): every query tile and key block
 * of a real size, the pipeline wrapping many times. */
Test(attention_backward, large_on_gpu) {
    if (!ts_test_on_gpu()) cr_skip_test("large sizes run on a GPU only");
    TS_TEST_REQUIRE_DEVICE();
    for (int causal = 0; causal < 2; ++causal) {
        const bwd_errors e = check_backward((bwd_case){2, 4, 4, 2048, 2048, 128, causal, 0, TS_DTYPE_BF16, 0, 0});
        fprintf(stderr,
                "attention backward B2 H4 N2048 D128 bf16 causal %d: relative errors dQ %.3g dK %.3g dV %.3g; largest "
                "%.3g %.3g %.3g\n",
                causal, e.dq, e.dk, e.dv, e.worst_dq, e.worst_dk, e.worst_dv);
    }
}
