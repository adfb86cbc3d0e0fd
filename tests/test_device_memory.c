/* Devices, memory, streams and events through the public API, with every error path. Tests that
 * need a device skip without one; the argument checks run everywhere, since they come before any
 * device is touched. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include <tessera/tessera.h>

#include "support/test_support.h"

Test(device, count_and_props_are_consistent) {
    int count = -1;
    cr_assert_eq(ts_device_count(&count), TS_SUCCESS);
    cr_assert_geq(count, 0);
    ts_device_props p;
    if (count == 0) {
        cr_assert_eq(ts_device_get_props(0, &p), TS_ERROR_NO_DEVICE);
        return;
    }
    memset(&p, 0, sizeof p);
    cr_assert_eq(ts_device_get_props(0, &p), TS_SUCCESS);
    cr_assert_gt(strlen(p.name), 0);
    cr_assert_gt(p.sm_count, 0);
    cr_assert_gt(p.max_warps_per_sm, 0);
    cr_assert_gt(p.max_blocks_per_sm, 0);
    cr_assert_gt(p.regs_per_sm, 0);
    cr_assert_gt(p.shared_mem_per_block, 0);
    cr_assert_geq(p.shared_mem_per_sm, p.shared_mem_per_block);
    ts_backend b;
    cr_assert_eq(ts_get_backend(&b), TS_SUCCESS);
    cr_assert_eq(p.backend, b);
#if defined(TESSERA_BACKEND_CUDA)
    cr_assert_eq(p.warp_lanes, 32);
    cr_assert_eq(strncmp(p.arch, "sm_", 3), 0);
#elif defined(TESSERA_BACKEND_HIP)
    cr_assert_eq(p.warp_lanes, 64);
    cr_assert_eq(strncmp(p.arch, "gfx", 3), 0);
#else
    cr_assert_eq(p.warp_lanes, 1);
    cr_assert_str_eq(p.arch, "host");
#endif
}

Test(device, bad_arguments) {
    ts_device_props p;
    int count = 0;
    cr_assert_eq(ts_device_count(NULL), TS_ERROR_NULL_POINTER);
    cr_assert_eq(ts_device_get_props(0, NULL), TS_ERROR_NULL_POINTER);
    cr_assert_eq(ts_device_get(NULL), TS_ERROR_NULL_POINTER);
    cr_assert_eq(ts_device_count(&count), TS_SUCCESS);
    const ts_status missing = count == 0 ? TS_ERROR_NO_DEVICE : TS_ERROR_INVALID_DEVICE;
    cr_assert_eq(ts_device_get_props(-1, &p), missing);
    cr_assert_eq(ts_device_get_props(count, &p), missing);
    cr_assert_eq(ts_device_set(-1), missing);
    cr_assert_eq(ts_device_set(count + 3), missing);
}

Test(device, set_get_synchronize) {
    TS_TEST_REQUIRE_DEVICE();
    int d = -1;
    cr_assert_eq(ts_device_set(0), TS_SUCCESS);
    cr_assert_eq(ts_device_get(&d), TS_SUCCESS);
    cr_assert_eq(d, 0);
    cr_assert_eq(ts_device_synchronize(), TS_SUCCESS);
}

Test(memory, without_device_every_call_says_so) {
    if (ts_test_device_available()) cr_skip_test("a device is present");
    void *p = (void *)&p;
    ts_stream s;
    ts_event e;
    cr_assert_eq(ts_malloc(&p, 64), TS_ERROR_NO_DEVICE);
    cr_assert_null(p);
    cr_assert_eq(ts_stream_create(&s), TS_ERROR_NO_DEVICE);
    cr_assert_eq(ts_event_create(&e), TS_ERROR_NO_DEVICE);
    cr_assert_eq(ts_device_synchronize(), TS_ERROR_NO_DEVICE);
    char a[8] = {0}, b[8];
    /* A host-to-host copy needs no device. */
    cr_assert_eq(ts_memcpy(b, a, sizeof a, TS_MEMCPY_HOST_TO_HOST), TS_SUCCESS);
    cr_assert_eq(ts_memcpy(b, a, sizeof a, TS_MEMCPY_HOST_TO_DEVICE), TS_ERROR_NO_DEVICE);
}

Test(memory, bad_arguments) {
    void *p = (void *)&p;
    char a[16], b[16];
    cr_assert_eq(ts_malloc(NULL, 16), TS_ERROR_NULL_POINTER);
    cr_assert_eq(ts_malloc(&p, 0), TS_ERROR_INVALID_SIZE);
    cr_assert_null(p, "a failed ts_malloc leaves NULL behind");
    cr_assert_eq(ts_malloc(&p, (size_t)-8), TS_ERROR_SIZE_OVERFLOW);
    cr_assert_eq(ts_free(NULL), TS_SUCCESS);
    cr_assert_eq(ts_memcpy(NULL, a, 4, TS_MEMCPY_HOST_TO_HOST), TS_ERROR_NULL_POINTER);
    cr_assert_eq(ts_memcpy(b, NULL, 4, TS_MEMCPY_HOST_TO_HOST), TS_ERROR_NULL_POINTER);
    cr_assert_eq(ts_memcpy(b, a, 4, (ts_memcpy_kind)9), TS_ERROR_INVALID_ENUM);
    cr_assert_eq(ts_memcpy(b, a, 4, (ts_memcpy_kind)-1), TS_ERROR_INVALID_ENUM);
    cr_assert_eq(ts_memcpy(b, a, (size_t)-1, TS_MEMCPY_HOST_TO_HOST), TS_ERROR_SIZE_OVERFLOW);
    cr_assert_eq(ts_memcpy(a + 2, a, 8, TS_MEMCPY_HOST_TO_HOST), TS_ERROR_INVALID_VALUE,
                 "overlapping ranges are refused");
    cr_assert_eq(ts_memcpy_async(NULL, a, 4, TS_MEMCPY_HOST_TO_HOST, NULL), TS_ERROR_NULL_POINTER);
    cr_assert_eq(ts_memset(NULL, 0, 4), TS_ERROR_NULL_POINTER);
    cr_assert_eq(ts_memset(a, 256, 4), TS_ERROR_INVALID_VALUE);
    cr_assert_eq(ts_memset(a, -1, 4), TS_ERROR_INVALID_VALUE);
    cr_assert_eq(ts_memset(a, 0, (size_t)-1), TS_ERROR_SIZE_OVERFLOW);
    cr_assert_eq(ts_memset_async(NULL, 0, 4, NULL), TS_ERROR_NULL_POINTER);
    cr_assert_eq(ts_stream_create(NULL), TS_ERROR_NULL_POINTER);
    cr_assert_eq(ts_stream_destroy(NULL), TS_ERROR_NULL_POINTER);
    cr_assert_eq(ts_event_create(NULL), TS_ERROR_NULL_POINTER);
    cr_assert_eq(ts_event_destroy(NULL), TS_ERROR_NULL_POINTER);
    cr_assert_eq(ts_event_record(NULL, NULL), TS_ERROR_NULL_POINTER);
    cr_assert_eq(ts_event_synchronize(NULL), TS_ERROR_NULL_POINTER);
    float ms;
    cr_assert_eq(ts_event_elapsed_ms(NULL, (ts_event)a, (ts_event)b), TS_ERROR_NULL_POINTER);
    cr_assert_eq(ts_event_elapsed_ms(&ms, NULL, (ts_event)b), TS_ERROR_NULL_POINTER);
    cr_assert_eq(ts_event_elapsed_ms(&ms, (ts_event)a, NULL), TS_ERROR_NULL_POINTER);
}

Test(memory, round_trip_in_every_direction) {
    TS_TEST_REQUIRE_DEVICE();
    uint64_t seed = ts_test_fresh_seed(), st = seed;
    enum { N = 4099 };
    float *h = malloc(N * sizeof(float)), *back = malloc(N * sizeof(float));
    ts_test_fill_normal(h, N, &st);
    void *d1 = NULL, *d2 = NULL;
    cr_assert_eq(ts_malloc(&d1, N * sizeof(float)), TS_SUCCESS);
    cr_assert_eq(ts_malloc(&d2, N * sizeof(float)), TS_SUCCESS);
    cr_assert_eq((uintptr_t)d1 % 256, 0, "device memory is 256-byte aligned");
    cr_assert_eq(ts_memcpy(d1, h, N * sizeof(float), TS_MEMCPY_HOST_TO_DEVICE), TS_SUCCESS);
    cr_assert_eq(ts_memcpy(d2, d1, N * sizeof(float), TS_MEMCPY_DEVICE_TO_DEVICE), TS_SUCCESS);
    memset(back, 0, N * sizeof(float));
    cr_assert_eq(ts_memcpy(back, d2, N * sizeof(float), TS_MEMCPY_DEVICE_TO_HOST), TS_SUCCESS);
    cr_assert_eq(memcmp(h, back, N * sizeof(float)), 0, "seed %llu", (unsigned long long)seed);
    /* memset, then async copies on a created stream. */
    ts_stream s;
    cr_assert_eq(ts_stream_create(&s), TS_SUCCESS);
    cr_assert_eq(ts_memset_async(d2, 0x3F, N * sizeof(float), s), TS_SUCCESS);
    cr_assert_eq(ts_memcpy_async(back, d2, N * sizeof(float), TS_MEMCPY_DEVICE_TO_HOST, s), TS_SUCCESS);
    cr_assert_eq(ts_stream_synchronize(s), TS_SUCCESS);
    for (int i = 0; i < N * (int)sizeof(float); ++i) cr_assert_eq(((unsigned char *)back)[i], 0x3F);
    cr_assert_eq(ts_memset(d1, 0, N * sizeof(float)), TS_SUCCESS);
    cr_assert_eq(ts_memcpy(back, d1, N * sizeof(float), TS_MEMCPY_DEFAULT), TS_SUCCESS);
    for (int i = 0; i < N; ++i) cr_assert_eq(back[i], 0.0f);
    cr_assert_eq(ts_stream_destroy(s), TS_SUCCESS);
    cr_assert_eq(ts_free(d1), TS_SUCCESS);
    cr_assert_eq(ts_free(d2), TS_SUCCESS);
    free(h);
    free(back);
}

Test(events, elapsed_time_covers_the_work_between_them) {
    TS_TEST_REQUIRE_DEVICE();
    ts_event a, b;
    ts_stream s;
    cr_assert_eq(ts_stream_create(&s), TS_SUCCESS);
    cr_assert_eq(ts_event_create(&a), TS_SUCCESS);
    cr_assert_eq(ts_event_create(&b), TS_SUCCESS);
    size_t bytes = (size_t)64 << 20;
    void *d = NULL;
    cr_assert_eq(ts_malloc(&d, bytes), TS_SUCCESS);
    cr_assert_eq(ts_event_record(a, s), TS_SUCCESS);
    for (int i = 0; i < 4; ++i) cr_assert_eq(ts_memset_async(d, i, bytes, s), TS_SUCCESS);
    cr_assert_eq(ts_event_record(b, s), TS_SUCCESS);
    cr_assert_eq(ts_event_synchronize(b), TS_SUCCESS);
    float ms = -1.0f;
    cr_assert_eq(ts_event_elapsed_ms(&ms, a, b), TS_SUCCESS);
    cr_assert_geq(ms, 0.0f);
    cr_assert_lt(ms, 10000.0f);
    cr_assert_eq(ts_free(d), TS_SUCCESS);
    cr_assert_eq(ts_event_destroy(a), TS_SUCCESS);
    cr_assert_eq(ts_event_destroy(b), TS_SUCCESS);
    cr_assert_eq(ts_stream_destroy(s), TS_SUCCESS);
}
