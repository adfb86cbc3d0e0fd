/* Every public function against tables of bad arguments, each case with the status tessera.h and
 * docs/contract.md give it: NULL pointers, unknown enums, sizes, values out of range, misalignment,
 * sizes whose products or tile counts pass INT_MAX or the index limits, buffers that overlap where
 * a call forbids it, plans not made by the planner, and on the host backend handles that are not
 * live. Argument checks are shared code that returns before any launch, so the tables run on every
 * backend, device or not, with pointers into host memory that no check reads; the cases that need
 * a device (a workspace's size, an allocation, the edges that must be accepted and computed) skip
 * without one. On the host backend, valid calls of sizes near INT_MAX are shown to reach their
 * launch (which a fault injection then stops) rather than overflow. */
#include <criterion/criterion.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/common/checks.h"
#include "support/device_models.h"
#include "support/dtype_io.h"
#include "support/test_support.h"
#if defined(TESSERA_BACKEND_HOST)
#include "backends/host/runtime_host.h"
#endif

/* Host memory the tables point into: never read, since every case is refused before any launch. */
static unsigned char pool[1 << 20] __attribute__((aligned(256)));
#define AT(offset) ((void *)(pool + (offset)))

static const ts_dtype BF = TS_DTYPE_BF16, FP = TS_DTYPE_FP16, F32 = TS_DTYPE_F32;

/* The status a call without a device gives where one is needed. */
static ts_status device_or(ts_status with_device) {
    return ts_test_device_available() ? with_device : TS_ERROR_NO_DEVICE;
}

/* ---- the overlap test itself (kernels/common/checks.h) ----------------------------------------- */

static ts_check_layout matrix(uintptr_t base, int elem, long long rows, long long cols, long long stride) {
    return ts_check_matrix_layout((const void *)base, elem, rows, cols, stride);
}

Test(checks, tile_counts_do_not_overflow) {
    cr_assert_eq(ts_check_tiles(INT_MAX, 128), 16777216);
    cr_assert_eq(ts_check_tiles(INT_MAX, 1), INT_MAX);
    cr_assert_eq(ts_check_tiles(LLONG_MAX, 2), LLONG_MAX / 2 + 1);
    cr_assert_eq(ts_check_tiles(0, 64), 0);
    cr_assert_eq(ts_check_tiles(64, 64), 1);
    cr_assert_eq(ts_check_tiles(65, 64), 2);
    cr_assert_eq(ts_check_floor_div(-1, 4), -1);
    cr_assert_eq(ts_check_floor_div(-4, 4), -1);
    cr_assert_eq(ts_check_floor_div(-5, 4), -2);
    cr_assert_eq(ts_check_floor_div(7, 4), 1);
}

Test(checks, matrices_overlap_by_their_bytes) {
    const uintptr_t base = 1 << 20;
    /* 4 rows of 8 bf16 with a stride of 16: rows at bytes 0-15, 32-47, 64-79, 96-111. */
    const ts_check_layout x = matrix(base, 2, 4, 8, 16);
    ts_check_layout y = matrix(base + 112, 2, 4, 8, 16);
    cr_assert(ts_check_apart(&x, &y), "one past the last byte");
    y = matrix(base + 110, 2, 4, 8, 16);
    cr_assert(!ts_check_apart(&x, &y), "the last element");
    y = matrix(base + 16, 2, 4, 8, 16);
    cr_assert(ts_check_apart(&x, &y) && ts_check_apart(&y, &x), "the other half of each row");
    y = matrix(base + 18, 2, 4, 8, 16);
    cr_assert(!ts_check_apart(&x, &y) && !ts_check_apart(&y, &x), "shifted by one element into the next row");
    y = matrix(base + 16, 4, 4, 4, 8);
    cr_assert(ts_check_apart(&x, &y), "fp32 rows in the gaps of bf16 rows");
    y = matrix(base + 16, 4, 4, 5, 8);
    cr_assert(!ts_check_apart(&x, &y), "fp32 rows one element too long");
    y = matrix(base + 32, 2, 1, 8, 8);
    cr_assert(!ts_check_apart(&x, &y), "one row over the second");
    y = matrix(base + 16, 2, 1, 8, 8);
    cr_assert(ts_check_apart(&x, &y), "one row in the first gap");
    y = matrix(base + 8, 2, 100, 1, 16);
    cr_assert(!ts_check_apart(&x, &y), "a column through the rows");
    y = matrix(base - 4, 2, 1, 2, 2);
    cr_assert(ts_check_apart(&x, &y), "just before");
    y = matrix(base - 4, 2, 1, 3, 3);
    cr_assert(!ts_check_apart(&x, &y), "into the first element");
    /* Different row strides that do not nest into each other: taken by their ranges. */
    y = matrix(base + 16, 2, 3, 4, 24);
    cr_assert(!ts_check_apart(&x, &y));
    /* Ranges near the end of the address space do not wrap. */
    const ts_check_layout top = matrix(UINTPTR_MAX - 63, 1, 1, 64, 64), low = matrix(0, 1, 1, 64, 64);
    cr_assert(ts_check_apart(&top, &low) && ts_check_apart(&low, &top));
}

Test(checks, interleaved_heads_of_one_buffer) {
    /* A fused (B, N, 12 heads, D = 64) bf16 buffer: Q heads 0-7, K 8-9, V 10-11, strides {N*12*64, 12*64, 64}. */
    const uintptr_t base = 1 << 24;
    const long long n = 5, d = 64, total = 12;
    const long long ext_q[3] = {2, n, 8}, ext_k[3] = {2, n, 2}, str[3] = {n * total * d, total * d, d};
    const ts_check_layout q = ts_check_layout_make((const void *)base, 2, 3, ext_q, str, d);
    const ts_check_layout k = ts_check_layout_make((const void *)(base + 8 * d * 2), 2, 3, ext_k, str, d);
    const ts_check_layout v = ts_check_layout_make((const void *)(base + 10 * d * 2), 2, 3, ext_k, str, d);
    cr_assert(ts_check_apart(&q, &k) && ts_check_apart(&k, &q) && ts_check_apart(&k, &v) && ts_check_apart(&q, &v));
    /* K one element earlier reaches into Q's last head. */
    const ts_check_layout k_early = ts_check_layout_make((const void *)(base + 8 * d * 2 - 2), 2, 3, ext_k, str, d);
    cr_assert(!ts_check_apart(&q, &k_early));
    /* One K head (multi-query): its strides have no head dimension. */
    const long long ext_k1[3] = {2, n, 1};
    const ts_check_layout k1 = ts_check_layout_make((const void *)(base + 8 * d * 2), 2, 3, ext_k1, str, d);
    cr_assert(ts_check_apart(&q, &k1) && ts_check_apart(&k1, &q));
    const ts_check_layout k1_in_q = ts_check_layout_make((const void *)(base + 7 * d * 2), 2, 3, ext_k1, str, d);
    cr_assert(!ts_check_apart(&q, &k1_in_q));
    /* A tensor against itself. */
    const ts_check_layout same = ts_check_layout_make((const void *)base, 2, 3, ext_q, str, d);
    cr_assert(!ts_check_apart(&q, &same));
}

/* ---- status, backend, devices ------------------------------------------------------------------ */

Test(bad_arguments, status_backend_device) {
    for (int s = -3; s < TS_STATUS_COUNT_ + 3; ++s) cr_assert(ts_status_string((ts_status)s) != NULL);
    const char *name = NULL;
    cr_assert_eq(ts_get_backend(NULL), TS_ERROR_NULL_POINTER);
    cr_assert_eq(ts_backend_name(TS_BACKEND_HOST, NULL), TS_ERROR_NULL_POINTER);
    cr_assert_eq(ts_backend_name((ts_backend)3, &name), TS_ERROR_INVALID_ENUM);
    cr_assert_eq(ts_backend_name((ts_backend)-1, &name), TS_ERROR_INVALID_ENUM);
    ts_device_props props;
    int count = 0;
    cr_assert_eq(ts_device_count(NULL), TS_ERROR_NULL_POINTER);
    cr_assert_eq(ts_device_count(&count), TS_SUCCESS);
    cr_assert_eq(ts_device_get_props(0, NULL), TS_ERROR_NULL_POINTER);
    cr_assert_eq(ts_device_get_props(-1, &props), device_or(TS_ERROR_INVALID_DEVICE));
    cr_assert_eq(ts_device_get_props(INT_MAX, &props), device_or(TS_ERROR_INVALID_DEVICE));
    cr_assert_eq(ts_device_get_props(count, &props), device_or(TS_ERROR_INVALID_DEVICE));
    cr_assert_eq(ts_device_set(-1), device_or(TS_ERROR_INVALID_DEVICE));
    cr_assert_eq(ts_device_set(INT_MIN), device_or(TS_ERROR_INVALID_DEVICE));
    cr_assert_eq(ts_device_get(NULL), TS_ERROR_NULL_POINTER);
    size_t bytes = 0;
    cr_assert_eq(ts_gemm_workspace_size(NULL), TS_ERROR_NULL_POINTER);
    cr_assert_eq(ts_gemm_workspace_size(&bytes), device_or(TS_SUCCESS));
}

/* ---- memory, streams, events ------------------------------------------------------------------- */

Test(bad_arguments, memory_copies_and_fills) {
    void *p = AT(0);
    cr_assert_eq(ts_malloc(NULL, 16), TS_ERROR_NULL_POINTER);
    cr_assert_eq(ts_malloc(&p, 0), TS_ERROR_INVALID_SIZE);
    cr_assert(p == NULL, "the pointer is cleared on failure");
    cr_assert_eq(ts_malloc(&p, SIZE_MAX), TS_ERROR_SIZE_OVERFLOW);
    cr_assert_eq(ts_malloc(&p, ((size_t)1 << 48) + 1), TS_ERROR_SIZE_OVERFLOW);
    cr_assert_eq(ts_free(NULL), TS_SUCCESS);
    const struct {
        void *dst;
        const void *src;
        size_t bytes;
        int kind;
        ts_status want;
    } copies[] = {
        {NULL, AT(0), 16, TS_MEMCPY_HOST_TO_HOST, TS_ERROR_NULL_POINTER},
        {AT(0), NULL, 16, TS_MEMCPY_HOST_TO_HOST, TS_ERROR_NULL_POINTER},
        {AT(0), AT(64), 16, 5, TS_ERROR_INVALID_ENUM},
        {AT(0), AT(64), 16, -1, TS_ERROR_INVALID_ENUM},
        {AT(0), AT(64), ((size_t)1 << 48) + 1, TS_MEMCPY_HOST_TO_HOST, TS_ERROR_SIZE_OVERFLOW},
        {AT(0), AT(8), 16, TS_MEMCPY_HOST_TO_HOST, TS_ERROR_INVALID_VALUE},
        {AT(8), AT(0), 16, TS_MEMCPY_HOST_TO_HOST, TS_ERROR_INVALID_VALUE},
        {AT(0), AT(0), 1, TS_MEMCPY_DEVICE_TO_DEVICE, TS_ERROR_INVALID_VALUE},
        {AT(0), AT(16), 16, TS_MEMCPY_HOST_TO_HOST, TS_SUCCESS}, /* adjacent, not overlapping */
    };
    for (size_t i = 0; i < sizeof copies / sizeof copies[0]; ++i) {
        cr_assert_eq(ts_memcpy(copies[i].dst, copies[i].src, copies[i].bytes, (ts_memcpy_kind)copies[i].kind),
                     copies[i].want, "copy %zu", i);
        if (copies[i].want != TS_SUCCESS)
            cr_assert_eq(
                ts_memcpy_async(copies[i].dst, copies[i].src, copies[i].bytes, (ts_memcpy_kind)copies[i].kind, NULL),
                copies[i].want, "async copy %zu", i);
    }
    cr_assert_eq(ts_memset(NULL, 0, 16), TS_ERROR_NULL_POINTER);
    cr_assert_eq(ts_memset(AT(0), 256, 16), TS_ERROR_INVALID_VALUE);
    cr_assert_eq(ts_memset(AT(0), -1, 16), TS_ERROR_INVALID_VALUE);
    cr_assert_eq(ts_memset_async(AT(0), 0, ((size_t)1 << 48) + 1, NULL), TS_ERROR_SIZE_OVERFLOW);
    cr_assert_eq(ts_memset(AT(0), 0, 0), TS_SUCCESS);
    ts_stream s = (ts_stream)AT(0);
    ts_event e = (ts_event)AT(0);
    float ms = 0.0f;
    cr_assert_eq(ts_stream_create(NULL), TS_ERROR_NULL_POINTER);
    cr_assert_eq(ts_stream_destroy(NULL), TS_ERROR_NULL_POINTER);
    cr_assert_eq(ts_event_create(NULL), TS_ERROR_NULL_POINTER);
    cr_assert_eq(ts_event_destroy(NULL), TS_ERROR_NULL_POINTER);
    cr_assert_eq(ts_event_record(NULL, NULL), TS_ERROR_NULL_POINTER);
    cr_assert_eq(ts_event_synchronize(NULL), TS_ERROR_NULL_POINTER);
    cr_assert_eq(ts_event_elapsed_ms(NULL, e, e), TS_ERROR_NULL_POINTER);
    cr_assert_eq(ts_event_elapsed_ms(&ms, NULL, e), TS_ERROR_NULL_POINTER);
    cr_assert_eq(ts_event_elapsed_ms(&ms, e, NULL), TS_ERROR_NULL_POINTER);
    (void)s;
}

/* A freed allocation, a pointer into one, one from another allocator, a destroyed stream or event,
 * or a handle of the other kind: the host backend's registry refuses each, and nothing is freed
 * twice (AddressSanitizer would report it). */
Test(bad_arguments, host_handles_that_are_not_live) {
#if !defined(TESSERA_BACKEND_HOST)
    cr_skip_test("the handle registry is the host backend's");
#else
    void *p = NULL, *q = NULL;
    cr_assert_eq(ts_malloc(&p, 1000), TS_SUCCESS);
    cr_assert_eq(ts_malloc(&q, 1000), TS_SUCCESS);
    cr_assert_eq(ts_free((char *)p + 256), TS_ERROR_INVALID_VALUE, "a pointer into an allocation");
    cr_assert_eq(ts_free((char *)p + 1), TS_ERROR_INVALID_VALUE);
    void *foreign = malloc(64);
    cr_assert_eq(ts_free(foreign), TS_ERROR_INVALID_VALUE, "memory of another allocator");
    free(foreign);
    cr_assert_eq(ts_free(AT(256)), TS_ERROR_INVALID_VALUE, "static memory");
    cr_assert_eq(ts_free(p), TS_SUCCESS);
    cr_assert_eq(ts_free(p), TS_ERROR_INVALID_VALUE, "a second free");
    ts_stream s = NULL, s2 = NULL;
    ts_event e = NULL, e2 = NULL;
    cr_assert_eq(ts_stream_create(&s), TS_SUCCESS);
    cr_assert_eq(ts_stream_create(&s2), TS_SUCCESS);
    cr_assert_eq(ts_event_create(&e), TS_SUCCESS);
    cr_assert_eq(ts_event_create(&e2), TS_SUCCESS);
    /* Handles of the wrong kind. */
    cr_assert_eq(ts_stream_destroy((ts_stream)e), TS_ERROR_INVALID_VALUE);
    cr_assert_eq(ts_event_destroy((ts_event)s), TS_ERROR_INVALID_VALUE);
    cr_assert_eq(ts_free(s), TS_ERROR_INVALID_VALUE);
    cr_assert_eq(ts_stream_synchronize((ts_stream)q), TS_ERROR_INVALID_VALUE);
    cr_assert_eq(ts_event_record(e, (ts_stream)e2), TS_ERROR_INVALID_VALUE);
    /* Live handles work. */
    cr_assert_eq(ts_event_record(e, s), TS_SUCCESS);
    cr_assert_eq(ts_event_record(e2, s2), TS_SUCCESS);
    float ms = -1.0f;
    cr_assert_eq(ts_event_elapsed_ms(&ms, e, e2), TS_SUCCESS);
    cr_assert(ms >= 0.0f);
    cr_assert_eq(ts_memcpy_async(q, AT(0), 64, TS_MEMCPY_HOST_TO_DEVICE, s), TS_SUCCESS);
    cr_assert_eq(ts_memset_async(q, 1, 64, s), TS_SUCCESS);
    /* Destroyed ones do not. */
    cr_assert_eq(ts_stream_destroy(s), TS_SUCCESS);
    cr_assert_eq(ts_stream_destroy(s), TS_ERROR_INVALID_VALUE, "a second destroy");
    cr_assert_eq(ts_stream_synchronize(s), TS_ERROR_INVALID_VALUE);
    cr_assert_eq(ts_memcpy_async(q, AT(0), 64, TS_MEMCPY_HOST_TO_DEVICE, s), TS_ERROR_INVALID_VALUE);
    cr_assert_eq(ts_memset_async(q, 0, 64, s), TS_ERROR_INVALID_VALUE);
    cr_assert_eq(ts_event_record(e2, s), TS_ERROR_INVALID_VALUE);
    cr_assert_eq(ts_tile_add_f32((float *)q, (const float *)q, (const float *)q, 4, 4, 4, 4, 4, s),
                 TS_ERROR_INVALID_VALUE, "a launch on a destroyed stream");
    cr_assert_eq(ts_tile_add_f32((float *)q, (const float *)q, (const float *)q, 4, 4, 4, 4, 4, s2), TS_SUCCESS);
    cr_assert_eq(ts_event_destroy(e), TS_SUCCESS);
    cr_assert_eq(ts_event_destroy(e), TS_ERROR_INVALID_VALUE);
    cr_assert_eq(ts_event_record(e, NULL), TS_ERROR_INVALID_VALUE, "a destroyed event recorded");
    cr_assert_eq(ts_event_synchronize(e), TS_ERROR_INVALID_VALUE);
    cr_assert_eq(ts_event_elapsed_ms(&ms, e, e2), TS_ERROR_INVALID_VALUE);
    cr_assert_eq(ts_event_elapsed_ms(&ms, e2, e), TS_ERROR_INVALID_VALUE);
    cr_assert_eq(ts_event_destroy(e2), TS_SUCCESS);
    cr_assert_eq(ts_stream_destroy(s2), TS_SUCCESS);
    cr_assert_eq(ts_free(q), TS_SUCCESS);
    /* Many live at once, freed in another order: the registry grows and forgets. */
    enum { N = 3000 };
    void **many = malloc(N * sizeof *many);
    cr_assert(many);
    for (int i = 0; i < N; ++i) cr_assert_eq(ts_malloc(&many[i], 16), TS_SUCCESS);
    for (int i = 0; i < N; i += 2) cr_assert_eq(ts_free(many[i]), TS_SUCCESS);
    for (int i = 0; i < N; i += 2) cr_assert_eq(ts_free(many[i]), TS_ERROR_INVALID_VALUE);
    for (int i = 1; i < N; i += 2) cr_assert_eq(ts_free(many[i]), TS_SUCCESS);
    free(many);
#endif
}

/* CUDA and HIP report a free of what their allocator did not return, and the error does not stay
 * behind to fail the next launch. */
Test(bad_arguments, gpu_free_of_a_pointer_not_allocated) {
    TS_TEST_REQUIRE_DEVICE();
    void *p = NULL;
    cr_assert_eq(ts_malloc(&p, 4096), TS_SUCCESS);
    cr_assert_eq(ts_free((char *)p + 256), TS_ERROR_INVALID_VALUE);
    cr_assert_eq(ts_tile_add_f32((float *)p, (const float *)p, (const float *)p, 8, 8, 8, 8, 8, NULL), TS_SUCCESS);
    cr_assert_eq(ts_device_synchronize(), TS_SUCCESS);
    cr_assert_eq(ts_free(p), TS_SUCCESS);
    cr_assert_eq(ts_free(p), TS_ERROR_INVALID_VALUE, "a second free");
    void *r = NULL;
    cr_assert_eq(ts_malloc(&r, 4096), TS_SUCCESS);
    cr_assert_eq(ts_tile_add_f32((float *)r, (const float *)r, (const float *)r, 8, 8, 8, 8, 8, NULL), TS_SUCCESS);
    cr_assert_eq(ts_device_synchronize(), TS_SUCCESS);
    cr_assert_eq(ts_free(r), TS_SUCCESS);
}

/* ---- the launch planner ------------------------------------------------------------------------ */

Test(bad_arguments, planner_explains_only_its_own_plans) {
    const ts_device_props d = ts_test_hopper();
    const ts_kernel_resources k = {8, 64, 48 * 1024}, other = {4, 64, 48 * 1024};
    ts_launch_plan plan;
    char text[1024];
    cr_assert_eq(ts_plan_launch(&d, &k, 1000, &plan), TS_SUCCESS);
    cr_assert_eq(ts_plan_explain(&d, &k, &plan, text, sizeof text), TS_SUCCESS);
    cr_assert_eq(ts_plan_explain(&d, &other, &plan, text, sizeof text), TS_ERROR_INVALID_VALUE,
                 "another kernel's plan");
    ts_device_props d2 = d;
    d2.sm_count = 131;
    cr_assert_eq(ts_plan_explain(&d2, &k, &plan, text, sizeof text), TS_ERROR_INVALID_VALUE, "another device's plan");
    /* Edited plans, among them the ones whose arithmetic overflowed. */
    const struct {
        const char *what;
        long long grid, busiest, per_wave, waves;
        int blocks_per_sm;
    } edits[] = {
        {"grid near LLONG_MAX", LLONG_MAX, -1, -1, -1, -1},
        {"grid of LLONG_MAX - 1", LLONG_MAX - 1, -1, -1, -1, -1},
        {"busiest SM near LLONG_MAX", -1, LLONG_MAX / 2, -1, -1, -1},
        {"a wave of one block", -1, -1, 1, -1, -1},
        {"waves near LLONG_MAX", -1, -1, -1, LLONG_MAX, -1},
        {"blocks per SM of INT_MAX", -1, -1, -1, -1, INT_MAX},
        {"a negative grid", -5, -1, -1, -1, -1},
    };
    for (size_t i = 0; i < sizeof edits / sizeof edits[0]; ++i) {
        ts_launch_plan bad = plan;
        if (edits[i].grid != -1) bad.grid_blocks = edits[i].grid;
        if (edits[i].busiest != -1) bad.busiest_sm_blocks = edits[i].busiest;
        if (edits[i].per_wave != -1) bad.blocks_per_wave = edits[i].per_wave;
        if (edits[i].waves != -1) bad.waves = edits[i].waves;
        if (edits[i].blocks_per_sm != -1) bad.blocks_per_sm = edits[i].blocks_per_sm;
        cr_assert_eq(ts_plan_explain(&d, &k, &bad, text, sizeof text), TS_ERROR_INVALID_VALUE, "%s", edits[i].what);
    }
    ts_launch_plan bad = plan;
    bad.occupancy = 2.0;
    cr_assert_eq(ts_plan_explain(&d, &k, &bad, text, sizeof text), TS_ERROR_INVALID_VALUE, "edited occupancy");
    /* A zeroed plan, as a caller that never planned would pass. */
    memset(&bad, 0, sizeof bad);
    cr_assert_eq(ts_plan_explain(&d, &k, &bad, text, sizeof text), TS_ERROR_INVALID_VALUE);
    /* The largest grid the planner takes is explained. */
    cr_assert_eq(ts_plan_launch(&d, &k, LLONG_MAX - plan.blocks_per_wave, &plan), TS_SUCCESS);
    cr_assert_eq(ts_plan_explain(&d, &k, &plan, text, sizeof text), TS_SUCCESS);
    cr_assert_eq(ts_plan_launch(&d, &k, LLONG_MAX, &plan), TS_ERROR_SIZE_OVERFLOW);
}

/* ---- C = A + B --------------------------------------------------------------------------------- */

Test(bad_arguments, tile_add) {
    float *a = (float *)AT(4096), *b = (float *)AT(8192), *c = (float *)AT(12288);
    const struct {
        const char *what;
        float *c;
        const float *a, *b;
        int rows, cols, ldc, lda, ldb;
        ts_status want;
    } cases[] = {
        {"c NULL", NULL, a, b, 8, 8, 8, 8, 8, TS_ERROR_NULL_POINTER},
        {"a NULL", c, NULL, b, 8, 8, 8, 8, 8, TS_ERROR_NULL_POINTER},
        {"b NULL", c, a, NULL, 8, 8, 8, 8, 8, TS_ERROR_NULL_POINTER},
        {"no rows", c, a, b, 0, 8, 8, 8, 8, TS_ERROR_INVALID_SIZE},
        {"negative cols", c, a, b, 8, -8, 8, 8, 8, TS_ERROR_INVALID_SIZE},
        {"ldc below cols", c, a, b, 8, 8, 7, 8, 8, TS_ERROR_INVALID_VALUE},
        {"lda below cols", c, a, b, 8, 8, 8, 7, 8, TS_ERROR_INVALID_VALUE},
        {"misaligned", (float *)AT(12290), a, b, 8, 8, 8, 8, 8, TS_ERROR_MISALIGNED},
        {"near INT_MAX", c, a, b, INT_MAX, INT_MAX, INT_MAX, INT_MAX, INT_MAX, TS_ERROR_SIZE_OVERFLOW},
        {"rows x ld past 2^46", c, a, b, INT_MAX, 8, 1 << 16, 8, 8, TS_ERROR_SIZE_OVERFLOW},
        {"C one element into A", a + 1, a, b, 8, 8, 8, 8, 8, TS_ERROR_INVALID_VALUE},
        {"C over A with another ld", a, a, b, 8, 8, 16, 8, 8, TS_ERROR_INVALID_VALUE},
        {"C one row into B", b + 8, a, b, 8, 8, 8, 8, 8, TS_ERROR_INVALID_VALUE},
        {"C ends in A's first element", a - 63, a, b, 8, 8, 8, 8, 8, TS_ERROR_INVALID_VALUE},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i)
        cr_assert_eq(ts_tile_add_f32(cases[i].c, cases[i].a, cases[i].b, cases[i].rows, cases[i].cols, cases[i].ldc,
                                     cases[i].lda, cases[i].ldb, NULL),
                     cases[i].want, "%s", cases[i].what);
}

/* ---- GEMM -------------------------------------------------------------------------------------- */

typedef struct {
    ts_trans ta, tb;
    int m, n, k;
    const void *a;
    ts_dtype at;
    long long lda;
    const void *b;
    ts_dtype bt;
    long long ldb;
    void *c;
    ts_dtype ct;
    long long ldc;
    void *ws;
    size_t ws_bytes;
} gemm_args;

static ts_status gemm_call(gemm_args g) {
    return ts_gemm_ex(g.ta, g.tb, g.m, g.n, g.k, 1.0f, g.a, g.at, g.lda, g.b, g.bt, g.ldb, 0.0f, g.c, g.ct, g.ldc, g.ws,
                      g.ws_bytes, NULL);
}

Test(bad_arguments, gemm) {
    /* 64 x 64 bf16 A at 0 and B at 8 KiB, fp32 C at 16 KiB. */
    const gemm_args ok = {TS_NO_TRANS, TS_NO_TRANS, 64, 64, 64, AT(0), BF, 64, AT(8192), BF, 64, AT(16384), F32, 64,
                          NULL, 0};
    gemm_args g;
#define EXPECT(change, status)                                                                     \
    do {                                                                                           \
        g = ok;                                                                                    \
        change;                                                                                    \
        cr_assert_eq(gemm_call(g), status, "ts_gemm_ex: " #change);                                \
        if (!g.ws)                                                                                 \
            cr_assert_eq(ts_gemm(g.ta, g.tb, g.m, g.n, g.k, 1.0f, g.a, g.at, g.lda, g.b, g.bt, g.ldb, 0.0f, g.c, g.ct, \
                                 g.ldc, NULL),                                                     \
                         status, "ts_gemm: " #change);                                             \
    } while (0)
    EXPECT(g.a = NULL, TS_ERROR_NULL_POINTER);
    EXPECT(g.b = NULL, TS_ERROR_NULL_POINTER);
    EXPECT(g.c = NULL, TS_ERROR_NULL_POINTER);
    EXPECT(g.ta = (ts_trans)2, TS_ERROR_INVALID_ENUM);
    EXPECT(g.tb = (ts_trans)-1, TS_ERROR_INVALID_ENUM);
    EXPECT(g.at = (ts_dtype)0, TS_ERROR_INVALID_ENUM);
    EXPECT(g.ct = (ts_dtype)9, TS_ERROR_INVALID_ENUM);
    EXPECT(g.m = 0, TS_ERROR_INVALID_SIZE);
    EXPECT(g.n = -1, TS_ERROR_INVALID_SIZE);
    EXPECT(g.k = INT_MIN, TS_ERROR_INVALID_SIZE);
    EXPECT((g.at = F32, g.bt = F32), TS_ERROR_UNSUPPORTED);
    EXPECT(g.bt = FP, TS_ERROR_UNSUPPORTED);
    EXPECT(g.lda = 56, TS_ERROR_INVALID_VALUE);
    EXPECT((g.ta = TS_TRANS, g.m = 72), TS_ERROR_INVALID_VALUE); /* A^T's rows are M long */
    EXPECT(g.ldc = 8, TS_ERROR_INVALID_VALUE);
    EXPECT(g.lda = 68, TS_ERROR_MISALIGNED);
    EXPECT(g.a = AT(8), TS_ERROR_MISALIGNED);
    EXPECT(g.c = AT(16386), TS_ERROR_MISALIGNED);
    EXPECT(g.ldb = (1LL << 31) + 8, TS_ERROR_SIZE_OVERFLOW);
    /* Sizes near INT_MAX whose matrices pass 2^46 elements. */
    EXPECT((g.m = INT_MAX, g.ldc = 1LL << 31), TS_ERROR_SIZE_OVERFLOW);
    EXPECT((g.m = INT_MAX, g.lda = 1LL << 31), TS_ERROR_SIZE_OVERFLOW);
    EXPECT((g.n = INT_MAX, g.m = 1 << 16, g.ldb = 1LL << 31, g.ldc = 1LL << 31), TS_ERROR_SIZE_OVERFLOW);
    EXPECT((g.k = INT_MAX, g.ta = TS_TRANS, g.lda = 1LL << 31), TS_ERROR_SIZE_OVERFLOW);
    /* C shares bytes with A or B: checked after every other argument, the workspace's size among
     * them, which needs the device. */
    const ts_status overlap = device_or(TS_ERROR_INVALID_VALUE);
    EXPECT((g.c = AT(0), g.ct = BF), overlap);
    EXPECT(g.c = AT(0), overlap);                        /* fp32 C over bf16 A */
    EXPECT((g.c = AT(8192 + 128), g.ct = BF), overlap);  /* one row into B */
    EXPECT(g.c = AT(8192 - 32), overlap);                /* C's first row ends in B */
    EXPECT((g.c = AT(4096), g.ldc = 64, g.m = 64), overlap); /* fp32 C of 16 KiB from 4 KiB */
#undef EXPECT
}

Test(bad_arguments, gemm_workspace) {
    TS_TEST_REQUIRE_DEVICE();
    size_t need = 0;
    cr_assert_eq(ts_gemm_workspace_size(&need), TS_SUCCESS);
    if (need == 0) cr_skip_test("this build uses no workspace");
    void *mem = NULL;
    const size_t c_bytes = 64 * 64 * 4;
    cr_assert_eq(ts_malloc(&mem, need + 2 * c_bytes + 256), TS_SUCCESS);
    unsigned char *base = (unsigned char *)mem;
    gemm_args g = {TS_NO_TRANS, TS_NO_TRANS, 64, 64, 64, AT(0), BF, 64, AT(8192), BF, 64, base, F32, 64, base + c_bytes,
                   need};
    cr_assert_eq((g.ws_bytes = need - 1, gemm_call(g)), TS_ERROR_INVALID_SIZE);
    cr_assert_eq((g.ws_bytes = need, g.ws = base + c_bytes + 8, gemm_call(g)), TS_ERROR_MISALIGNED);
    cr_assert_eq((g.ws = base + c_bytes - 16, gemm_call(g)), TS_ERROR_INVALID_VALUE, "the workspace over C's last row");
    cr_assert_eq((g.ws = base, g.c = base + need - 256, gemm_call(g)), TS_ERROR_INVALID_VALUE, "C in the workspace");
    cr_assert_eq(ts_free(mem), TS_SUCCESS);
}

/* ---- attention --------------------------------------------------------------------------------- */

typedef struct {
    ts_attention_shape shape;
    ts_dtype dtype;
    const void *q, *k, *v;
    void *o;
    const long long *qs, *ks, *vs, *os;
    float *lse;
    float scale;
    int causal;
} attn_args;

static ts_status attn_call(attn_args a) {
    return ts_attention_forward(&a.shape, a.dtype, a.q, a.qs, a.k, a.ks, a.v, a.vs, a.o, a.os, a.lse, a.scale,
                                a.causal, NULL);
}

Test(bad_arguments, attention) {
    /* B 1, H 2, H_kv 1, N 64, D 64, bf16: Q and O 16 KiB at 0 and 64 KiB, K and V 8 KiB at 32 and
     * 48 KiB, lse 512 bytes at 96 KiB. */
    static const long long qs[3] = {2 * 64 * 64, 64 * 64, 64}, ks[3] = {64 * 64, 64 * 64, 64};
    const attn_args ok = {{1, 2, 1, 64, 64, 64}, BF, AT(0), AT(32768), AT(49152), AT(65536), qs, ks, ks, qs,
                          (float *)AT(98304), 0.125f, 0};
    attn_args a;
    long long st[3];
#define EXPECT(change, status)                                                                     \
    do {                                                                                           \
        a = ok;                                                                                    \
        change;                                                                                    \
        cr_assert_eq(attn_call(a), status, #change);                                               \
    } while (0)
    cr_assert_eq(ts_attention_forward(NULL, BF, AT(0), qs, AT(32768), ks, AT(49152), ks, AT(65536), qs, NULL, 0.1f, 0,
                                      NULL),
                 TS_ERROR_NULL_POINTER);
    EXPECT(a.q = NULL, TS_ERROR_NULL_POINTER);
    EXPECT(a.v = NULL, TS_ERROR_NULL_POINTER);
    EXPECT(a.o = NULL, TS_ERROR_NULL_POINTER);
    EXPECT(a.ks = NULL, TS_ERROR_NULL_POINTER);
    EXPECT(a.os = NULL, TS_ERROR_NULL_POINTER);
    EXPECT(a.dtype = (ts_dtype)0, TS_ERROR_INVALID_ENUM);
    EXPECT(a.dtype = F32, TS_ERROR_UNSUPPORTED);
    EXPECT(a.shape.batch = 0, TS_ERROR_INVALID_SIZE);
    EXPECT(a.shape.seq_kv = -1, TS_ERROR_INVALID_SIZE);
    EXPECT(a.shape.head_dim = 96, TS_ERROR_UNSUPPORTED);
    EXPECT((a.shape.heads_q = 3, a.shape.heads_kv = 2), TS_ERROR_INVALID_VALUE);
    EXPECT(a.causal = 2, TS_ERROR_INVALID_VALUE);
    /* scale > 0 with scale * log2(e) finite. */
    EXPECT(a.scale = 0.0f, TS_ERROR_INVALID_VALUE);
    EXPECT(a.scale = -1.0f, TS_ERROR_INVALID_VALUE);
    EXPECT(a.scale = NAN, TS_ERROR_INVALID_VALUE);
    EXPECT(a.scale = INFINITY, TS_ERROR_INVALID_VALUE);
    EXPECT(a.scale = FLT_MAX, TS_ERROR_INVALID_VALUE);
    EXPECT(a.scale = 2.4e38f, TS_ERROR_INVALID_VALUE);
    EXPECT(a.lse = (float *)AT(98306), TS_ERROR_MISALIGNED);
    EXPECT(a.q = AT(8), TS_ERROR_MISALIGNED);
    EXPECT((st[0] = 2 * qs[0], st[1] = 64 * 72, st[2] = 68, a.qs = st), TS_ERROR_MISALIGNED);
    EXPECT((st[0] = qs[0], st[1] = qs[1], st[2] = 0, a.qs = st), TS_ERROR_INVALID_VALUE);
    EXPECT((st[0] = qs[0], st[1] = qs[1], st[2] = 32, a.qs = st), TS_ERROR_INVALID_VALUE); /* rows overlap */
    EXPECT((st[0] = qs[0], st[1] = 64, st[2] = 64, a.qs = st), TS_ERROR_INVALID_VALUE);   /* heads overlap rows */
    EXPECT((st[0] = qs[0], st[1] = 1LL << 47, st[2] = 64, a.qs = st), TS_ERROR_SIZE_OVERFLOW);
    /* seq_q near INT_MAX: the tasks pass 2^30 (they overflowed a 32-bit tile count). */
    static const long long big_q[3] = {8 * 64 * (1LL << 31), 64 * (1LL << 31), 64};
    EXPECT((a.shape.batch = 16, a.shape.heads_q = 8, a.shape.seq_q = INT_MAX, a.qs = big_q, a.os = big_q),
           TS_ERROR_SIZE_OVERFLOW);
    /* O and lse share no byte with Q, K, V or each other. */
    EXPECT(a.o = (void *)a.q, TS_ERROR_INVALID_VALUE);
    EXPECT(a.o = AT(32768 - 128), TS_ERROR_INVALID_VALUE); /* O's last row in K's first */
    EXPECT(a.o = AT(49152 + 64), TS_ERROR_INVALID_VALUE);  /* over V */
    EXPECT(a.lse = (float *)AT(65536 + 4096), TS_ERROR_INVALID_VALUE);
    EXPECT(a.lse = (float *)AT(0), TS_ERROR_INVALID_VALUE);
    EXPECT(a.lse = (float *)AT(49152 + 8192 - 4), TS_ERROR_INVALID_VALUE); /* its first value in V's last */
#undef EXPECT
}

/* ---- decode attention --------------------------------------------------------------------------- */

typedef struct {
    ts_attention_decode_desc desc;
    ts_dtype dtype;
    const void *q, *k, *v;
    const int *table, *seq;
    void *o;
    float *lse;
    void *ws;
    size_t ws_bytes;
} decode_args;

static ts_status decode_call(decode_args a) {
    return ts_attention_decode(&a.desc, a.dtype, a.q, a.k, a.v, a.table, a.seq, a.o, a.lse, a.ws, a.ws_bytes, NULL);
}

Test(bad_arguments, attention_decode) {
    /* B 2, Hq 8, Hkv 2, N_q 1, D 64, pages of 16, 8 pages, 4 a sequence, bf16: Q and O 2 KiB at 0
     * and 4 KiB, the caches 32 KiB each at 8 and 40 KiB, the block table 32 bytes at 72 KiB, the
     * lengths 8 bytes after it, lse 64 bytes at 72 KiB + 128, the workspace from 128 KiB (its size
     * is never read: any that is enough). */
    const decode_args ok = {{2, 8, 2, 1, 64, 16, 8, 4, 0.125f, 1}, BF, AT(0), AT(8192), AT(40960),
                            (const int *)AT(73728), (const int *)AT(73792), AT(4096), (float *)AT(73856), AT(131072),
                            (size_t)1 << 40};
    decode_args a;
#define EXPECT(change, status)                                                                     \
    do {                                                                                           \
        a = ok;                                                                                    \
        change;                                                                                    \
        cr_assert_eq(decode_call(a), status, #change);                                             \
    } while (0)
    cr_assert_eq(ts_attention_decode(NULL, BF, ok.q, ok.k, ok.v, ok.table, ok.seq, ok.o, ok.lse, ok.ws, ok.ws_bytes,
                                     NULL),
                 TS_ERROR_NULL_POINTER);
    size_t bytes = 0;
    cr_assert_eq(ts_attention_decode_workspace_size(NULL, &bytes), TS_ERROR_NULL_POINTER);
    cr_assert_eq(ts_attention_decode_workspace_size(&ok.desc, NULL), TS_ERROR_NULL_POINTER);
    EXPECT(a.q = NULL, TS_ERROR_NULL_POINTER);
    EXPECT(a.k = NULL, TS_ERROR_NULL_POINTER);
    EXPECT(a.v = NULL, TS_ERROR_NULL_POINTER);
    EXPECT(a.table = NULL, TS_ERROR_NULL_POINTER);
    EXPECT(a.seq = NULL, TS_ERROR_NULL_POINTER);
    EXPECT(a.o = NULL, TS_ERROR_NULL_POINTER);
    EXPECT(a.ws = NULL, TS_ERROR_NULL_POINTER);
    EXPECT(a.dtype = (ts_dtype)0, TS_ERROR_INVALID_ENUM);
    EXPECT(a.dtype = F32, TS_ERROR_UNSUPPORTED);
    EXPECT(a.desc.batch = 0, TS_ERROR_INVALID_SIZE);
    EXPECT(a.desc.heads_q = 0, TS_ERROR_INVALID_SIZE);
    EXPECT(a.desc.heads_kv = -1, TS_ERROR_INVALID_SIZE);
    EXPECT(a.desc.queries = 0, TS_ERROR_INVALID_SIZE);
    EXPECT(a.desc.head_dim = 0, TS_ERROR_INVALID_SIZE);
    EXPECT(a.desc.page_size = 0, TS_ERROR_INVALID_SIZE);
    EXPECT(a.desc.num_pages = 0, TS_ERROR_INVALID_SIZE);
    EXPECT(a.desc.max_pages = -3, TS_ERROR_INVALID_SIZE);
    EXPECT(a.desc.head_dim = 96, TS_ERROR_UNSUPPORTED);
    EXPECT(a.desc.head_dim = 256, TS_ERROR_UNSUPPORTED);
    EXPECT(a.desc.queries = 17, TS_ERROR_UNSUPPORTED);
    EXPECT(a.desc.heads_kv = 3, TS_ERROR_INVALID_VALUE);
    EXPECT(a.desc.page_size = 8, TS_ERROR_INVALID_VALUE);
    EXPECT(a.desc.page_size = 24, TS_ERROR_INVALID_VALUE);
    EXPECT(a.desc.page_size = 272, TS_ERROR_INVALID_VALUE);
    EXPECT(a.desc.causal = 2, TS_ERROR_INVALID_VALUE);
    EXPECT(a.desc.causal = -1, TS_ERROR_INVALID_VALUE);
    EXPECT(a.desc.scale = 0.0f, TS_ERROR_INVALID_VALUE);
    EXPECT(a.desc.scale = -1.0f, TS_ERROR_INVALID_VALUE);
    EXPECT(a.desc.scale = NAN, TS_ERROR_INVALID_VALUE);
    EXPECT(a.desc.scale = INFINITY, TS_ERROR_INVALID_VALUE);
    EXPECT(a.desc.scale = 2.4e38f, TS_ERROR_INVALID_VALUE);
    EXPECT(a.q = AT(8), TS_ERROR_MISALIGNED);
    EXPECT(a.k = AT(8192 + 8), TS_ERROR_MISALIGNED);
    EXPECT(a.v = AT(40960 + 2), TS_ERROR_MISALIGNED);
    EXPECT(a.o = AT(4096 + 4), TS_ERROR_MISALIGNED);
    EXPECT(a.ws = AT(131072 + 8), TS_ERROR_MISALIGNED);
    EXPECT(a.table = (const int *)AT(73728 + 2), TS_ERROR_MISALIGNED);
    EXPECT(a.seq = (const int *)AT(73792 + 1), TS_ERROR_MISALIGNED);
    EXPECT(a.lse = (float *)AT(73856 + 2), TS_ERROR_MISALIGNED);
    /* Past the index limits: caches past 2^46 elements, sequences past 2^30 keys, more than 2^20
     * rows a key-value head, more than 2^24 row tiles (a block each per split). */
    EXPECT((a.desc.num_pages = INT_MAX, a.desc.page_size = 256, a.desc.head_dim = 128), TS_ERROR_SIZE_OVERFLOW);
    EXPECT(a.desc.max_pages = (1 << 26) + 1, TS_ERROR_SIZE_OVERFLOW);
    EXPECT((a.desc.heads_q = 1 << 17, a.desc.heads_kv = 1, a.desc.queries = 16), TS_ERROR_SIZE_OVERFLOW);
    EXPECT((a.desc.batch = 1 << 20, a.desc.heads_q = 32, a.desc.heads_kv = 32), TS_ERROR_SIZE_OVERFLOW);
    EXPECT((a.desc.batch = INT_MAX, a.desc.heads_q = 1 << 20, a.desc.heads_kv = 1 << 20), TS_ERROR_SIZE_OVERFLOW);
    EXPECT((a.desc.batch = a.desc.heads_q = a.desc.heads_kv = a.desc.num_pages = a.desc.max_pages = INT_MAX,
            a.desc.queries = 16, a.desc.page_size = 256, a.desc.head_dim = 128),
           TS_ERROR_SIZE_OVERFLOW);
    EXPECT((a.desc.batch = INT_MAX, a.desc.heads_q = a.desc.heads_kv = 1 << 10, a.desc.queries = 16,
            a.desc.num_pages = 1), TS_ERROR_SIZE_OVERFLOW);
    cr_assert_eq(ts_attention_decode_workspace_size(&(ts_attention_decode_desc){2, 8, 2, 17, 64, 16, 8, 4, 0.1f, 0},
                                                    &bytes),
                 TS_ERROR_UNSUPPORTED);
    /* The rest needs the device (the split plan follows its SM count). */
    EXPECT(a.ws_bytes = 16, device_or(TS_ERROR_INVALID_SIZE));
    /* O, lse and the workspace share no byte with any other tensor of the call. */
    EXPECT(a.o = (void *)a.q, device_or(TS_ERROR_INVALID_VALUE));
    EXPECT(a.o = AT(8192 + 32768 - 1024), device_or(TS_ERROR_INVALID_VALUE)); /* over K's last page */
    EXPECT(a.o = AT(73728 - 2048 + 16), device_or(TS_ERROR_INVALID_VALUE));  /* its end over the block table */
    EXPECT(a.lse = (float *)AT(73792 + 4), device_or(TS_ERROR_INVALID_VALUE)); /* over seq_lens */
    EXPECT(a.lse = (float *)AT(4096 + 2048 - 4), device_or(TS_ERROR_INVALID_VALUE)); /* over O's last value */
    EXPECT(a.ws = AT(40960 + 16), device_or(TS_ERROR_INVALID_VALUE));        /* over V */
    EXPECT(a.o = AT(131072 + 256), device_or(TS_ERROR_INVALID_VALUE));       /* O in the workspace */
    EXPECT(a.lse = (float *)AT(131072 + 64), device_or(TS_ERROR_INVALID_VALUE));
#undef EXPECT
}

/* ---- attention backward ------------------------------------------------------------------------ */

typedef struct {
    ts_attention_shape shape;
    ts_dtype dtype;
    const void *q, *k, *v, *o, *d_o;
    void *dq, *dk, *dv;
    const long long *qs, *ks, *vs, *os, *dos, *dqs, *dks, *dvs;
    const float *lse;
    float scale;
    int causal;
    void *ws;
    size_t ws_bytes;
} attn_bwd_args;

static ts_status attn_bwd_call(attn_bwd_args a) {
    return ts_attention_backward(&a.shape, a.dtype, a.q, a.qs, a.k, a.ks, a.v, a.vs, a.o, a.os, a.d_o, a.dos, a.lse,
                                 a.dq, a.dqs, a.dk, a.dks, a.dv, a.dvs, a.scale, a.causal, a.ws, a.ws_bytes, NULL);
}

static ts_status attn_bwd_call_ex(attn_bwd_args a, unsigned flags) {
    return ts_attention_backward_ex(&a.shape, a.dtype, a.q, a.qs, a.k, a.ks, a.v, a.vs, a.o, a.os, a.d_o, a.dos,
                                    a.lse, a.dq, a.dqs, a.dk, a.dks, a.dv, a.dvs, a.scale, a.causal, flags, a.ws,
                                    a.ws_bytes, NULL);
}

Test(bad_arguments, attention_backward) {
    /* B 1, H 2, H_kv 1, N 64, D 64, bf16: Q, O, dO and dQ 16 KiB at 0, 64, 96 and 192 KiB; K, V, dK
     * and dV 8 KiB at 32, 48, 224 and 240 KiB; lse 512 bytes at 128 KiB; the workspace, 1 KiB, at
     * 256 KiB. */
    static const long long qs[3] = {2 * 64 * 64, 64 * 64, 64}, ks[3] = {64 * 64, 64 * 64, 64};
    const attn_bwd_args ok = {{1, 2, 1, 64, 64, 64}, BF, AT(0), AT(32768), AT(49152), AT(65536), AT(98304),
                              AT(196608), AT(229376), AT(245760), qs, ks, ks, qs, qs, qs, ks, ks,
                              (const float *)AT(131072), 0.125f, 0, AT(262144), 1024};
    attn_bwd_args a;
    long long st[3];
    size_t bytes = 0;
    const ts_attention_shape shape = {1, 2, 1, 64, 64, 64};
    cr_assert_eq(ts_attention_backward_workspace_size(&shape, &bytes), TS_SUCCESS);
    cr_assert_eq(bytes, 1024u, "two floats a query row of each head (D = 64: the deterministic form only)");
    const ts_attention_shape ragged = {3, 4, 2, 65, 7, 128};
    cr_assert_eq(ts_attention_backward_workspace_size(&ragged, &bytes), TS_SUCCESS);
    cr_assert(bytes == 8u * 3 * 4 * 128 || bytes == 4u * (2 + 128) * 3 * 4 * 128,
              "rows rounded up to 64 (D = 128: with dQ's sums where the architecture has the atomic form)");
    cr_assert_eq(ts_attention_backward_workspace_size(NULL, &bytes), TS_ERROR_NULL_POINTER);
    cr_assert_eq(ts_attention_backward_workspace_size(&shape, NULL), TS_ERROR_NULL_POINTER);
    const ts_attention_shape d96 = {1, 2, 1, 64, 64, 96}, h32 = {1, 3, 2, 64, 64, 64}, n0 = {1, 2, 1, 0, 64, 64};
    const ts_attention_shape huge = {16, 8, 8, INT_MAX, 64, 64};
    cr_assert_eq(ts_attention_backward_workspace_size(&d96, &bytes), TS_ERROR_UNSUPPORTED);
    cr_assert_eq(ts_attention_backward_workspace_size(&h32, &bytes), TS_ERROR_INVALID_VALUE);
    cr_assert_eq(ts_attention_backward_workspace_size(&n0, &bytes), TS_ERROR_INVALID_SIZE);
    cr_assert_eq(ts_attention_backward_workspace_size(&huge, &bytes), TS_ERROR_SIZE_OVERFLOW);
#define EXPECT(change, status)                                                                     \
    do {                                                                                           \
        a = ok;                                                                                    \
        change;                                                                                    \
        cr_assert_eq(attn_bwd_call(a), status, #change);                                           \
    } while (0)
    cr_assert_eq(ts_attention_backward(NULL, BF, AT(0), qs, AT(32768), ks, AT(49152), ks, AT(65536), qs, AT(98304), qs,
                                       (const float *)AT(131072), AT(196608), qs, AT(229376), ks, AT(245760), ks, 0.1f,
                                       0, AT(262144), 1024, NULL),
                 TS_ERROR_NULL_POINTER);
    EXPECT(a.q = NULL, TS_ERROR_NULL_POINTER);
    EXPECT(a.o = NULL, TS_ERROR_NULL_POINTER);
    EXPECT(a.d_o = NULL, TS_ERROR_NULL_POINTER);
    EXPECT(a.lse = NULL, TS_ERROR_NULL_POINTER);
    EXPECT(a.dq = NULL, TS_ERROR_NULL_POINTER);
    EXPECT(a.dv = NULL, TS_ERROR_NULL_POINTER);
    EXPECT(a.dks = NULL, TS_ERROR_NULL_POINTER);
    EXPECT(a.ws = NULL, TS_ERROR_NULL_POINTER);
    EXPECT(a.dtype = (ts_dtype)0, TS_ERROR_INVALID_ENUM);
    EXPECT(a.dtype = F32, TS_ERROR_UNSUPPORTED);
    EXPECT(a.shape.batch = 0, TS_ERROR_INVALID_SIZE);
    EXPECT(a.shape.seq_q = -1, TS_ERROR_INVALID_SIZE);
    EXPECT(a.shape.head_dim = 96, TS_ERROR_UNSUPPORTED);
    EXPECT((a.shape.heads_q = 3, a.shape.heads_kv = 2), TS_ERROR_INVALID_VALUE);
    EXPECT(a.causal = 2, TS_ERROR_INVALID_VALUE);
    EXPECT(a.scale = 0.0f, TS_ERROR_INVALID_VALUE);
    EXPECT(a.scale = NAN, TS_ERROR_INVALID_VALUE);
    EXPECT(a.scale = 2.4e38f, TS_ERROR_INVALID_VALUE);
    EXPECT(a.lse = (const float *)AT(131074), TS_ERROR_MISALIGNED);
    EXPECT(a.dq = AT(196608 + 8), TS_ERROR_MISALIGNED);
    EXPECT((st[0] = 2 * qs[0], st[1] = 64 * 72, st[2] = 68, a.dos = st), TS_ERROR_MISALIGNED);
    EXPECT((st[0] = qs[0], st[1] = qs[1], st[2] = 32, a.dqs = st), TS_ERROR_INVALID_VALUE); /* rows overlap */
    EXPECT((st[0] = qs[0], st[1] = 1LL << 47, st[2] = 64, a.dqs = st), TS_ERROR_SIZE_OVERFLOW);
    static const long long big_q[3] = {8 * 64 * (1LL << 31), 64 * (1LL << 31), 64};
    EXPECT((a.shape.batch = 16, a.shape.heads_q = 8, a.shape.heads_kv = 8, a.shape.seq_q = INT_MAX, a.qs = big_q,
            a.os = big_q, a.dos = big_q, a.dqs = big_q),
           TS_ERROR_SIZE_OVERFLOW);
    /* The workspace: large enough, 16-byte aligned. */
    EXPECT(a.ws_bytes = 1023, TS_ERROR_INVALID_SIZE);
    EXPECT(a.ws = AT(262144 + 8), TS_ERROR_MISALIGNED);
    /* The flags: one bit known, an unknown bit reported after every other argument's checks. */
    a = ok;
    a.ws_bytes = 1023;
    cr_assert_eq(attn_bwd_call_ex(a, 0u), TS_ERROR_INVALID_SIZE);
    cr_assert_eq(attn_bwd_call_ex(a, TS_ATTENTION_DETERMINISTIC), TS_ERROR_INVALID_SIZE);
    cr_assert_eq(attn_bwd_call_ex(a, 2u), TS_ERROR_INVALID_SIZE, "the workspace, then the flags");
    a = ok;
    cr_assert_eq(attn_bwd_call_ex(a, 2u), TS_ERROR_INVALID_VALUE);
    cr_assert_eq(attn_bwd_call_ex(a, 0x80000000u), TS_ERROR_INVALID_VALUE);
    a.q = NULL;
    cr_assert_eq(attn_bwd_call_ex(a, 2u), TS_ERROR_NULL_POINTER);
    a = ok;
    a.scale = 0.0f;
    cr_assert_eq(attn_bwd_call_ex(a, 2u), TS_ERROR_INVALID_VALUE);
    /* dQ, dK, dV and the workspace share no byte with each other or with an input. */
    EXPECT(a.dq = (void *)a.q, TS_ERROR_INVALID_VALUE);
    EXPECT(a.dq = AT(98304 + 128), TS_ERROR_INVALID_VALUE);    /* over dO */
    EXPECT(a.dk = AT(65536 + 16384 - 128), TS_ERROR_INVALID_VALUE); /* its first row in O's last */
    EXPECT(a.dv = AT(229376 + 64), TS_ERROR_INVALID_VALUE);   /* over dK */
    EXPECT(a.dv = AT(131072 - 8192 + 16), TS_ERROR_INVALID_VALUE); /* its last row over lse */
    EXPECT(a.ws = AT(196608 + 16384 - 16), TS_ERROR_INVALID_VALUE); /* over dQ's last row */
    EXPECT(a.ws = AT(131072), TS_ERROR_INVALID_VALUE);         /* over lse */
    EXPECT(a.dk = AT(262144 + 512), TS_ERROR_INVALID_VALUE);   /* in the workspace */
#undef EXPECT
}

/* ---- LayerNorm and RMSNorm ----------------------------------------------------------------------- */

/* The atomic form's workspace (D = 128 without the causal mask): two floats and dQ's D fp32 sums a
 * query row; under the causal mask and with TS_ATTENTION_DETERMINISTIC the two floats alone. An
 * unknown flag bit, reported after the workspace's check, tells which size a call asked for. */
Test(bad_arguments, attention_backward_workspace_of_each_form) {
    /* B 1, H 1, N 64, D 128, bf16: Q, K, V, O, dO, dQ, dK, dV 16 KiB each at 0, 16, ..., 112 KiB; lse
     * 256 bytes at 128 KiB; the workspace at 132 KiB. */
    static const long long s3[3] = {64 * 128, 64 * 128, 128};
    const ts_attention_shape shape = {1, 1, 1, 64, 64, 128};
    size_t bytes = 0;
    cr_assert_eq(ts_attention_backward_workspace_size(&shape, &bytes), TS_SUCCESS);
    const size_t two_floats = 4u * 2 * 64;
    cr_assert(bytes == two_floats || bytes == 4u * (2 + 128) * 64, "two floats, and where the architecture has the atomic form dQ's sums");
    attn_bwd_args a = {shape, BF, AT(0), AT(16384), AT(32768), AT(49152), AT(65536), AT(81920), AT(98304),
                       AT(114688), s3, s3, s3, s3, s3, s3, s3, s3, (const float *)AT(131072), 0.088f, 0,
                       AT(135168), two_floats};
    const ts_status atomic_short = bytes > two_floats ? TS_ERROR_INVALID_SIZE : TS_ERROR_INVALID_VALUE;
    cr_assert_eq(attn_bwd_call_ex(a, 2u), atomic_short, "non-causal: the atomic form's workspace");
    cr_assert_eq(attn_bwd_call_ex(a, TS_ATTENTION_DETERMINISTIC | 2u), TS_ERROR_INVALID_VALUE, "deterministic: two floats");
    a.causal = 1;
    cr_assert_eq(attn_bwd_call_ex(a, 2u), TS_ERROR_INVALID_VALUE, "causal: the deterministic form, two floats");
    a.causal = 0;
    a.ws_bytes = bytes - 1;
    cr_assert_eq(attn_bwd_call_ex(a, 2u), TS_ERROR_INVALID_SIZE);
    a.ws_bytes = bytes;
    cr_assert_eq(attn_bwd_call_ex(a, 2u), TS_ERROR_INVALID_VALUE, "the size ts_attention_backward_workspace_size gives");
}

Test(bad_arguments, norms) {
    /* 4 x 256 bf16: x at 0, out at 8 KiB, residual at 16 KiB, residual_out at 24 KiB, weight and
     * bias at 32 and 33 KiB. */
    const ts_norm_desc ok = {.rows = 4, .cols = 256, .dtype = BF, .out_dtype = BF, .param_dtype = BF, .x = AT(0),
                             .x_stride = 256, .residual = AT(16384), .residual_stride = 256, .residual_out = AT(24576),
                             .residual_out_stride = 256, .weight = AT(32768), .bias = AT(33792), .out = AT(8192),
                             .out_stride = 256, .eps = 1e-5f};
    ts_norm_desc d;
#define EXPECT(change, status)                                                                     \
    do {                                                                                           \
        d = ok;                                                                                    \
        change;                                                                                    \
        cr_assert_eq(ts_layernorm(&d, NULL), status, "layernorm: " #change);                       \
        cr_assert_eq(ts_rmsnorm(&d, NULL), status, "rmsnorm: " #change);                           \
    } while (0)
    cr_assert_eq(ts_layernorm(NULL, NULL), TS_ERROR_NULL_POINTER);
    EXPECT(d.x = NULL, TS_ERROR_NULL_POINTER);
    EXPECT(d.out = NULL, TS_ERROR_NULL_POINTER);
    EXPECT(d.param_dtype = (ts_dtype)4, TS_ERROR_INVALID_ENUM);
    EXPECT(d.rows = -1, TS_ERROR_INVALID_SIZE);
    EXPECT((d.cols = TS_ROWWISE_MAX_COLS + 1,
            d.x_stride = d.out_stride = d.residual_stride = d.residual_out_stride = 1 << 15),
           TS_ERROR_UNSUPPORTED);
    EXPECT(d.eps = -0.0001f, TS_ERROR_INVALID_VALUE);
    EXPECT(d.residual = NULL, TS_ERROR_INVALID_VALUE); /* residual_out without a residual */
    EXPECT(d.residual_out_stride = 255, TS_ERROR_INVALID_VALUE);
    EXPECT(d.weight = AT(32769), TS_ERROR_MISALIGNED);
    EXPECT((d.rows = 1LL << 62, d.x_stride = 256), TS_ERROR_SIZE_OVERFLOW);
    EXPECT((d.rows = LLONG_MAX), TS_ERROR_SIZE_OVERFLOW);
    /* Overlaps the header forbids. */
    EXPECT(d.out = AT(512), TS_ERROR_INVALID_VALUE);                          /* out = x + one row */
    EXPECT((d.out = AT(0), d.out_stride = 264), TS_ERROR_INVALID_VALUE);       /* out == x, another stride */
    EXPECT((d.out = AT(0), d.out_dtype = F32), TS_ERROR_INVALID_VALUE);        /* fp32 out over bf16 x */
    EXPECT((d.out = AT(0), d.out_dtype = FP), TS_ERROR_INVALID_VALUE);         /* in place changes no dtype */
    EXPECT(d.residual_out = AT(0), TS_ERROR_INVALID_VALUE);                   /* residual_out == x */
    EXPECT(d.out = AT(16384), TS_ERROR_INVALID_VALUE);                        /* out == residual */
    EXPECT(d.out = AT(24576), TS_ERROR_INVALID_VALUE);                        /* out == residual_out */
    EXPECT(d.out = AT(32768), TS_ERROR_INVALID_VALUE);                        /* out == weight */
    EXPECT(d.out = AT(33792 - 2), TS_ERROR_INVALID_VALUE);                    /* its second element the bias's first */
    EXPECT((d.residual_out = AT(16386)), TS_ERROR_INVALID_VALUE);             /* residual + 1 element */
    EXPECT((d.residual_out = AT(16384), d.residual_out_stride = 512), TS_ERROR_INVALID_VALUE);
    EXPECT(d.residual_out = AT(32768 - 2046), TS_ERROR_INVALID_VALUE);        /* its last element the weight's first */
    EXPECT(d.residual_out = AT(8192 + 2), TS_ERROR_INVALID_VALUE);            /* over out */
#undef EXPECT
}

/* ---- softmax ------------------------------------------------------------------------------------ */

Test(bad_arguments, softmax) {
    const ts_softmax_desc ok = {.rows = 4, .cols = 256, .dtype = BF, .out_dtype = BF, .x = AT(0), .x_stride = 256,
                                .out = AT(8192), .out_stride = 256, .scale = 1.0f, .causal = 0, .causal_rows = 0,
                                .causal_offset = 0};
    ts_softmax_desc d;
#define EXPECT(change, status)                                                                     \
    do {                                                                                           \
        d = ok;                                                                                    \
        change;                                                                                    \
        cr_assert_eq(ts_softmax(&d, NULL), status, #change);                                       \
    } while (0)
    cr_assert_eq(ts_softmax(NULL, NULL), TS_ERROR_NULL_POINTER);
    EXPECT(d.x = NULL, TS_ERROR_NULL_POINTER);
    EXPECT(d.out = NULL, TS_ERROR_NULL_POINTER);
    EXPECT(d.dtype = (ts_dtype)0, TS_ERROR_INVALID_ENUM);
    EXPECT(d.out_dtype = (ts_dtype)-3, TS_ERROR_INVALID_ENUM);
    EXPECT(d.rows = 0, TS_ERROR_INVALID_SIZE);
    EXPECT(d.cols = INT_MIN, TS_ERROR_INVALID_SIZE);
    EXPECT((d.cols = (1 << 30) + 1, d.x_stride = d.out_stride = 1LL << 31), TS_ERROR_SIZE_OVERFLOW);
    EXPECT((d.cols = INT_MAX, d.x_stride = d.out_stride = INT_MAX), TS_ERROR_SIZE_OVERFLOW);
    EXPECT(d.scale = 0.0f, TS_ERROR_INVALID_VALUE);
    EXPECT(d.scale = -INFINITY, TS_ERROR_INVALID_VALUE);
    EXPECT(d.scale = NAN, TS_ERROR_INVALID_VALUE);
    EXPECT(d.scale = FLT_MAX, TS_ERROR_INVALID_VALUE);
    EXPECT(d.causal = -1, TS_ERROR_INVALID_VALUE);
    EXPECT(d.causal = 1, TS_ERROR_INVALID_VALUE); /* causal_rows 0 */
    EXPECT((d.causal = 1, d.causal_rows = LLONG_MIN), TS_ERROR_INVALID_VALUE);
    EXPECT(d.x_stride = 255, TS_ERROR_INVALID_VALUE);
    EXPECT(d.out = AT(8193), TS_ERROR_MISALIGNED);
    EXPECT((d.dtype = F32, d.x = AT(2)), TS_ERROR_MISALIGNED);
    EXPECT((d.rows = 1LL << 60), TS_ERROR_SIZE_OVERFLOW);
    /* Overlaps. */
    EXPECT(d.out = AT(512), TS_ERROR_INVALID_VALUE);                        /* out = x + one row */
    EXPECT((d.out = AT(0), d.out_stride = 512), TS_ERROR_INVALID_VALUE);     /* out == x, another stride */
    EXPECT((d.out = AT(0), d.out_dtype = F32), TS_ERROR_INVALID_VALUE);      /* fp32 out over bf16 x */
    EXPECT((d.out = AT(0), d.out_dtype = FP), TS_ERROR_INVALID_VALUE);
    EXPECT(d.out = AT(2048 - 2), TS_ERROR_INVALID_VALUE);                   /* out's first element is x's last */
#undef EXPECT
}

/* ---- rotary embedding -------------------------------------------------------------------------- */

Test(bad_arguments, rotary) {
    /* B 1, N 4, H_q 2, H_k 1, D 64, bf16, (B, N, H, D): q 1 KiB at 0, k 512 bytes at 4 KiB, q_out at
     * 8 KiB, k_out at 12 KiB; tables of 8 rows of 32 floats at 16 and 20 KiB. */
    const ts_rotary_desc ok = {.batch = 1, .seq = 4, .heads_q = 2, .heads_k = 1, .head_dim = 64, .dtype = BF,
                               .layout = TS_ROTARY_BNHD, .convention = TS_ROTARY_ROTATE_HALF, .q = AT(0),
                               .q_out = AT(8192), .q_strides = NULL, .k = AT(4096), .k_out = AT(12288),
                               .k_strides = NULL, .cos_table = (const float *)AT(16384),
                               .sin_table = (const float *)AT(20480), .table_rows = 8, .theta_base = 10000.0f,
                               .position_offset = 2};
    ts_rotary_desc d;
    long long st[3];
#define EXPECT(change, status)                                                                     \
    do {                                                                                           \
        d = ok;                                                                                    \
        change;                                                                                    \
        cr_assert_eq(ts_rotary(&d, NULL), status, #change);                                        \
    } while (0)
    cr_assert_eq(ts_rotary(NULL, NULL), TS_ERROR_NULL_POINTER);
    EXPECT(d.q = NULL, TS_ERROR_NULL_POINTER);
    EXPECT(d.q_out = NULL, TS_ERROR_NULL_POINTER);
    EXPECT(d.k = NULL, TS_ERROR_NULL_POINTER);
    EXPECT(d.sin_table = NULL, TS_ERROR_NULL_POINTER);
    EXPECT(d.dtype = (ts_dtype)7, TS_ERROR_INVALID_ENUM);
    EXPECT(d.layout = (ts_rotary_layout)2, TS_ERROR_INVALID_ENUM);
    EXPECT(d.convention = (ts_rotary_convention)-1, TS_ERROR_INVALID_ENUM);
    EXPECT(d.seq = 0, TS_ERROR_INVALID_SIZE);
    EXPECT(d.heads_k = -1, TS_ERROR_INVALID_SIZE);
    EXPECT(d.head_dim = 48, TS_ERROR_UNSUPPORTED);
    EXPECT(d.position_offset = -1, TS_ERROR_INVALID_VALUE);
    EXPECT(d.position_offset = LLONG_MAX, TS_ERROR_SIZE_OVERFLOW); /* seq + offset overflowed */
    EXPECT(d.position_offset = (1LL << 24) - 3, TS_ERROR_SIZE_OVERFLOW);
    EXPECT(d.table_rows = 5, TS_ERROR_INVALID_VALUE);
    EXPECT(d.cos_table = (const float *)AT(16386), TS_ERROR_MISALIGNED);
    EXPECT((d.cos_table = NULL, d.sin_table = NULL, d.theta_base = 0.0f), TS_ERROR_INVALID_VALUE);
    EXPECT((d.cos_table = NULL, d.sin_table = NULL, d.theta_base = INFINITY), TS_ERROR_INVALID_VALUE);
    EXPECT(d.q_out = AT(8193), TS_ERROR_MISALIGNED);
    EXPECT((st[0] = 512, st[1] = 128, st[2] = 0, d.q_strides = st), TS_ERROR_INVALID_VALUE);
    EXPECT((st[0] = 512, st[1] = 128, st[2] = 32, d.q_strides = st), TS_ERROR_INVALID_VALUE); /* heads overlap */
    EXPECT((st[0] = 512, st[1] = 1LL << 60, st[2] = 64, d.q_strides = st), TS_ERROR_SIZE_OVERFLOW);
    /* Dense strides of INT_MAX heads over 2^24 tokens. */
    EXPECT((d.heads_q = INT_MAX, d.seq = 1 << 24, d.position_offset = 0, d.cos_table = NULL, d.sin_table = NULL),
           TS_ERROR_SIZE_OVERFLOW);
    /* Overlaps. */
    EXPECT(d.q_out = AT(4), TS_ERROR_INVALID_VALUE);                 /* q_out = q + 2 elements */
    EXPECT(d.k_out = AT(8192), TS_ERROR_INVALID_VALUE);              /* k_out == q_out */
    EXPECT(d.q_out = AT(4096), TS_ERROR_INVALID_VALUE);              /* q_out == k */
    EXPECT(d.k_out = AT(0), TS_ERROR_INVALID_VALUE);                 /* k_out == q */
    EXPECT(d.k_out = AT(8192 + 1024 - 2), TS_ERROR_INVALID_VALUE);    /* k_out's first element q_out's last */
    EXPECT(d.q_out = AT(16384 + 2 * 128), TS_ERROR_INVALID_VALUE);    /* over the cos rows read (2 .. 5) */
    EXPECT(d.k_out = AT(20480 + 6 * 128 - 2), TS_ERROR_INVALID_VALUE); /* over the last sin value read */
#undef EXPECT
}

/* ---- valid calls at the edges: accepted and computed --------------------------------------------- */

/* Calls of sizes near INT_MAX that every check accepts get to their launch; on the host backend a
 * fault injection fails the launch's first thread, so they end there with TS_ERROR_RUNTIME
 * instead of running (where a 32-bit tile count wrapped, they came back with TS_SUCCESS having
 * done nothing, or tripped the sanitizer). */
Test(bad_arguments, host_sizes_near_int_max_reach_the_launch) {
#if !defined(TESSERA_BACKEND_HOST)
    cr_skip_test("the fault injection is the host backend's");
#else
    /* Addresses far apart, never read: the launch fails before any block runs. */
#define FAR(bit) ((void *)((uintptr_t)1 << (bit)))
    static const long long big_kv[3] = {64LL * INT_MAX, 64LL * INT_MAX, 64};
    static const long long small_q[3] = {64 * 64, 64 * 64, 64};
    const struct {
        const char *what;
        int call;
    } cases[] = {{"gemm m = INT_MAX", 0},         {"gemm n = INT_MAX", 1},       {"gemm k = INT_MAX", 2},
                 {"attention seq_kv = INT_MAX", 3}, {"tile add cols = INT_MAX", 4}, {"softmax cols = 2^30", 5}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        ts_host_fail_thread_creation_after(0);
        ts_status s = TS_SUCCESS;
        switch (cases[i].call) {
        case 0:
            s = ts_gemm(TS_NO_TRANS, TS_NO_TRANS, INT_MAX, 64, 64, 1.0f, FAR(40), BF, 64, AT(0), BF, 64, 0.0f, FAR(42),
                        F32, 64, NULL);
            break;
        case 1:
            s = ts_gemm(TS_NO_TRANS, TS_NO_TRANS, 8, INT_MAX, 64, 1.0f, AT(0), BF, 64, FAR(40), BF, 1LL << 31, 0.0f,
                        FAR(42), F32, 1LL << 31, NULL);
            break;
        case 2:
            s = ts_gemm(TS_NO_TRANS, TS_NO_TRANS, 8, 8, INT_MAX, 1.0f, FAR(40), BF, 1LL << 31, FAR(42), BF, 8, 0.0f,
                        AT(0), F32, 8, NULL);
            break;
        case 3: {
            const ts_attention_shape shape = {1, 1, 1, 64, INT_MAX, 64};
            s = ts_attention_forward(&shape, BF, AT(0), small_q, FAR(40), big_kv, FAR(42), big_kv, AT(16384), small_q,
                                     NULL, 0.125f, 0, NULL);
            break;
        }
        case 4:
            s = ts_tile_add_f32((float *)AT(0), (const float *)AT(0), (const float *)AT(0), 1, INT_MAX, INT_MAX,
                                INT_MAX, INT_MAX, NULL);
            break;
        default: {
            const ts_softmax_desc d = {.rows = 1, .cols = 1 << 30, .dtype = BF, .out_dtype = BF, .x = AT(0),
                                       .x_stride = 1 << 30, .out = AT(0), .out_stride = 1 << 30, .scale = 1.0f};
            s = ts_softmax(&d, NULL);
        }
        }
        ts_host_fail_thread_creation_after(-1);
        cr_assert_eq(s, TS_ERROR_RUNTIME, "%s: %s", cases[i].what, ts_status_string(s));
    }
#endif
}

/* The device properties the launchers keep are queried afresh after ts_device_set: on the host
 * backend the SM count follows the block concurrency, and the GEMM workspace with it. */
Test(bad_arguments, host_device_set_refreshes_the_properties) {
#if !defined(TESSERA_BACKEND_HOST)
    cr_skip_test("the host backend's SM count is the knob's");
#else
    size_t two = 0, four = 0, again = 0;
    ts_host_set_block_concurrency(2);
    cr_assert_eq(ts_device_set(0), TS_SUCCESS);
    cr_assert_eq(ts_gemm_workspace_size(&two), TS_SUCCESS);
    ts_host_set_block_concurrency(4); /* two clusters of two against one */
    cr_assert_eq(ts_gemm_workspace_size(&again), TS_SUCCESS);
    cr_assert_eq(again, two, "kept until ts_device_set");
    cr_assert_eq(ts_device_set(0), TS_SUCCESS);
    cr_assert_eq(ts_gemm_workspace_size(&four), TS_SUCCESS);
    ts_host_set_block_concurrency(0);
    cr_assert_eq(ts_device_set(0), TS_SUCCESS);
    if (two == 0) cr_skip_test("this build uses no workspace");
    cr_assert_gt(four, two, "four SMs' workspace (%zu bytes) against two's (%zu)", four, two);
#endif
}

/* A device buffer of n values of dtype t from a fresh normal draw, and its host copy. */
static void *fresh(uint64_t *st, ts_dtype t, size_t n, void **host) {
    *host = malloc(n * ts_test_dtype_bytes(t));
    cr_assert(*host);
    for (size_t i = 0; i < n; ++i) ts_test_put(*host, t, i, ts_test_normal(st));
    void *d = ts_test_device_copy(*host, n * ts_test_dtype_bytes(t));
    cr_assert(d);
    return d;
}

/* The exact in-place calls and the interleaved ones that share no byte are accepted, and their
 * results are right; the inputs beside the outputs are untouched. */
Test(bad_arguments, edges_that_are_allowed) {
    TS_TEST_REQUIRE_DEVICE();
    uint64_t seed = ts_test_fresh_seed(), st = seed;
    /* C in the padding of A's rows: A is 32 x 64 bf16 with lda 128, C (32 x 64 bf16, ldc 128) starts
     * at A's column 64. */
    {
        void *ha = NULL, *hb = NULL;
        unsigned short *da = fresh(&st, BF, 32 * 128, &ha), *db = fresh(&st, BF, 64 * 64, &hb);
        cr_assert_eq(
            ts_gemm(TS_NO_TRANS, TS_NO_TRANS, 32, 64, 64, 1.0f, da, BF, 128, db, BF, 64, 0.0f, da + 64, BF, 128, NULL),
            TS_SUCCESS);
        unsigned short *back = malloc(32 * 128 * 2);
        cr_assert_eq(ts_test_copy_back(back, da, 32 * 128 * 2), TS_SUCCESS);
        for (int i = 0; i < 32; ++i)
            for (int j = 0; j < 64; ++j) {
                cr_assert_eq(back[i * 128 + j], ((unsigned short *)ha)[i * 128 + j], "A(%d,%d) changed", i, j);
                double ref = 0.0, mag = 0.0;
                for (int k = 0; k < 64; ++k) {
                    const double x =
                        ts_test_get(ha, BF, (size_t)(i * 128 + k)) * ts_test_get(hb, BF, (size_t)(k * 64 + j));
                    ref += x, mag += fabs(x);
                }
                const double got = ts_test_get(back, BF, (size_t)(i * 128 + 64 + j));
                cr_assert_leq(fabs(got - ref), 1e-5 * (mag + 1.0) + fabs(ref) / 256, "C(%d,%d) %g vs %g (seed %llu)", i,
                              j, got, ref, (unsigned long long)seed);
            }
        cr_assert_eq(ts_free(da), TS_SUCCESS);
        cr_assert_eq(ts_free(db), TS_SUCCESS);
        free(ha), free(hb), free(back);
    }
    /* C = A + A in place. */
    {
        void *ha = NULL;
        float *da = fresh(&st, F32, 20 * 24, &ha), back[20 * 24];
        cr_assert_eq(ts_tile_add_f32(da, da, da, 20, 17, 24, 24, 24, NULL), TS_SUCCESS);
        cr_assert_eq(ts_test_copy_back(back, da, sizeof back), TS_SUCCESS);
        for (int i = 0; i < 20 * 24; ++i) {
            const float x = ((float *)ha)[i];
            cr_assert_eq(back[i], i % 24 < 17 ? x + x : x, "element %d", i);
        }
        cr_assert_eq(ts_free(da), TS_SUCCESS);
        free(ha);
    }
    /* RMSNorm of x's even rows into its odd rows: x (rows of 100 fp32, stride 256) and out (x + 128). */
    {
        void *hx = NULL;
        float *dx = fresh(&st, F32, 8 * 256, &hx), back[8 * 256];
        const ts_norm_desc d = {.rows = 8, .cols = 100, .dtype = F32, .out_dtype = F32, .x = dx, .x_stride = 256,
                                .out = dx + 128, .out_stride = 256, .eps = 1e-6f};
        cr_assert_eq(ts_rmsnorm(&d, NULL), TS_SUCCESS);
        cr_assert_eq(ts_test_copy_back(back, dx, sizeof back), TS_SUCCESS);
        for (int i = 0; i < 8; ++i) {
            double ss = 0.0;
            for (int j = 0; j < 100; ++j) ss += (double)((float *)hx)[i * 256 + j] * ((float *)hx)[i * 256 + j];
            const double rstd = 1.0 / sqrt(ss / 100 + 1e-6);
            for (int j = 0; j < 100; ++j) {
                cr_assert_eq(back[i * 256 + j], ((float *)hx)[i * 256 + j], "x changed");
                const double ref = ((float *)hx)[i * 256 + j] * rstd;
                cr_assert_leq(fabs(back[i * 256 + 128 + j] - ref), 2e-5 * (1.0 + fabs(ref)), "out(%d,%d) (seed %llu)",
                              i, j, (unsigned long long)seed);
            }
            for (int j = 100; j < 128; ++j) cr_assert_eq(back[i * 256 + j], ((float *)hx)[i * 256 + j], "x padding");
            for (int j = 228; j < 256; ++j) cr_assert_eq(back[i * 256 + j], ((float *)hx)[i * 256 + j], "out padding");
        }
        cr_assert_eq(ts_free(dx), TS_SUCCESS);
        free(hx);
    }
    /* Softmax: causal_offset and causal_rows at their extremes mean no mask, or every column masked. */
    {
        void *hx = NULL;
        unsigned short *dx = fresh(&st, BF, 6 * 40, &hx);
        void *dy = ts_test_device_copy(NULL, 6 * 40 * 4);
        float y[6 * 40];
        const long long offsets[3] = {LLONG_MAX, LLONG_MIN, 39};
        for (int o = 0; o < 3; ++o) {
            const ts_softmax_desc d = {.rows = 6, .cols = 40, .dtype = BF, .out_dtype = F32, .x = dx, .x_stride = 40,
                                       .out = dy, .out_stride = 40, .scale = 1.0f, .causal = 1,
                                       .causal_rows = o == 2 ? LLONG_MAX : 3, .causal_offset = offsets[o]};
            cr_assert_eq(ts_softmax(&d, NULL), TS_SUCCESS, "offset %lld", offsets[o]);
            cr_assert_eq(ts_test_copy_back(y, dy, sizeof y), TS_SUCCESS);
            for (int i = 0; i < 6; ++i) {
                double m = -INFINITY, sum = 0.0;
                for (int j = 0; j < 40; ++j) m = fmax(m, ts_test_get(hx, BF, (size_t)(i * 40 + j)));
                for (int j = 0; j < 40; ++j) sum += exp(ts_test_get(hx, BF, (size_t)(i * 40 + j)) - m);
                for (int j = 0; j < 40; ++j) {
                    const double want = o == 1 ? 0.0 : exp(ts_test_get(hx, BF, (size_t)(i * 40 + j)) - m) / sum;
                    cr_assert_leq(fabs(y[i * 40 + j] - want), 2e-5 * want + 1e-6, "offset %lld: y(%d,%d) %g vs %g",
                                  offsets[o], i, j, (double)y[i * 40 + j], want);
                }
            }
        }
        /* The largest scale taken: zeros give a uniform row. */
        cr_assert_eq(ts_memset(dx, 0, 6 * 40 * 2), TS_SUCCESS);
        const ts_softmax_desc big = {.rows = 6, .cols = 40, .dtype = BF, .out_dtype = F32, .x = dx, .x_stride = 40,
                                     .out = dy, .out_stride = 40, .scale = 2.3e38f};
        cr_assert_eq(ts_softmax(&big, NULL), TS_SUCCESS);
        cr_assert_eq(ts_test_copy_back(y, dy, sizeof y), TS_SUCCESS);
        for (int i = 0; i < 6 * 40; ++i) cr_assert_leq(fabs(y[i] - 1.0 / 40), 1e-6);
        cr_assert_eq(ts_free(dx), TS_SUCCESS);
        cr_assert_eq(ts_free(dy), TS_SUCCESS);
        free(hx);
    }
    /* Attention with the largest scale taken: zero queries give the mean of V. */
    {
        const int n = 16, dd = 64;
        void *hv = NULL;
        unsigned short *dv = fresh(&st, BF, (size_t)n * dd, &hv);
        void *dq = ts_test_device_copy(NULL, (size_t)n * dd * 2), *dout = ts_test_device_copy(NULL, (size_t)n * dd * 2);
        cr_assert(dq && dout);
        cr_assert_eq(ts_memset(dq, 0, (size_t)n * dd * 2), TS_SUCCESS);
        const long long s3[3] = {n * dd, n * dd, dd};
        const ts_attention_shape shape = {1, 1, 1, n, n, dd};
        cr_assert_eq(ts_attention_forward(&shape, BF, dq, s3, dq, s3, dv, s3, dout, s3, NULL, 2.3e38f, 0, NULL),
                     TS_SUCCESS, "Q == K, both read only");
        unsigned short back[16 * 64];
        cr_assert_eq(ts_test_copy_back(back, dout, sizeof back), TS_SUCCESS);
        for (int e = 0; e < dd; ++e) {
            double mean = 0.0;
            for (int j = 0; j < n; ++j) mean += ts_test_get(hv, BF, (size_t)(j * dd + e)) / n;
            for (int i = 0; i < n; ++i)
                cr_assert_leq(fabs(ts_test_get(back, BF, (size_t)(i * dd + e)) - mean), 1e-2 * (1.0 + fabs(mean)));
        }
        cr_assert_eq(ts_free(dq), TS_SUCCESS);
        cr_assert_eq(ts_free(dv), TS_SUCCESS);
        cr_assert_eq(ts_free(dout), TS_SUCCESS);
        free(hv);
    }
}

/* ---- Based linear attention ---------------------------------------------------------------------- */

typedef struct {
    ts_based_shape shape;
    ts_dtype dtype;
    const void *q, *k, *v;
    void *o;
    const long long *qs, *ks, *vs, *os;
    float scale;
    int normalize;
} based_args;

static ts_status based_call(based_args a) {
    return ts_based_forward(&a.shape, a.dtype, a.q, a.qs, a.k, a.ks, a.v, a.vs, a.o, a.os, a.scale, a.normalize, NULL);
}

Test(bad_arguments, based) {
    /* B 1, H 2, N 64, bf16: Q and K (2 x 64 x 16) 4 KiB at 0 and 4 KiB, V and O (2 x 64 x 64) 16 KiB
     * at 8 and 24 KiB. */
    static const long long qs[3] = {2 * 64 * 16, 64 * 16, 16}, vs[3] = {2 * 64 * 64, 64 * 64, 64};
    const based_args ok = {{1, 2, 64, 16, 64}, BF, AT(0), AT(4096), AT(8192), AT(24576), qs, qs, vs, vs, 0.25f, 1};
    based_args a;
    long long st[3];
#define EXPECT(change, status)                                                                     \
    do {                                                                                           \
        a = ok;                                                                                    \
        change;                                                                                    \
        cr_assert_eq(based_call(a), status, #change);                                              \
    } while (0)
    cr_assert_eq(ts_based_forward(NULL, BF, AT(0), qs, AT(4096), qs, AT(8192), vs, AT(24576), vs, 0.25f, 1, NULL),
                 TS_ERROR_NULL_POINTER);
    EXPECT(a.q = NULL, TS_ERROR_NULL_POINTER);
    EXPECT(a.k = NULL, TS_ERROR_NULL_POINTER);
    EXPECT(a.v = NULL, TS_ERROR_NULL_POINTER);
    EXPECT(a.o = NULL, TS_ERROR_NULL_POINTER);
    EXPECT(a.qs = NULL, TS_ERROR_NULL_POINTER);
    EXPECT(a.os = NULL, TS_ERROR_NULL_POINTER);
    EXPECT(a.dtype = (ts_dtype)0, TS_ERROR_INVALID_ENUM);
    EXPECT(a.dtype = FP, TS_ERROR_UNSUPPORTED);
    EXPECT(a.dtype = F32, TS_ERROR_UNSUPPORTED);
    EXPECT(a.shape.batch = 0, TS_ERROR_INVALID_SIZE);
    EXPECT(a.shape.heads = -1, TS_ERROR_INVALID_SIZE);
    EXPECT(a.shape.seq = 0, TS_ERROR_INVALID_SIZE);
    EXPECT(a.shape.feature_dim = 0, TS_ERROR_INVALID_SIZE);
    EXPECT(a.shape.feature_dim = 32, TS_ERROR_UNSUPPORTED);
    EXPECT(a.shape.head_dim = 128, TS_ERROR_UNSUPPORTED);
    EXPECT(a.scale = 0.0f, TS_ERROR_INVALID_VALUE);
    EXPECT(a.scale = -0.25f, TS_ERROR_INVALID_VALUE);
    EXPECT(a.scale = NAN, TS_ERROR_INVALID_VALUE);
    EXPECT(a.scale = INFINITY, TS_ERROR_INVALID_VALUE);
    EXPECT(a.normalize = 2, TS_ERROR_INVALID_VALUE);
    EXPECT(a.normalize = -1, TS_ERROR_INVALID_VALUE);
    EXPECT(a.k = AT(4096 + 8), TS_ERROR_MISALIGNED);
    EXPECT((st[0] = 2 * 64 * 24, st[1] = 64 * 24, st[2] = 20, a.qs = st), TS_ERROR_MISALIGNED);
    EXPECT((st[0] = qs[0], st[1] = qs[1], st[2] = 0, a.qs = st), TS_ERROR_INVALID_VALUE);
    EXPECT((st[0] = vs[0], st[1] = vs[1], st[2] = 32, a.vs = st), TS_ERROR_INVALID_VALUE); /* rows overlap */
    EXPECT((st[0] = qs[0], st[1] = 16, st[2] = 16, a.ks = st), TS_ERROR_INVALID_VALUE);   /* heads overlap rows */
    EXPECT((st[0] = qs[0], st[1] = 1LL << 47, st[2] = 16, a.qs = st), TS_ERROR_SIZE_OVERFLOW);
    /* B x H past 2^31 tasks (the task map is 32-bit). */
    static const long long many_q[3] = {16 * (1LL << 16), 16, 16}, many_v[3] = {64 * (1LL << 16), 64, 64};
    EXPECT((a.shape.batch = 1 << 15, a.shape.heads = 1 << 16, a.shape.seq = 1, a.qs = a.ks = many_q,
            a.vs = a.os = many_v),
           TS_ERROR_SIZE_OVERFLOW);
    /* O shares no byte with Q, K or V; Q, K and V may overlap. */
    EXPECT(a.o = (void *)a.v, TS_ERROR_INVALID_VALUE);
    EXPECT(a.o = AT(4096 - 128), TS_ERROR_INVALID_VALUE); /* O's first row in Q's last */
    EXPECT(a.o = AT(8192 + 16384 - 128), TS_ERROR_INVALID_VALUE); /* O's first row in V's last */
#undef EXPECT
}
