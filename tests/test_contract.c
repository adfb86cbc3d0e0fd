/* The backend contract on the backend this build targets: ids, the block barrier, named barriers
 * and the transaction barrier with asynchronous copies, each checked against what the kernel must
 * produce. On the host backend these run in CI; on a GPU backend they need a device. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "support/test_support.h"
#include "tests/kernels/contract_kernels.h"

static void check_ids(int gx, int gy, int gz, int warps) {
    const size_t n = (size_t)gx * gy * gz * warps * TS_TEST_ID_FIELDS;
    int *h = calloc(n, sizeof(int));
    int *d = ts_test_device_copy(h, n * sizeof(int));
    cr_assert_not_null(d);
    cr_assert_eq(ts_test_ids(d, gx, gy, gz, warps), TS_SUCCESS);
    cr_assert_eq(ts_device_synchronize(), TS_SUCCESS);
    cr_assert_eq(ts_test_copy_back(h, d, n * sizeof(int)), TS_SUCCESS);
    const int lane_sum = ts_test_warp_lanes() * (ts_test_warp_lanes() - 1) / 2;
    for (int z = 0; z < gz; ++z)
        for (int y = 0; y < gy; ++y)
            for (int x = 0; x < gx; ++x)
                for (int w = 0; w < warps; ++w) {
                    const int *r = h + ((((size_t)z * gy + y) * gx + x) * warps + w) * TS_TEST_ID_FIELDS;
                    cr_assert_eq(r[TS_TEST_ID_VISITS], 1, "block (%d,%d,%d) warp %d ran %d times", x, y, z, w, r[TS_TEST_ID_VISITS]);
                    cr_assert_eq(r[TS_TEST_ID_BX], x);
                    cr_assert_eq(r[TS_TEST_ID_BY], y);
                    cr_assert_eq(r[TS_TEST_ID_BZ], z);
                    cr_assert_eq(r[TS_TEST_ID_GX], gx);
                    cr_assert_eq(r[TS_TEST_ID_GY], gy);
                    cr_assert_eq(r[TS_TEST_ID_GZ], gz);
                    cr_assert_eq(r[TS_TEST_ID_WARP], w);
                    cr_assert_eq(r[TS_TEST_ID_NUM_WARPS], warps);
                    cr_assert_eq(r[TS_TEST_ID_WARPGROUP], w / 4);
                    cr_assert_eq(r[TS_TEST_ID_WARP_IN_GROUP], w % 4);
                    cr_assert_eq(r[TS_TEST_ID_LANE_SUM], lane_sum, "each lane id once");
                }
    cr_assert_eq(ts_free(d), TS_SUCCESS);
    free(h);
}

Test(contract, ids_cover_every_block_warp_and_lane) {
    TS_TEST_REQUIRE_DEVICE();
    check_ids(3, 2, 2, 4);
    check_ids(5, 1, 1, 1);
    check_ids(1, 3, 1, 8);
    check_ids(2, 1, 1, ts_test_max_warps());
}

static void check_exchange(int blocks, int warps, int rounds, int named) {
    const size_t n = (size_t)blocks * warps;
    int *d = ts_test_device_copy(NULL, n * sizeof(int));
    cr_assert_not_null(d);
    cr_assert_eq(ts_test_barrier_exchange(d, blocks, warps, rounds, named), TS_SUCCESS);
    cr_assert_eq(ts_device_synchronize(), TS_SUCCESS);
    int *h = malloc(n * sizeof(int));
    cr_assert_eq(ts_test_copy_back(h, d, n * sizeof(int)), TS_SUCCESS);
    const int half = warps / 2;
    for (int b = 0; b < blocks; ++b)
        for (int w = 0; w < warps; ++w) {
            int first = 0, count = warps;
            if (named) {
                first = w >= half ? half : 0;
                count = w >= half ? warps - half : half;
            }
            long long expect = 0;
            for (int r = 0; r < rounds; ++r)
                for (int v = first; v < first + count; ++v) expect += (long long)(r + 1) * (v + 1);
            cr_assert_eq(h[(size_t)b * warps + w], expect, "block %d warp %d named %d", b, w, named);
        }
    cr_assert_eq(ts_free(d), TS_SUCCESS);
    free(h);
}

Test(contract, block_barrier_orders_shared_memory) {
    TS_TEST_REQUIRE_DEVICE();
    check_exchange(3, 8, 50, 0);
    check_exchange(2, ts_test_max_warps(), 20, 0);
}

Test(contract, named_barriers_sync_only_their_warps) {
    TS_TEST_REQUIRE_DEVICE();
    check_exchange(3, 8, 50, 1);
    check_exchange(2, 6, 30, 1);
}

Test(contract, named_barrier_arrivals_hand_off_between_warp_groups) {
    TS_TEST_REQUIRE_DEVICE();
    const int blocks = 3, warps = 8, rounds = 50, half = warps / 2;
    const size_t n = (size_t)blocks * rounds * half;
    int *out = malloc(n * sizeof(int));
    int *d = ts_test_device_copy(NULL, n * sizeof(int));
    cr_assert(out && d);
    cr_assert_eq(ts_test_named_handoff(d, blocks, warps, rounds), TS_SUCCESS);
    cr_assert_eq(ts_device_synchronize(), TS_SUCCESS);
    cr_assert_eq(ts_test_copy_back(out, d, n * sizeof(int)), TS_SUCCESS);
    for (int b = 0; b < blocks; ++b)
        for (int r = 0; r < rounds; ++r)
            for (int i = 0; i < half; ++i)
                cr_assert_eq(out[((size_t)b * rounds + r) * half + i], (b * 1000 + r) * 64 + i,
                             "block %d round %d warp %d", b, r, i);
    cr_assert_eq(ts_free(d), TS_SUCCESS);
    free(out);
}

static void check_pipeline(int chunks, int chunk_floats, int stages, int warps, int mode) {
    uint64_t seed = ts_test_fresh_seed(), st = seed;
    const size_t n = (size_t)chunks * chunk_floats;
    float *h = malloc(n * sizeof(float)), *out = malloc(n * sizeof(float));
    ts_test_fill_normal(h, n, &st);
    float *src = ts_test_device_copy(h, n * sizeof(float));
    float *dst = ts_test_device_copy(NULL, n * sizeof(float));
    cr_assert(src && dst);
    cr_assert_eq(ts_test_tbar_pipeline(dst, src, chunks, chunk_floats, stages, warps, mode), TS_SUCCESS);
    cr_assert_eq(ts_device_synchronize(), TS_SUCCESS);
    cr_assert_eq(ts_test_copy_back(out, dst, n * sizeof(float)), TS_SUCCESS);
    for (size_t i = 0; i < n; ++i)
        cr_assert_eq(out[i], 2.0f * h[i], "mode %d element %zu: %g vs %g (seed %llu)", mode, i,
                     (double)out[i], 2.0 * h[i], (unsigned long long)seed);
    cr_assert_eq(ts_free(src), TS_SUCCESS);
    cr_assert_eq(ts_free(dst), TS_SUCCESS);
    free(h);
    free(out);
}

Test(contract, transaction_barrier_pipeline_with_async_copies) {
    TS_TEST_REQUIRE_DEVICE();
    check_pipeline(40, 1024, 3, 4, 0);
    check_pipeline(17, 256, 2, 3, 0);
    check_pipeline(9, 64, 4, 2, 0);
}

Test(contract, transaction_barrier_with_bytes_completed_by_stores) {
    TS_TEST_REQUIRE_DEVICE();
    check_pipeline(30, 512, 3, 4, 1);
}

Test(contract, transaction_barrier_with_bytes_landing_before_announced) {
    TS_TEST_REQUIRE_DEVICE();
    check_pipeline(30, 512, 2, 4, 2);
}

Test(contract, transaction_barrier_as_a_plain_arrival_flag) {
    TS_TEST_REQUIRE_DEVICE();
    check_pipeline(30, 512, 3, 4, 3);
}

/* Launch checks come before the runtime sees the launch, so they hold without a device too. */
Test(contract, launch_configuration_errors) {
    int *d = NULL;
    cr_assert_eq(ts_test_ids(d, 1, 1, 1, 0), TS_ERROR_RESOURCES);
    cr_assert_eq(ts_test_ids(d, 1, 1, 1, ts_test_max_warps() + 1), TS_ERROR_RESOURCES);
    cr_assert_eq(ts_test_ids(d, 0, 1, 1, 1), TS_ERROR_INVALID_SIZE);
    cr_assert_eq(ts_test_ids(d, 1, 0, 1, 1), TS_ERROR_INVALID_SIZE);
    /* More shared memory than any block may have. */
    cr_assert_eq(ts_test_tbar_pipeline((float *)d, (const float *)d, 1, 1 << 20, 1, 2, 0), TS_ERROR_RESOURCES);
}

#if defined(TESSERA_BACKEND_HOST)
Test(contract, host_reports_a_deadlock_instead_of_hanging) {
    cr_assert_eq(ts_test_deadlock(4), TS_ERROR_DEADLOCK);
}
#endif
