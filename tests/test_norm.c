/* LayerNorm and RMSNorm (ts_layernorm, ts_rmsnorm) against a double-precision reference: ragged
 * rows and columns (a partial last chunk, rows spread over 1, 2, 3 and 16 warps), padded and
 * unaligned row strides (the residual's apart from x's), bf16 / fp16 / fp32 inputs, other output
 * and parameter dtypes, the residual add with and without its output, weight and bias on and off,
 * in place, rows with a large mean; and every error path. Outputs are poisoned first; padding between rows must stay poisoned. On a
 * GPU the same checks run at larger sizes. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>

#include "templates/rowwise_plan.h"
#include "support/dtype_io.h"
#include "support/test_support.h"

/* The row-wise template's example kernel (tests/kernels/row_l2.c, docs/row-template.md). */
ts_status row_l2(const void *x, ts_dtype dtype, long long x_stride, void *out, ts_dtype out_dtype, long long out_stride,
                 long long rows, int cols, float eps, ts_stream stream);

typedef struct {
    long long rows;
    int cols, pad;
    ts_dtype dt, out_dt, param_dt;
    int rms, residual, residual_out, weight, bias, in_place;
    double mean; /* added to x: a large mean tests the two-pass variance */
    int res_pad; /* the residual's row stride less x's (not in place) */
} norm_case;

static void check_norm(norm_case c) {
    uint64_t seed = ts_test_fresh_seed(), st = seed;
    if (c.in_place) c.out_dt = c.dt;
    cr_assert(!(c.in_place && c.res_pad), "an in-place case shares x's stride");
    const long long stride = c.cols + c.pad, rstride = stride + c.res_pad;
    const size_t n = (size_t)c.rows * stride, b = ts_test_dtype_bytes(c.dt), ob = ts_test_dtype_bytes(c.out_dt);
    const size_t pb = ts_test_dtype_bytes(c.param_dt), rn = (size_t)c.rows * rstride;
    void *x = malloc(n * b), *r = malloc(rn * b), *out = malloc(n * ob), *ro = malloc(n * b);
    void *w = malloc(c.cols * pb), *bias = malloc(c.cols * pb);
    cr_assert(x && r && out && ro && w && bias);
    for (size_t i = 0; i < n; ++i) ts_test_put(x, c.dt, i, c.mean + ts_test_normal(&st));
    for (size_t i = 0; i < rn; ++i) ts_test_put(r, c.dt, i, ts_test_normal(&st));
    for (int i = 0; i < c.cols; ++i) ts_test_put(w, c.param_dt, i, 1.0 + 0.5 * ts_test_normal(&st));
    for (int i = 0; i < c.cols; ++i) ts_test_put(bias, c.param_dt, i, ts_test_normal(&st));
    void *dx = ts_test_device_copy(x, n * b), *dr = ts_test_device_copy(r, rn * b);
    void *dout = c.in_place ? dx : ts_test_device_copy(NULL, n * ob), *dro = c.in_place ? dr : ts_test_device_copy(NULL, n * b);
    void *dw = ts_test_device_copy(w, c.cols * pb), *db = ts_test_device_copy(bias, c.cols * pb);
    cr_assert(dx && dr && dout && dro && dw && db);
    if (c.in_place) {
        /* Poison the padding so that writes into it show. */
        unsigned char *pad = malloc(n * b);
        memcpy(pad, x, n * b);
        for (long long i = 0; i < c.rows; ++i) memset(pad + (i * stride + c.cols) * b, 0xFF, c.pad * b);
        cr_assert_eq(ts_memcpy(dx, pad, n * b, TS_MEMCPY_HOST_TO_DEVICE), TS_SUCCESS);
        memcpy(pad, r, n * b);
        for (long long i = 0; i < c.rows; ++i) memset(pad + (i * stride + c.cols) * b, 0xFF, c.pad * b);
        cr_assert_eq(ts_memcpy(dr, pad, n * b, TS_MEMCPY_HOST_TO_DEVICE), TS_SUCCESS);
        free(pad);
    }
    const ts_norm_desc d = {
        .rows = c.rows, .cols = c.cols, .dtype = c.dt, .out_dtype = c.out_dt, .param_dtype = c.param_dt,
        .x = dx, .x_stride = stride,
        .residual = c.residual ? dr : NULL, .residual_stride = rstride,
        .residual_out = c.residual && c.residual_out ? dro : NULL, .residual_out_stride = stride,
        .weight = c.weight ? dw : NULL, .bias = c.bias ? db : NULL,
        .out = dout, .out_stride = stride, .eps = 1e-5f,
    };
    cr_assert_eq(c.rms ? ts_rmsnorm(&d, NULL) : ts_layernorm(&d, NULL), TS_SUCCESS);
    cr_assert_eq(ts_device_synchronize(), TS_SUCCESS);
    cr_assert_eq(ts_test_copy_back(out, dout, n * ob), TS_SUCCESS);
    cr_assert_eq(ts_test_copy_back(ro, dro, n * b), TS_SUCCESS);

    double *h = malloc(sizeof(double) * c.cols), err2 = 0.0, ref2 = 0.0;
    const double tol = ts_test_tol(c.out_dt), rtol = ts_test_tol(c.dt);
    for (long long i = 0; i < c.rows; ++i) {
        for (int j = 0; j < c.cols; ++j) {
            const size_t at = (size_t)(i * stride + j);
            h[j] = ts_test_get(x, c.dt, at);
            if (c.residual) {
                h[j] = ts_test_round(c.dt, h[j] + ts_test_get(r, c.dt, (size_t)(i * rstride + j)));
                if (c.residual_out) {
                    const double got = ts_test_get(ro, c.dt, at);
                    cr_assert_leq(fabs(got - h[j]), 0.5 * rtol * fabs(h[j]) + 1e-30, "residual_out(%lld,%d) %g vs %g (seed %llu)",
                                  i, j, got, h[j], (unsigned long long)seed);
                }
            }
        }
        double mean = 0.0, var = 0.0;
        if (!c.rms) {
            for (int j = 0; j < c.cols; ++j) mean += h[j];
            mean /= c.cols;
        }
        for (int j = 0; j < c.cols; ++j) var += (h[j] - mean) * (h[j] - mean);
        const double rstd = 1.0 / sqrt(var / c.cols + 1e-5);
        for (int j = 0; j < c.cols; ++j) {
            const size_t at = (size_t)(i * stride + j);
            double ref = (h[j] - mean) * rstd;
            if (c.weight) ref *= ts_test_get(w, c.param_dt, j);
            if (c.bias) ref += ts_test_get(bias, c.param_dt, j);
            const double got = ts_test_get(out, c.out_dt, at);
            cr_assert(isfinite(got), "out(%lld,%d) = %g (seed %llu)", i, j, got, (unsigned long long)seed);
            /* x's own rounding in fp32 statistics: |h - mean| of a large mean loses digits. */
            const double slack = c.mean != 0.0 ? 1e-6 * fabs(c.mean) * rstd : 0.0;
            cr_assert_leq(fabs(got - ref), tol * (1.0 + fabs(ref)) + slack, "out(%lld,%d) %s: %g vs %g (seed %llu)", i, j,
                          c.rms ? "rms" : "ln", got, ref, (unsigned long long)seed);
            err2 += (got - ref) * (got - ref);
            ref2 += ref * ref;
        }
        /* The padding is never written. */
        cr_assert(ts_test_is_poison((unsigned char *)out + (size_t)(i * stride + c.cols) * ob, c.pad * ob),
                  "row %lld padding written", i);
    }
    cr_assert_leq(sqrt(err2 / (ref2 + 1e-30)), tol + 1e-6 * fabs(c.mean), "relative error %g (seed %llu)", sqrt(err2 / (ref2 + 1e-30)),
                  (unsigned long long)seed);
    if (!c.in_place) {
        cr_assert_eq(ts_free(dout), TS_SUCCESS);
        cr_assert_eq(ts_free(dro), TS_SUCCESS);
    }
    cr_assert_eq(ts_free(dx), TS_SUCCESS);
    cr_assert_eq(ts_free(dr), TS_SUCCESS);
    cr_assert_eq(ts_free(dw), TS_SUCCESS);
    cr_assert_eq(ts_free(db), TS_SUCCESS);
    free(x), free(r), free(out), free(ro), free(w), free(bias), free(h);
}

static const ts_dtype BF = TS_DTYPE_BF16, FP = TS_DTYPE_FP16, F32 = TS_DTYPE_F32;

Test(norm, layernorm_residual_every_dtype) {
    TS_TEST_REQUIRE_DEVICE();
    const long long rows = ts_test_on_gpu() ? 3001 : 19;
    const ts_dtype dts[3] = {BF, FP, F32};
    for (int i = 0; i < 3; ++i) {
        check_norm((norm_case){rows, 1000, 8, dts[i], dts[i], dts[i], 0, 1, 1, 1, 1, 0, 0.0, 0});
        check_norm((norm_case){rows, 1500, 0, dts[i], dts[i], dts[i], 0, 1, 1, 1, 1, 0, 0.0, 0});
    }
}

Test(norm, rmsnorm_residual_every_dtype) {
    TS_TEST_REQUIRE_DEVICE();
    const long long rows = ts_test_on_gpu() ? 3001 : 19;
    const ts_dtype dts[3] = {BF, FP, F32};
    for (int i = 0; i < 3; ++i) {
        check_norm((norm_case){rows, 1000, 8, dts[i], dts[i], dts[i], 1, 1, 1, 1, 0, 0, 0.0, 0});
        check_norm((norm_case){rows, 3000, 0, dts[i], dts[i], dts[i], 1, 1, 1, 1, 0, 0, 0.0, 0});
    }
}

/* Rows for about two passes of the general instance's grid (capped at 32 blocks of 8 warps per SM,
 * templates/rowwise.h) plus a ragged tail, one warp per row and two: its blocks loop over row
 * groups, which it takes when the output dtype differs from the input's; the short instance takes
 * the same rows in one pass, a block per row group. */
Test(norm, warps_loop_over_many_rows) {
    TS_TEST_REQUIRE_DEVICE();
    ts_device_props props;
    cr_assert_eq(ts_device_get_props(0, &props), TS_SUCCESS);
    const long long sweep = (long long)props.sm_count * 32 * 8;
    const ts_dtype dts[3] = {BF, FP, F32}, other[3] = {F32, BF, FP};
    for (int i = 0; i < 3; ++i)
        for (int rms = 0; rms < 2; ++rms) {
            check_norm((norm_case){sweep * 2 + 7, 256, 0, dts[i], dts[i], dts[i], rms, 1, 1, 1, !rms, 0, 0.0, 0});
            check_norm((norm_case){sweep * 2 + 7, 256, 0, dts[i], other[i], dts[i], rms, 1, 1, 1, !rms, 0, 0.0, 0});
            check_norm((norm_case){sweep + 3, 2048, 8, dts[i], dts[i], other[i], rms, 1, 1, 1, !rms, 0, 0.0, 0});
        }
    check_norm((norm_case){sweep * 2 + 7, 512, 0, BF, BF, BF, 1, 0, 0, 1, 0, 0, 0.0, 0}); /* x alone */
    check_norm((norm_case){sweep + 3, 2048, 8, BF, BF, BF, 0, 1, 1, 1, 1, 0, 0.0, 0});
}

Test(norm, options_weight_bias_residual_out) {
    TS_TEST_REQUIRE_DEVICE();
    const long long rows = ts_test_on_gpu() ? 777 : 9;
    for (int rms = 0; rms < 2; ++rms)
        for (int opt = 0; opt < 16; ++opt)
            check_norm((norm_case){rows, 520, 0, BF, BF, BF, rms, opt & 1, (opt >> 1) & 1, (opt >> 2) & 1, (opt >> 3) & 1, 0, 0.0, 0});
}

Test(norm, mixed_dtypes_and_unaligned_strides) {
    TS_TEST_REQUIRE_DEVICE();
    const long long rows = ts_test_on_gpu() ? 1025 : 7;
    check_norm((norm_case){rows, 777, 3, BF, F32, F32, 0, 1, 1, 1, 1, 0, 0.0, 0}); /* odd stride: element path */
    check_norm((norm_case){rows, 2049, 5, FP, BF, BF, 1, 1, 0, 1, 1, 0, 0.0, 0});
    check_norm((norm_case){rows, 300, 1, F32, FP, BF, 0, 0, 0, 1, 1, 0, 0.0, 0});
}

/* x and the residual aligned differently (one 16-byte aligned row, the other not), and with
 * different strides: the two strips are loaded together only where both allow it. */
Test(norm, residual_with_its_own_stride) {
    TS_TEST_REQUIRE_DEVICE();
    const long long rows = ts_test_on_gpu() ? 513 : 5;
    for (int rms = 0; rms < 2; ++rms) {
        check_norm((norm_case){rows, 1024, 0, BF, BF, BF, rms, 1, 1, 1, 1, 0, 0.0, 1});   /* residual rows unaligned */
        check_norm((norm_case){rows, 1024, 1, FP, FP, FP, rms, 1, 1, 1, 0, 0, 0.0, -1});  /* x rows unaligned */
        check_norm((norm_case){rows, 4096, 0, BF, BF, BF, rms, 1, 1, 1, 1, 0, 0.0, 24}); /* both aligned, strides differ */
    }
}

Test(norm, ragged_small_and_huge_rows) {
    TS_TEST_REQUIRE_DEVICE();
    check_norm((norm_case){1, 1, 0, BF, BF, BF, 0, 1, 1, 1, 1, 0, 0.0, 0});
    check_norm((norm_case){3, 7, 1, F32, F32, F32, 1, 1, 1, 1, 1, 0, 0.0, 0});
    check_norm((norm_case){5, 256, 0, BF, BF, BF, 0, 1, 1, 1, 1, 0, 0.0, 0});
    if (!ts_test_on_hip()) check_norm((norm_case){ts_test_on_gpu() ? 300 : 2, 16384, 8, BF, BF, BF, 0, 1, 1, 1, 1, 0, 0.0, 0}); /* 16 warps */
    check_norm((norm_case){ts_test_on_gpu() ? 300 : 2, 8192, 0, F32, BF, BF, 1, 1, 1, 1, 1, 0, 0.0, 0});
    check_norm((norm_case){ts_test_on_gpu() ? 100000 : 40, 64, 0, BF, BF, BF, 1, 1, 1, 1, 0, 0, 0.0, 0}); /* many rows per block */
}

/* Rows of whole 1024-element slices whose every matrix is 16-byte aligned, row by row, run on the
 * whole instance (templates/rowwise_instances.h), with no element-by-element paths: every
 * option, dtype and slice count of it, and beside each the same rows with one matrix's rows
 * misaligned (a stride of 8 more bytes), which fall back to the short instance. */
Test(norm, whole_aligned_rows) {
    TS_TEST_REQUIRE_DEVICE();
    const ts_dtype dts[3] = {BF, FP, F32};
    const long long rows = ts_test_on_gpu() ? 777 : 4;
    const int cols[3] = {1024, 2048, 8192};
    for (int i = 0; i < 3; ++i)
        for (int k = 0; k < 3; ++k) {
            const int rms = (i + k) & 1;
            check_norm((norm_case){rows, cols[k], 0, dts[i], dts[i], dts[i], rms, 1, 1, 1, !rms, 0, 0.0, 0});
            check_norm((norm_case){rows, cols[k], 0, dts[i], dts[i], dts[i], !rms, 0, 0, 1, rms, 0, 0.0, 0});
            check_norm((norm_case){rows, cols[k], 0, dts[i], dts[i], dts[i], rms, 1, 0, 0, 0, 0, 0.0, 0});
            check_norm((norm_case){rows, cols[k], 8, dts[i], dts[i], dts[i], rms, 1, 1, 1, 1, 0, 0.0,
                                   dts[i] == F32 ? 2 : 4}); /* residual rows 8 bytes off 16 */
        }
}

/* RMSNorm of one-slice rows with a residual and a weight and no bias: the RMSNorm rows' instance
 * (norm.c, ts_norm_*_rms_row), with and without the sum stored; and its neighbours, which must not
 * take it (a bias, no weight, LayerNorm). */
Test(norm, rmsnorm_rows_instance) {
    TS_TEST_REQUIRE_DEVICE();
    const long long rows = ts_test_on_gpu() ? 4099 : 5;
    for (int i = 0; i < 2; ++i) {
        const ts_dtype dt = i ? FP : BF;
        for (int residual_out = 0; residual_out < 2; ++residual_out)
            check_norm((norm_case){rows, 1024, 0, dt, dt, dt, 1, 1, residual_out, 1, 0, 0, 0.0, 0});
        check_norm((norm_case){rows, 1024, 0, dt, dt, dt, 1, 1, 1, 1, 1, 0, 0.0, 0});
        check_norm((norm_case){rows, 1024, 0, dt, dt, dt, 1, 1, 1, 0, 0, 0, 0.0, 0});
        check_norm((norm_case){rows, 1024, 0, dt, dt, dt, 0, 1, 1, 1, 0, 0, 0.0, 0});
    }
}

/* Rows shorter than a slice, several to a warp, and rows of one to two slices, one a warp: the rows
 * instances (norm_rows_variant.h) for 16-bit rows of 256, 512, 768, 1280, 1536 and 1792 columns
 * (HIP: 512 and 1536), fp32 rows of 256 and 512 (in the split layout), and 16-bit rows of 384, 640
 * and 896 (quad rows on CUDA); row counts that leave the last strip short, every option, padded rows
 * with the residual's own stride, in place; and beside them rows that must not take them (8 and 64
 * columns, fp32 rows of 768 and 1536, misaligned rows, another output dtype). */
Test(norm, rows_several_a_warp) {
    TS_TEST_REQUIRE_DEVICE();
    const long long rows[4] = {1, 3, 6, ts_test_on_gpu() ? 4097 : 9};
    const int cols[11] = {256, 512, 768, 1536, 1280, 1792, 384, 640, 896, 8, 64};
    for (int i = 0; i < 3; ++i) {
        const ts_dtype dt = i == 2 ? F32 : i ? FP : BF;
        for (int c = 0; c < 11; ++c)
            for (int r = 0; r < 4; ++r) {
                const int rms = (r + c + i) & 1;
                check_norm((norm_case){rows[r], cols[c], 0, dt, dt, dt, rms, 1, 1, 1, !rms, 0, 0.0, 0});
                check_norm((norm_case){rows[r], cols[c], 8, dt, dt, dt, !rms, 1, r & 1, !rms, 1, 0, 0.0, 16});
                check_norm((norm_case){rows[r], cols[c], 0, dt, dt, dt, rms, 0, 0, r & 1, 0, 0, 0.0, 0});
            }
        check_norm((norm_case){rows[3], 512, 8, dt, dt, dt, 0, 1, 1, 1, 1, 1, 0.0, 0}); /* in place */
        check_norm((norm_case){rows[3], 768, 0, dt, dt, dt, 1, 1, 1, 1, 0, 1, 0.0, 0});
        check_norm((norm_case){rows[3], 256, 4, dt, dt, dt, 1, 1, 1, 1, 0, 0, 0.0, 0}); /* rows 8 bytes off */
        check_norm((norm_case){rows[3], 512, 0, dt, i == 2 ? BF : F32, dt, 0, 1, 1, 1, 1, 0, 0.0, 0}); /* another output */
        check_norm((norm_case){rows[3], 256, 0, dt, i == 2 ? BF : F32, dt, 1, 1, 1, 1, 0, 0, 0.0, 0});
        check_norm((norm_case){rows[3], 512, 0, dt, dt, dt, 1, 1, 1, 1, 0, 0, 40.0, 0}); /* a large mean */
    }
}

/* 16-bit rows longer than a slice and at most two slices less a chunk of every lane: a row a warp
 * on the long-row instances (templates/rowwise_long_row.h), whose last chunks lie past the row in
 * some lanes (1032: the fifth in all but one lane; 1784: the seventh in one), the rows of up to a
 * slice and one / two chunks of every lane on the narrow / middle ones (1032 and 1152 / 1408 and 1528
 * on CUDA, 1032 / 1040 on the host); with every option, a large mean (the padding must not enter the
 * variance), padded rows and the residual's own stride, in place; the widths the rows instances take
 * (1280, 1792), 2040 (the long-row instance on the host, two warps on CUDA), and beside them rows
 * that must not take it, which run over two warps (fp32, odd widths, another output dtype, mixed
 * parameters). */
Test(norm, long_rows) {
    TS_TEST_REQUIRE_DEVICE();
    const long long rows[3] = {1, 5, ts_test_on_gpu() ? 4099 : 7};
    const int cols[10] = {1032, 1040, 1152, 1408, 1528, 1600, 1784, 1280, 1792, 2040};
    for (int i = 0; i < 2; ++i) {
        const ts_dtype dt = i ? FP : BF;
        for (int c = 0; c < 10; ++c)
            for (int r = 0; r < 3; ++r) {
                const int rms = (r + c + i) & 1;
                check_norm((norm_case){rows[r], cols[c], 0, dt, dt, dt, rms, 1, 1, 1, !rms, 0, 0.0, 0});
                check_norm((norm_case){rows[r], cols[c], 8, dt, dt, dt, !rms, 1, r & 1, !rms, 1, 0, 50.0, 16});
                check_norm((norm_case){rows[r], cols[c], 0, dt, dt, dt, rms, 0, 0, r & 1, 0, r == 2, 0.0, 0});
            }
        check_norm((norm_case){rows[2], 1600, 0, dt, i ? BF : F32, dt, 0, 1, 1, 1, 1, 0, 0.0, 0}); /* another output */
        check_norm((norm_case){rows[2], 1600, 0, dt, dt, F32, 1, 1, 1, 1, 0, 0, 0.0, 0});         /* fp32 weight */
        check_norm((norm_case){rows[2], 1601, 0, dt, dt, dt, 0, 1, 1, 1, 1, 0, 0.0, 0});          /* odd rows */
        check_norm((norm_case){rows[2], 1600, 4, dt, dt, dt, 1, 1, 1, 1, 0, 0, 0.0, 0});          /* rows 8 bytes off */
    }
    check_norm((norm_case){rows[2], 1600, 0, F32, F32, F32, 0, 1, 1, 1, 1, 0, 0.0, 0});
}

/* Which rows a warp's strip holds several of (templates/rowwise_plan.h). */
Test(norm_plan, rows_a_warp_conditions) {
    cr_assert_eq(ts_rowwise_row_chunks(256, 2, 32), 1);
    cr_assert_eq(ts_rowwise_row_chunks(512, 2, 32), 2);
    cr_assert_eq(ts_rowwise_row_chunks(768, 2, 32), 3);
    cr_assert_eq(ts_rowwise_row_chunks(256, 4, 32), 1);
    cr_assert_eq(ts_rowwise_row_chunks(512, 4, 32), 2, "fp32 rows of 512, two a strip");
    cr_assert_eq(ts_rowwise_row_chunks(768, 4, 32), 0, "fp32: a slice and a half of 16-bit bytes");
    cr_assert_eq(ts_rowwise_row_chunks(1024, 2, 32), 0, "a whole slice");
    cr_assert_eq(ts_rowwise_row_chunks(1536, 2, 32), 6, "a slice and a half, one a strip");
    cr_assert_eq(ts_rowwise_row_chunks(1536, 2, 64), 3);
    cr_assert_eq(ts_rowwise_row_chunks(1536, 4, 32), 0, "fp32: three slices' bytes");
    cr_assert_eq(ts_rowwise_row_chunks(1280, 2, 32), 5, "between one and two slices, one a strip");
    cr_assert_eq(ts_rowwise_row_chunks(1792, 2, 32), 7);
    cr_assert_eq(ts_rowwise_row_chunks(1280, 2, 64), 0, "not whole chunks of 64 lanes");
    cr_assert_eq(ts_rowwise_row_chunks(1280, 4, 32), 0, "fp32: more than two slices' bytes");
    cr_assert_eq(ts_rowwise_row_chunks(2048, 2, 32), 0, "whole slices");
    cr_assert_eq(ts_rowwise_row_chunks(384, 2, 32), 0, "not whole chunks of every lane");
    cr_assert_eq(ts_rowwise_row_quads(384, 2, 32), 3, "whole quad rows");
    cr_assert_eq(ts_rowwise_row_quads(640, 2, 32), 5);
    cr_assert_eq(ts_rowwise_row_quads(896, 2, 32), 7);
    cr_assert_eq(ts_rowwise_row_quads(256, 2, 32), 0, "whole chunks: wide rows");
    cr_assert_eq(ts_rowwise_row_quads(256, 2, 64), 1);
    cr_assert_eq(ts_rowwise_row_quads(768, 2, 64), 3);
    cr_assert_eq(ts_rowwise_row_quads(384, 2, 64), 0, "not whole quad rows of 64 lanes");
    cr_assert_eq(ts_rowwise_row_quads(384, 4, 32), 0, "16-bit only");
    cr_assert_eq(ts_rowwise_row_quads(1152, 2, 32), 0, "a slice or more");
    cr_assert_eq(ts_rowwise_row_chunks(512, 2, 64), 1);
    cr_assert_eq(ts_rowwise_row_chunks(256, 2, 64), 0, "a chunk of a lane would straddle two rows");
    cr_assert_eq(ts_rowwise_row_chunks(768, 2, 64), 0, "a chunk of a lane would straddle two rows");
    cr_assert_eq(ts_rowwise_row_chunks(128, 2, 32), 0);
    cr_assert_eq(ts_rowwise_row_chunks(640, 2, 32), 0, "not whole chunks of every lane");
    cr_assert(ts_rowwise_long_row(1032, 2, 32) && ts_rowwise_long_row(1792, 2, 32), "one to two slices, a row a warp");
    cr_assert(!ts_rowwise_long_row(1024, 2, 32) && !ts_rowwise_long_row(1800, 2, 32), "a slice; over 7 chunks a lane");
    cr_assert(ts_rowwise_long_row(1536, 2, 64) && !ts_rowwise_long_row(1600, 2, 64), "HIP: 3 chunks a lane");
    cr_assert(!ts_rowwise_long_row(1600, 4, 32), "16-bit only");
    cr_assert_eq(TS_ROWWISE_LONG_ROW_NARROW_COLS(32), 1280, "narrow long rows: 5 chunks a lane");
    cr_assert_eq(TS_ROWWISE_LONG_ROW_NARROW_COLS(64), TS_ROWWISE_LONG_ROW_COLS(64), "HIP: no narrow long rows");
    cr_assert_eq(TS_ROWWISE_LONG_ROW_NARROW_COLS(1), 1032, "the host: narrow long rows of 1032");
    cr_assert_eq(TS_ROWWISE_LONG_ROW_MID_COLS(32), 1536, "middle long rows: 6 chunks a lane");
    cr_assert_gt(TS_ROWWISE_LONG_ROW_MID_COLS(64), TS_ROWWISE_LONG_ROW_COLS(64), "HIP: no middle long rows");
    cr_assert_eq(TS_ROWWISE_LONG_ROW_MID_COLS(1), 1040, "the host: middle long rows of 1040");
    cr_assert_eq(ts_rowwise_row_chunks(8, 2, 1), 1);
    cr_assert_eq(ts_rowwise_row_chunks(1020, 2, 1), 0, "not whole chunks");
}

/* The whole instance's conditions (templates/rowwise_plan.h). */
Test(norm_plan, whole_instance_conditions) {
    ts_rowwise_plan plan = {.warps_per_row = 2, .warps = 2, .one_pass = 1};
    cr_assert(ts_rowwise_plan_whole(5, 2048, &plan));
    cr_assert(!ts_rowwise_plan_whole(5, 2047, &plan), "a partial slice");
    cr_assert(!ts_rowwise_plan_whole(5, 1000, &plan), "a partial slice");
    plan.warps = 4; /* two rows a block: the last block's second row would not exist */
    cr_assert(!ts_rowwise_plan_whole(5, 2048, &plan));
    cr_assert(ts_rowwise_plan_whole(6, 2048, &plan));
    plan.one_pass = 0;
    cr_assert(!ts_rowwise_plan_whole(6, 2048, &plan), "the general instance loops over rows");
    cr_assert(ts_rowwise_aligned16(NULL, TS_DTYPE_BF16, 12345), "an absent matrix bars nothing");
    cr_assert(ts_rowwise_aligned16((const void *)(uintptr_t)64, TS_DTYPE_BF16, 1024));
    cr_assert(!ts_rowwise_aligned16((const void *)(uintptr_t)64, TS_DTYPE_BF16, 1028), "rows 8 bytes off");
    cr_assert(ts_rowwise_aligned16((const void *)(uintptr_t)64, TS_DTYPE_F32, 1028));
    cr_assert(!ts_rowwise_aligned16((const void *)(uintptr_t)72, TS_DTYPE_F32, 1024), "base 8 bytes off");
}

/* The row-wise template's example (docs/row-template.md: y = x / sqrt(sum x^2 + eps)) against a
 * double-precision reference: every dtype in, the input's and fp32 out (the general instance), rows
 * of one to 16 slices, partial and whole, padded and aligned, so that its general, short and whole
 * instances all run; the padding stays poisoned. */
Test(row_template, l2_example) {
    TS_TEST_REQUIRE_DEVICE();
    uint64_t seed = ts_test_fresh_seed(), st = seed;
    const ts_dtype dts[3] = {BF, FP, F32};
    const int cols[5] = {3, 700, 1024, 2048, ts_test_on_hip() ? 8192 : 16384};
    const long long rows = ts_test_on_gpu() ? 1001 : 5;
    for (int i = 0; i < 3; ++i)
        for (int c = 0; c < 5; ++c)
            for (int v = 0; v < 2; ++v) {
                const ts_dtype dt = dts[i], odt = v ? F32 : dt;
                const int pad = v ? 0 : 8;
                const long long stride = cols[c] + pad;
                const size_t n = (size_t)(rows * stride), b = ts_test_dtype_bytes(dt), ob = ts_test_dtype_bytes(odt);
                unsigned char *x = malloc(n * b), *y = malloc(n * ob);
                cr_assert(x && y);
                for (size_t e = 0; e < n; ++e) ts_test_put(x, dt, e, ts_test_normal(&st));
                void *dx = ts_test_device_copy(x, n * b), *dy = ts_test_device_copy(NULL, n * ob);
                cr_assert(dx && dy);
                cr_assert_eq(row_l2(dx, dt, stride, dy, odt, stride, rows, cols[c], 1e-6f, NULL), TS_SUCCESS);
                cr_assert_eq(ts_device_synchronize(), TS_SUCCESS);
                cr_assert_eq(ts_test_copy_back(y, dy, n * ob), TS_SUCCESS);
                for (long long r = 0; r < rows; ++r) {
                    double sq = 0.0;
                    for (int k = 0; k < cols[c]; ++k) sq += pow(ts_test_get(x, dt, (size_t)(r * stride + k)), 2);
                    for (int k = 0; k < cols[c]; ++k) {
                        const double want = ts_test_get(x, dt, (size_t)(r * stride + k)) / sqrt(sq + 1e-6);
                        const double got = ts_test_get(y, odt, (size_t)(r * stride + k));
                        cr_assert_leq(fabs(got - want), ts_test_tol(odt) * (fabs(want) + 1e-3),
                                      "%s -> %s, %d columns: y(%lld,%d) %g, not %g (seed %llu)", ts_test_dtype_name(dt),
                                      ts_test_dtype_name(odt), cols[c], r, k, got, want, (unsigned long long)seed);
                    }
                    cr_assert(ts_test_is_poison(y + (size_t)(r * stride + cols[c]) * ob, (size_t)pad * ob),
                              "row %lld padding written", r);
                }
                cr_assert_eq(ts_free(dx), TS_SUCCESS);
                cr_assert_eq(ts_free(dy), TS_SUCCESS);
                free(x), free(y);
            }
}

Test(norm, in_place) {
    TS_TEST_REQUIRE_DEVICE();
    check_norm((norm_case){ts_test_on_gpu() ? 2000 : 11, 1100, 8, BF, BF, BF, 0, 1, 1, 1, 1, 1, 0.0, 0});
    check_norm((norm_case){ts_test_on_gpu() ? 2000 : 11, 4096, 0, F32, F32, F32, 1, 1, 1, 1, 0, 1, 0.0, 0});
}

Test(norm, large_mean_two_pass_variance) {
    TS_TEST_REQUIRE_DEVICE();
    check_norm((norm_case){ts_test_on_gpu() ? 512 : 6, 2000, 0, F32, F32, F32, 0, 0, 0, 1, 1, 0, 1000.0, 0});
    check_norm((norm_case){ts_test_on_gpu() ? 512 : 6, 1024, 0, F32, F32, F32, 0, 1, 1, 0, 0, 0, 300.0, 0});
    /* Seven warps a row, the last with a partial slice: the warps' pairs combine around the row's
     * mean. */
    check_norm((norm_case){ts_test_on_gpu() ? 512 : 5, 7000, 4, F32, F32, F32, 0, 1, 1, 1, 1, 0, 1000.0, 0});
    check_norm((norm_case){ts_test_on_gpu() ? 512 : 5, 7000, 0, BF, BF, BF, 0, 0, 0, 1, 1, 0, 30.0, 0});
}

Test(norm, bad_arguments) {
    static unsigned short buf[4096] __attribute__((aligned(16)));
    ts_norm_desc ok = {.rows = 4, .cols = 256, .dtype = BF, .out_dtype = BF, .param_dtype = BF, .x = buf,
                       .x_stride = 256, .out = buf, .out_stride = 256, .eps = 1e-5f};
    ts_norm_desc d;
    cr_assert_eq(ts_layernorm(NULL, NULL), TS_ERROR_NULL_POINTER);
    cr_assert_eq(ts_rmsnorm(NULL, NULL), TS_ERROR_NULL_POINTER);
#define EXPECT(field_change, status)                                                               \
    do {                                                                                           \
        d = ok;                                                                                    \
        field_change;                                                                              \
        cr_assert_eq(ts_layernorm(&d, NULL), status, "layernorm: " #field_change);                 \
        cr_assert_eq(ts_rmsnorm(&d, NULL), status, "rmsnorm: " #field_change);                     \
    } while (0)
    EXPECT(d.x = NULL, TS_ERROR_NULL_POINTER);
    EXPECT(d.out = NULL, TS_ERROR_NULL_POINTER);
    EXPECT(d.dtype = (ts_dtype)9, TS_ERROR_INVALID_ENUM);
    EXPECT(d.out_dtype = (ts_dtype)0, TS_ERROR_INVALID_ENUM);
    EXPECT((d.weight = buf, d.param_dtype = (ts_dtype)7), TS_ERROR_INVALID_ENUM);
    EXPECT(d.rows = 0, TS_ERROR_INVALID_SIZE);
    EXPECT(d.cols = -1, TS_ERROR_INVALID_SIZE);
    EXPECT((d.cols = TS_ROWWISE_MAX_COLS + 1, d.x_stride = d.out_stride = 1 << 15), TS_ERROR_UNSUPPORTED);
    EXPECT(d.x_stride = 255, TS_ERROR_INVALID_VALUE);
    EXPECT(d.out_stride = 100, TS_ERROR_INVALID_VALUE);
    EXPECT(d.eps = -1.0f, TS_ERROR_INVALID_VALUE);
    EXPECT(d.eps = NAN, TS_ERROR_INVALID_VALUE);
    EXPECT(d.eps = INFINITY, TS_ERROR_INVALID_VALUE);
    EXPECT(d.residual_out = buf, TS_ERROR_INVALID_VALUE); /* a sum without a residual */
    EXPECT((d.residual = buf, d.residual_stride = 10), TS_ERROR_INVALID_VALUE);
    EXPECT((d.residual = buf, d.residual_stride = 256, d.residual_out = buf, d.residual_out_stride = 3),
           TS_ERROR_INVALID_VALUE);
    EXPECT(d.x = (char *)buf + 1, TS_ERROR_MISALIGNED);
    EXPECT(d.out = (char *)buf + 1, TS_ERROR_MISALIGNED);
    EXPECT((d.out_dtype = F32, d.out = (char *)buf + 2), TS_ERROR_MISALIGNED);
    EXPECT((d.residual = (char *)buf + 1, d.residual_stride = 256), TS_ERROR_MISALIGNED);
    EXPECT(d.weight = (char *)buf + 1, TS_ERROR_MISALIGNED);
    EXPECT(d.bias = (char *)buf + 3, TS_ERROR_MISALIGNED);
    EXPECT((d.rows = 1LL << 40, d.x_stride = 1LL << 30), TS_ERROR_SIZE_OVERFLOW);
#undef EXPECT
}
