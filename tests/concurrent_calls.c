/* The concurrent calls of tests/support/concurrent_calls.c as a plain program, for
 * ThreadSanitizer (scripts/tsan.sh), under which Criterion cannot start. The first calls run
 * first, while the cache of device properties is empty. Exits non-zero on any failed check. */
#include <stdio.h>

#include "support/concurrent_calls.h"
#include "support/test_support.h"

int main(void) {
    if (!ts_test_device_available()) {
        printf("concurrent calls: no device, skipped\n");
        return 0;
    }
    if (ts_test_concurrent_failures_counted() != 2) return 1;
    const uint64_t seed = ts_test_fresh_seed();
    const int first = ts_test_concurrent_first_calls(seed), device_set = ts_test_concurrent_device_set(seed),
              handles = ts_test_concurrent_handles(seed);
    printf("concurrent calls (seed %llu): first calls %d, beside ts_device_set %d, handles %d failed\n",
           (unsigned long long)seed, first, device_set, handles);
    return first == 0 && device_set == 0 && handles == 0 ? 0 : 1;
}
