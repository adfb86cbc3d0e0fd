/* The GEMV kernels (kernels/gemv/) against a double-precision reference: every M from 1 to 8 (the
 * four buckets of instances and the rows each leaves unused), both weight layouts, bf16 and fp16
 * operands, fp32, bf16 and fp16 C, alpha and beta, odd N and K (tails of every step), leading
 * dimensions that are not multiples of 8 and pointers off 16 bytes (the element-by-element path),
 * and ts_gemm's dispatch of M <= 8 to them. Inputs are fresh random normals each run; the padding
 * of A and B and the zones around them hold NaN, so that a value read from them shows in C; C is
 * poisoned (NaN) before each run, and its padding and the guard zones around it must stay so.
 * The GPU case runs Llama projection shapes and skips without a GPU. The exchanges across lanes,
 * which the host's one-lane warps never make, run on a CPU model of 32- and 64-lane warps
 * (support/warp_dot_model.h). */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "backends/half_bits.h"
#include "kernels/gemv/gemv.h"
#include "support/dtype_io.h"
#include "support/test_support.h"
#include "support/warp_dot_model.h"

#define GUARD 64 /* bytes of poison on each side of every buffer */

static unsigned short to_half_bits(float x, ts_dtype t) {
    return t == TS_DTYPE_BF16 ? ts_bf16_bits_from_f32(x) : ts_fp16_bits_from_f32(x);
}
static double from_half_bits(unsigned short b, ts_dtype t) {
    return t == TS_DTYPE_BF16 ? ts_f32_from_bf16_bits(b) : ts_f32_from_fp16_bits(b);
}
static size_t dtype_bytes(ts_dtype t) { return t == TS_DTYPE_F32 ? 4 : 2; }
static double load_elem(const unsigned char *p, ts_dtype t, size_t i) {
    if (t == TS_DTYPE_F32) {
        float f;
        memcpy(&f, p + 4 * i, 4);
        return f;
    }
    unsigned short b;
    memcpy(&b, p + 2 * i, 2);
    return from_half_bits(b, t);
}
static void store_elem(unsigned char *p, ts_dtype t, size_t i, float x) {
    if (t == TS_DTYPE_F32) {
        memcpy(p + 4 * i, &x, 4);
    } else {
        const unsigned short b = to_half_bits(x, t);
        memcpy(p + 2 * i, &b, 2);
    }
}

/* A matrix of rows x ld elements `off` elements past a 16-byte boundary, between guard zones: the
 * host image (guards, padding and offset poisoned with 0xff bytes, NaN in every dtype) and its
 * device copy; `at` is the first element's offset in the image. tight: no guard after the matrix,
 * which ends at its last element, so that the host's AddressSanitizer sees a read past it. */
typedef struct {
    unsigned char *host;
    void *device;
    size_t total, at;
    int tight; /* device is host memory of the image's size (guarded_upload) */
} guarded;

static guarded guarded_make(long long rows, long long ld, long long cols, size_t elem, int off, int tight) {
    guarded g;
    g.at = GUARD + (size_t)off * elem;
    g.total = g.at + (tight ? (size_t)((rows - 1) * ld + cols) * elem : (size_t)(rows * ld) * elem + GUARD);
    g.host = malloc(g.total);
    cr_assert(g.host);
    memset(g.host, 0xff, g.total);
    g.device = NULL;
    g.tight = 0;
    return g;
}
static void guarded_upload(guarded *g, int tight) {
    /* tight on the host backend: memory of exactly the image's size (ts_malloc rounds sizes up to
     * 256 bytes, where AddressSanitizer would not see a read past the matrix). */
    g->tight = tight && !ts_test_on_gpu();
    if (g->tight) {
        cr_assert_eq(posix_memalign(&g->device, 16, g->total), 0);
        memcpy(g->device, g->host, g->total);
    } else {
        g->device = ts_test_device_copy(g->host, g->total);
    }
    cr_assert(g->device);
}
static void *guarded_ptr(const guarded *g) { return (unsigned char *)g->device + g->at; }
static void guarded_free(guarded *g) {
    if (g->tight)
        free(g->device);
    else
        cr_assert_eq(ts_free(g->device), TS_SUCCESS);
    free(g->host);
}

typedef struct {
    ts_trans tb;
    int m, n, k;
    ts_dtype in, out;
    float alpha, beta;
    int pad;      /* leading dimensions: the row length plus pad, or rounded up to 8 (-1) */
    int off;      /* pointers this many elements past 16 bytes */
    int via_gemm; /* 1: through ts_gemm (which needs pad, off keeping 16-byte alignment); 2: through
                   * ts_gemm_ex with a workspace */
    int sample;   /* check every sample-th column (and the last ones) only: large shapes */
    int tight;    /* A, B and C end at their last elements (guarded_make) */
} gemv_case;

/* A leading dimension: the row length plus pad, or for pad < 0 the row length rounded up to 8. */
static long long leading(long long cols, int pad) { return pad < 0 ? (cols + 7) / 8 * 8 : cols + pad; }

/* Runs the case and checks C against the reference; returns C as the device left it (the
 * caller frees it) for the determinism test. */
static unsigned char *check_gemv(gemv_case g) {
    uint64_t seed = ts_test_fresh_seed(), st = seed;
    const long long b_rows = g.tb ? g.n : g.k, b_cols = g.tb ? g.k : g.n;
    const long long lda = leading(g.k, g.pad), ldb = leading(b_cols, g.pad), ldc = leading(g.n, g.pad);
    const size_t cb = dtype_bytes(g.out);
    guarded a = guarded_make(g.m, lda, g.k, 2, g.off, g.tight), b = guarded_make(b_rows, ldb, b_cols, 2, g.off, g.tight);
    guarded c = guarded_make(g.m, ldc, g.n, cb, g.off, g.tight);
    for (long long i = 0; i < g.m; ++i)
        for (long long j = 0; j < g.k; ++j)
            store_elem(a.host + a.at, g.in, (size_t)(i * lda + j), (float)ts_test_normal(&st));
    /* B, the large operand (the Llama shapes' weights), two draws at a time. */
    const long long b_elems = b_rows * b_cols;
    for (long long e = 0; e < b_elems; e += 2) {
        double first, second;
        ts_test_normal_pair(&st, &first, &second);
        store_elem(b.host + b.at, g.in, (size_t)(e / b_cols * ldb + e % b_cols), (float)first);
        if (e + 1 < b_elems)
            store_elem(b.host + b.at, g.in, (size_t)((e + 1) / b_cols * ldb + (e + 1) % b_cols), (float)second);
    }
    /* With beta == 0 the kernel must not read C: it stays NaN. */
    unsigned char *c_in = malloc(c.total);
    cr_assert(c_in);
    if (g.beta != 0.0f)
        for (long long i = 0; i < g.m; ++i)
            for (long long j = 0; j < g.n; ++j)
                store_elem(c.host + c.at, g.out, (size_t)(i * ldc + j), (float)ts_test_normal(&st));
    memcpy(c_in, c.host, c.total);
    guarded_upload(&a, g.tight);
    guarded_upload(&b, g.tight);
    guarded_upload(&c, g.tight);
    ts_status s;
    size_t ws_bytes = 0;
    void *ws = NULL;
    if (g.via_gemm == 2) {
        cr_assert_eq(ts_gemm_workspace_size(&ws_bytes), TS_SUCCESS);
        cr_assert_eq(ts_malloc(&ws, ws_bytes), TS_SUCCESS);
        cr_assert_eq(ts_memset(ws, 0, ws_bytes), TS_SUCCESS);
    }
    if (g.via_gemm)
        s = ts_gemm_ex(TS_NO_TRANS, g.tb, g.m, g.n, g.k, g.alpha, guarded_ptr(&a), g.in, lda, guarded_ptr(&b), g.in,
                       ldb, g.beta, guarded_ptr(&c), g.out, ldc, ws, ws_bytes, NULL);
    else
        s = ts_gemv_run(g.tb, g.m, g.n, g.k, g.alpha, guarded_ptr(&a), g.in, lda, guarded_ptr(&b), ldb, g.beta,
                        guarded_ptr(&c), g.out, ldc, NULL);
    cr_assert_eq(s, TS_SUCCESS, "tb%d %dx%dx%d: %s", g.tb, g.m, g.n, g.k, ts_status_string(s));
    cr_assert_eq(ts_device_synchronize(), TS_SUCCESS);
    if (ws) cr_assert_eq(ts_free(ws), TS_SUCCESS);
    if (c.tight)
        memcpy(c.host, c.device, c.total);
    else
        cr_assert_eq(ts_test_copy_back(c.host, c.device, c.total), TS_SUCCESS);

    const unsigned char *ah = a.host + a.at, *bh = b.host + b.at, *ch = c.host + c.at;
    const double out_eps = g.out == TS_DTYPE_F32 ? 0.0 : g.out == TS_DTYPE_BF16 ? 1.0 / 256 : 1.0 / 2048;
    for (int i = 0; i < g.m; ++i)
        for (int j = 0; j < g.n; ++j) {
            if (g.sample > 1 && j % g.sample != 0 && j < g.n - 8) continue;
            double acc = 0.0, mag = 0.0;
            for (int kk = 0; kk < g.k; ++kk) {
                const double x = load_elem(ah, g.in, (size_t)i * lda + kk);
                const double y = load_elem(bh, g.in, g.tb ? (size_t)j * ldb + kk : (size_t)kk * ldb + j);
                acc += x * y;
                mag += fabs(x * y);
            }
            const size_t ci = (size_t)i * ldc + j;
            const double cin = g.beta != 0.0f ? load_elem(c_in + c.at, g.out, ci) : 0.0;
            const double ref = g.alpha * acc + g.beta * cin;
            const double got = load_elem(ch, g.out, ci);
            /* fp32 accumulation over K terms, then rounding to C's dtype. */
            const double tol = 1e-5 * fabs(g.alpha) * (mag + 1.0) + out_eps * fabs(ref) + 1e-6 * fabs(g.beta * cin);
            cr_assert(fabs(got - ref) <= tol,
                      "tb%d %dx%dx%d in%d out%d pad%d off%d: C(%d,%d) = %.7g, reference %.7g (seed %llu)", g.tb,
                      g.m, g.n, g.k, g.in, g.out, g.pad, g.off, i, j, got, ref, (unsigned long long)seed);
        }
    /* Nothing outside C's elements was written: its padding, the offset and the guard zones are
     * as they were. */
    for (size_t i = 0; i < c.total; ++i) {
        const size_t e = i >= c.at ? (i - c.at) / cb : 0;
        const int inside = i >= c.at && (long long)(e % ldc) < g.n;
        if (!inside) cr_assert_eq(c.host[i], c_in[i], "tb%d %dx%dx%d: byte %zu outside C written", g.tb, g.m, g.n, g.k, i);
    }
    unsigned char *result = malloc(c.total);
    cr_assert(result);
    memcpy(result, c.host, c.total);
    free(c_in);
    guarded_free(&a);
    guarded_free(&b);
    guarded_free(&c);
    return result;
}

static void run_case(gemv_case g) { free(check_gemv(g)); }

/* Odd sizes: one element; tails of every length inside a lane's 8 elements (K = 17, 3, 23: 1, 3, 7;
 * N = 130, 5, 7, 23: 2, 5, 7, 7); K one past a warp's step (4097) and one short (4095);
 * N not a multiple of the 4 weight rows of a block or of a band of columns. */
static const int shapes[][2] = {{1, 1}, {3, 17}, {17, 1000}, {1000, 3}, {5, 4097}, {130, 520}, {23, 4095}, {7, 23}};
#define SHAPES (int)(sizeof shapes / sizeof shapes[0])

Test(gemv, every_m_both_layouts_and_dtypes_at_odd_sizes) {
    TS_TEST_REQUIRE_DEVICE();
    const ts_dtype ins[2] = {TS_DTYPE_BF16, TS_DTYPE_FP16};
    for (int m = 1; m <= 8; ++m)
        for (int tb = 0; tb < 2; ++tb)
            for (int d = 0; d < 2; ++d)
                for (int s = 0; s < SHAPES; ++s) {
                    /* aligned (16-byte loads, ts_gemm's calls) */
                    gemv_case g = {(ts_trans)tb, m, shapes[s][0], shapes[s][1], ins[d], TS_DTYPE_F32, 1.0f, 0.0f, 8, 0,
                                   0, 0, 0};
                    run_case(g);
                }
}

Test(gemv, misaligned_leading_dimensions_and_pointers) {
    TS_TEST_REQUIRE_DEVICE();
    /* Leading dimensions the row length plus 1, 3 or 5 elements, and pointers 2 bytes past 16: every
     * access element by element; M in each bucket. */
    const int ms[4] = {1, 2, 3, 8};
    for (int i = 0; i < 4; ++i)
        for (int tb = 0; tb < 2; ++tb)
            for (int s = 1; s < SHAPES; ++s) {
                gemv_case g = {(ts_trans)tb, ms[i], shapes[s][0], shapes[s][1], TS_DTYPE_BF16, TS_DTYPE_F32, 1.0f, 0.0f,
                               1 + 2 * (s % 3), s % 2, 0, 0, 0};
                run_case(g);
            }
}

Test(gemv, nothing_read_past_the_matrices) {
    TS_TEST_REQUIRE_DEVICE();
    /* Matrices that end at their last element (on the host under AddressSanitizer a read past it
     * fails), with tails of 7 in N and K, and N's tail in a last row of K that is whole: leading
     * dimensions rounded up to multiples of 8 (16-byte loads up to the tails) and not. */
    static const int nk[3][2] = {{23, 1015}, {1015, 23}, {23, 1016}};
    const int ms[3] = {1, 3, 8};
    for (int i = 0; i < 3; ++i)
        for (int tb = 0; tb < 2; ++tb)
            for (int pad = -1; pad < 1; ++pad)
                for (int s = 0; s < 3; ++s) {
                    gemv_case g = {(ts_trans)tb, ms[i], nk[s][0], nk[s][1], TS_DTYPE_FP16, TS_DTYPE_BF16, 1.0f, 0.0f,
                                   pad, 0, 0, 0, 1};
                    run_case(g);
                }
}

Test(gemv, alpha_beta_and_every_output_type) {
    TS_TEST_REQUIRE_DEVICE();
    const ts_dtype outs[3] = {TS_DTYPE_F32, TS_DTYPE_BF16, TS_DTYPE_FP16};
    for (int o = 0; o < 3; ++o)
        for (int tb = 0; tb < 2; ++tb) {
            gemv_case g = {(ts_trans)tb, 5, 67, 300, TS_DTYPE_FP16, outs[o], -0.5f, 0.75f, 8, 0, 0, 0, 0};
            run_case(g);
            g.in = TS_DTYPE_BF16;
            g.alpha = 2.0f;
            g.beta = 0.0f;
            g.m = 2;
            run_case(g);
            g.beta = -1.0f;
            g.pad = 3;
            g.m = 7;
            run_case(g);
        }
}

Test(gemv, ts_gemm_hands_few_rows_to_gemv) {
    TS_TEST_REQUIRE_DEVICE();
    /* M <= 8 with A as stored: ts_gemm's calls (16-byte aligned, leading dimensions multiples of
     * 8), both layouts; with a workspace, which GEMV leaves alone. */
    for (int m = 1; m <= 8; m += 3)
        for (int tb = 0; tb < 2; ++tb) {
            gemv_case g = {(ts_trans)tb, m, 200, 1040, TS_DTYPE_BF16, TS_DTYPE_BF16, 1.0f, 0.0f, 8, 0, 1, 0, 0};
            run_case(g);
        }
    size_t bytes = 0;
    cr_assert_eq(ts_gemm_workspace_size(&bytes), TS_SUCCESS);
    void *ws = NULL, *a = NULL, *b = NULL, *c = NULL;
    cr_assert_eq(ts_malloc(&ws, bytes), TS_SUCCESS);
    cr_assert_eq(ts_memset(ws, 0, bytes), TS_SUCCESS);
    cr_assert_eq(ts_malloc(&a, 8 * 2048 * 2), TS_SUCCESS);
    cr_assert_eq(ts_malloc(&b, 256 * 2048 * 2), TS_SUCCESS);
    cr_assert_eq(ts_malloc(&c, 8 * 256 * 4), TS_SUCCESS);
    cr_assert_eq(ts_memset(a, 0x3f, 8 * 2048 * 2), TS_SUCCESS);
    cr_assert_eq(ts_memset(b, 0x3f, 256 * 2048 * 2), TS_SUCCESS);
    cr_assert_eq(ts_gemm_ex(TS_NO_TRANS, TS_TRANS, 8, 256, 2048, 1.0f, a, TS_DTYPE_BF16, 2048, b, TS_DTYPE_BF16, 2048,
                            0.0f, c, TS_DTYPE_F32, 256, ws, bytes, NULL),
                 TS_SUCCESS);
    cr_assert_eq(ts_device_synchronize(), TS_SUCCESS);
    unsigned char *h = malloc(bytes);
    cr_assert(h);
    cr_assert_eq(ts_test_copy_back(h, ws, bytes), TS_SUCCESS);
    for (size_t i = 0; i < bytes; ++i) cr_assert_eq(h[i], 0, "GEMV wrote to the workspace (byte %zu)", i);
    free(h);
    cr_assert_eq(ts_free(ws), TS_SUCCESS);
    cr_assert_eq(ts_free(a), TS_SUCCESS);
    cr_assert_eq(ts_free(b), TS_SUCCESS);
    cr_assert_eq(ts_free(c), TS_SUCCESS);
}

Test(gemv, ts_gemm_hands_5_to_8_rows_of_many_weight_rows_to_the_skinny_kernels) {
    TS_TEST_REQUIRE_DEVICE();
    /* From TS_GEMV_SKINNY_FROM_N weight rows (N x K) on (kernels/gemv/tuning.h; 4096 on sm_90a
     * and the host), ts_gemm and ts_gemm_ex run 5 to 8 rows on the 16-wide skinny kernels instead
     * of GEMV: cases on both sides of that bound and of 8192 (the bound before plain ts_gemm had
     * split-K), and of M = 4, beta and an fp32 C among them, K long enough to be split, every 13th
     * column checked (and the last ones); 3 and 4 rows against weights of 4096 x 8200 elements,
     * past TS_GEMV_SKINNY4_FROM_WEIGHTS, also go to the skinny kernels. */
    static const int cases[][4] = {{5, 8192, 0, 1}, {8, 8200, 1, 1}, {8, 8184, 0, 1}, {4, 8192, 1, 1},
                                   {6, 4096, 1, 2}, {8, 4104, 0, 2}, {7, 4088, 0, 2}, {4, 4096, 0, 2},
                                   {4, 4096, 1, 1}, {3, 4104, 0, 2}};
    for (int i = 0; i < 10; ++i) { /* M, N, beta, how */
        const int beta = cases[i][2];
        const int k = i >= 8 ? 8200 : cases[i][3] == 2 ? 2056 : 200;
        gemv_case g = {TS_TRANS, cases[i][0], cases[i][1], k, TS_DTYPE_BF16,
                       beta ? TS_DTYPE_F32 : TS_DTYPE_BF16, 1.5f, beta ? 0.5f : 0.0f, -1, 0, cases[i][3], 13, 0};
        run_case(g);
    }
}

Test(gemv, the_same_bits_every_run) {
    TS_TEST_REQUIRE_DEVICE();
    /* The sums run in a fixed order (no atomics): two runs on the same inputs agree bit for bit.
     * The inputs come from the same seed through the test's generator, so fix them by running
     * the one case twice on one state. */
    for (int tb = 0; tb < 2; ++tb) {
        gemv_case g = {(ts_trans)tb, 6, 300, 5000, TS_DTYPE_BF16, TS_DTYPE_F32, 1.0f, 0.0f, 8, 0, 0, 0, 0};
        const long long lda = g.k + 8, b_rows = tb ? g.n : g.k, ldb = (tb ? g.k : g.n) + 8, ldc = g.n;
        uint64_t st = ts_test_fresh_seed();
        unsigned short *ah = malloc((size_t)(g.m * lda) * 2), *bh = malloc((size_t)(b_rows * ldb) * 2);
        cr_assert(ah && bh);
        ts_test_fill_normal_as(ah, g.in, (size_t)(g.m * lda), &st);
        ts_test_fill_normal_as(bh, g.in, (size_t)(b_rows * ldb), &st);
        void *da = ts_test_device_copy(ah, (size_t)(g.m * lda) * 2), *db = ts_test_device_copy(bh, (size_t)(b_rows * ldb) * 2);
        void *dc = ts_test_device_copy(NULL, (size_t)(g.m * ldc) * 4);
        cr_assert(da && db && dc);
        float *first = malloc((size_t)(g.m * ldc) * 4), *again = malloc((size_t)(g.m * ldc) * 4);
        cr_assert(first && again);
        for (int run = 0; run < 3; ++run) {
            cr_assert_eq(ts_gemv_run(g.tb, g.m, g.n, g.k, 1.0f, da, g.in, lda, db, ldb, 0.0f, dc, g.out, ldc, NULL),
                         TS_SUCCESS);
            cr_assert_eq(ts_device_synchronize(), TS_SUCCESS);
            cr_assert_eq(ts_test_copy_back(run == 0 ? first : again, dc, (size_t)(g.m * ldc) * 4), TS_SUCCESS);
            if (run > 0)
                cr_assert(memcmp(first, again, (size_t)(g.m * ldc) * 4) == 0, "tb%d: run %d differs from the first",
                          tb, run);
        }
        free(first);
        free(again);
        free(ah);
        free(bh);
        cr_assert_eq(ts_free(da), TS_SUCCESS);
        cr_assert_eq(ts_free(db), TS_SUCCESS);
        cr_assert_eq(ts_free(dc), TS_SUCCESS);
    }
}

Test(gemv, argument_checks) {
    /* The launcher's own checks (the tests call it with layouts ts_gemm refuses), in their order. */
    char buf[64] __attribute__((aligned(16))) = {0};
    void *p = buf;
    cr_assert_eq(ts_gemv_run(TS_TRANS, 1, 1, 1, 1.0f, NULL, TS_DTYPE_BF16, 1, p, 1, 0.0f, p, TS_DTYPE_F32, 1, NULL),
                 TS_ERROR_NULL_POINTER);
    cr_assert_eq(ts_gemv_run((ts_trans)2, 1, 1, 1, 1.0f, p, TS_DTYPE_BF16, 1, p, 1, 0.0f, p, TS_DTYPE_F32, 1, NULL),
                 TS_ERROR_INVALID_ENUM);
    cr_assert_eq(ts_gemv_run(TS_TRANS, 1, 1, 1, 1.0f, p, (ts_dtype)99, 1, p, 1, 0.0f, p, TS_DTYPE_F32, 1, NULL),
                 TS_ERROR_INVALID_ENUM);
    cr_assert_eq(ts_gemv_run(TS_TRANS, 0, 1, 1, 1.0f, p, TS_DTYPE_BF16, 1, p, 1, 0.0f, p, TS_DTYPE_F32, 1, NULL),
                 TS_ERROR_INVALID_SIZE);
    cr_assert_eq(ts_gemv_run(TS_TRANS, 9, 1, 1, 1.0f, p, TS_DTYPE_BF16, 1, p, 1, 0.0f, p, TS_DTYPE_F32, 1, NULL),
                 TS_ERROR_UNSUPPORTED);
    cr_assert_eq(ts_gemv_run(TS_TRANS, 1, 1, 1, 1.0f, p, TS_DTYPE_F32, 1, p, 1, 0.0f, p, TS_DTYPE_F32, 1, NULL),
                 TS_ERROR_UNSUPPORTED);
    cr_assert_eq(ts_gemv_run(TS_TRANS, 1, 2, 4, 1.0f, p, TS_DTYPE_BF16, 3, p, 4, 0.0f, p, TS_DTYPE_F32, 2, NULL),
                 TS_ERROR_INVALID_VALUE);
    cr_assert_eq(ts_gemv_run(TS_NO_TRANS, 1, 2, 4, 1.0f, p, TS_DTYPE_BF16, 4, p, 1, 0.0f, p, TS_DTYPE_F32, 2, NULL),
                 TS_ERROR_INVALID_VALUE);
    cr_assert_eq(ts_gemv_run(TS_TRANS, 2, 2, 4, 1.0f, p, TS_DTYPE_BF16, 1LL << 45, p, 4, 0.0f, p, TS_DTYPE_F32, 2, NULL),
                 TS_ERROR_SIZE_OVERFLOW);
    cr_assert_eq(ts_gemv_run(TS_TRANS, 1, 1, 1, 1.0f, buf + 1, TS_DTYPE_BF16, 1, p, 1, 0.0f, p, TS_DTYPE_F32, 1, NULL),
                 TS_ERROR_MISALIGNED);
    cr_assert_eq(ts_gemv_run(TS_TRANS, 1, 1, 1, 1.0f, p, TS_DTYPE_BF16, 1, p, 1, 0.0f, buf + 2, TS_DTYPE_F32, 1, NULL),
                 TS_ERROR_MISALIGNED);
}

Test(gemv, llama_projection_shapes_on_a_gpu) {
    TS_TEST_REQUIRE_DEVICE();
    if (!ts_test_on_gpu()) cr_skip_test("the Llama shapes run on a GPU only (the host runs the small cases)");
    /* (N, K) of Llama-3 8B and 70B projections through ts_gemm, weights as nn.Linear stores them
     * (N x K) at M = 1 and 8, and K x N at M = 5; every 61st column checked (and the last 8). */
    static const int nk[][2] = {{4096, 4096}, {14336, 4096}, {4096, 14336}, {1024, 4096},
                                {8192, 8192}, {28672, 8192}, {8192, 28672}, {1024, 8192}};
    static const int cases[3][2] = {{1, TS_TRANS}, {8, TS_TRANS}, {5, TS_NO_TRANS}}; /* (M, trans_b) */
    for (int s = 0; s < 8; ++s)
        for (int i = 0; i < 3; ++i) {
            gemv_case g = {(ts_trans)cases[i][1], cases[i][0], nk[s][0], nk[s][1], TS_DTYPE_BF16, TS_DTYPE_BF16, 1.0f,
                           0.0f, 0, 0, 1, 61, 0};
            run_case(g);
        }
}

typedef void model_reduce_fn(float *slots, const float *values, int count);
typedef void model_cols_fn(float *slots, const float *values, int m, int band_lanes);

/* Small whole numbers, so that every order of the additions gives the same sum. */
static float model_value(uint64_t *st) { return (float)((int)(ts_test_uniform(st) * 17.0) - 8); }

Test(gemv, lane_exchanges_on_32_and_64_lane_warps) {
    /* ops/warp_dot.h's own code on a model warp (a thread a lane): each sum lands in its slot once,
     * the slots past the op's are left alone, for every count of values the rows form makes
     * (4 x M: 4 to 32, fewer and more than the lanes) and others, and every band of the cols form. */
    model_reduce_fn *const reduce[2] = {ts_model32_reduce_store, ts_model64_reduce_store};
    model_cols_fn *const cols[2] = {ts_model32_cols_reduce_store, ts_model64_cols_reduce_store};
    static const int lanes[2] = {32, 64}, counts[] = {1, 2, 4, 8, 16, 32, 64, 3, 12, 24};
    uint64_t seed = ts_test_fresh_seed(), st = seed;
    static float values[64 * 64], slots[512 + 16], want[512];
    for (int w = 0; w < 2; ++w) {
        for (size_t c = 0; c < sizeof counts / sizeof counts[0]; ++c) {
            const int count = counts[c];
            for (int j = 0; j < count; ++j) want[j] = 0.0f;
            for (int l = 0; l < lanes[w]; ++l)
                for (int j = 0; j < count; ++j) {
                    values[l * count + j] = model_value(&st);
                    want[j] += values[l * count + j];
                }
            for (int j = 0; j < count + 16; ++j) slots[j] = NAN;
            reduce[w](slots, values, count);
            for (int j = 0; j < count; ++j)
                cr_assert(slots[j] == want[j], "%d lanes, %d values: slot %d = %g, want %g (seed %llu)", lanes[w],
                          count, j, slots[j], want[j], (unsigned long long)seed);
            for (int j = count; j < count + 16; ++j) cr_assert(isnan(slots[j]), "%d lanes: slot %d written", lanes[w], j);
        }
        for (int m = 1; m <= 8; m *= 2)
            for (int band_lanes = 1; band_lanes <= 8; band_lanes *= 2) {
                const int per = 8 * m, band = 8 * band_lanes;
                for (int i = 0; i < m * band; ++i) want[i] = 0.0f;
                for (int l = 0; l < lanes[w]; ++l)
                    for (int i = 0; i < per; ++i) {
                        values[l * per + i] = model_value(&st);
                        /* value i = mm * 8 + j of lane l: row mm, column 8 (l % band_lanes) + j of the band */
                        want[(i / 8) * band + (l % band_lanes) * 8 + i % 8] += values[l * per + i];
                    }
                for (int i = 0; i < m * band + 16; ++i) slots[i] = NAN;
                cols[w](slots, values, m, band_lanes);
                for (int i = 0; i < m * band; ++i)
                    cr_assert(slots[i] == want[i], "%d lanes, M %d, band %d: slot %d = %g, want %g (seed %llu)",
                              lanes[w], m, band, i, slots[i], want[i], (unsigned long long)seed);
                for (int i = m * band; i < m * band + 16; ++i) cr_assert(isnan(slots[i]), "slot %d written", i);
            }
    }
}

typedef void model_rows_fn(float *slots, const void *w, long long ldw, int r, const void *a, long long lda, int m,
                           int dtype, long long k, int vec);
typedef void model_cols_dot_fn(float *slots, const void *w, long long ldw, const void *a, long long lda, int m,
                               int dtype, long long k, long long n0, long long nend, int band_lanes, int vec);

/* rows x cols 16-bit normals in a 16-byte aligned buffer, rows ld elements apart, `off` elements in. */
static unsigned short *model_matrix(long long rows, long long cols, long long ld, int off, ts_dtype t, uint64_t *st) {
    const size_t bytes = ((size_t)(rows * ld + off) * 2 + 15) / 16 * 16;
    unsigned short *p = aligned_alloc(16, bytes);
    cr_assert(p);
    memset(p, 0xff, bytes);
    for (long long i = 0; i < rows; ++i) ts_test_fill_normal_as(p + off + i * ld, t, (size_t)cols, st);
    return p;
}

Test(gemv, warp_dot_products_on_32_and_64_lane_warps) {
    /* The steps' lane arithmetic as well as the exchange, on the model warps: where each lane's 16
     * bytes lie in a step of K (rows form) or in the band and K's rows (cols form), and the tails,
     * 16-byte loads (vec) and element by element (off 16 bytes, odd leading dimensions). */
    model_rows_fn *const rows[2] = {ts_model32_rows_dot, ts_model64_rows_dot};
    model_cols_dot_fn *const cols[2] = {ts_model32_cols_dot, ts_model64_cols_dot};
    static const int lanes[2] = {32, 64};
    uint64_t seed = ts_test_fresh_seed(), st = seed;
    static float slots[512 + 16];
    for (int w = 0; w < 2; ++w)
        for (int vec = 0; vec < 2; ++vec) {
            const int off = vec ? 0 : 1;
            const ts_dtype t = vec ? TS_DTYPE_BF16 : TS_DTYPE_FP16;
            /* Rows form: 4 weight rows, K within one step, past several, and a step's multiple. */
            const long long ks[4] = {5, 777, 16LL * lanes[w] + 3, 1024};
            const int ms[3] = {1, 3, 8};
            for (int ki = 0; ki < 4; ++ki)
                for (int mi = 0; mi < 3; ++mi) {
                    const long long k = ks[ki], ld = vec ? (k + 7) / 8 * 8 : k + 1;
                    const int m = ms[mi];
                    unsigned short *wt = model_matrix(4, k, ld, off, t, &st), *a = model_matrix(m, k, ld, off, t, &st);
                    for (int i = 0; i < 4 * m + 16; ++i) slots[i] = NAN;
                    rows[w](slots, wt + off, ld * 2, 4, a + off, ld * 2, m, t, k, vec);
                    for (int r = 0; r < 4; ++r)
                        for (int i = 0; i < m; ++i) {
                            double ref = 0.0, mag = 0.0;
                            for (long long e = 0; e < k; ++e) {
                                const double x = from_half_bits(wt[off + r * ld + e], t) * from_half_bits(a[off + i * ld + e], t);
                                ref += x;
                                mag += fabs(x);
                            }
                            cr_assert(fabs(slots[r * m + i] - ref) <= 1e-5 * (mag + 1.0),
                                      "%d lanes vec %d rows K %lld M %d: (%d, %d) = %g, reference %g (seed %llu)",
                                      lanes[w], vec, k, m, r, i, slots[r * m + i], ref, (unsigned long long)seed);
                        }
                    for (int i = 4 * m; i < 4 * m + 16; ++i) cr_assert(isnan(slots[i]), "slot %d written", i);
                    free(wt);
                    free(a);
                }
            /* Cols form: every band, a band whole and one whose last lane's 8 columns run past N by 3,
             * K short and long. */
            const long long kc[2] = {9, 1000};
            for (int band_lanes = 1; band_lanes <= 8; band_lanes *= 2)
                for (int ki = 0; ki < 2; ++ki)
                    for (int part = 0; part < 2; ++part) {
                        const int m = part ? 5 : 8, band = 8 * band_lanes;
                        const long long k = kc[ki], n0 = 16, n = n0 + band - (part ? 3 : 0);
                        const long long ldw = vec ? (n + 7) / 8 * 8 : n + 1, lda = vec ? (k + 7) / 8 * 8 : k + 1;
                        unsigned short *wt = model_matrix(k, n, ldw, off, t, &st), *a = model_matrix(m, k, lda, off, t, &st);
                        for (int i = 0; i < m * band + 16; ++i) slots[i] = NAN;
                        cols[w](slots, wt + off, ldw * 2, a + off, lda * 2, m, t, k, n0, n, band_lanes, vec);
                        for (int i = 0; i < m; ++i)
                            for (int c = 0; c < band; ++c) {
                                if (n0 + c >= n) continue; /* past N: the op writes what it likes */
                                double ref = 0.0, mag = 0.0;
                                for (long long e = 0; e < k; ++e) {
                                    const double x = from_half_bits(wt[off + e * ldw + n0 + c], t) *
                                                     from_half_bits(a[off + i * lda + e], t);
                                    ref += x;
                                    mag += fabs(x);
                                }
                                cr_assert(fabs(slots[i * band + c] - ref) <= 1e-5 * (mag + 1.0),
                                          "%d lanes vec %d cols band %d K %lld: (%d, %d) = %g, reference %g (seed %llu)",
                                          lanes[w], vec, band, k, i, c, slots[i * band + c], ref,
                                          (unsigned long long)seed);
                            }
                        for (int i = m * band; i < m * band + 16; ++i) cr_assert(isnan(slots[i]), "slot %d written", i);
                        free(wt);
                        free(a);
                    }
        }
}
