/* GEMM against a double-precision reference: every transpose form, bf16 and fp16 operands, fp32,
 * bf16 and fp16 outputs, alpha and beta, ragged sizes (tails in M, N and K), leading dimensions
 * larger than the rows; and every error path of ts_gemm. Inputs are fresh random normals each
 * run; C is poisoned first unless beta reads it. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "backends/half_bits.h"
#include "support/dtype_io.h"
#include "support/test_support.h"
#include "tests/kernels/pingpong_kernels.h"
#if defined(TESSERA_BACKEND_HOST)
#include "backends/host/runtime_host.h"
#endif

typedef struct {
    ts_trans ta, tb;
    int m, n, k, pad;
    ts_dtype in, out;
    float alpha, beta;
    void *workspace; /* for ts_gemm_ex: NULL runs as ts_gemm */
    size_t workspace_bytes;
} gemm_case;

/* sum x[k] y[k] and sum |x[k] y[k]| over k < n, in four interleaved partial sums (double: the
 * order changes the result far below the tolerances), for the reference's inner loop. */
static void dot_with_magnitude(const double *x, const double *y, int n, double *dot, double *mag) {
    double s[4] = {0.0, 0.0, 0.0, 0.0}, m[4] = {0.0, 0.0, 0.0, 0.0};
    int k = 0;
    for (; k + 4 <= n; k += 4)
        for (int u = 0; u < 4; ++u) {
            const double p = x[k + u] * y[k + u];
            s[u] += p;
            m[u] += fabs(p);
        }
    for (; k < n; ++k) {
        const double p = x[k] * y[k];
        s[0] += p;
        m[0] += fabs(p);
    }
    *dot = (s[0] + s[1]) + (s[2] + s[3]);
    *mag = (m[0] + m[1]) + (m[2] + m[3]);
}

static void check_gemm(gemm_case g) {
    uint64_t seed = ts_test_fresh_seed(), st = seed;
    const long long a_rows = g.ta ? g.k : g.m, a_cols = g.ta ? g.m : g.k;
    const long long b_rows = g.tb ? g.n : g.k, b_cols = g.tb ? g.k : g.n;
    const long long lda = (a_cols + g.pad + 7) / 8 * 8, ldb = (b_cols + g.pad + 7) / 8 * 8, ldc = (g.n + g.pad + 7) / 8 * 8;
    const size_t na = (size_t)a_rows * lda, nb = (size_t)b_rows * ldb, nc = (size_t)g.m * ldc;
    unsigned short *a = malloc(na * 2), *b = malloc(nb * 2);
    unsigned char *c0 = malloc(nc * ts_test_dtype_bytes(g.out)), *c = malloc(nc * ts_test_dtype_bytes(g.out));
    ts_test_fill_normal_as(a, g.in, na, &st);
    ts_test_fill_normal_as(b, g.in, nb, &st);
    ts_test_fill_normal_as(c0, g.out, nc, &st);
    void *da = ts_test_device_copy(a, na * 2), *db = ts_test_device_copy(b, nb * 2);
    /* With beta == 0 the kernel must not read C: give it NaN poison. */
    void *dc = ts_test_device_copy(g.beta != 0.0f ? c0 : NULL, nc * ts_test_dtype_bytes(g.out));
    cr_assert(da && db && dc);
    const ts_status run = ts_gemm_ex(g.ta, g.tb, g.m, g.n, g.k, g.alpha, da, g.in, lda, db, g.in, ldb, g.beta, dc,
                                     g.out, ldc, g.workspace, g.workspace_bytes, NULL);
    cr_assert_eq(run, TS_SUCCESS, "%dx%dx%d: %s", g.m, g.n, g.k, ts_status_string(run));
    cr_assert_eq(ts_device_synchronize(), TS_SUCCESS);
    cr_assert_eq(ts_test_copy_back(c, dc, nc * ts_test_dtype_bytes(g.out)), TS_SUCCESS);
    /* The reference: op(A) and op(B)^T as rows of K doubles, converted once, so that each element
     * of C is a dot product over contiguous rows (the GPU runs of this test spend their time here). */
    double *ar = malloc((size_t)g.m * g.k * sizeof(double)), *br = malloc((size_t)g.n * g.k * sizeof(double));
    cr_assert(ar && br);
    for (int i = 0; i < g.m; ++i)
        for (int kk = 0; kk < g.k; ++kk)
            ar[(size_t)i * g.k + kk] = ts_test_get(a, g.in, g.ta ? (size_t)kk * lda + i : (size_t)i * lda + kk);
    for (int j = 0; j < g.n; ++j)
        for (int kk = 0; kk < g.k; ++kk)
            br[(size_t)j * g.k + kk] = ts_test_get(b, g.in, g.tb ? (size_t)j * ldb + kk : (size_t)kk * ldb + j);
    double worst = 0.0;
    for (int i = 0; i < g.m; ++i)
        for (int j = 0; j < g.n; ++j) {
            double acc = 0.0, mag = 0.0;
            dot_with_magnitude(ar + (size_t)i * g.k, br + (size_t)j * g.k, g.k, &acc, &mag);
            const size_t ci = (size_t)i * ldc + j;
            const double cin = g.beta != 0.0f ? ts_test_get(c0, g.out, ci) : 0.0;
            const double ref = g.alpha * acc + g.beta * cin;
            const double got = ts_test_get(c, g.out, ci);
            /* fp32 accumulation over K terms, then rounding to the output type. */
            const double out_eps = g.out == TS_DTYPE_F32 ? 0.0 : g.out == TS_DTYPE_BF16 ? 1.0 / 256 : 1.0 / 2048;
            const double tol = 1e-5 * fabs(g.alpha) * (mag + 1.0) + out_eps * fabs(ref) + 1e-6 * fabs(g.beta * cin);
            const double err = fabs(got - ref);
            if (err > worst) worst = err;
            cr_assert(err <= tol, "ta%d tb%d %dx%dx%d in%d out%d: C(%d,%d) = %.7g, reference %.7g (seed %llu)", g.ta, g.tb,
                      g.m, g.n, g.k, g.in, g.out, i, j, got, ref, (unsigned long long)seed);
        }
    /* Padding columns of C are never written. */
    if (g.beta == 0.0f && ldc > g.n)
        for (int i = 0; i < g.m; ++i) cr_assert(isnan(ts_test_get(c, g.out, (size_t)i * ldc + g.n)), "padding written");
    free(ar);
    free(br);
    cr_assert_eq(ts_free(da), TS_SUCCESS);
    cr_assert_eq(ts_free(db), TS_SUCCESS);
    cr_assert_eq(ts_free(dc), TS_SUCCESS);
    free(a);
    free(b);
    free(c0);
    free(c);
}

Test(gemm, every_transpose_form_at_ragged_sizes) {
    TS_TEST_REQUIRE_DEVICE();
    /* Odd counts of tile rows and of tile columns leave a cluster's second block (CUDA) past the
     * matrix: down M (300 rows: 3 tile rows) and across N (100 x 600: one tile row, 3 columns).
     * Up to 64 rows the product runs transposed (kernels/gemm/gemm_skinny_kernels.h, tiles 16
     * columns wide up to 16 rows, else 64): 17 x 600 and 9 x 700 are 5 and 6 tile rows of it, the
     * last cluster's second block past the matrix. */
    const int sizes[][3] = {{1, 1, 1},      {17, 63, 65},   {129, 65, 17},  {64, 256, 64}, {200, 300, 130},
                            {17, 600, 65},  {9, 700, 80},   {100, 600, 65}, {300, 130, 40}};
    for (int s = 0; s < 9; ++s)
        for (int f = 0; f < 4; ++f) {
            gemm_case g = {(ts_trans)(f >> 1), (ts_trans)(f & 1), sizes[s][0], sizes[s][1], sizes[s][2], s % 3,
                           TS_DTYPE_BF16, TS_DTYPE_F32, 1.0f, 0.0f, NULL, 0};
            check_gemm(g);
        }
}

Test(gemm, fp16_operands_and_every_output_type) {
    TS_TEST_REQUIRE_DEVICE();
    const ts_dtype outs[3] = {TS_DTYPE_F32, TS_DTYPE_BF16, TS_DTYPE_FP16};
    for (int o = 0; o < 3; ++o) {
        gemm_case g = {TS_NO_TRANS, TS_NO_TRANS, 130, 140, 150, 8, TS_DTYPE_FP16, outs[o], 1.0f, 0.0f, NULL, 0};
        check_gemm(g);
        g.in = TS_DTYPE_BF16;
        g.ta = TS_TRANS;
        check_gemm(g);
    }
}

Test(gemm, staged_store_at_ragged_rows_and_padded_ldc) {
    /* 16-bit C whose rows end on 16 bytes goes out through shared memory and the copy engine:
     * M not a multiple of the block tile, ldc past N, the padding must survive. */
    TS_TEST_REQUIRE_DEVICE();
    gemm_case g = {TS_NO_TRANS, TS_NO_TRANS, 130, 136, 70, 8, TS_DTYPE_BF16, TS_DTYPE_BF16, 1.5f, 0.0f, NULL, 0};
    check_gemm(g);
    g.out = TS_DTYPE_FP16;
    g.n = 264;
    g.tb = TS_TRANS;
    check_gemm(g);
    g.m = 100; /* one tile row, three tile columns */
    g.n = 520;
    check_gemm(g);
}

Test(gemm, alpha_and_beta) {
    TS_TEST_REQUIRE_DEVICE();
    gemm_case g = {TS_NO_TRANS, TS_TRANS, 70, 90, 33, 0, TS_DTYPE_BF16, TS_DTYPE_F32, -0.5f, 0.75f, NULL, 0};
    check_gemm(g);
    g.out = TS_DTYPE_BF16;
    g.alpha = 2.0f;
    g.beta = -1.0f;
    check_gemm(g);
}

Test(gemm, more_tiles_than_blocks) {
    /* More output tiles than one persistent wave holds (two tile columns of 128 + 3 rows a block,
     * so even clusters of two blocks loop): each block runs several tasks, and with the deferred
     * staged store a task's results go out during its successor's stages (K = 200: four of them)
     * or, where the successor has fewer stages than parts (K = 40: one), at its end. N = 296 ends C's rows on 16 bytes, for the staged store. */
    TS_TEST_REQUIRE_DEVICE();
    int count = 0;
    ts_device_props p;
    cr_assert_eq(ts_device_count(&count), TS_SUCCESS);
    cr_assert_eq(ts_device_get_props(0, &p), TS_SUCCESS);
    const int ks[2] = {40, 200};
    for (int i = 0; i < 2; ++i) {
        gemm_case g = {TS_NO_TRANS, TS_NO_TRANS, 128 * (p.sm_count + 3), 296, ks[i], 0, TS_DTYPE_BF16, TS_DTYPE_BF16,
                       1.0f, 0.0f, NULL, 0};
        check_gemm(g);
    }
}

/* Whether any byte of a device buffer is nonzero. */
static int any_byte_set(const void *dev, size_t bytes) {
    unsigned char *h = malloc(bytes);
    cr_assert(h);
    cr_assert_eq(ts_test_copy_back(h, dev, bytes), TS_SUCCESS);
    int set = 0;
    for (size_t i = 0; i < bytes && !set; ++i) set = h[i] != 0;
    free(h);
    return set;
}

/* The refusals of a workspace too small or misaligned. */
static void check_workspace_refusals(void *ws, size_t bytes) {
    unsigned short buf[64] __attribute__((aligned(16))) = {0};
    const ts_dtype B = TS_DTYPE_BF16;
    cr_assert_eq(ts_gemm_ex(TS_NO_TRANS, TS_NO_TRANS, 8, 8, 8, 1, buf, B, 8, buf, B, 8, 0, buf, B, 8, ws, bytes - 1, NULL),
                 TS_ERROR_INVALID_SIZE);
    cr_assert_eq(ts_gemm_ex(TS_NO_TRANS, TS_NO_TRANS, 8, 8, 8, 1, buf, B, 8, buf, B, 8, 0, buf, B, 8, (char *)ws + 4,
                            bytes - 4, NULL),
                 TS_ERROR_MISALIGNED);
}

/* ts_gemm_ex with a workspace where the tiles are too many for split-K: one tile column and one
 * more row of tiles than the SMs (with clusters of two, one more cluster's worth than the
 * clusters), through the staged store (bf16 C) and the direct one (fp32 C with beta), at ragged
 * sizes. The tiles run whole, twice on one workspace, and leave it as it was. */
static void check_whole_tiles_with_workspace(void) {
    int count = 0;
    ts_device_props p;
    cr_assert_eq(ts_device_count(&count), TS_SUCCESS);
    cr_assert_eq(ts_device_get_props(0, &p), TS_SUCCESS);
    size_t bytes = 0;
    cr_assert_eq(ts_gemm_workspace_size(&bytes), TS_SUCCESS);
    cr_assert_eq(ts_gemm_workspace_size(NULL), TS_ERROR_NULL_POINTER);
    const int m = 128 * (p.sm_count + 1);
    cr_assert(bytes > 0);
    void *ws = NULL;
    cr_assert_eq(ts_malloc(&ws, bytes), TS_SUCCESS);
    cr_assert_eq(ts_memset(ws, 0, bytes), TS_SUCCESS);
    gemm_case cases[3] = {
        {TS_NO_TRANS, TS_NO_TRANS, m, 256, 200, 0, TS_DTYPE_BF16, TS_DTYPE_BF16, 1.0f, 0.0f, ws, bytes},
        {TS_NO_TRANS, TS_TRANS, m + 37, 296, 300, 8, TS_DTYPE_BF16, TS_DTYPE_F32, 0.5f, -1.0f, ws, bytes},
        {TS_TRANS, TS_NO_TRANS, m - 50, 120, 520, 0, TS_DTYPE_FP16, TS_DTYPE_FP16, 1.0f, 0.0f, ws, bytes},
    };
    for (int i = 0; i < 3; ++i) {
        check_gemm(cases[i]);
        check_gemm(cases[i]);
    }
    cr_assert(!any_byte_set(ws, bytes), "whole tiles wrote to the workspace");
    check_workspace_refusals(ws, bytes);
    cr_assert_eq(ts_free(ws), TS_SUCCESS);
}

Test(gemm, workspace_leaves_many_tiles_whole) {
    TS_TEST_REQUIRE_DEVICE();
    check_whole_tiles_with_workspace();
#if defined(TESSERA_BACKEND_HOST)
    /* Other grids (the host's SM count is its block concurrency): other splits and interleavings. */
    const int grids[3] = {3, 5, 0};
    for (int i = 0; i < 3; ++i) {
        ts_host_set_block_concurrency(grids[i]);
        check_whole_tiles_with_workspace();
    }
#endif
}

#if defined(TESSERA_BACKEND_HOST)
/* A slow producer warp. In a cluster of two down M, the transposed B tile's 128-byte rows are one
 * multicast chunk, which rank 0 loads for both blocks: rank 1's B warp issues no copy, and only the
 * template's rule that every load warp arrives on a stage's full barrier keeps it within a lap of
 * the others. Without that rule the others ran ahead by laps of the ring while it slept, and its
 * next wait on a stage's empty barrier took a later phase for the one it wanted: a deadlock (the
 * intermittent failure of workspace_leaves_many_tiles_whole on a loaded machine). Each producer
 * warp of each rank sleeps before every wait in turn; 32 stages a block over two tasks. */
Test(gemm, slow_producer_warp_keeps_its_lap) {
    TS_TEST_REQUIRE_DEVICE();
    ts_host_set_block_concurrency(2);
    for (int rank = 0; rank < 2; ++rank)
        for (int warp = 0; warp < 4; ++warp) {
            ts_host_set_slow_warp(rank, warp, 10000);
            check_gemm((gemm_case){TS_NO_TRANS, TS_TRANS, 512, 256, 1024, 0, TS_DTYPE_BF16, TS_DTYPE_F32, 1.0f, 0.0f,
                                   NULL, 0});
        }
    ts_host_set_slow_warp(0, -1, 0);
    ts_host_set_block_concurrency(0);
}
#endif

/* Split-K (ts_gemm_ex with a workspace): tiles of C too few for the SMs (one or two rows of
 * tiles, a few columns) with a long K, so that each tile's K range is cut into pieces on as many
 * clusters, each leaving its partial results in the workspace for the reduction kernel, which
 * adds them and stores C: alpha, beta, bf16, fp16 and fp32 C, rows that fill part of a warp's 16,
 * every transpose form, at ragged sizes. Products of at most 64 rows run transposed on the
 * skinny kernels (kernels/gemm/gemm_skinny_kernels.h: M = 9 and 16 on tiles 16 wide, 37 to 64
 * on tiles 64 wide; M <= 8 goes to GEMV, kernels/gemv/, which takes no workspace), M = 300 on the
 * split instances (more rows than the skinny tiles take, kernels/gemm/tuning.h). Each case runs on a zeroed workspace, where the pieces' partial results
 * must show, then again on the same one (nothing of the first call may leak into the second),
 * and on one filled with NaN bits: a call reads only what its own pieces wrote, so the
 * workspace needs no initialization; then as plain ts_gemm, which takes the library's scratch. */
static void check_split_k_cases(int large) {
    size_t bytes = 0;
    cr_assert_eq(ts_gemm_workspace_size(&bytes), TS_SUCCESS);
    cr_assert(bytes > 0);
    void *ws = NULL;
    cr_assert_eq(ts_malloc(&ws, bytes), TS_SUCCESS);
    gemm_case cases[8] = {
        {TS_NO_TRANS, TS_NO_TRANS, 16, 256, 1000, 0, TS_DTYPE_BF16, TS_DTYPE_BF16, 1.0f, 0.0f, ws, bytes},
        {TS_NO_TRANS, TS_TRANS, 9, 250, 1100, 8, TS_DTYPE_BF16, TS_DTYPE_F32, 0.5f, -1.0f, ws, bytes},
        {TS_TRANS, TS_NO_TRANS, 300, 100, 1030, 0, TS_DTYPE_FP16, TS_DTYPE_FP16, 1.0f, 0.0f, ws, bytes},
        {TS_TRANS, TS_TRANS, 37, 200, 1100, 0, TS_DTYPE_BF16, TS_DTYPE_BF16, 2.0f, 0.0f, ws, bytes},
        /* 64 rows, a whole column of the transposed product's tile, fp16 C with alpha and beta;
         * fp32 C with more rows than columns */
        {TS_TRANS, TS_NO_TRANS, 64, 136, 1040, 8, TS_DTYPE_FP16, TS_DTYPE_FP16, -1.0f, 0.5f, ws, bytes},
        {TS_NO_TRANS, TS_TRANS, 48, 24, 1100, 0, TS_DTYPE_BF16, TS_DTYPE_F32, 1.0f, 0.0f, ws, bytes},
        /* the GPU's decode shapes: 8 pieces a tile on the H200 */
        {TS_NO_TRANS, TS_NO_TRANS, 64, 2048, 4096, 0, TS_DTYPE_BF16, TS_DTYPE_BF16, 1.0f, 0.0f, ws, bytes},
        {TS_NO_TRANS, TS_TRANS, 16, 1024, 2056, 0, TS_DTYPE_BF16, TS_DTYPE_BF16, 1.0f, 0.0f, ws, bytes},
    };
    for (int i = 0; i < (large ? 8 : 6); ++i) {
        cr_assert_eq(ts_memset(ws, 0, bytes), TS_SUCCESS);
        check_gemm(cases[i]);
        /* The skinny products (M <= 64) add their pieces inside thread-block clusters where the
         * backend has them and the pieces fit one (at most 8): on the host every case here (four
         * pieces a tile), leaving the workspace untouched; on CUDA where the clusters also fit the
         * device at once; elsewhere, and for M = 300, through the workspace. */
        const int skinny = cases[i].m <= 64, written = any_byte_set(ws, bytes);
#if defined(TESSERA_BACKEND_HOST)
        if (skinny)
            cr_assert(!written, "case %d: pieces went through the workspace, not the cluster", i);
        else
            cr_assert(written, "case %d: no piece wrote its partial results", i);
#elif defined(TESSERA_BACKEND_CUDA)
        cr_assert(written || skinny, "case %d: no piece wrote its partial results", i);
#else
        (void)skinny;
        cr_assert(written, "case %d: no piece wrote its partial results", i);
#endif
        check_gemm(cases[i]);
        cr_assert_eq(ts_memset(ws, 0xFF, bytes), TS_SUCCESS);
        check_gemm(cases[i]);
        gemm_case plain = cases[i]; /* ts_gemm: the same pieces in the library's scratch */
        plain.workspace = NULL;
        plain.workspace_bytes = 0;
        check_gemm(plain);
    }
    check_workspace_refusals(ws, bytes);
    cr_assert_eq(ts_free(ws), TS_SUCCESS);
}

Test(gemm, split_k_cuts_few_tiles_by_k) {
    TS_TEST_REQUIRE_DEVICE();
#if defined(TESSERA_BACKEND_HOST)
    /* The host's SM count is its block concurrency: 8, 12 and 16 blocks (4, 6 and 8 clusters), all of
     * which split every case (one or two tiles, 16 to 18 k tiles) into 4 pieces. */
    const int grids[3] = {8, 12, 16};
    for (int i = 0; i < 3; ++i) {
        ts_host_set_block_concurrency(grids[i]);
        check_split_k_cases(0);
    }
    /* Nine pieces a tile (one tile, 38 k tiles, 16 blocks) are more than a cluster holds: the
     * skinny kernels' pieces then go through the workspace and the reduction kernel. */
    ts_host_set_block_concurrency(16);
    cr_assert_eq(ts_device_set(0), TS_SUCCESS);
    size_t bytes = 0;
    cr_assert_eq(ts_gemm_workspace_size(&bytes), TS_SUCCESS);
    void *ws = NULL;
    cr_assert_eq(ts_malloc(&ws, bytes), TS_SUCCESS);
    cr_assert_eq(ts_memset(ws, 0, bytes), TS_SUCCESS);
    check_gemm((gemm_case){TS_NO_TRANS, TS_TRANS, 16, 100, 2400, 0, TS_DTYPE_BF16, TS_DTYPE_BF16, 1.0f, 0.0f, ws, bytes});
    cr_assert(any_byte_set(ws, bytes), "nine pieces a tile: no piece wrote its partial results");
    /* Pieces longer than the ring of stages (16 k tiles each, four blocks), in a cluster: each
     * block refills its own stages, whatever the cluster it was launched in. */
    ts_host_set_block_concurrency(4);
    cr_assert_eq(ts_device_set(0), TS_SUCCESS);
    cr_assert_eq(ts_memset(ws, 0, bytes), TS_SUCCESS);
    check_gemm((gemm_case){TS_NO_TRANS, TS_TRANS, 32, 128, 4096, 0, TS_DTYPE_BF16, TS_DTYPE_BF16, 1.0f, 0.0f, ws, bytes});
    cr_assert(!any_byte_set(ws, bytes), "pieces longer than the ring went through the workspace");
    cr_assert_eq(ts_free(ws), TS_SUCCESS);
    ts_host_set_block_concurrency(0);
    cr_assert_eq(ts_device_set(0), TS_SUCCESS);
#else
    check_split_k_cases(1);
#endif
}

/* Products of 65 to 256 rows whose 128 x 256 tiles would be at most an eighth of the wave run on
 * the 64-wide skinny tiles, several across M, where those are few enough to split K in four
 * (kernels/gemm/tuning.h): on the host, 16 blocks, one or two large tiles and at most four skinny
 * ones; C against the double reference in every transpose form, with alpha, beta and ragged
 * sizes, and on the default grid, where the same products run on other tiles. */
Test(gemm, rows_up_to_256_on_the_skinny_tiles_where_tiles_are_few) {
    TS_TEST_REQUIRE_DEVICE();
    const gemm_case cases[4] = {
        {TS_NO_TRANS, TS_TRANS, 130, 120, 1100, 0, TS_DTYPE_BF16, TS_DTYPE_BF16, 1.0f, 0.0f, NULL, 0},
        {TS_TRANS, TS_NO_TRANS, 256, 120, 2000, 8, TS_DTYPE_FP16, TS_DTYPE_F32, 0.5f, -1.0f, NULL, 0},
        {TS_NO_TRANS, TS_NO_TRANS, 120, 250, 1100, 0, TS_DTYPE_BF16, TS_DTYPE_BF16, 1.0f, 0.0f, NULL, 0},
        {TS_TRANS, TS_TRANS, 65, 72, 3000, 0, TS_DTYPE_BF16, TS_DTYPE_F32, 2.0f, 0.0f, NULL, 0},
    };
#if defined(TESSERA_BACKEND_HOST)
    ts_host_set_block_concurrency(16);
    cr_assert_eq(ts_device_set(0), TS_SUCCESS);
#endif
    for (int i = 0; i < 4; ++i) check_gemm(cases[i]);
#if defined(TESSERA_BACKEND_HOST)
    ts_host_set_block_concurrency(0);
    cr_assert_eq(ts_device_set(0), TS_SUCCESS);
    for (int i = 0; i < 4; ++i) check_gemm(cases[i]);
#endif
}

/* Products of 65 to 128 rows that the 64-wide skinny tiles would cut into fewer than four pieces
 * run on the 128-wide ones where those split K in four or fill most of a wave (gemm.c). On the
 * host, 16 blocks: three or four tiles, each split in four pieces that meet in a cluster (the
 * workspace stays untouched, which the large tiles' split-K would write), three tiles of 4 k tiles
 * (whole), every transpose form, alpha, beta, fp32 C and ragged sizes; on the GPU, decode shapes
 * of 96 to 128 rows, and plain ts_gemm. CDNA keeps these products on the other tiles (C only). */
static void check_128_wide_cases(int gpu) {
    size_t bytes = 0;
    cr_assert_eq(ts_gemm_workspace_size(&bytes), TS_SUCCESS);
    void *ws = NULL;
    cr_assert_eq(ts_malloc(&ws, bytes), TS_SUCCESS);
    const gemm_case host_cases[4] = {
        {TS_NO_TRANS, TS_TRANS, 100, 400, 1100, 0, TS_DTYPE_BF16, TS_DTYPE_BF16, 1.0f, 0.0f, ws, bytes},
        {TS_TRANS, TS_NO_TRANS, 128, 300, 1030, 8, TS_DTYPE_FP16, TS_DTYPE_F32, 0.5f, -1.0f, ws, bytes},
        {TS_TRANS, TS_TRANS, 65, 400, 1100, 0, TS_DTYPE_BF16, TS_DTYPE_F32, 2.0f, 0.0f, ws, bytes},
        {TS_NO_TRANS, TS_NO_TRANS, 120, 300, 200, 0, TS_DTYPE_BF16, TS_DTYPE_BF16, 1.0f, 0.5f, ws, bytes},
    };
    const gemm_case gpu_cases[4] = {
        {TS_NO_TRANS, TS_TRANS, 128, 4096, 2048, 0, TS_DTYPE_BF16, TS_DTYPE_BF16, 1.0f, 0.0f, ws, bytes},
        {TS_NO_TRANS, TS_TRANS, 120, 14336, 1024, 0, TS_DTYPE_BF16, TS_DTYPE_BF16, 1.0f, 0.0f, ws, bytes},
        {TS_TRANS, TS_NO_TRANS, 96, 4096, 1000, 8, TS_DTYPE_FP16, TS_DTYPE_F32, 0.5f, 1.0f, ws, bytes},
        {TS_NO_TRANS, TS_TRANS, 128, 4096, 2048, 0, TS_DTYPE_BF16, TS_DTYPE_BF16, 1.0f, 0.0f, NULL, 0},
    };
    const gemm_case *cases = gpu ? gpu_cases : host_cases;
    for (int i = 0; i < 4; ++i) {
        cr_assert_eq(ts_memset(ws, 0, bytes), TS_SUCCESS);
        check_gemm(cases[i]);
#if defined(TESSERA_BACKEND_HOST)
        if (i < 3) cr_assert(!any_byte_set(ws, bytes), "case %d: pieces went through the workspace", i);
#endif
    }
    cr_assert_eq(ts_free(ws), TS_SUCCESS);
}

Test(gemm, rows_up_to_128_on_the_128_wide_skinny_tiles) {
    TS_TEST_REQUIRE_DEVICE();
#if defined(TESSERA_BACKEND_HOST)
    ts_host_set_block_concurrency(16);
    cr_assert_eq(ts_device_set(0), TS_SUCCESS);
    check_128_wide_cases(0);
    ts_host_set_block_concurrency(0);
    cr_assert_eq(ts_device_set(0), TS_SUCCESS);
#else
    check_128_wide_cases(1);
#endif
}

/* Split-K in two pieces a tile where M fills the tiles' rows (TS_GEMM_SPLIT_MIN_PIECES_FULL,
 * kernels/gemm/tuning.h): 500 rows (four rows of 128-row tiles, two clusters' on sm_90a) by
 * blocks / 8 tile columns of 256 fill half the clusters of a wave, so each tile's 9 or 10 k tiles
 * are cut in two (more than 256 rows: no skinny tiles). The pieces' partial results must show in the workspace (CDNA's tiles are other and its
 * rule is four pieces: there only C is checked). */
static void check_two_pieces(void) {
    ts_device_props p;
    cr_assert_eq(ts_device_get_props(0, &p), TS_SUCCESS);
    const int tile_cols = p.sm_count / 8 > 0 ? p.sm_count / 8 : 1;
    size_t bytes = 0;
    cr_assert_eq(ts_gemm_workspace_size(&bytes), TS_SUCCESS);
    void *ws = NULL;
    cr_assert_eq(ts_malloc(&ws, bytes), TS_SUCCESS);
    gemm_case cases[2] = {
        {TS_NO_TRANS, TS_TRANS, 500, 256 * tile_cols - 24, 600, 0, TS_DTYPE_BF16, TS_DTYPE_BF16, 1.0f, 0.0f, ws, bytes},
        {TS_NO_TRANS, TS_NO_TRANS, 512, 256 * tile_cols, 576, 8, TS_DTYPE_FP16, TS_DTYPE_F32, 0.5f, 1.0f, ws, bytes},
    };
    for (int i = 0; i < 2; ++i) {
        cr_assert_eq(ts_memset(ws, 0, bytes), TS_SUCCESS);
        check_gemm(cases[i]);
#if !defined(TESSERA_BACKEND_HIP)
        cr_assert(any_byte_set(ws, bytes), "case %d: whole tiles, not two pieces", i);
#endif
    }
    cr_assert_eq(ts_free(ws), TS_SUCCESS);
}

Test(gemm, split_k_in_two_where_rows_fill_the_tiles) {
    TS_TEST_REQUIRE_DEVICE();
#if defined(TESSERA_BACKEND_HOST)
    const int grids[2] = {8, 12};
    for (int i = 0; i < 2; ++i) {
        ts_host_set_block_concurrency(grids[i]);
        cr_assert_eq(ts_device_set(0), TS_SUCCESS); /* the library's device properties follow */
        check_two_pieces();
    }
    ts_host_set_block_concurrency(0);
    cr_assert_eq(ts_device_set(0), TS_SUCCESS);
#else
    check_two_pieces();
#endif
}

/* C of one product (fp32 C, A M x K and B K x N or N x K already on the device) by ts_gemm_ex with
 * the workspace ws (NULL: as ts_gemm), copied back into out. */
static void gemm_into(float *out, int m, int n, int k, ts_trans tb, const void *da, const void *db, void *dc, void *ws,
                      size_t ws_bytes, ts_stream stream) {
    const long long ldb = tb ? k : n;
    cr_assert_eq(ts_gemm_ex(TS_NO_TRANS, tb, m, n, k, 1.0f, da, TS_DTYPE_BF16, k, db, TS_DTYPE_BF16, ldb, 0.0f, dc,
                            TS_DTYPE_F32, n, ws, ws_bytes, stream),
                 TS_SUCCESS);
    cr_assert_eq(ts_stream_synchronize(stream), TS_SUCCESS);
    cr_assert_eq(ts_test_copy_back(out, dc, (size_t)m * n * 4), TS_SUCCESS);
}

/* Plain ts_gemm splits K as ts_gemm_ex with a workspace does, in scratch the library takes itself:
 * its C is bit for bit that of the caller's workspace (the pieces add in a fixed order), on the
 * default stream and on a created one, at a shape of the skinny kernels (M = 16) and one of the
 * 128-row tiles (M = 300). On the host, a grid of one cluster, which cannot split, shows that the
 * comparison tells split from whole: its C differs in the last bits. */
static void check_plain_gemm_splits(void) {
    const int shapes[2][3] = {{16, 256, 1000}, {300, 104, 1032}};
    size_t bytes = 0;
    cr_assert_eq(ts_gemm_workspace_size(&bytes), TS_SUCCESS);
    void *ws = NULL;
    ts_stream stream = NULL;
    cr_assert_eq(ts_malloc(&ws, bytes), TS_SUCCESS);
    cr_assert_eq(ts_stream_create(&stream), TS_SUCCESS);
    uint64_t seed = ts_test_fresh_seed(), st = seed;
    for (int z = 0; z < 2; ++z) {
        const int m = shapes[z][0], n = shapes[z][1], k = shapes[z][2];
        const ts_trans tb = z ? TS_TRANS : TS_NO_TRANS;
        const size_t na = (size_t)m * k, nb = (size_t)k * n, nc = (size_t)m * n;
        unsigned short *a = malloc(na * 2), *b = malloc(nb * 2);
        float *with_ws = malloc(nc * 4), *plain = malloc(nc * 4);
        cr_assert(a && b && with_ws && plain);
        ts_test_fill_normal_as(a, TS_DTYPE_BF16, na, &st);
        ts_test_fill_normal_as(b, TS_DTYPE_BF16, nb, &st);
        void *da = ts_test_device_copy(a, na * 2), *db = ts_test_device_copy(b, nb * 2);
        void *dc = ts_test_device_copy(NULL, nc * 4);
        cr_assert(da && db && dc);
        gemm_into(with_ws, m, n, k, tb, da, db, dc, ws, bytes, NULL);
        for (int on_stream = 0; on_stream < 2; ++on_stream) {
            cr_assert_eq(ts_memset(dc, 0xFF, nc * 4), TS_SUCCESS);
            gemm_into(plain, m, n, k, tb, da, db, dc, NULL, 0, on_stream ? stream : NULL);
            cr_assert(!memcmp(plain, with_ws, nc * 4), "%dx%dx%d: ts_gemm's C is not split-K's (stream %d, seed %llu)",
                      m, n, k, on_stream, (unsigned long long)seed);
        }
#if defined(TESSERA_BACKEND_HOST)
        ts_host_set_block_concurrency(2);
        cr_assert_eq(ts_device_set(0), TS_SUCCESS);
        gemm_into(plain, m, n, k, tb, da, db, dc, NULL, 0, NULL);
        cr_assert(memcmp(plain, with_ws, nc * 4), "%dx%dx%d: whole tiles gave split-K's bits (seed %llu)", m, n, k,
                  (unsigned long long)seed);
        ts_host_set_block_concurrency(16);
        cr_assert_eq(ts_device_set(0), TS_SUCCESS);
#endif
        cr_assert_eq(ts_free(da), TS_SUCCESS);
        cr_assert_eq(ts_free(db), TS_SUCCESS);
        cr_assert_eq(ts_free(dc), TS_SUCCESS);
        free(a);
        free(b);
        free(with_ws);
        free(plain);
    }
    cr_assert_eq(ts_stream_destroy(stream), TS_SUCCESS);
    cr_assert_eq(ts_free(ws), TS_SUCCESS);
}

Test(gemm, plain_gemm_splits_k_in_library_scratch) {
    TS_TEST_REQUIRE_DEVICE();
#if defined(TESSERA_BACKEND_HOST)
    ts_host_set_block_concurrency(16); /* 8 clusters: four pieces a tile for both shapes */
    cr_assert_eq(ts_device_set(0), TS_SUCCESS);
    check_plain_gemm_splits();
    ts_host_set_block_concurrency(0);
    cr_assert_eq(ts_device_set(0), TS_SUCCESS);
#else
    check_plain_gemm_splits();
#endif
}

/* The ping-pong schedule (CDNA's) on this backend: no producer warpgroup, the consumer warpgroups
 * take turns loading. Few blocks, so each loops over several tasks. */
Test(gemm, ping_pong_schedule) {
    TS_TEST_REQUIRE_DEVICE();
    uint64_t seed = ts_test_fresh_seed(), st = seed;
    /* The fourth case has three units on two blocks with a workspace: too many for split-K, so
     * whole. The last has one unit of sixteen k tiles on four blocks: split-K cuts it in four. */
    const int sizes[][3] = {{130, 300, 200}, {17, 65, 33}, {256, 512, 64}, {300, 200, 200}, {20, 200, 1024}};
    void *ws = NULL;
    cr_assert_eq(ts_malloc(&ws, ts_test_pingpong_workspace_bytes()), TS_SUCCESS);
    cr_assert_eq(ts_memset(ws, 0, ts_test_pingpong_workspace_bytes()), TS_SUCCESS);
    for (int z = 0; z < 5; ++z) {
        const int m = sizes[z][0], n = sizes[z][1], k = sizes[z][2];
        const long long lda = (k + 7) / 8 * 8, ldb = (n + 7) / 8 * 8, ldc = ldb;
        unsigned short *a = malloc((size_t)m * lda * 2), *b = malloc((size_t)k * ldb * 2);
        float *c = malloc((size_t)m * ldc * 4);
        ts_test_fill_normal_as(a, TS_DTYPE_BF16, (size_t)m * lda, &st);
        ts_test_fill_normal_as(b, TS_DTYPE_BF16, (size_t)k * ldb, &st);
        void *da = ts_test_device_copy(a, (size_t)m * lda * 2), *db = ts_test_device_copy(b, (size_t)k * ldb * 2);
        float *dc = ts_test_device_copy(NULL, (size_t)m * ldc * 4);
        cr_assert(da && db && dc);
        cr_assert_eq(ts_test_pingpong_gemm(m, n, k, da, lda, db, ldb, dc, ldc, z == 4 ? 4 : 2, z >= 3 ? ws : NULL),
                     TS_SUCCESS);
        cr_assert_eq(ts_device_synchronize(), TS_SUCCESS);
        cr_assert_eq(ts_test_copy_back(c, dc, (size_t)m * ldc * 4), TS_SUCCESS);
        for (int i = 0; i < m; ++i)
            for (int j = 0; j < n; ++j) {
                double ref = 0.0, mag = 0.0;
                for (int kk = 0; kk < k; ++kk) {
                    const double x = ts_f32_from_bf16_bits(a[(size_t)i * lda + kk]) * ts_f32_from_bf16_bits(b[(size_t)kk * ldb + j]);
                    ref += x;
                    mag += fabs(x);
                }
                cr_assert(fabs(c[(size_t)i * ldc + j] - ref) <= 1e-5 * (mag + 1.0), "%dx%dx%d C(%d,%d) = %g, reference %g (seed %llu)",
                          m, n, k, i, j, (double)c[(size_t)i * ldc + j], ref, (unsigned long long)seed);
            }
        cr_assert_eq(ts_free(da), TS_SUCCESS);
        cr_assert_eq(ts_free(db), TS_SUCCESS);
        cr_assert_eq(ts_free(dc), TS_SUCCESS);
        free(a);
        free(b);
        free(c);
    }
    cr_assert_eq(ts_free(ws), TS_SUCCESS);
}

Test(gemm, bad_arguments) {
    /* Checked before any device is touched, so these hold without one. */
    unsigned short buf[64] __attribute__((aligned(16))) = {0};
    void *p = buf;
    const ts_dtype B = TS_DTYPE_BF16;
    cr_assert_eq(ts_gemm(TS_NO_TRANS, TS_NO_TRANS, 8, 8, 8, 1, NULL, B, 8, p, B, 8, 0, p, B, 8, NULL), TS_ERROR_NULL_POINTER);
    cr_assert_eq(ts_gemm(TS_NO_TRANS, TS_NO_TRANS, 8, 8, 8, 1, p, B, 8, NULL, B, 8, 0, p, B, 8, NULL), TS_ERROR_NULL_POINTER);
    cr_assert_eq(ts_gemm(TS_NO_TRANS, TS_NO_TRANS, 8, 8, 8, 1, p, B, 8, p, B, 8, 0, NULL, B, 8, NULL), TS_ERROR_NULL_POINTER);
    cr_assert_eq(ts_gemm((ts_trans)2, TS_NO_TRANS, 8, 8, 8, 1, p, B, 8, p, B, 8, 0, p, B, 8, NULL), TS_ERROR_INVALID_ENUM);
    cr_assert_eq(ts_gemm(TS_NO_TRANS, (ts_trans)-1, 8, 8, 8, 1, p, B, 8, p, B, 8, 0, p, B, 8, NULL), TS_ERROR_INVALID_ENUM);
    cr_assert_eq(ts_gemm(TS_NO_TRANS, TS_NO_TRANS, 8, 8, 8, 1, p, (ts_dtype)9, 8, p, B, 8, 0, p, B, 8, NULL), TS_ERROR_INVALID_ENUM);
    cr_assert_eq(ts_gemm(TS_NO_TRANS, TS_NO_TRANS, 8, 8, 8, 1, p, B, 8, p, B, 8, 0, p, (ts_dtype)0, 8, NULL), TS_ERROR_INVALID_ENUM);
    cr_assert_eq(ts_gemm(TS_NO_TRANS, TS_NO_TRANS, 0, 8, 8, 1, p, B, 8, p, B, 8, 0, p, B, 8, NULL), TS_ERROR_INVALID_SIZE);
    cr_assert_eq(ts_gemm(TS_NO_TRANS, TS_NO_TRANS, 8, -1, 8, 1, p, B, 8, p, B, 8, 0, p, B, 8, NULL), TS_ERROR_INVALID_SIZE);
    cr_assert_eq(ts_gemm(TS_NO_TRANS, TS_NO_TRANS, 8, 8, 0, 1, p, B, 8, p, B, 8, 0, p, B, 8, NULL), TS_ERROR_INVALID_SIZE);
    cr_assert_eq(ts_gemm(TS_NO_TRANS, TS_NO_TRANS, 8, 8, 8, 1, p, B, 8, p, TS_DTYPE_FP16, 8, 0, p, B, 8, NULL), TS_ERROR_UNSUPPORTED);
    cr_assert_eq(ts_gemm(TS_NO_TRANS, TS_NO_TRANS, 8, 8, 8, 1, p, TS_DTYPE_F32, 8, p, TS_DTYPE_F32, 8, 0, p, B, 8, NULL), TS_ERROR_UNSUPPORTED);
    cr_assert_eq(ts_gemm(TS_NO_TRANS, TS_NO_TRANS, 8, 8, 16, 1, p, B, 8, p, B, 8, 0, p, B, 8, NULL), TS_ERROR_INVALID_VALUE, "lda < K");
    cr_assert_eq(ts_gemm(TS_TRANS, TS_NO_TRANS, 16, 8, 8, 1, p, B, 8, p, B, 8, 0, p, B, 8, NULL), TS_ERROR_INVALID_VALUE, "lda < M for A^T");
    cr_assert_eq(ts_gemm(TS_NO_TRANS, TS_NO_TRANS, 8, 16, 8, 1, p, B, 8, p, B, 16, 0, p, B, 8, NULL), TS_ERROR_INVALID_VALUE, "ldc < N");
    cr_assert_eq(ts_gemm(TS_NO_TRANS, TS_NO_TRANS, 8, 8, 12, 1, p, B, 12, p, B, 8, 0, p, B, 8, NULL), TS_ERROR_MISALIGNED, "lda % 8");
    cr_assert_eq(ts_gemm(TS_NO_TRANS, TS_NO_TRANS, 8, 8, 8, 1, (char *)p + 2, B, 8, p, B, 8, 0, p, B, 8, NULL), TS_ERROR_MISALIGNED);
    cr_assert_eq(ts_gemm(TS_NO_TRANS, TS_NO_TRANS, 8, 8, 8, 1, p, B, 1LL << 32, p, B, 8, 0, p, B, 8, NULL), TS_ERROR_SIZE_OVERFLOW);
}
