/* The warpgroup matrix multiply, the asynchronous tile copies and register budgets on the backend
 * this build targets, through the kernels of tests/kernels/wg_kernels.c: products against a
 * double-precision reference on fresh random normal inputs, ragged shapes that only the copies'
 * zero fill and the masked store make right, NaN in every padding element a copy must not read,
 * poisoned outputs that must survive outside the bounds. The argument checks of
 * ts_async_desc_make run on the CPU everywhere (they come before any driver call); the rest needs
 * a device, which the host backend always has. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "backends/half_bits.h"
#include "support/test_support.h"
#include "tests/kernels/wg_kernels.h"

/* ---- 16-bit values -------------------------------------------------------------------------- */

static uint16_t to_bits(int dtype, float x) {
    if (dtype == TS_TEST_WG_BF16) return ts_bf16_bits_from_f32(x);
    _Float16 h = (_Float16)x;
    uint16_t b;
    memcpy(&b, &h, sizeof b);
    return b;
}

static float from_bits(int dtype, uint16_t b) {
    if (dtype == TS_TEST_WG_BF16) return ts_f32_from_bf16_bits(b);
    _Float16 h;
    memcpy(&h, &b, sizeof h);
    return (float)h;
}

static uint16_t nan_bits(int dtype) { return dtype == TS_TEST_WG_BF16 ? 0x7fc0u : 0x7e00u; }

static long long round_up(long long x, long long m) { return (x + m - 1) / m * m; }

/* ---- descriptor arguments (CPU) ------------------------------------------------------------- */

static _Alignas(64) unsigned char fake_matrix[4096];

static ts_status make(void *ptr, int gl_dtype, long long rows, long long cols, long long ld, int tr,
                      int tc, int dtype) {
    return ts_test_wg_desc_make(ptr, gl_dtype, 1, 1, rows, cols, ld, tr, tc, dtype, 0);
}

Test(warpgroup, async_desc_make_rejects_bad_arguments_before_the_driver) {
    void *p = fake_matrix;
    const int bf = TS_TEST_WG_BF16;
    cr_assert_eq(ts_test_wg_desc_make(p, bf, 1, 1, 64, 64, 64, 64, 64, bf, 1), TS_ERROR_NULL_POINTER);
    cr_assert_eq(ts_test_wg_desc_make(p, bf, 1, 1, 64, 64, 64, 64, 64, bf, 2), TS_ERROR_NULL_POINTER);
    cr_assert_eq(make(NULL, bf, 64, 64, 64, 64, 64, bf), TS_ERROR_NULL_POINTER);
    cr_assert_eq(make(p, bf, 64, 64, 64, 64, 64, 9), TS_ERROR_INVALID_ENUM);
    cr_assert_eq(make(p, TS_TEST_WG_F32, 64, 64, 64, 64, 64, bf), TS_ERROR_INVALID_VALUE, "dtype of the layout");
    cr_assert_eq(make(p, bf, 64, 64, 64, 0, 64, bf), TS_ERROR_INVALID_SIZE);
    cr_assert_eq(make(p, bf, 64, 64, 64, 24, 64, bf), TS_ERROR_INVALID_SIZE, "tile rows not a multiple of 16");
    cr_assert_eq(make(p, bf, 64, 64, 64, 64, 8, bf), TS_ERROR_INVALID_SIZE, "tile cols not a multiple of 16");
    cr_assert_eq(make(p, bf, 512, 64, 64, 272, 64, bf), TS_ERROR_INVALID_SIZE, "tile rows above 256");
    cr_assert_eq(make(p, bf, 0, 64, 64, 64, 64, bf), TS_ERROR_INVALID_SIZE, "no rows");
    cr_assert_eq(make(p, bf, 64, 0, 64, 64, 64, bf), TS_ERROR_INVALID_SIZE, "no cols");
    cr_assert_eq(ts_test_wg_desc_make(p, bf, 0, 1, 64, 64, 64, 64, 64, bf, 0), TS_ERROR_INVALID_SIZE, "no batch");
    cr_assert_eq(ts_test_wg_desc_make(p, bf, 1, 0, 64, 64, 64, 64, 64, bf, 0), TS_ERROR_INVALID_SIZE, "no heads");
    cr_assert_eq(make(fake_matrix + 2, bf, 64, 64, 64, 64, 64, bf), TS_ERROR_MISALIGNED, "base");
    cr_assert_eq(make(fake_matrix + 8, bf, 64, 64, 64, 64, 64, bf), TS_ERROR_MISALIGNED, "base");
    cr_assert_eq(make(p, bf, 50, 41, 41, 64, 64, bf), TS_ERROR_MISALIGNED, "82-byte rows");
    cr_assert_eq(make(p, TS_TEST_WG_F32, 50, 6, 6, 16, 32, TS_TEST_WG_F32), TS_ERROR_MISALIGNED, "24-byte rows");
    cr_assert_eq(make(p, bf, 50, 64, 56, 64, 64, bf), TS_ERROR_INVALID_VALUE, "rows overlap");
    cr_assert_eq(make(p, bf, 1LL << 31, 64, 64, 64, 64, bf), TS_ERROR_SIZE_OVERFLOW);
    cr_assert_eq(make(p, bf, 64, 1LL << 40, 1LL << 40, 64, 64, bf), TS_ERROR_SIZE_OVERFLOW);
}

Test(warpgroup, async_desc_make_accepts_valid_layouts) {
    TS_TEST_REQUIRE_DEVICE();
    void *d = NULL;
    cr_assert_eq(ts_malloc(&d, 1 << 16), TS_SUCCESS);
    const int bf = TS_TEST_WG_BF16;
    cr_assert_eq(make(d, bf, 50, 40, 40, 64, 64, bf), TS_SUCCESS, "ragged, 80-byte rows");
    cr_assert_eq(make(d, bf, 1, 3, 3, 16, 16, bf), TS_SUCCESS, "one row of 6 bytes: its stride is free");
    cr_assert_eq(make(d, TS_TEST_WG_FP16, 256, 256, 256, 256, 16, TS_TEST_WG_FP16), TS_SUCCESS);
    cr_assert_eq(make(d, TS_TEST_WG_F32, 16, 32, 32, 16, 32, TS_TEST_WG_F32), TS_SUCCESS);
    cr_assert_eq(ts_test_wg_desc_make(d, bf, 2, 3, 5, 8, 8, 16, 48, bf, 0), TS_SUCCESS, "4-D");
    cr_assert_eq(ts_free(d), TS_SUCCESS);
}

/* ---- warpgroup multiply ----------------------------------------------------------------------- */

static const char *form_name(int form) {
    return form == TS_TEST_WG_AB ? "AB" : form == TS_TEST_WG_ABT ? "ABt" : form == TS_TEST_WG_ATB ? "AtB" : "AtBt";
}

/* C (m x n) = A (m x k) * B (k x n) with A stored as m x k or k x m and B as k x n or n x k per the
 * form, row strides rounded up to 8 elements and the padding NaN. */
static void check_product(int dtype, int tile_n, int tile_k, int form, int mode, int m, int n, int k, int rs) {
    uint64_t seed = ts_test_fresh_seed(), state = seed;
    const int at = form == TS_TEST_WG_ATB || form == TS_TEST_WG_ATBT;
    const int bt = form == TS_TEST_WG_ABT || form == TS_TEST_WG_ATBT;
    const long long a_rows = at ? k : m, a_cols = at ? m : k, lda = round_up(a_cols, 8);
    const long long b_rows = bt ? n : k, b_cols = bt ? k : n, ldb = round_up(b_cols, 8);
    const long long ldc = n + 5, c_rows = m + 3;
    float *a = malloc(sizeof(float) * (size_t)m * (size_t)k);
    float *b = malloc(sizeof(float) * (size_t)k * (size_t)n);
    uint16_t *ha = malloc(sizeof(uint16_t) * (size_t)(a_rows * lda));
    uint16_t *hb = malloc(sizeof(uint16_t) * (size_t)(b_rows * ldb));
    float *hc = malloc(sizeof(float) * (size_t)(c_rows * ldc));
    cr_assert(a && b && ha && hb && hc);
    for (long long i = 0; i < a_rows * lda; ++i) ha[i] = nan_bits(dtype);
    for (long long i = 0; i < b_rows * ldb; ++i) hb[i] = nan_bits(dtype);
    for (int i = 0; i < m; ++i)
        for (int kk = 0; kk < k; ++kk) {
            const uint16_t bits = to_bits(dtype, (float)ts_test_normal(&state));
            a[i * k + kk] = from_bits(dtype, bits);
            ha[at ? kk * lda + i : i * lda + kk] = bits;
        }
    for (int kk = 0; kk < k; ++kk)
        for (int j = 0; j < n; ++j) {
            const uint16_t bits = to_bits(dtype, (float)ts_test_normal(&state));
            b[kk * n + j] = from_bits(dtype, bits);
            hb[bt ? j * ldb + kk : kk * ldb + j] = bits;
        }
    void *da = ts_test_device_copy(ha, sizeof(uint16_t) * (size_t)(a_rows * lda));
    void *db = ts_test_device_copy(hb, sizeof(uint16_t) * (size_t)(b_rows * ldb));
    float *dc = ts_test_device_copy(NULL, sizeof(float) * (size_t)(c_rows * ldc));
    cr_assert(da && db && dc);
    const ts_status s = rs ? ts_test_wg_mma_rs(dc, ldc, da, lda, db, ldb, m, n, k, dtype, tile_n, tile_k, form, mode)
                           : ts_test_wg_mma(dc, ldc, da, lda, db, ldb, m, n, k, dtype, tile_n, tile_k, form, mode);
    cr_assert_eq(s, TS_SUCCESS, "launch: %d", (int)s);
    cr_assert_eq(ts_device_synchronize(), TS_SUCCESS);
    cr_assert_eq(ts_test_copy_back(hc, dc, sizeof(float) * (size_t)(c_rows * ldc)), TS_SUCCESS);
    for (long long i = 0; i < c_rows; ++i)
        for (long long j = 0; j < ldc; ++j) {
            const float got = hc[i * ldc + j];
            if (i >= m || j >= n) {
                uint32_t bits;
                memcpy(&bits, &got, sizeof bits);
                cr_assert_eq(bits, 0xffffffffu, "%s %s%s N=%d K=%d mode %d: (%lld, %lld) outside %dx%d written",
                             dtype == TS_TEST_WG_BF16 ? "bf16" : "fp16", form_name(form), rs ? "_rs" : "", tile_n,
                             tile_k, mode, i, j, m, n);
                continue;
            }
            double ref = 0.0, mag = 0.0;
            for (int kk = 0; kk < k; ++kk) {
                const double p = (double)a[i * k + kk] * (double)b[kk * n + j];
                ref += p;
                mag += fabs(p);
            }
            cr_assert(fabs((double)got - ref) <= 1e-4 * mag + 1e-5,
                      "%s %s%s N=%d K=%d mode %d, %dx%dx%d: C(%lld, %lld) = %g, expected %g (seed %llu)",
                      dtype == TS_TEST_WG_BF16 ? "bf16" : "fp16", form_name(form), rs ? "_rs" : "", tile_n, tile_k,
                      mode, m, n, k, i, j, (double)got, ref, (unsigned long long)seed);
        }
    cr_assert_eq(ts_free(da), TS_SUCCESS);
    cr_assert_eq(ts_free(db), TS_SUCCESS);
    cr_assert_eq(ts_free(dc), TS_SUCCESS);
    free(a);
    free(b);
    free(ha);
    free(hb);
    free(hc);
}

static void check_mma(int dtype, int tile_n, int tile_k, int form, int mode, int m, int n, int k) {
    check_product(dtype, tile_n, tile_k, form, mode, m, n, k, 0);
}

/* Every form and both protocols for one (dtype, N): K of 16, 64 and 128 on a 100 x (N + 8) x 40
 * product (a 50x40 corner of A padded to 64 x K by the zero fill, a ragged second row and column
 * of blocks), and a product three k tiles deep with a ragged last tile. */
static void check_width(int dtype, int tile_n) {
    const int ks[] = {16, 64, 128};
    for (size_t i = 0; i < sizeof ks / sizeof ks[0]; ++i)
        for (int form = TS_TEST_WG_AB; form <= TS_TEST_WG_ATBT; ++form) {
            for (int mode = 0; mode < 2; ++mode) check_mma(dtype, tile_n, ks[i], form, mode, 100, tile_n + 8, 40);
            check_mma(dtype, tile_n, ks[i], form, 0, 50, tile_n, 2 * ks[i] + 8);
        }
}

Test(warpgroup, mma_bf16_n16) { TS_TEST_REQUIRE_DEVICE(); check_width(TS_TEST_WG_BF16, 16); }
Test(warpgroup, mma_bf16_n64) { TS_TEST_REQUIRE_DEVICE(); check_width(TS_TEST_WG_BF16, 64); }
Test(warpgroup, mma_bf16_n128) { TS_TEST_REQUIRE_DEVICE(); check_width(TS_TEST_WG_BF16, 128); }
Test(warpgroup, mma_bf16_n256) { TS_TEST_REQUIRE_DEVICE(); check_width(TS_TEST_WG_BF16, 256); }
Test(warpgroup, mma_fp16_n16) { TS_TEST_REQUIRE_DEVICE(); check_width(TS_TEST_WG_FP16, 16); }
Test(warpgroup, mma_fp16_n64) { TS_TEST_REQUIRE_DEVICE(); check_width(TS_TEST_WG_FP16, 64); }
Test(warpgroup, mma_fp16_n128) { TS_TEST_REQUIRE_DEVICE(); check_width(TS_TEST_WG_FP16, 128); }
Test(warpgroup, mma_fp16_n256) { TS_TEST_REQUIRE_DEVICE(); check_width(TS_TEST_WG_FP16, 256); }

/* 64-byte swizzled A (K = 32), 32-byte swizzled chunks of B (N = 48). */
Test(warpgroup, mma_bf16_n48_k32) {
    TS_TEST_REQUIRE_DEVICE();
    for (int form = TS_TEST_WG_AB; form <= TS_TEST_WG_ATBT; ++form) {
        check_mma(TS_TEST_WG_BF16, 48, 32, form, 0, 70, 100, 72);
        check_mma(TS_TEST_WG_BF16, 48, 32, form, 1, 64, 48, 32);
    }
}

/* ---- warpgroup multiply with A from registers ----------------------------------------------------- */

/* The same products with A in each warp's registers (ts_wg_mm_AB_rs, ts_wg_mma_ABt_rs, ...): both
 * B forms and both protocols, K of 16, 64 and 128 on a 100 x (N + 8) x 40 product (A's zero fill
 * now comes from the register load) and a product three k tiles deep with a ragged last tile. */
static void check_width_rs(int dtype, int tile_n) {
    const int ks[] = {16, 64, 128};
    for (size_t i = 0; i < sizeof ks / sizeof ks[0]; ++i)
        for (int form = TS_TEST_WG_AB; form <= TS_TEST_WG_ABT; ++form) {
            for (int mode = 0; mode < 2; ++mode)
                check_product(dtype, tile_n, ks[i], form, mode, 100, tile_n + 8, 40, 1);
            check_product(dtype, tile_n, ks[i], form, 1, 50, tile_n, 2 * ks[i] + 8, 1);
        }
}

Test(warpgroup, mma_rs_bf16_n16) { TS_TEST_REQUIRE_DEVICE(); check_width_rs(TS_TEST_WG_BF16, 16); }
Test(warpgroup, mma_rs_bf16_n64) { TS_TEST_REQUIRE_DEVICE(); check_width_rs(TS_TEST_WG_BF16, 64); }
Test(warpgroup, mma_rs_bf16_n128) { TS_TEST_REQUIRE_DEVICE(); check_width_rs(TS_TEST_WG_BF16, 128); }
Test(warpgroup, mma_rs_bf16_n256) { TS_TEST_REQUIRE_DEVICE(); check_width_rs(TS_TEST_WG_BF16, 256); }
Test(warpgroup, mma_rs_fp16_n16) { TS_TEST_REQUIRE_DEVICE(); check_width_rs(TS_TEST_WG_FP16, 16); }
Test(warpgroup, mma_rs_fp16_n64) { TS_TEST_REQUIRE_DEVICE(); check_width_rs(TS_TEST_WG_FP16, 64); }
Test(warpgroup, mma_rs_fp16_n128) { TS_TEST_REQUIRE_DEVICE(); check_width_rs(TS_TEST_WG_FP16, 128); }
Test(warpgroup, mma_rs_fp16_n256) { TS_TEST_REQUIRE_DEVICE(); check_width_rs(TS_TEST_WG_FP16, 256); }

/* Two k steps from one register tile (K = 32), a 64-byte swizzled N x K B and a K x N B of three
 * 32-byte chunks (N = 48). */
Test(warpgroup, mma_rs_bf16_n48_k32) {
    TS_TEST_REQUIRE_DEVICE();
    for (int form = TS_TEST_WG_AB; form <= TS_TEST_WG_ABT; ++form) {
        check_product(TS_TEST_WG_BF16, 48, 32, form, 0, 70, 100, 72, 1);
        check_product(TS_TEST_WG_BF16, 48, 32, form, 1, 64, 48, 32, 1);
    }
}

Test(warpgroup, mma_rs_rejects_transposed_a) {
    TS_TEST_REQUIRE_DEVICE();
    cr_assert_eq(ts_test_wg_mma_rs(NULL, 64, NULL, 64, fake_matrix, 64, 64, 64, 64, TS_TEST_WG_BF16, 64, 64,
                                   TS_TEST_WG_ATB, 0),
                 TS_ERROR_INVALID_VALUE);
}

/* ---- tile copies ------------------------------------------------------------------------------ */

/* One copy through shared memory; every element of dst is checked: inside the destination tile and
 * the matrix it holds the source element (zero where the source tile left the matrix), or the
 * pattern in mode 1; everywhere else the poison survives. */
static void check_copy(int shape, int mode, int src_tr, int src_tc, int dst_tr, int dst_tc) {
    int tr = 0, tc = 0, dtype = 0;
    ts_test_wg_copy_shape(shape, &tr, &tc, &dtype);
    const int bytes = dtype == TS_TEST_WG_F32 ? 4 : 2;
    const long long batch = 2, heads = 3, rows = tr + tr / 2 + 3, cols = tc + 8;
    const long long ld = round_up(cols + 3, 16 / bytes);
    const int bi = 1, hi = 2;
    const size_t elems = (size_t)(batch * heads * rows * ld), size = elems * (size_t)bytes;
    uint64_t seed = ts_test_fresh_seed(), state = seed;
    unsigned char *src = malloc(size), *got = malloc(size);
    cr_assert(src && got);
    for (size_t i = 0; i < elems; ++i) {
        const float x = (float)ts_test_normal(&state);
        if (bytes == 4)
            memcpy(src + 4 * i, &x, 4);
        else {
            const uint16_t b = to_bits(dtype, x);
            memcpy(src + 2 * i, &b, 2);
        }
    }
    void *dsrc = ts_test_device_copy(src, size);
    void *ddst = ts_test_device_copy(NULL, size);
    cr_assert(dsrc && ddst);
    const ts_status s = ts_test_wg_copy(ddst, dsrc, dtype, batch, heads, rows, cols, ld, bi, hi, src_tr, src_tc,
                                        dst_tr, dst_tc, shape, mode);
    cr_assert_eq(s, TS_SUCCESS, "launch: %d", (int)s);
    cr_assert_eq(ts_device_synchronize(), TS_SUCCESS);
    cr_assert_eq(ts_test_copy_back(got, ddst, size), TS_SUCCESS);
    unsigned char poison[4] = {0xff, 0xff, 0xff, 0xff}, zero[4] = {0, 0, 0, 0};
    for (long long b = 0; b < batch; ++b)
        for (long long h = 0; h < heads; ++h)
            for (long long r = 0; r < rows; ++r)
                for (long long c = 0; c < ld; ++c) {
                    const size_t at = (size_t)(((b * heads + h) * rows + r) * ld + c) * (size_t)bytes;
                    const long long lr = r - (long long)dst_tr * tr, lc = c - (long long)dst_tc * tc;
                    const int inside = b == bi && h == hi && c < cols && lr >= 0 && lr < tr && lc >= 0 && lc < tc;
                    unsigned char want[4];
                    if (!inside) {
                        memcpy(want, poison, 4);
                    } else if (mode == 1) {
                        const unsigned bits = ts_test_wg_pattern(dtype, (int)lr, (int)lc);
                        memcpy(want, &bits, (size_t)bytes); /* little-endian: the low bytes */
                    } else {
                        const long long sr = (long long)src_tr * tr + lr, sc = (long long)src_tc * tc + lc;
                        if (sr < rows && sc < cols)
                            memcpy(want, src + (size_t)(((b * heads + h) * rows + sr) * ld + sc) * (size_t)bytes,
                                   (size_t)bytes);
                        else
                            memcpy(want, zero, 4);
                    }
                    cr_assert(memcmp(got + at, want, (size_t)bytes) == 0,
                              "shape %d mode %d, tile (%d,%d) -> (%d,%d): element (%lld,%lld,%lld,%lld) %s (seed %llu)",
                              shape, mode, src_tr, src_tc, dst_tr, dst_tc, b, h, r, c,
                              inside ? "wrong" : "written outside the tile or the matrix", (unsigned long long)seed);
                }
    cr_assert_eq(ts_free(dsrc), TS_SUCCESS);
    cr_assert_eq(ts_free(ddst), TS_SUCCESS);
    free(src);
    free(got);
}

Test(warpgroup, async_copies_zero_fill_and_mask_ragged_tiles) {
    TS_TEST_REQUIRE_DEVICE();
    for (int shape = 0; shape < 5; ++shape) {
        check_copy(shape, 0, 1, 1, 0, 0); /* ragged source: the zero fill lands in a full tile */
        check_copy(shape, 0, 0, 0, 1, 1); /* full source, ragged destination: the store masks */
        check_copy(shape, 0, 1, 1, 1, 1); /* the round trip at the ragged corner */
        check_copy(shape, 0, 0, 1, 1, 0);
    }
}

/* A multicast load fills the tile of every block of the cluster, whichever block issued which
 * part (a 128-byte row is one part, which block 0 issues alone; block 1's tile must still hold it). */
Test(warpgroup, cluster_loads_fill_every_blocks_tile) {
    TS_TEST_REQUIRE_DEVICE();
    if (ts_test_wg_cluster_max() < 2) cr_skip_test("this backend runs clusters of one block");
    for (int shape = 0; shape < 5; ++shape)
        for (int mode = 2; mode <= 3; ++mode) {
            check_copy(shape, mode, 0, 0, 0, 0);
            check_copy(shape, mode, 1, 1, 1, 0); /* ragged: zero-filled bytes count on every block */
        }
}

Test(warpgroup, async_store_publishes_ordinary_shared_writes) {
    TS_TEST_REQUIRE_DEVICE();
    for (int shape = 0; shape < 5; ++shape) {
        check_copy(shape, 1, 0, 0, 1, 1);
        check_copy(shape, 1, 0, 0, 0, 0);
    }
}

/* ---- register budgets ----------------------------------------------------------------------------- */

/* ts_async_store_add: five blocks add k x the pattern (k = 1 .. 5) into the same tile at once, an
 * inner one and one the matrix's edge cuts (5 of its 16 rows, 6 of its 32 columns). The sums are
 * exact in any order (the pattern has 15 significant bits, the starting values are small integers),
 * so every element inside is start + 15 x pattern, and every other element, the row padding past
 * cols included, keeps its start. */
static void check_store_add(int tile_row, int tile_col) {
    const long long batch = 2, heads = 2, rows = 37, cols = 70, ld = 76;
    const int bi = 1, hi = 0, blocks = 5;
    const size_t elems = (size_t)(batch * heads * rows * ld);
    uint64_t seed = ts_test_fresh_seed(), state = seed;
    float *start = malloc(elems * 4), *got = malloc(elems * 4);
    cr_assert(start && got);
    for (size_t i = 0; i < elems; ++i) start[i] = (float)(int)(ts_test_uniform(&state) * 64.0) - 32.0f;
    float *d = ts_test_device_copy(start, elems * 4);
    cr_assert(d);
    const ts_status s = ts_test_wg_store_add(d, batch, heads, rows, cols, ld, bi, hi, tile_row, tile_col, blocks);
    cr_assert_eq(s, TS_SUCCESS, "launch: %d", (int)s);
    cr_assert_eq(ts_device_synchronize(), TS_SUCCESS);
    cr_assert_eq(ts_test_copy_back(got, d, elems * 4), TS_SUCCESS);
    for (long long b = 0; b < batch; ++b)
        for (long long h = 0; h < heads; ++h)
            for (long long r = 0; r < rows; ++r)
                for (long long c = 0; c < ld; ++c) {
                    const size_t at = (size_t)(((b * heads + h) * rows + r) * ld + c);
                    const long long lr = r - 16LL * tile_row, lc = c - 32LL * tile_col;
                    const int inside = b == bi && h == hi && c < cols && lr >= 0 && lr < 16 && lc >= 0 && lc < 32;
                    float want = start[at];
                    if (inside) {
                        const unsigned bits = ts_test_wg_pattern(TS_TEST_WG_F32, (int)lr, (int)lc);
                        float x;
                        memcpy(&x, &bits, 4);
                        want += 15.0f * x;
                    }
                    cr_assert(got[at] == want, "tile (%d,%d): element (%lld,%lld,%lld,%lld) %g, want %g (%s; seed %llu)",
                              tile_row, tile_col, b, h, r, c, (double)got[at], (double)want,
                              inside ? "inside" : "outside the tile or the matrix", (unsigned long long)seed);
                }
    cr_assert_eq(ts_free(d), TS_SUCCESS);
    free(start), free(got);
}

Test(warpgroup, async_store_add_sums_every_blocks_tile) {
    TS_TEST_REQUIRE_DEVICE();
    check_store_add(1, 0);
    check_store_add(2, 2); /* rows 32-36 and columns 64-69 of the matrix */
}

Test(warpgroup, register_budgets_move_between_warpgroups) {
    TS_TEST_REQUIRE_DEVICE();
    int h[12];
    int *d = ts_test_device_copy(NULL, sizeof h);
    cr_assert_not_null(d);
    cr_assert_eq(ts_test_wg_regs(d), TS_SUCCESS);
    cr_assert_eq(ts_device_synchronize(), TS_SUCCESS);
    cr_assert_eq(ts_test_copy_back(h, d, sizeof h), TS_SUCCESS);
    for (int w = 0; w < 12; ++w) cr_assert_eq(h[w], (w < 4 ? 100 : 200) + w, "warp %d", w);
    cr_assert_eq(ts_free(d), TS_SUCCESS);
}
