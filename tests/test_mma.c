/* The warp-scope mma ops (ops/mma.h) on the backend this build targets: every transposition form
 * in bf16 and fp16, with a separate accumulator, in place and overwriting, at several shapes,
 * against a double-precision product of the same 16-bit inputs (fresh random normal inputs each
 * run, output poisoned with NaN first). The tolerance is 1e-4 of each element's
 * sum |a||b| + |c|, the scale of fp32 accumulation error. On a GPU backend these need a device.
 *
 * The CPU tests check the register permutations of backends/cuda/mma_layout.h and
 * backends/hip/mma_layout.h against the instructions' documented fragments element by element,
 * and the kernels' argument handling. (That a mismatched shape, dtype or layout does not compile
 * cannot be a run-time test; ops/mma.h checks it with static assertions.) */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "backends/cuda/fragment_layout.h"
#include "backends/cuda/mma_layout.h"
#include "backends/hip/fragment_layout.h"
#include "backends/hip/mma_layout.h"
#include "support/test_support.h"
#include "tests/kernels/mma_kernels.h"

static const char *const form_names[] = {"AB", "ABt", "AtB", "AtBt"};
static const char *const dtype_names[] = {"bf16", "fp16"};
static const char *const mode_names[] = {"acc", "acc in place", "overwrite"};

/* ---- CUDA permutations --------------------------------------------------------------------- */

/* The two 16-bit elements of a word stay together in every map, and the word maps say the same as
 * the element maps. */
Test(mma_layout, cuda_maps_keep_words_whole) {
    for (int layout = TS_LAYOUT_ROW; layout <= TS_LAYOUT_COL; ++layout) {
        int a_seen[8] = {0}, b_seen[8] = {0};
        for (int r = 0; r < 4; ++r) {
            const int e = ts_cuda_mma_a_elem(layout, 2 * r);
            cr_assert_eq(e % 2, 0);
            cr_assert_eq(ts_cuda_mma_a_elem(layout, 2 * r + 1), e + 1);
            cr_assert_eq(ts_cuda_mma_a_word(layout, r), e / 2);
            a_seen[e]++, a_seen[e + 1]++;
        }
        for (int half = 0; half < 2; ++half)
            for (int r = 0; r < 2; ++r) {
                const int e = ts_cuda_mma_b_elem(layout, half, 2 * r);
                cr_assert_eq(e % 2, 0);
                cr_assert_eq(ts_cuda_mma_b_elem(layout, half, 2 * r + 1), e + 1);
                cr_assert_eq(ts_cuda_mma_b_word(layout, half, r), e / 2);
                b_seen[e]++, b_seen[e + 1]++;
            }
        for (int e = 0; e < 8; ++e) {
            cr_assert_eq(a_seen[e], 1, "layout %d: A uses element %d %d times", layout, e,
                         a_seen[e]);
            cr_assert_eq(b_seen[e], 1, "layout %d: B uses element %d %d times", layout, e,
                         b_seen[e]);
        }
    }
    int c_seen[8] = {0};
    for (int half = 0; half < 2; ++half)
        for (int r = 0; r < 4; ++r) c_seen[ts_cuda_mma_c_elem(half, r)]++;
    for (int e = 0; e < 8; ++e) cr_assert_eq(c_seen[e], 1);
}

/* Each register the maps pick holds the matrix element the PTX ISA's m16n8k16 fragment puts
 * there (groupID = lane >> 2, threadID_in_group = lane % 4): A row g (+8 for a2,a3,a6,a7), column
 * 2t + (i & 1) (+8 for a4..a7); B row 2t + (i & 1) (+8 for b2,b3), column g; C row g (+8 for
 * c2,c3), column 2t + (i & 1). A tile in the col layout holds A^T, a row-layout B tile B^T. */
Test(mma_layout, cuda_maps_match_the_ptx_fragments) {
    for (int lane = 0; lane < 32; ++lane) {
        const int g = lane >> 2, t = lane & 3;
        for (int layout = TS_LAYOUT_ROW; layout <= TS_LAYOUT_COL; ++layout) {
            for (int j = 0; j < 8; ++j) {
                const int e = ts_cuda_mma_a_elem(layout, j);
                const int r = ts_cuda_rt_row(layout, 2, lane, e),
                          c = ts_cuda_rt_col(layout, 2, lane, e);
                const int m = layout == TS_LAYOUT_ROW ? r : c, k = layout == TS_LAYOUT_ROW ? c : r;
                cr_assert_eq(m, g + 8 * ((j >> 1) & 1), "lane %d layout %d a%d", lane, layout, j);
                cr_assert_eq(k, 2 * t + (j & 1) + 8 * (j >> 2), "lane %d layout %d a%d", lane,
                             layout, j);
            }
            for (int half = 0; half < 2; ++half)
                for (int j = 0; j < 4; ++j) {
                    const int e = ts_cuda_mma_b_elem(layout, half, j);
                    const int r = ts_cuda_rt_row(layout, 2, lane, e),
                              c = ts_cuda_rt_col(layout, 2, lane, e);
                    const int k = layout == TS_LAYOUT_COL ? r : c,
                              n = layout == TS_LAYOUT_COL ? c : r;
                    cr_assert_eq(k, 2 * t + (j & 1) + 8 * (j >> 1), "lane %d layout %d half %d b%d",
                                 lane, layout, half, j);
                    cr_assert_eq(n, g + 8 * half, "lane %d layout %d half %d b%d", lane, layout,
                                 half, j);
                }
        }
        for (int half = 0; half < 2; ++half)
            for (int j = 0; j < 4; ++j) {
                const int e = ts_cuda_mma_c_elem(half, j);
                cr_assert_eq(ts_cuda_rt_row(TS_LAYOUT_ROW, 4, lane, e), g + 8 * (j >> 1));
                cr_assert_eq(ts_cuda_rt_col(TS_LAYOUT_ROW, 4, lane, e), 2 * t + (j & 1) + 8 * half);
            }
    }
}

/* ---- HIP permutations ---------------------------------------------------------------------- */

/* AMD's MFMA 16x16x16 operands (AMD Matrix Instruction Calculator, CDNA): A[i][k] and B[k][j] in
 * lane 16 * (k / 4) + i (or j), item k % 4; C/D[i][j] in lane 16 * (i / 4) + j, register i % 4.
 * The identity maps put exactly those elements there, in every form. */
Test(mma_layout, hip_maps_match_the_mfma_operands) {
    for (int lane = 0; lane < 64; ++lane) {
        for (int layout = TS_LAYOUT_ROW; layout <= TS_LAYOUT_COL; ++layout)
            for (int item = 0; item < 4; ++item) {
                const int ea = ts_hip_mma_a_elem(layout, item),
                          eb = ts_hip_mma_b_elem(layout, item);
                const int ar = ts_hip_rt_row(layout, 2, lane, ea),
                          ac = ts_hip_rt_col(layout, 2, lane, ea);
                const int br = ts_hip_rt_row(layout, 2, lane, eb),
                          bc = ts_hip_rt_col(layout, 2, lane, eb);
                /* a: row layout A (m, k), col layout A^T (k, m); b: col B (k, n), row B^T. */
                const int am = layout == TS_LAYOUT_ROW ? ar : ac,
                          ak = layout == TS_LAYOUT_ROW ? ac : ar;
                const int bk = layout == TS_LAYOUT_COL ? br : bc,
                          bn = layout == TS_LAYOUT_COL ? bc : br;
                cr_assert_eq(16 * (ak / 4) + am, lane, "A layout %d lane %d item %d", layout, lane,
                             item);
                cr_assert_eq(ak % 4, item);
                cr_assert_eq(16 * (bk / 4) + bn, lane, "B layout %d lane %d item %d", layout, lane,
                             item);
                cr_assert_eq(bk % 4, item);
            }
        for (int reg = 0; reg < 4; ++reg) {
            const int e = ts_hip_mma_c_elem(reg);
            const int i = ts_hip_rt_row(TS_LAYOUT_ROW, 4, lane, e),
                      j = ts_hip_rt_col(TS_LAYOUT_ROW, 4, lane, e);
            cr_assert_eq(16 * (i / 4) + j, lane);
            cr_assert_eq(i % 4, reg);
        }
        for (int r = 0; r < 2; ++r) {
            cr_assert_eq(ts_hip_mma_a_word(TS_LAYOUT_COL, r),
                         ts_hip_mma_a_elem(TS_LAYOUT_COL, 2 * r) / 2);
            cr_assert_eq(ts_hip_mma_b_word(TS_LAYOUT_ROW, r),
                         ts_hip_mma_b_elem(TS_LAYOUT_ROW, 2 * r) / 2);
        }
    }
}

/* ---- argument handling (no launch) --------------------------------------------------------- */

Test(mma_kernels, shapes_and_combinations) {
    int m, n, k;
    cr_assert_eq(ts_test_mma_dims(TS_TEST_MMA_32x64x32, &m, &n, &k), TS_SUCCESS);
    cr_assert(m == 32 && n == 64 && k == 32);
    cr_assert_eq(ts_test_mma_dims(TS_TEST_MMA_SHAPES, &m, &n, &k), TS_ERROR_INVALID_ENUM);
    cr_assert_eq(ts_test_mma_dims(-1, &m, &n, &k), TS_ERROR_INVALID_ENUM);
    cr_assert_eq(ts_test_mma_dims(0, NULL, &n, &k), TS_ERROR_NULL_POINTER);
    for (int f = 0; f < TS_TEST_MMA_FORMS; ++f)
        for (int dt = 0; dt < TS_TEST_MMA_DTYPES; ++dt)
            for (int mode = 0; mode < TS_TEST_MMA_MODES; ++mode) {
                cr_assert(ts_test_mma_available(TS_TEST_MMA_16x16x16, f, dt, mode));
                cr_assert(ts_test_mma_available(TS_TEST_MMA_32x64x32, f, dt, mode));
                cr_assert_eq(ts_test_mma_available(TS_TEST_MMA_64x64x64, f, dt, mode),
                             mode != TS_TEST_MMA_ACC);
                cr_assert_eq(ts_test_mma_available(TS_TEST_MMA_16x256x16, f, dt, mode),
                             mode != TS_TEST_MMA_ACC &&
                                 (f == TS_TEST_MMA_AB || f == TS_TEST_MMA_ATB));
            }
    cr_assert_not(ts_test_mma_available(TS_TEST_MMA_16x16x16, TS_TEST_MMA_FORMS, 0, 0));
    cr_assert_not(ts_test_mma_available(TS_TEST_MMA_16x16x16, 0, -1, 0));
}

Test(mma_kernels, bad_arguments_fail_before_launch) {
    float d[16 * 16] = {0}, c[16 * 16] = {0};
    unsigned short a[16 * 16] = {0}, b[16 * 16] = {0};
    cr_assert_eq(ts_test_mma(TS_TEST_MMA_SHAPES, 0, 0, 0, d, a, b, c), TS_ERROR_INVALID_ENUM);
    cr_assert_eq(ts_test_mma(0, 4, 0, 0, d, a, b, c), TS_ERROR_INVALID_ENUM);
    cr_assert_eq(ts_test_mma(0, 0, 2, 0, d, a, b, c), TS_ERROR_INVALID_ENUM);
    cr_assert_eq(ts_test_mma(0, 0, 0, 3, d, a, b, c), TS_ERROR_INVALID_ENUM);
    cr_assert_eq(
        ts_test_mma(TS_TEST_MMA_16x256x16, TS_TEST_MMA_ABT, 0, TS_TEST_MMA_OVERWRITE, d, a, b, c),
        TS_ERROR_UNSUPPORTED);
    cr_assert_eq(ts_test_mma(TS_TEST_MMA_64x64x64, TS_TEST_MMA_AB, 0, TS_TEST_MMA_ACC, d, a, b, c),
                 TS_ERROR_UNSUPPORTED);
    cr_assert_eq(ts_test_mma(0, 0, 0, TS_TEST_MMA_ACC, NULL, a, b, c), TS_ERROR_NULL_POINTER);
    cr_assert_eq(ts_test_mma(0, 0, 0, TS_TEST_MMA_ACC, d, NULL, b, c), TS_ERROR_NULL_POINTER);
    cr_assert_eq(ts_test_mma(0, 0, 0, TS_TEST_MMA_ACC, d, a, NULL, c), TS_ERROR_NULL_POINTER);
    cr_assert_eq(ts_test_mma(0, 0, 0, TS_TEST_MMA_ACC_INPLACE, d, a, b, NULL),
                 TS_ERROR_NULL_POINTER);
}

/* ---- the ops on the device ----------------------------------------------------------------- */

static unsigned short round16(float x, int dtype) {
    unsigned short bits;
    if (dtype == TS_TEST_MMA_FP16) {
        _Float16 h = (_Float16)x;
        memcpy(&bits, &h, sizeof bits);
        return bits;
    }
    unsigned u;
    memcpy(&u, &x, sizeof u);
    u += 0x7fffu + ((u >> 16) & 1u); /* nearest even; the inputs are finite */
    return (unsigned short)(u >> 16);
}

static double value16(unsigned short bits, int dtype) {
    if (dtype == TS_TEST_MMA_FP16) {
        _Float16 h;
        memcpy(&h, &bits, sizeof h);
        return (double)h;
    }
    unsigned u = (unsigned)bits << 16;
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

static void check_mma(int shape, int form, int dtype, int mode) {
    int m, n, k;
    cr_assert_eq(ts_test_mma_dims(shape, &m, &n, &k), TS_SUCCESS);
    const int at = form == TS_TEST_MMA_ATB || form == TS_TEST_MMA_ATBT;
    const int bt = form == TS_TEST_MMA_ABT || form == TS_TEST_MMA_ATBT;
    const uint64_t seed = ts_test_fresh_seed();
    uint64_t st = seed;
    /* Logical A (m x k) and B (k x n); the buffers hold what the form loads: A or A^T, B or B^T. */
    unsigned short *a = malloc((size_t)m * k * sizeof *a), *b = malloc((size_t)k * n * sizeof *b);
    unsigned short *abuf = malloc((size_t)m * k * sizeof *abuf),
                   *bbuf = malloc((size_t)k * n * sizeof *bbuf);
    float *c = malloc((size_t)m * n * sizeof *c), *d = malloc((size_t)m * n * sizeof *d);
    for (int i = 0; i < m; ++i)
        for (int j = 0; j < k; ++j) {
            a[i * k + j] = round16((float)ts_test_normal(&st), dtype);
            abuf[at ? j * m + i : i * k + j] = a[i * k + j];
        }
    for (int i = 0; i < k; ++i)
        for (int j = 0; j < n; ++j) {
            b[i * n + j] = round16((float)ts_test_normal(&st), dtype);
            bbuf[bt ? j * k + i : i * n + j] = b[i * n + j];
        }
    ts_test_fill_normal(c, (size_t)m * n, &st);
    void *da = ts_test_device_copy(abuf, (size_t)m * k * sizeof *abuf);
    void *db = ts_test_device_copy(bbuf, (size_t)k * n * sizeof *bbuf);
    void *dc = ts_test_device_copy(c, (size_t)m * n * sizeof *c);
    void *dd = ts_test_device_copy(NULL, (size_t)m * n * sizeof *d); /* NaN until written */
    cr_assert(da && db && dc && dd);
    cr_assert_eq(ts_test_mma(shape, form, dtype, mode, dd, da, db,
                             mode == TS_TEST_MMA_OVERWRITE ? NULL : dc),
                 TS_SUCCESS);
    cr_assert_eq(ts_device_synchronize(), TS_SUCCESS);
    cr_assert_eq(ts_test_copy_back(d, dd, (size_t)m * n * sizeof *d), TS_SUCCESS);
    const int accumulate = mode != TS_TEST_MMA_OVERWRITE;
    for (int i = 0; i < m; ++i)
        for (int j = 0; j < n; ++j) {
            double ref = accumulate ? c[i * n + j] : 0.0,
                   scale = accumulate ? fabs(c[i * n + j]) : 0.0;
            for (int kk = 0; kk < k; ++kk) {
                const double x = value16(a[i * k + kk], dtype) * value16(b[kk * n + j], dtype);
                ref += x;
                scale += fabs(x);
            }
            const double err = fabs(d[i * n + j] - ref);
            cr_assert(err <= 1e-4 * scale,
                      "%s %s %s %dx%dx%d: d[%d][%d] = %.9g, reference %.9g (seed %llu)",
                      form_names[form], dtype_names[dtype], mode_names[mode], m, n, k, i, j,
                      (double)d[i * n + j], ref, (unsigned long long)seed);
        }
    cr_assert_eq(ts_free(da), TS_SUCCESS);
    cr_assert_eq(ts_free(db), TS_SUCCESS);
    cr_assert_eq(ts_free(dc), TS_SUCCESS);
    cr_assert_eq(ts_free(dd), TS_SUCCESS);
    free(a), free(b), free(abuf), free(bbuf), free(c), free(d);
}

static void check_shape(int shape) {
    int runs = 0;
    for (int form = 0; form < TS_TEST_MMA_FORMS; ++form)
        for (int dtype = 0; dtype < TS_TEST_MMA_DTYPES; ++dtype)
            for (int mode = 0; mode < TS_TEST_MMA_MODES; ++mode)
                if (ts_test_mma_available(shape, form, dtype, mode)) {
                    check_mma(shape, form, dtype, mode);
                    ++runs;
                }
    cr_assert_gt(runs, 0);
}

Test(mma_ops, shape_16x16x16) {
    TS_TEST_REQUIRE_DEVICE();
    check_shape(TS_TEST_MMA_16x16x16);
}

Test(mma_ops, shape_32x64x32) {
    TS_TEST_REQUIRE_DEVICE();
    check_shape(TS_TEST_MMA_32x64x32);
}

Test(mma_ops, shape_64x64x64_in_four_k_blocks) {
    TS_TEST_REQUIRE_DEVICE();
    check_shape(TS_TEST_MMA_64x64x64);
}

Test(mma_ops, shape_16x256x16) {
    TS_TEST_REQUIRE_DEVICE();
    check_shape(TS_TEST_MMA_16x256x16);
}
