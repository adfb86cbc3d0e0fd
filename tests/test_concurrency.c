/* Calls from several threads at once, each on its own buffers (tests/support/concurrent_calls.c):
 * the first calls of a process released together, calls racing ts_device_set, and handles made
 * and destroyed on every thread; each result compared with a double-precision reference. Each
 * test runs in a fresh process, so the first calls find the cache of device properties empty.
 * scripts/tsan.sh runs the same calls under ThreadSanitizer (tests/concurrent_calls.c). */
#include <criterion/criterion.h>

#include "support/concurrent_calls.h"
#include "support/test_support.h"

Test(concurrency, failures_are_counted) { cr_assert_eq(ts_test_concurrent_failures_counted(), 2); }

Test(concurrency, first_calls_at_once) {
    TS_TEST_REQUIRE_DEVICE();
    const uint64_t seed = ts_test_fresh_seed();
    cr_assert_eq(ts_test_concurrent_first_calls(seed), 0, "seed %llu", (unsigned long long)seed);
}

Test(concurrency, calls_beside_device_set) {
    TS_TEST_REQUIRE_DEVICE();
    const uint64_t seed = ts_test_fresh_seed();
    cr_assert_eq(ts_test_concurrent_device_set(seed), 0, "seed %llu", (unsigned long long)seed);
}

Test(concurrency, handles_on_every_thread) {
    TS_TEST_REQUIRE_DEVICE();
    const uint64_t seed = ts_test_fresh_seed();
    cr_assert_eq(ts_test_concurrent_handles(seed), 0, "seed %llu", (unsigned long long)seed);
}
