/* Loads and stores between a global layout of one dtype and a tile or vector of another
 * (ops/memory.h): every pair of the three dtypes, through registers and through shared memory, at
 * whole and ragged shapes, bit for bit against the conversions done on the CPU (round to nearest
 * even, through fp32); a 16-bit register tile refuses other dtypes (TS_ERROR_INVALID_VALUE on the
 * host). Input buffers are exactly their elements' size, so a load that read a 16-bit global at the
 * tile's 4-byte width would overflow them (AddressSanitizer on the host). A global layout of an
 * unknown dtype fails the launch on the host with TS_ERROR_INVALID_ENUM and is never read or
 * written. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "support/dtype_io.h"
#include "support/test_support.h"
#include "tests/kernels/tile_math_kernels.h"

static const ts_dtype dtypes[] = {TS_DTYPE_F32, TS_DTYPE_BF16, TS_DTYPE_FP16};
enum { UNKNOWN_DTYPE = 7 };

/* The element a load of `in_dt` into a tile of `tile_dt` and a store to `out_dt` leave, as bits. */
static void expected_bits(unsigned char *out, ts_dtype out_dt, ts_dtype tile_dt, double x) {
    ts_test_put(out, out_dt, 0, ts_test_round(tile_dt, x));
}

/* Whether the path converts between these dtypes: shared tiles and fp32 register tiles always; a
 * 16-bit register tile only its own dtype (ops/memory.h). */
static int converts(const ts_test_convert_case *c, int shared, ts_dtype in_dt, ts_dtype out_dt) {
    return shared || c->dtype == TS_DTYPE_F32 || (in_dt == (ts_dtype)c->dtype && out_dt == (ts_dtype)c->dtype);
}

static void check_convert(const ts_test_convert_case *c, int shared, ts_dtype in_dt, ts_dtype out_dt, int rows, int cols,
                          int pad) {
    uint64_t seed = ts_test_fresh_seed(), st = seed;
    const size_t ib = ts_test_dtype_bytes(in_dt), ob = ts_test_dtype_bytes(out_dt);
    const int out_rows = (rows + c->rows - 1) / c->rows * c->rows, out_cols = (cols + c->cols - 1) / c->cols * c->cols;
    const int ld = out_cols + pad;
    const char *path = shared ? "through shared" : "through registers";
    /* The input holds exactly its elements, the last row ending at its last column. */
    const size_t in_n = (size_t)(rows - 1) * ld + cols, out_n = (size_t)out_rows * ld;
    unsigned char *in = malloc(in_n * ib), *out = malloc(out_n * ob);
    for (size_t i = 0; i < in_n; ++i) ts_test_put(in, in_dt, i, 3.0 * ts_test_normal(&st));
    void *d_in = ts_test_device_copy(in, in_n * ib), *d_out = ts_test_device_copy(NULL, out_n * ob);
    cr_assert(d_in && d_out);
    const ts_status s = c->run(d_out, (int)out_dt, d_in, (int)in_dt, rows, cols, out_rows, out_cols, ld, shared);
    const int conv = converts(c, shared, in_dt, out_dt);
    if (conv || ts_test_on_gpu()) {
        cr_assert_eq(s, TS_SUCCESS, "%s %s: %s -> %s: %s", c->name, path, ts_test_dtype_name(in_dt),
                     ts_test_dtype_name(out_dt), ts_status_string(s));
        cr_assert_eq(ts_device_synchronize(), TS_SUCCESS);
    } else {
        cr_assert_eq(s, TS_ERROR_INVALID_VALUE, "%s %s: %s -> %s refused: %s", c->name, path, ts_test_dtype_name(in_dt),
                     ts_test_dtype_name(out_dt), ts_status_string(s));
    }
    cr_assert_eq(ts_test_copy_back(out, d_out, out_n * ob), TS_SUCCESS);
    /* A refused 16-bit register tile: the host stops before any store; a GPU loads zeros and
     * stores them where the output is the tile's dtype, else stores nothing. */
    const int untouched = !conv && (!ts_test_on_gpu() || out_dt != (ts_dtype)c->dtype);
    for (int r = 0; r < out_rows; ++r)
        for (int j = 0; j < ld; ++j) {
            const size_t i = (size_t)r * ld + j;
            unsigned char expect[4];
            if (j >= out_cols || untouched)
                memset(expect, 0xFF, ob); /* padding, or a refused store: never written */
            else if (conv && r < rows && j < cols)
                expected_bits(expect, out_dt, (ts_dtype)c->dtype, ts_test_get(in, in_dt, i));
            else
                expected_bits(expect, out_dt, (ts_dtype)c->dtype, 0.0); /* zero-filled on load */
            cr_assert_eq(memcmp(out + i * ob, expect, ob), 0, "%s %s: %s -> %s %dx%d: (%d, %d) (seed %llu)", c->name, path,
                         ts_test_dtype_name(in_dt), ts_test_dtype_name(out_dt), rows, cols, r, j,
                         (unsigned long long)seed);
        }
    cr_assert_eq(ts_free(d_in), TS_SUCCESS);
    cr_assert_eq(ts_free(d_out), TS_SUCCESS);
    free(in);
    free(out);
}

Test(tile_convert, every_dtype_pair_through_registers_and_shared) {
    TS_TEST_REQUIRE_DEVICE();
    const ts_test_convert_case *c;
    for (int k = 0; (c = ts_test_convert_case_at(k)) != NULL; ++k)
        for (int shared = 0; shared < 2; ++shared)
            for (int i = 0; i < 3; ++i)
                for (int o = 0; o < 3; ++o) {
                    check_convert(c, shared, dtypes[i], dtypes[o], c->rows, c->cols, 0);             /* one whole tile */
                    check_convert(c, shared, dtypes[i], dtypes[o], 2 * c->rows + 5, 2 * c->cols - 3, 4); /* ragged */
                }
}

/* An unknown dtype in the input or the output layout, through registers (an fp32 and a bf16 tile)
 * and through shared memory: the host's launch fails and touches nothing; a GPU loads zeros and
 * stores nothing. */
Test(tile_convert, an_unknown_dtype_is_rejected_and_never_touched) {
    TS_TEST_REQUIRE_DEVICE();
    for (int k = 0; k < 3; k += 2) {
        const ts_test_convert_case *c = ts_test_convert_case_at(k);
        const int rows = c->rows, cols = c->cols;
        const size_t n = (size_t)rows * cols, b = ts_test_dtype_bytes((ts_dtype)c->dtype);
        for (int shared = 0; shared < 2; ++shared)
            for (int which = 0; which < 2; ++which) {
                const int in_dt = which == 0 ? UNKNOWN_DTYPE : c->dtype, out_dt = which == 1 ? UNKNOWN_DTYPE : c->dtype;
                unsigned char *in = malloc(n * b), *out = malloc(n * b);
                for (size_t i = 0; i < n; ++i) ts_test_put(in, (ts_dtype)c->dtype, i, 1.0 + (double)i);
                void *d_in = ts_test_device_copy(in, n * b), *d_out = ts_test_device_copy(NULL, n * b);
                cr_assert(d_in && d_out);
                const ts_status s = c->run(d_out, out_dt, d_in, in_dt, rows, cols, rows, cols, cols, shared);
                cr_assert_eq(ts_test_copy_back(out, d_out, n * b), TS_SUCCESS);
                if (!ts_test_on_gpu()) {
                    cr_assert_eq(s, TS_ERROR_INVALID_ENUM, "%s: dtype %d in the %s: %s", c->name, UNKNOWN_DTYPE,
                                 which ? "output" : "input", ts_status_string(s));
                    cr_assert(ts_test_is_poison(out, n * b), "%s: the output was written", c->name);
                } else {
                    cr_assert_eq(s, TS_SUCCESS);
                    cr_assert_eq(ts_device_synchronize(), TS_SUCCESS);
                    cr_assert_eq(ts_test_copy_back(out, d_out, n * b), TS_SUCCESS);
                    for (size_t i = 0; i < n; ++i)
                        cr_assert(which == 1 ? ts_test_is_poison(out + i * b, b) : ts_test_get(out, (ts_dtype)c->dtype, i) == 0.0,
                                  "%s: element %zu: an unknown dtype loads zeros and stores nothing", c->name, i);
                }
                cr_assert_eq(ts_free(d_in), TS_SUCCESS);
                cr_assert_eq(ts_free(d_out), TS_SUCCESS);
                free(in);
                free(out);
            }
    }
}

/* Register and shared vectors between arrays of run-time dtypes (ts_rv_load_typed,
 * ts_rv_store_typed, ts_sv_load_g2s_typed, ts_rv_load_s of a bf16 shared vector, ts_rv_store_s into
 * an fp16 one, ts_sv_store_s2g_typed), with entries past n zero on load and untouched on store. */
Test(tile_convert, vectors_between_dtypes) {
    TS_TEST_REQUIRE_DEVICE();
    enum { LEN = 64 };
    uint64_t seed = ts_test_fresh_seed(), st = seed;
    const long long ns[] = {LEN, 37};
    for (int i = 0; i < 3; ++i)
        for (int o = 0; o < 3; ++o)
            for (int t = 0; t < 2; ++t) {
                const ts_dtype in_dt = dtypes[i], out_dt = dtypes[o];
                const long long n = ns[t];
                const size_t ib = ts_test_dtype_bytes(in_dt), ob = ts_test_dtype_bytes(out_dt);
                unsigned char in[LEN * 4], rv[LEN * 4], sv[LEN * 4], expect[4];
                for (size_t e = 0; e < (size_t)n; ++e) ts_test_put(in, in_dt, e, 3.0 * ts_test_normal(&st));
                void *d_in = ts_test_device_copy(in, (size_t)n * ib); /* exactly n elements */
                void *d_rv = ts_test_device_copy(NULL, LEN * ob), *d_sv = ts_test_device_copy(NULL, LEN * ob);
                cr_assert(d_in && d_rv && d_sv);
                cr_assert_eq(ts_test_convert_vectors(d_rv, d_sv, (int)out_dt, d_in, (int)in_dt, n), TS_SUCCESS);
                cr_assert_eq(ts_device_synchronize(), TS_SUCCESS);
                cr_assert_eq(ts_test_copy_back(rv, d_rv, LEN * ob), TS_SUCCESS);
                cr_assert_eq(ts_test_copy_back(sv, d_sv, LEN * ob), TS_SUCCESS);
                for (size_t e = 0; e < LEN; ++e) {
                    const char *what = ts_test_dtype_name(in_dt), *to = ts_test_dtype_name(out_dt);
                    if ((long long)e >= n) {
                        cr_assert(ts_test_is_poison(rv + e * ob, ob) && ts_test_is_poison(sv + e * ob, ob),
                                  "%s -> %s: entry %zu past n = %lld was written", what, to, e, n);
                        continue;
                    }
                    const double x = ts_test_get(in, in_dt, e);
                    ts_test_put(expect, out_dt, 0, x);
                    cr_assert_eq(memcmp(rv + e * ob, expect, ob), 0, "%s -> %s register vector entry %zu (seed %llu)", what, to,
                                 e, (unsigned long long)seed);
                    ts_test_put(expect, out_dt, 0, ts_test_round(TS_DTYPE_FP16, ts_test_round(TS_DTYPE_BF16, x)));
                    cr_assert_eq(memcmp(sv + e * ob, expect, ob), 0, "%s -> %s shared vectors entry %zu (seed %llu)", what, to,
                                 e, (unsigned long long)seed);
                }
                cr_assert_eq(ts_free(d_in), TS_SUCCESS);
                cr_assert_eq(ts_free(d_rv), TS_SUCCESS);
                cr_assert_eq(ts_free(d_sv), TS_SUCCESS);
            }
}

/* The CPU references the checks above rely on: rounding to nearest even, ties included. */
Test(tile_convert, cpu_rounding_references) {
    unsigned char b[2];
    ts_test_put(b, TS_DTYPE_BF16, 0, 1.0 + 1.0 / 256.0); /* a tie between 1 and 1 + 2^-7: to even, 1 */
    cr_assert_eq(ts_test_get(b, TS_DTYPE_BF16, 0), 1.0);
    ts_test_put(b, TS_DTYPE_BF16, 0, 1.0 + 3.0 / 256.0); /* a tie between 1 + 2^-7 and 1 + 2^-6: to 1 + 2^-6 */
    cr_assert_eq(ts_test_get(b, TS_DTYPE_BF16, 0), 1.0 + 1.0 / 64.0);
    ts_test_put(b, TS_DTYPE_FP16, 0, 1.0 + 1.0 / 2048.0); /* fp16's tie: to 1 */
    cr_assert_eq(ts_test_get(b, TS_DTYPE_FP16, 0), 1.0);
}
