/* The first kernels end to end: the puzzles' fma kernel against an fmaf reference (bitwise: the
 * same fused operations in the same order), and the tile add against a double reference at
 * ragged shapes, with every error path of their entry points. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "support/test_support.h"
#include "tests/kernels/contract_kernels.h"

static int lanes(void) { return ts_test_warp_lanes(); }

static void check_puzzle(long long blocks, int threads, int iterations) {
    uint64_t seed = ts_test_fresh_seed(), st = seed;
    const size_t n = (size_t)blocks * (threads / lanes()) * 256;
    float *h = malloc(n * sizeof(float)), *out = malloc(n * sizeof(float));
    ts_test_fill_normal(h, n, &st);
    const float a = 0.999f + 0.001f * (float)ts_test_uniform(&st), b = (float)ts_test_normal(&st);
    float *d = ts_test_device_copy(h, n * sizeof(float));
    cr_assert_not_null(d);
    cr_assert_eq(ts_puzzle_fma(d, blocks, threads, iterations, a, b, NULL), TS_SUCCESS);
    cr_assert_eq(ts_device_synchronize(), TS_SUCCESS);
    cr_assert_eq(ts_test_copy_back(out, d, n * sizeof(float)), TS_SUCCESS);
    for (size_t i = 0; i < n; ++i) {
        float x = h[i];
        for (int t = 0; t < iterations; ++t) x = fmaf(x, a, b);
        cr_assert_eq(out[i], x, "element %zu: %a vs %a (seed %llu)", i, (double)out[i], (double)x,
                     (unsigned long long)seed);
    }
    cr_assert_eq(ts_free(d), TS_SUCCESS);
    free(h);
    free(out);
}

Test(puzzle_fma, matches_fmaf_reference) {
    TS_TEST_REQUIRE_DEVICE();
    check_puzzle(3, lanes() * 4, 37);
    check_puzzle(5, lanes(), 5);
    check_puzzle(2, lanes() * ts_test_max_warps(), 11);
    check_puzzle(1, lanes() * 2, 0);
}

Test(puzzle_fma, bad_arguments) {
    float x[256] = {0};
    ts_kernel_resources r;
    cr_assert_eq(ts_puzzle_fma(NULL, 1, lanes(), 1, 1.0f, 0.0f, NULL), TS_ERROR_NULL_POINTER);
    cr_assert_eq(ts_puzzle_fma(x, 0, lanes(), 1, 1.0f, 0.0f, NULL), TS_ERROR_INVALID_SIZE);
    cr_assert_eq(ts_puzzle_fma(x, -4, lanes(), 1, 1.0f, 0.0f, NULL), TS_ERROR_INVALID_SIZE);
    cr_assert_eq(ts_puzzle_fma(x, 1, 0, 1, 1.0f, 0.0f, NULL), TS_ERROR_INVALID_SIZE);
    cr_assert_eq(ts_puzzle_fma(x, 1, lanes(), -1, 1.0f, 0.0f, NULL), TS_ERROR_INVALID_SIZE);
    cr_assert_eq(ts_puzzle_fma(x, 1LL << 40, lanes(), 1, 1.0f, 0.0f, NULL), TS_ERROR_SIZE_OVERFLOW);
    cr_assert_eq(ts_puzzle_fma((float *)((char *)x + 4), 1, lanes(), 1, 1.0f, 0.0f, NULL), TS_ERROR_MISALIGNED);
    cr_assert_eq(ts_puzzle_fma(x, 1, lanes() * (ts_test_max_warps() + 1), 1, 1.0f, 0.0f, NULL), TS_ERROR_INVALID_VALUE);
    if (lanes() > 1)
        cr_assert_eq(ts_puzzle_fma(x, 1, lanes() + 1, 1, 1.0f, 0.0f, NULL), TS_ERROR_INVALID_VALUE);
    cr_assert_eq(ts_puzzle_fma_resources(lanes(), NULL), TS_ERROR_NULL_POINTER);
    cr_assert_eq(ts_puzzle_fma_resources(0, &r), TS_ERROR_INVALID_SIZE);
    cr_assert_eq(ts_puzzle_fma_resources(lanes() * 4, &r), TS_SUCCESS);
    cr_assert_eq(r.warps_per_block, 4);
}

static void check_tile_add(int rows, int cols, int pad) {
    uint64_t seed = ts_test_fresh_seed(), st = seed;
    const int ld = cols + pad;
    const size_t n = (size_t)rows * ld;
    float *a = malloc(n * sizeof(float)), *b = malloc(n * sizeof(float)), *c = malloc(n * sizeof(float));
    ts_test_fill_normal(a, n, &st);
    ts_test_fill_normal(b, n, &st);
    float *da = ts_test_device_copy(a, n * sizeof(float));
    float *db = ts_test_device_copy(b, n * sizeof(float));
    float *dc = ts_test_device_copy(NULL, n * sizeof(float)); /* poisoned: NaN everywhere */
    cr_assert(da && db && dc);
    cr_assert_eq(ts_tile_add_f32(dc, da, db, rows, cols, ld, ld, ld, NULL), TS_SUCCESS);
    cr_assert_eq(ts_device_synchronize(), TS_SUCCESS);
    cr_assert_eq(ts_test_copy_back(c, dc, n * sizeof(float)), TS_SUCCESS);
    for (int r = 0; r < rows; ++r)
        for (int j = 0; j < ld; ++j) {
            const size_t i = (size_t)r * ld + j;
            if (j < cols) {
                const double ref = (double)a[i] + (double)b[i];
                cr_assert_leq(fabs(c[i] - ref), 1e-6 * fabs(ref) + 1e-30, "%dx%d at (%d,%d): %g vs %g (seed %llu)",
                              rows, cols, r, j, (double)c[i], ref, (unsigned long long)seed);
            } else {
                cr_assert(isnan(c[i]), "%dx%d: padding at (%d,%d) was written", rows, cols, r, j);
            }
        }
    cr_assert_eq(ts_free(da), TS_SUCCESS);
    cr_assert_eq(ts_free(db), TS_SUCCESS);
    cr_assert_eq(ts_free(dc), TS_SUCCESS);
    free(a);
    free(b);
    free(c);
}

Test(tile_add, ragged_shapes_against_reference) {
    TS_TEST_REQUIRE_DEVICE();
    const int sizes[] = {1, 15, 16, 17, 33, 63, 65, 129};
    for (int i = 0; i < 8; ++i)
        for (int j = 0; j < 8; j += 3) check_tile_add(sizes[i], sizes[j], (i + j) % 3);
    check_tile_add(200, 300, 5);
}

Test(tile_add, bad_arguments) {
    float x[64] = {0};
    cr_assert_eq(ts_tile_add_f32(NULL, x, x, 4, 4, 4, 4, 4, NULL), TS_ERROR_NULL_POINTER);
    cr_assert_eq(ts_tile_add_f32(x, NULL, x, 4, 4, 4, 4, 4, NULL), TS_ERROR_NULL_POINTER);
    cr_assert_eq(ts_tile_add_f32(x, x, NULL, 4, 4, 4, 4, 4, NULL), TS_ERROR_NULL_POINTER);
    cr_assert_eq(ts_tile_add_f32(x, x, x, 0, 4, 4, 4, 4, NULL), TS_ERROR_INVALID_SIZE);
    cr_assert_eq(ts_tile_add_f32(x, x, x, 4, -1, 4, 4, 4, NULL), TS_ERROR_INVALID_SIZE);
    cr_assert_eq(ts_tile_add_f32(x, x, x, 4, 8, 7, 8, 8, NULL), TS_ERROR_INVALID_VALUE);
    cr_assert_eq(ts_tile_add_f32(x, x, x, 4, 8, 8, 7, 8, NULL), TS_ERROR_INVALID_VALUE);
    cr_assert_eq(ts_tile_add_f32(x, x, x, 4, 8, 8, 8, 7, NULL), TS_ERROR_INVALID_VALUE);
    cr_assert_eq(ts_tile_add_f32((float *)((char *)x + 2), x, x, 4, 4, 4, 4, 4, NULL), TS_ERROR_MISALIGNED);
}
