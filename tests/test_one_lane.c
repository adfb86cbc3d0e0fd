/* The one-lane ops (ops/one_lane.h) and the host's check of them: a warp's atomic outside
 * TS_ONE_LANE, which every lane of a GPU warp would repeat, fails the launch on the host with
 * TS_ERROR_UNGUARDED_ATOMIC (on a GPU it counts once a lane, which the test shows too); a guarded
 * one counts once a warp everywhere; regions left by break, continue or return are closed. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "support/test_support.h"
#include "tests/kernels/tile_math_kernels.h"

static int *device_ints(int n) {
    int *h = calloc((size_t)n, sizeof(int));
    int *d = ts_test_device_copy(h, (size_t)n * sizeof(int));
    free(h);
    cr_assert(d);
    return d;
}

static int read_count(const int *d) {
    int v = 0;
    cr_assert_eq(ts_test_copy_back(&v, d, sizeof v), TS_SUCCESS);
    return v;
}

static int on_host(void) { return !ts_test_on_gpu(); }

Test(one_lane, an_unguarded_atomic_is_caught_on_the_host) {
    TS_TEST_REQUIRE_DEVICE();
    int *count = device_ints(1);
    const ts_status s = ts_test_one_lane(TS_OL_UNGUARDED, 3, 4, count, NULL, NULL, NULL);
    if (on_host()) {
        cr_assert_eq(s, TS_ERROR_UNGUARDED_ATOMIC, "the launch returned %d (%s)", (int)s, ts_status_string(s));
    } else {
        /* What the check stands for: every lane added. */
        cr_assert_eq(s, TS_SUCCESS);
        cr_assert_eq(ts_device_synchronize(), TS_SUCCESS);
        cr_assert_eq(read_count(count), 3 * 4 * ts_test_tile_math_lanes());
    }
    cr_assert_eq(ts_free(count), TS_SUCCESS);
}

Test(one_lane, a_guarded_atomic_counts_once_a_warp) {
    TS_TEST_REQUIRE_DEVICE();
    int *count = device_ints(1);
    cr_assert_eq(ts_test_one_lane(TS_OL_GUARDED, 5, 3, count, NULL, NULL, NULL), TS_SUCCESS);
    cr_assert_eq(ts_device_synchronize(), TS_SUCCESS);
    cr_assert_eq(read_count(count), 5 * 3);
    cr_assert_eq(ts_free(count), TS_SUCCESS);
}

Test(one_lane, a_lane_atomic_counts_once_a_lane_and_is_not_checked) {
    TS_TEST_REQUIRE_DEVICE();
    int *count = device_ints(1);
    cr_assert_eq(ts_test_one_lane(TS_OL_LANE_ATOMIC, 2, 4, count, NULL, NULL, NULL), TS_SUCCESS);
    cr_assert_eq(ts_device_synchronize(), TS_SUCCESS);
    cr_assert_eq(read_count(count), 2 * 4 * ts_test_tile_math_lanes());
    cr_assert_eq(ts_free(count), TS_SUCCESS);
}

Test(one_lane, the_one_lane_ops_store_and_add_once) {
    TS_TEST_REQUIRE_DEVICE();
    enum { BLOCKS = 3, WARPS = 4, N = BLOCKS * WARPS };
    const int lanes = ts_test_tile_math_lanes();
    int *count = device_ints(1), *olds = device_ints(N * lanes), *ints = device_ints(N);
    float *floats = ts_test_device_copy(NULL, N * sizeof(float));
    cr_assert(floats);
    cr_assert_eq(ts_test_one_lane(TS_OL_ONE_OPS, BLOCKS, WARPS, count, olds, ints, floats), TS_SUCCESS);
    cr_assert_eq(ts_device_synchronize(), TS_SUCCESS);
    cr_assert_eq(read_count(count), N);
    int *h_olds = malloc((size_t)N * lanes * sizeof(int)), h_ints[N];
    float h_floats[N];
    cr_assert_eq(ts_test_copy_back(h_olds, olds, (size_t)N * lanes * sizeof(int)), TS_SUCCESS);
    cr_assert_eq(ts_test_copy_back(h_ints, ints, sizeof h_ints), TS_SUCCESS);
    cr_assert_eq(ts_test_copy_back(h_floats, floats, sizeof h_floats), TS_SUCCESS);
    int seen[N];
    memset(seen, 0, sizeof seen);
    for (int w = 0; w < N; ++w) {
        const int old = h_olds[w * lanes];
        /* each warp's add returned one value to all its lanes, and the warps' values are 0 .. N-1 */
        for (int l = 1; l < lanes; ++l) cr_assert_eq(h_olds[w * lanes + l], old, "warp %d lane %d", w, l);
        cr_assert(old >= 0 && old < N, "warp %d got %d", w, old);
        seen[old] += 1;
        cr_assert_eq(h_ints[w], old + 1, "warp %d", w);
        cr_assert_eq(h_floats[w], 0.5f * (float)(w % WARPS), "warp %d", w);
    }
    for (int i = 0; i < N; ++i) cr_assert_eq(seen[i], 1, "old value %d seen %d times", i, seen[i]);
    free(h_olds);
    cr_assert_eq(ts_free(count), TS_SUCCESS);
    cr_assert_eq(ts_free(olds), TS_SUCCESS);
    cr_assert_eq(ts_free(ints), TS_SUCCESS);
    cr_assert_eq(ts_free(floats), TS_SUCCESS);
}

/* Each warp: guarded adds in regions left by break, continue and return (5 in all), then an
 * unguarded add, which the host must still catch: the regions were closed on the way out. */
Test(one_lane, regions_left_early_are_closed) {
    TS_TEST_REQUIRE_DEVICE();
    int *count = device_ints(1);
    const ts_status s = ts_test_one_lane(TS_OL_LEFT_BY_BREAK, 1, 2, count, NULL, NULL, NULL);
    if (on_host()) {
        cr_assert_eq(s, TS_ERROR_UNGUARDED_ATOMIC, "the launch returned %d (%s)", (int)s, ts_status_string(s));
        cr_assert_eq(read_count(count), 2 * 5, "each warp's guarded adds ran before its unguarded one failed");
    } else {
        cr_assert_eq(s, TS_SUCCESS);
        cr_assert_eq(ts_device_synchronize(), TS_SUCCESS);
        cr_assert_eq(read_count(count), 2 * (5 + ts_test_tile_math_lanes()));
    }
    cr_assert_eq(ts_free(count), TS_SUCCESS);
}

Test(one_lane, the_status_has_its_own_string) {
    cr_assert_str_neq(ts_status_string(TS_ERROR_UNGUARDED_ATOMIC), "unknown status");
    cr_assert_str_neq(ts_status_string(TS_ERROR_UNGUARDED_ATOMIC), ts_status_string(TS_ERROR_LAUNCH_FAILED));
}
