/* Which kernel ts_gemm_ex runs a product on, and how it splits K (kernels/gemm/gemm_plan.h). On the
 * host backend, whose GEMM tuning is sm_90a's, the rules are pinned for a modelled H200 (132 SMs, a
 * block an SM for every GEMM kernel, clusters of up to 8 blocks) at decoding's shapes, so that a
 * change to a rule shows here before a GPU run; on every backend, ts_gemm_explain's checks, and its
 * sentence for the device at hand. */
#include <criterion/criterion.h>
#include <string.h>

#include <tessera/tessera.h>

#include "support/test_support.h"
#if defined(TESSERA_BACKEND_HOST)
#include "kernels/gemm/gemm_plan.h"
#endif

Test(gemm_plan, explain_checks_its_arguments) {
    char buf[256];
    cr_assert_eq(ts_gemm_explain(TS_NO_TRANS, TS_TRANS, 1, 64, 64, NULL, sizeof buf), TS_ERROR_NULL_POINTER);
    cr_assert_eq(ts_gemm_explain(TS_NO_TRANS, TS_TRANS, 1, 64, 64, buf, 0), TS_ERROR_INVALID_SIZE);
    cr_assert_eq(ts_gemm_explain((ts_trans)2, TS_TRANS, 1, 64, 64, buf, sizeof buf), TS_ERROR_INVALID_ENUM);
    cr_assert_eq(ts_gemm_explain(TS_NO_TRANS, (ts_trans)-1, 1, 64, 64, buf, sizeof buf), TS_ERROR_INVALID_ENUM);
    cr_assert_eq(ts_gemm_explain(TS_NO_TRANS, TS_TRANS, 0, 64, 64, buf, sizeof buf), TS_ERROR_INVALID_SIZE);
    cr_assert_eq(ts_gemm_explain(TS_NO_TRANS, TS_TRANS, 1, 64, -1, buf, sizeof buf), TS_ERROR_INVALID_SIZE);
}

/* On the device at hand: decoding's one row is GEMV, a large cube the large tiles, and a small
 * buffer holds a truncated, terminated sentence. */
Test(gemm_plan, explain_names_the_kernel) {
    TS_TEST_REQUIRE_DEVICE();
    char buf[256];
    cr_assert_eq(ts_gemm_explain(TS_NO_TRANS, TS_TRANS, 1, 4096, 4096, buf, sizeof buf), TS_SUCCESS);
    cr_assert(strncmp(buf, "GEMV", 4) == 0, "%s", buf);
    cr_assert_eq(ts_gemm_explain(TS_NO_TRANS, TS_NO_TRANS, 2048, 2048, 2048, buf, sizeof buf), TS_SUCCESS);
    cr_assert(strstr(buf, "128 x 256 tiles") && strstr(buf, "whole"), "%s", buf);
    /* A stored K x M never goes to GEMV. */
    cr_assert_eq(ts_gemm_explain(TS_TRANS, TS_TRANS, 1, 4096, 4096, buf, sizeof buf), TS_SUCCESS);
    cr_assert(strstr(buf, "skinny 128 x 16 tiles"), "%s", buf);
    char small[8];
    memset(small, 'x', sizeof small);
    cr_assert_eq(ts_gemm_explain(TS_NO_TRANS, TS_NO_TRANS, 2048, 2048, 2048, small, sizeof small), TS_SUCCESS);
    cr_assert_eq(small[sizeof small - 1], '\0');
    cr_assert_eq(strlen(small), sizeof small - 1);
}

#if defined(TESSERA_BACKEND_HOST)
/* The H200 as the plan sees it. Clusters of p blocks: as many as the SMs hold in groups of p, or
 * none at all (a device or backend without clusters). */
static int h200_wave(const ts_gemm_device *d, int w) {
    (void)d, (void)w;
    return 132;
}
static int h200_capacity(const ts_gemm_device *d, int w, int pieces) {
    (void)w;
    return d->context ? 0 : 132 / pieces;
}
static const ts_gemm_device h200 = {.large_wave = 132, .skinny_wave = h200_wave, .cluster_capacity = h200_capacity};
static const ts_gemm_device h200_no_clusters = {
    .large_wave = 132, .skinny_wave = h200_wave, .cluster_capacity = h200_capacity, .context = &h200};

/* A plan's kernel, width, units, k steps, pieces and whether they meet in clusters. */
static void expect_plan(const ts_gemm_device *d, ts_trans ta, ts_trans tb, int m, int n, int k, ts_gemm_kernel kernel,
                        int width, long long units, int k_iters, int split, int in_clusters) {
    const ts_gemm_plan p = ts_gemm_plan_make(d, ta, tb, m, n, k);
    char what[256];
    (void)ts_gemm_plan_describe(&p, what, sizeof what);
    cr_assert_eq(p.kernel, kernel, "%dx%dx%d: %s", m, n, k, what);
    if (kernel == TS_GEMM_KERNEL_GEMV) return;
    cr_assert_eq(p.wave, 132);
    cr_assert_eq(p.width, width, "%dx%dx%d: %s", m, n, k, what);
    cr_assert_eq(p.split.units, units, "%dx%dx%d: %s", m, n, k, what);
    cr_assert_eq(p.split.k_iters, k_iters, "%dx%dx%d: %s", m, n, k, what);
    cr_assert_eq(p.split.split, split, "%dx%dx%d: %s", m, n, k, what);
    cr_assert_eq(p.cluster_pieces, in_clusters ? split : 0, "%dx%dx%d: %s", m, n, k, what);
}

Test(gemm_plan, h200_decode_shapes) {
    const ts_trans N = TS_NO_TRANS, T = TS_TRANS;
    const ts_gemm_kernel gemv = TS_GEMM_KERNEL_GEMV, skinny = TS_GEMM_KERNEL_SKINNY, large = TS_GEMM_KERNEL_LARGE;
    /* GEMV: up to 8 rows against few weight rows, up to 4 against small N x K weights (fewer than
     * 4096 x 8192), up to 2 against any; any weights stored K x N. */
    expect_plan(&h200, N, T, 1, 28672, 8192, gemv, 0, 0, 0, 0, 0);
    expect_plan(&h200, N, T, 2, 8192, 28672, gemv, 0, 0, 0, 0, 0);
    expect_plan(&h200, N, T, 8, 1024, 8192, gemv, 0, 0, 0, 0, 0);
    expect_plan(&h200, N, T, 4, 4096, 4096, gemv, 0, 0, 0, 0, 0);
    expect_plan(&h200, N, N, 8, 14336, 4096, gemv, 0, 0, 0, 0, 0);
    /* 3-4 rows against 4096 x 8192 weights or more, 5-8 against 4096 rows or more: the 16-wide
     * tiles, 32 of them at 4096 rows, each K in 4 pieces (132 / 32) of a cluster. */
    expect_plan(&h200, N, T, 4, 4096, 8192, skinny, 16, 32, 128, 4, 1);
    expect_plan(&h200, N, T, 3, 4096, 14336, skinny, 16, 32, 224, 4, 1);
    expect_plan(&h200, N, T, 8, 4096, 4096, skinny, 16, 32, 64, 4, 1);
    /* A stored K x M: never GEMV. */
    expect_plan(&h200, T, T, 1, 4096, 4096, skinny, 16, 32, 64, 4, 1);
    /* 8192 rows of weights: 64 tiles, two pieces' worth of the 132 SMs, too few to split (at
     * least 4 pieces): whole, 64 blocks (docs/gemm.md, "Where M = 4-64 stays behind"). */
    expect_plan(&h200, N, T, 16, 8192, 8192, skinny, 16, 64, 128, 1, 0);
    expect_plan(&h200, N, T, 32, 8192, 28672, skinny, 64, 64, 448, 1, 0);
    /* 1024 rows (K and V's projections): 8 tiles, K in 16 pieces, more than a cluster holds (8):
     * through the workspace. */
    expect_plan(&h200, N, T, 64, 1024, 8192, skinny, 64, 8, 128, 16, 0);
    /* 14336 rows: 112 tiles, whole. */
    expect_plan(&h200, N, T, 64, 14336, 4096, skinny, 64, 112, 64, 1, 0);
    /* 65-128 rows: 128-wide tiles where those split in 4 (4096 rows: 32 tiles) or fill three
     * quarters of the wave (14336 rows: 112 tiles); 8192 rows (64 tiles, neither) on the large
     * tiles, M one row of them, so a cluster's two tiles lie across N: 16 units in 4 pieces. */
    expect_plan(&h200, N, T, 128, 4096, 4096, skinny, 128, 32, 64, 4, 1);
    expect_plan(&h200, N, T, 128, 14336, 4096, skinny, 128, 112, 64, 1, 0);
    expect_plan(&h200, N, T, 128, 8192, 8192, large, 0, 16, 128, 4, 0);
    /* 129-256 rows: several 64-wide tiles across M where the large tiles are at most an eighth of
     * the wave (here 2 x 4 large tiles at 1024 rows) and those few enough to split in four. */
    expect_plan(&h200, N, T, 256, 1024, 8192, skinny, 64, 32, 128, 4, 1);
    expect_plan(&h200, N, T, 256, 4096, 4096, large, 0, 16, 64, 4, 0);
    /* A large cube: whole tiles, clusters down M. */
    expect_plan(&h200, N, N, 2048, 2048, 2048, large, 0, 64, 32, 1, 0);
    /* Without clusters the same pieces go through the workspace. */
    expect_plan(&h200_no_clusters, N, T, 8, 4096, 4096, skinny, 16, 32, 64, 4, 0);
    expect_plan(&h200_no_clusters, N, T, 128, 4096, 4096, skinny, 128, 32, 64, 4, 0);
}

/* The sentence names the kernel, the tiles, the pieces and where they meet. */
Test(gemm_plan, describe_says_what_runs) {
    char buf[256];
    ts_gemm_plan p = ts_gemm_plan_make(&h200, TS_NO_TRANS, TS_TRANS, 8, 4096, 4096);
    (void)ts_gemm_plan_describe(&p, buf, sizeof buf);
    cr_assert_str_eq(buf, "C^T on the skinny 128 x 16 tiles: 32 tiles, K in 4 pieces (64 k steps) added in "
                          "thread-block clusters");
    p = ts_gemm_plan_make(&h200_no_clusters, TS_NO_TRANS, TS_TRANS, 8, 4096, 4096);
    (void)ts_gemm_plan_describe(&p, buf, sizeof buf);
    cr_assert(strstr(buf, "by the reduction kernel from the workspace"), "%s", buf);
    p = ts_gemm_plan_make(&h200, TS_NO_TRANS, TS_NO_TRANS, 2048, 2048, 2048);
    (void)ts_gemm_plan_describe(&p, buf, sizeof buf);
    cr_assert_str_eq(buf, "the 128 x 256 tiles in clusters of 2: 64 clusters' worth of tiles, whole (32 k steps)");
}
#endif
