/* Row softmax (ts_softmax) against a double-precision reference: ragged rows and columns (one
 * column, partial chunks, rows over 1, 2, 3 and 16 warps), padded and unaligned strides, bf16 /
 * fp16 / fp32 in and other dtypes out, scale, the causal mask with top-left, bottom-right and
 * negative offsets (whole rows masked come out zero), in place, inputs of magnitude 1e4 and -inf
 * entries without NaN or Inf; every case again on the stream instances, staged, staged in part and
 * not; the stream ops; and every error path. Outputs are poisoned first. On a GPU the same checks run
 * at larger sizes. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>

#include "kernels/softmax/softmax_stream.h"
#include "support/dtype_io.h"
#include "support/test_support.h"
#include "tests/kernels/stream_kernels.h"
#include "tests/kernels/tile_kernels.h"

typedef struct {
    long long rows;
    int cols, pad;
    ts_dtype dt, out_dt;
    float scale;
    int causal;
    long long causal_rows, causal_offset;
    double magnitude; /* standard deviation of x */
    int minus_inf;    /* put -inf entries in some rows */
    int in_place;
} sm_case;

/* The stream limits check_softmax runs ts_softmax_with_stream_limits with; NULL: ts_softmax. */
static const ts_softmax_stream_limits *stream_limits;

static void check_softmax(sm_case c) {
    uint64_t seed = ts_test_fresh_seed(), st = seed;
    if (c.in_place) c.out_dt = c.dt;
    const long long stride = c.cols + c.pad;
    const size_t n = (size_t)c.rows * stride, b = ts_test_dtype_bytes(c.dt), ob = ts_test_dtype_bytes(c.out_dt);
    unsigned char *x = malloc(n * b), *out = malloc(n * ob);
    double *ref = malloc(sizeof(double) * c.cols);
    cr_assert(x && out && ref);
    memset(x, 0xFF, n * b); /* the padding: NaN, never read */
    for (long long i = 0; i < c.rows; ++i)
        for (int j = 0; j < c.cols; ++j) {
            double v = c.magnitude * ts_test_normal(&st);
            if (c.minus_inf && (i % 3 == 0) && (j % 5 == 1)) v = -INFINITY;
            ts_test_put(x, c.dt, (size_t)(i * stride + j), v);
        }
    void *dx = ts_test_device_copy(x, n * b), *dout = c.in_place ? dx : ts_test_device_copy(NULL, n * ob);
    cr_assert(dx && dout);
    const ts_softmax_desc d = {.rows = c.rows, .cols = c.cols, .dtype = c.dt, .out_dtype = c.out_dt, .x = dx,
                               .x_stride = stride, .out = dout, .out_stride = stride, .scale = c.scale,
                               .causal = c.causal, .causal_rows = c.causal_rows, .causal_offset = c.causal_offset};
    cr_assert_eq(stream_limits ? ts_softmax_with_stream_limits(&d, stream_limits, NULL) : ts_softmax(&d, NULL), TS_SUCCESS);
    cr_assert_eq(ts_device_synchronize(), TS_SUCCESS);
    cr_assert_eq(ts_test_copy_back(out, dout, n * ob), TS_SUCCESS);
    const double tol = ts_test_tol(c.out_dt);
    for (long long i = 0; i < c.rows; ++i) {
        const long long last = c.causal ? i % c.causal_rows + c.causal_offset : c.cols - 1;
        double m = -INFINITY, sum = 0.0;
        for (int j = 0; j < c.cols; ++j) {
            const double v = ts_test_get(x, c.dt, (size_t)(i * stride + j));
            ref[j] = j > last ? -INFINITY : c.scale * v;
            if (ref[j] > m) m = ref[j];
        }
        for (int j = 0; j < c.cols; ++j) sum += ref[j] == -INFINITY ? 0.0 : exp(ref[j] - m);
        /* Each element within tol of its value, and a little of absolute slack for values near
         * underflow, less in long rows (whose values are all small) but not below fp16's subnormal
         * step; and the row's sum within tol of the reference's, which a few elements wrong by less
         * than the slack each still fail. */
        double slack = 1e-6 * (c.cols > 1000 ? 1000.0 / c.cols : 1.0);
        if (c.out_dt == TS_DTYPE_FP16 && slack < 0x1p-24) slack = 0x1p-24;
        double got_sum = 0.0, want_sum = 0.0;
        for (int j = 0; j < c.cols; ++j) {
            const double want = (ref[j] == -INFINITY || sum == 0.0) ? 0.0 : exp(ref[j] - m) / sum;
            const double got = ts_test_get(out, c.out_dt, (size_t)(i * stride + j));
            cr_assert(isfinite(got), "y(%lld,%d) = %g (seed %llu)", i, j, got, (unsigned long long)seed);
            cr_assert_leq(fabs(got - want), tol * want + slack, "y(%lld,%d): %g vs %g (seed %llu)", i, j, got, want,
                          (unsigned long long)seed);
            got_sum += got, want_sum += want;
        }
        cr_assert_leq(fabs(got_sum - want_sum), tol, "row %lld sums to %.9g, not %.9g (seed %llu)", i, got_sum,
                      want_sum, (unsigned long long)seed);
        if (!c.in_place)
            cr_assert(ts_test_is_poison(out + (size_t)(i * stride + c.cols) * ob, c.pad * ob), "row %lld padding written", i);
    }
    cr_assert_eq(ts_free(dx), TS_SUCCESS);
    if (!c.in_place) cr_assert_eq(ts_free(dout), TS_SUCCESS);
    free(x), free(out), free(ref);
}

static const ts_dtype BF = TS_DTYPE_BF16, FP = TS_DTYPE_FP16, F32 = TS_DTYPE_F32;

static void cases_ragged_every_dtype(void) {
    const long long rows = ts_test_on_gpu() ? 4099 : 13;
    const ts_dtype dts[3] = {BF, FP, F32};
    const int cols[5] = {1, 100, 1000, 1500, 3001};
    for (int i = 0; i < 3; ++i)
        for (int k = 0; k < 5; ++k) check_softmax((sm_case){rows, cols[k], k & 1 ? 8 : 0, dts[i], dts[i], 1.0f, 0, 1, 0, 1.0, 0, 0});
}

/* Rows of whole 1024-element slices, every row 16-byte aligned, run on the whole instance
 * (templates/rowwise_instances.h): each dtype and slice count, causal and not, in place, and
 * beside them rows misaligned by a stride 2 or 4 elements longer, on the short instance. */
static void cases_whole_aligned_rows(void) {
    const ts_dtype dts[3] = {BF, FP, F32};
    const long long rows = ts_test_on_gpu() ? 999 : 4;
    const int cols[3] = {1024, 2048, 8192};
    for (int i = 0; i < 3; ++i)
        for (int k = 0; k < 3; ++k) {
            check_softmax((sm_case){rows, cols[k], 0, dts[i], dts[i], 0.5f, 0, 1, 0, 1.0, 0, 0});
            check_softmax((sm_case){rows, cols[k], 8, dts[i], dts[i], 1.0f, 1, rows, cols[k] - rows, 1.0, 1, k == 1});
            check_softmax((sm_case){rows, cols[k], dts[i] == F32 ? 2 : 4, dts[i], dts[i], 1.0f, 0, 1, 0, 1.0, 0, 0});
        }
}

/* Rows shorter than a slice, several to a warp, and rows of one to two slices, one a warp: the
 * rows instances (softmax_rows_variant.h) for 16-bit rows of 256, 512, 768, 1280, 1536 and 1792
 * columns (HIP: 512 and 1536) and fp32 rows of 256 and 512, with fp32 rows of 768 and 1536 beside
 * them that do not take them, and rows of 384, 640 and 896 (16-bit ones as quad rows on CUDA); row
 * counts that leave the last strip short, padded rows, scale, the causal mask with its rows and
 * offsets (whole rows masked), -inf entries, in place; and beside them rows that must not take them
 * (64 columns, misaligned rows, another output dtype). */
static void cases_rows_several_a_warp(void) {
    const ts_dtype dts[3] = {BF, FP, F32};
    const long long rows[4] = {1, 3, 6, ts_test_on_gpu() ? 4097 : 9};
    const int cols[10] = {256, 512, 768, 1536, 1280, 1792, 384, 640, 896, 64};
    for (int i = 0; i < 3; ++i)
        for (int c = 0; c < 10; ++c)
            for (int r = 0; r < 4; ++r) {
                const long long n = rows[r];
                const int pad = dts[i] == F32 ? 4 : 8;
                check_softmax((sm_case){n, cols[c], r & 1 ? pad : 0, dts[i], dts[i], 0.7f, 0, 1, 0, 2.0, r == 2, 0});
                /* bottom-right causal over groups of 3 rows (the first rows of a group wholly masked
                 * where the offset is negative), and top-left over the whole matrix */
                check_softmax((sm_case){n, cols[c], 0, dts[i], dts[i], 1.0f, 1, 3, r & 1 ? -1 : cols[c] - 3, 1.0, 0, 0});
                check_softmax((sm_case){n, cols[c], pad, dts[i], dts[i], 1.0f, 1, n, 0, 1.0, 0, r == 3});
            }
    check_softmax((sm_case){rows[3], 256, 2, BF, BF, 1.0f, 0, 1, 0, 1.0, 0, 0}); /* rows 4 bytes off */
    check_softmax((sm_case){rows[3], 512, 0, BF, F32, 1.0f, 0, 1, 0, 1.0, 0, 0}); /* fp32 output */
    check_softmax((sm_case){rows[3], 1536, 0, FP, F32, 1.0f, 0, 1, 0, 1.0, 0, 0});
}

/* 16-bit rows longer than a slice and at most two slices less a chunk of every lane: a row a warp
 * on the long-row instances (templates/rowwise_long_row.h), their last chunks past the row in some
 * lanes, the rows of up to a slice and one / two chunks of every lane on the narrow / middle ones
 * (1032 and 1152 / 1408 and 1528 on CUDA, 1032 / 1040 on the host); with scale, the causal mask
 * (whole rows masked), -inf entries, padded rows, in place; the widths the rows instances take, 2040
 * (the long-row instance on the host only), and rows that must not take it, which run over two warps
 * (fp32, odd widths, another output dtype). */
static void cases_long_rows(void) {
    const long long rows[3] = {1, 5, ts_test_on_gpu() ? 4099 : 7};
    const int cols[10] = {1032, 1040, 1152, 1408, 1528, 1600, 1784, 1280, 1792, 2040};
    for (int i = 0; i < 2; ++i) {
        const ts_dtype dt = i ? FP : BF;
        for (int c = 0; c < 10; ++c)
            for (int r = 0; r < 3; ++r) {
                const long long n = rows[r];
                check_softmax((sm_case){n, cols[c], r & 1 ? 8 : 0, dt, dt, 0.7f, 0, 1, 0, 2.0, r == 2, 0});
                check_softmax((sm_case){n, cols[c], 0, dt, dt, 1.0f, 1, 3, r & 1 ? -1 : cols[c] - 3, 1.0, 0, 0});
                check_softmax((sm_case){n, cols[c], 8, dt, dt, 1.0f, 1, n, 1100, 1.0, 0, r == 1});
            }
        check_softmax((sm_case){rows[2], 1600, 0, dt, F32, 1.0f, 0, 1, 0, 1.0, 0, 0}); /* fp32 output */
        check_softmax((sm_case){rows[2], 1601, 0, dt, dt, 1.0f, 0, 1, 0, 1.0, 0, 0});  /* odd rows */
        check_softmax((sm_case){rows[2], 1600, 4, dt, dt, 1.0f, 0, 1, 0, 1.0, 0, 0});  /* rows 8 bytes off */
    }
    check_softmax((sm_case){rows[2], 1600, 0, F32, F32, 1.0f, 0, 1, 0, 1.0, 0, 0});
}

static void cases_scale_dtypes_and_unaligned_strides(void) {
    const long long rows = ts_test_on_gpu() ? 1000 : 9;
    check_softmax((sm_case){rows, 777, 3, BF, F32, 0.125f, 0, 1, 0, 4.0, 0, 0});
    check_softmax((sm_case){rows, 2050, 1, F32, BF, 3.0f, 0, 1, 0, 1.0, 0, 0});
    check_softmax((sm_case){rows, 512, 0, FP, F32, 0.5f, 0, 1, 0, 2.0, 0, 0});
}

static void cases_causal_offsets(void) {
    const int big = ts_test_on_gpu();
    /* top-left (PyTorch is_causal), bottom-right, and a negative offset that masks whole rows */
    check_softmax((sm_case){big ? 4 * 1024 : 2 * 37, big ? 1024 : 37, 0, BF, BF, 0.5f, 1, big ? 1024 : 37, 0, 1.0, 0, 0});
    check_softmax((sm_case){big ? 3 * 500 : 3 * 20, big ? 2100 : 50, 0, F32, F32, 1.0f, 1, big ? 500 : 20,
                            big ? 1600 : 30, 1.0, 0, 0});
    check_softmax((sm_case){big ? 2 * 700 : 2 * 30, big ? 2500 : 1100, 2, FP, FP, 1.0f, 1, big ? 700 : 30, -5, 1.0, 0, 0});
}

static void cases_large_magnitudes_and_minus_inf_stay_finite(void) {
    const long long rows = ts_test_on_gpu() ? 2000 : 12;
    check_softmax((sm_case){rows, 1000, 0, F32, F32, 1.0f, 0, 1, 0, 1e4, 0, 0});
    check_softmax((sm_case){rows, 2000, 0, BF, BF, 1.0f, 0, 1, 0, 3e4, 1, 0});
    check_softmax((sm_case){rows, 300, 0, F32, F32, 1.0f, 0, 1, 0, 1e30, 1, 0});
    check_softmax((sm_case){rows, 64, 0, FP, FP, 4.0f, 0, 1, 0, 5e3, 1, 0}); /* fp16 tops out at 65504 */
}

static void cases_long_rows_and_in_place(void) {
    if (!ts_test_on_hip()) check_softmax((sm_case){ts_test_on_gpu() ? 300 : 2, 16384, 8, BF, BF, 1.0f, 0, 1, 0, 1.0, 0, 0});
    check_softmax((sm_case){ts_test_on_gpu() ? 300 : 2, 8192, 0, BF, F32, 1.0f, 0, 1, 0, 1.0, 0, 0});
    check_softmax((sm_case){ts_test_on_gpu() ? 5000 : 7, 1024, 0, BF, BF, 1.0f, 0, 1, 0, 1.0, 0, 1});
    check_softmax((sm_case){ts_test_on_gpu() ? 5000 : 7, 4000, 8, F32, F32, 2.0f, 1, 7, 3000, 1.0, 0, 1});
}

/* Rows longer than a block holds in registers, the vocabulary-sized rows of logits: the stream
 * instances (softmax_stream_variant.h), a row a block gone over twice, staged in shared memory where
 * it fits. Widths just past the register-resident instances' longest, a whole number of the block's
 * strips, one strip and a little, and odd ones (unaligned rows); every dtype in and other dtypes out,
 * padded rows, scale, the causal mask (rows masked from their first strip, and whole rows), -inf
 * entries, large magnitudes, in place; a row count that leaves blocks of the capped grid a row fewer
 * than others. */
static void cases_vocab_rows(void) {
    const int gpu = ts_test_on_gpu();
    const long long rows = gpu ? 300 : 3;
    const int cols[5] = {TS_ROWWISE_MAX_COLS + 8, 32768, 32000, 50257, gpu ? 128256 : 33000};
    const ts_dtype dts[3] = {BF, FP, F32};
    for (int i = 0; i < 3; ++i)
        for (int c = 0; c < 5; ++c) {
            const int n = cols[c], pad = c & 1 ? 8 : 0;
            check_softmax((sm_case){rows, n, pad, dts[i], dts[i], 0.7f, 0, 1, 0, 2.0, c == 2, 0});
            /* bottom-right causal over groups of 3 rows, and an offset that masks all but the first
             * columns of some rows and the whole of others */
            check_softmax((sm_case){rows, n, 0, dts[i], dts[i], 1.0f, 1, 3, n - 3, 1.0, 0, c == 3});
            check_softmax((sm_case){rows, n, 8, dts[i], dts[i], 1.0f, 1, 4, -2, 1.0, 0, 0});
        }
    check_softmax((sm_case){rows, 40000, 0, BF, F32, 1.0f, 0, 1, 0, 1.0, 0, 0}); /* fp32 output */
    check_softmax((sm_case){rows, 40001, 3, F32, BF, 0.125f, 0, 1, 0, 4.0, 1, 0});
    check_softmax((sm_case){rows, 20000, 0, BF, BF, 1.0f, 0, 1, 0, 3e4, 1, 0}); /* large magnitudes */
    check_softmax((sm_case){gpu ? 133 : 5, 20000, 0, FP, FP, 1.0f, 0, 1, 0, 1.0, 0, 0});
    /* fp32 rows off a 16-byte boundary, staged (a head and a tail outside the copied body), and the
     * mask ending inside the tail */
    check_softmax((sm_case){rows, 20001, 0, F32, F32, 1.0f, 0, 1, 0, 1.0, 0, 0});
    check_softmax((sm_case){rows, 20001, 0, F32, F32, 1.0f, 1, 1, 19998, 1.0, 0, 1});
    /* bf16 and fp32 rows past the whole stage, staged in part: off a 16-byte boundary, the mask ending
     * in the stage for some rows and past it for others, -inf entries, and in place */
    check_softmax((sm_case){rows, 60003, 3, BF, BF, 1.0f, 1, 3, 40000, 1.0, 1, 0});
    check_softmax((sm_case){rows, 30011, 5, F32, F32, 0.5f, 1, 2, 27000, 1.0, 0, 1});
    /* rows past one block's stage too: one block an SM of the most warps */
    check_softmax((sm_case){rows, 70001, 1, F32, F32, 1.0f, 1, 2, 65000, 1.0, 0, 0});
    check_softmax((sm_case){rows, 130003, 0, BF, F32, 1.0f, 0, 1, 0, 1.0, 1, 0});
    /* rows enough that blocks of four and three an SM (staged bf16 and fp32 rows of 16392) each take
     * several, their stage refilled row after row, rows off a 16-byte boundary among them */
    check_softmax((sm_case){gpu ? 1100 : 9, TS_ROWWISE_MAX_COLS + 8, 3, BF, BF, 1.0f, 1, 5, TS_ROWWISE_MAX_COLS, 1.0, 1, 0});
    check_softmax((sm_case){gpu ? 1100 : 9, TS_ROWWISE_MAX_COLS + 8, 3, F32, F32, 1.0f, 0, 1, 0, 1.0, 0, 0});
}

Test(softmax, ragged_every_dtype) {
    TS_TEST_REQUIRE_DEVICE();
    cases_ragged_every_dtype();
}

Test(softmax, whole_aligned_rows) {
    TS_TEST_REQUIRE_DEVICE();
    cases_whole_aligned_rows();
}

Test(softmax, rows_several_a_warp) {
    TS_TEST_REQUIRE_DEVICE();
    cases_rows_several_a_warp();
}

Test(softmax, long_rows) {
    TS_TEST_REQUIRE_DEVICE();
    cases_long_rows();
}

Test(softmax, scale_dtypes_and_unaligned_strides) {
    TS_TEST_REQUIRE_DEVICE();
    cases_scale_dtypes_and_unaligned_strides();
}

Test(softmax, causal_offsets) {
    TS_TEST_REQUIRE_DEVICE();
    cases_causal_offsets();
}

Test(softmax, large_magnitudes_and_minus_inf_stay_finite) {
    TS_TEST_REQUIRE_DEVICE();
    cases_large_magnitudes_and_minus_inf_stay_finite();
}

Test(softmax, long_rows_and_in_place) {
    TS_TEST_REQUIRE_DEVICE();
    cases_long_rows_and_in_place();
}

Test(softmax, vocab_rows) {
    TS_TEST_REQUIRE_DEVICE();
    cases_vocab_rows();
}

/* Every case above on the stream instances (softmax_stream.h: rows of any length stream): staged
 * wholly where a row's stage fits two blocks an SM, as ts_softmax stages the rows it streams; staged
 * in part, a 12 KB stage at 19 blocks an SM taking most rows' first columns; and not staged, read from
 * global memory twice (CDNA's only form). */
static void every_case_streamed(ts_softmax_stream_limits limits) {
    limits.min_cols = 1;
    stream_limits = &limits;
    cases_ragged_every_dtype();
    cases_whole_aligned_rows();
    cases_rows_several_a_warp();
    cases_long_rows();
    cases_scale_dtypes_and_unaligned_strides();
    cases_causal_offsets();
    cases_large_magnitudes_and_minus_inf_stay_finite();
    cases_long_rows_and_in_place();
    cases_vocab_rows();
    stream_limits = NULL;
}

Test(softmax_streamed, every_case_staged) {
    TS_TEST_REQUIRE_DEVICE();
    every_case_streamed(ts_softmax_stream_defaults());
}

Test(softmax_streamed, every_case_staged_in_part) {
    TS_TEST_REQUIRE_DEVICE();
    ts_softmax_stream_limits limits = ts_softmax_stream_defaults();
    limits.staged_max_bytes = 12288;
    limits.partial_blocks = 19;
    every_case_streamed(limits);
}

Test(softmax_streamed, every_case_unstaged) {
    TS_TEST_REQUIRE_DEVICE();
    ts_softmax_stream_limits limits = ts_softmax_stream_defaults();
    limits.staged = 0;
    every_case_streamed(limits);
}

/* The stream ops (ops/warp_stream.h) one warp at a time, against double-precision references: the
 * edge of a row (a head of 0 to 7 elements and a tail, of bf16 and fp32 rows, -inf entries, a mask
 * ending anywhere in it or wholly masked) folded into the lanes' running maximum and sum and combined
 * across the warp, and its softmax store (the edge's columns exact within fp32 rounding, the body's
 * left alone); strips folded one after another (a strip of -inf leaving the pair as it was, one
 * masked from a column on), the last left holding 2^((x - m) k) for its lane's maximum. */
Test(softmax_ops, stream_edge) {
    TS_TEST_REQUIRE_DEVICE();
    uint64_t seed = ts_test_fresh_seed(), st = seed;
    enum { COLS = 300 };
    for (int round = 0; round < 24; ++round) {
        const ts_dtype dt = round & 1 ? TS_DTYPE_F32 : TS_DTYPE_BF16;
        const int head = round % 8, tail = (round * 7) % 40, body = COLS - head - tail;
        const int live = round % 6 == 5 ? 0 : round % 3 == 0 ? COLS : (int)(ts_test_uniform(&st) * COLS);
        const float k = (float)(0.25 + ts_test_uniform(&st) * 2.0), max = (float)ts_test_normal(&st), inv = 0.37f;
        unsigned char x[COLS * 4];
        float y[COLS], stats[2];
        for (int c = 0; c < COLS; ++c) ts_test_put(x, dt, (size_t)c, c % 11 == 3 ? -INFINITY : 3.0 * ts_test_normal(&st));
        void *dx = ts_test_device_copy(x, sizeof x), *dy = ts_test_device_copy(NULL, sizeof y),
             *ds = ts_test_device_copy(NULL, sizeof stats);
        cr_assert(dx && dy && ds);
        cr_assert_eq(ts_test_stream_edge((float *)ds, (float *)dy, dx, (int)dt, COLS, head, body, live, k, max, inv),
                     TS_SUCCESS);
        cr_assert_eq(ts_device_synchronize(), TS_SUCCESS);
        cr_assert_eq(ts_test_copy_back(y, dy, sizeof y), TS_SUCCESS);
        cr_assert_eq(ts_test_copy_back(stats, ds, sizeof stats), TS_SUCCESS);
        double m = -INFINITY, sum = 0.0;
        for (int j = 0; j < COLS - body; ++j) {
            const int col = j < head ? j : body + j;
            if (col < live) m = fmax(m, ts_test_get(x, dt, (size_t)col));
        }
        for (int j = 0; j < COLS - body; ++j) {
            const int col = j < head ? j : body + j;
            const double v = ts_test_get(x, dt, (size_t)col);
            if (col < live && v != -INFINITY) sum += exp2((v - m) * k);
        }
        cr_assert_eq(stats[0], (float)m, "round %d: edge maximum %g, not %g (seed %llu)", round, stats[0], m,
                     (unsigned long long)seed);
        cr_assert_leq(fabs(stats[1] - sum), 1e-5 * sum, "round %d: edge sum %g, not %g (seed %llu)", round, stats[1], sum,
                      (unsigned long long)seed);
        for (int c = 0; c < COLS; ++c) {
            if (c >= head && c < head + body) {
                cr_assert(ts_test_is_poison(&y[c], sizeof(float)), "round %d: body column %d written", round, c);
                continue;
            }
            const double want = c < live ? exp2((ts_test_get(x, dt, (size_t)c) - max) * k) * inv : 0.0;
            cr_assert_leq(fabs(y[c] - want), 1e-5 * want, "round %d: y[%d] %g, not %g (seed %llu)", round, c, y[c], want,
                          (unsigned long long)seed);
        }
        cr_assert_eq(ts_free(dx), TS_SUCCESS);
        cr_assert_eq(ts_free(dy), TS_SUCCESS);
        cr_assert_eq(ts_free(ds), TS_SUCCESS);
    }
}

Test(softmax_ops, stream_strips) {
    TS_TEST_REQUIRE_DEVICE();
    uint64_t seed = ts_test_fresh_seed(), st = seed;
    enum { E = 1024, LANES_MAX = 64 };
    const int lanes = ts_test_wv_lanes();
    static float x[2 * E], out[E];
    float stats[3], lane_m[LANES_MAX];
    const int cuts[3] = {E, 517, 1};
    for (int round = 0; round < 3; ++round) {
        const int cut = cuts[round];
        const float k = round == 1 ? 0.125f : 1.4426950f;
        for (int e = 0; e < 2 * E; ++e) x[e] = (float)(4.0 * ts_test_normal(&st));
        x[round * 100] = -INFINITY;
        float *dx = ts_test_device_copy(x, sizeof x), *dout = ts_test_device_copy(NULL, sizeof out);
        float *ds = ts_test_device_copy(NULL, sizeof stats), *dm = ts_test_device_copy(NULL, sizeof lane_m);
        cr_assert(dx && dout && ds && dm);
        cr_assert_eq(ts_test_stream_strips(ds, dout, dm, dx, cut, k), TS_SUCCESS);
        cr_assert_eq(ts_device_synchronize(), TS_SUCCESS);
        cr_assert_eq(ts_test_copy_back(stats, ds, sizeof stats), TS_SUCCESS);
        cr_assert_eq(ts_test_copy_back(out, dout, sizeof out), TS_SUCCESS);
        cr_assert_eq(ts_test_copy_back(lane_m, dm, lanes * sizeof(float)), TS_SUCCESS);
        cr_assert_eq(stats[2], 1.0f, "a strip of -inf changed a lane's maximum or sum");
        double m = -INFINITY, sum = 0.0;
        for (int e = 0; e < E + cut; ++e) m = fmax(m, x[e]);
        for (int e = 0; e < E + cut; ++e)
            if (x[e] != -INFINITY) sum += exp2(((double)x[e] - m) * k);
        cr_assert_eq(stats[0], (float)m, "cut %d: maximum %g, not %g (seed %llu)", cut, stats[0], m, (unsigned long long)seed);
        cr_assert_leq(fabs(stats[1] - sum), 1e-5 * sum, "cut %d: sum %g, not %g (seed %llu)", cut, stats[1], sum,
                      (unsigned long long)seed);
        for (int e = 0; e < E; ++e) {
            const double lm = lane_m[(e / 8) % lanes]; /* contiguous layout: chunk e / 8 is lane (e / 8) % lanes' */
            const double want = e < cut && x[E + e] != -INFINITY ? exp2(((double)x[E + e] - lm) * k) : 0.0;
            cr_assert_leq(fabs(out[e] - want), 1e-5 * want, "cut %d: strip element %d %g, not %g (seed %llu)",
                          cut, e, out[e], want, (unsigned long long)seed);
        }
        cr_assert_eq(ts_free(dx), TS_SUCCESS);
        cr_assert_eq(ts_free(dout), TS_SUCCESS);
        cr_assert_eq(ts_free(ds), TS_SUCCESS);
        cr_assert_eq(ts_free(dm), TS_SUCCESS);
    }
}

Test(softmax, bad_arguments) {
    static unsigned short buf[4096] __attribute__((aligned(16)));
    const ts_softmax_desc ok = {.rows = 4, .cols = 256, .dtype = BF, .out_dtype = BF, .x = buf, .x_stride = 256,
                                .out = buf, .out_stride = 256, .scale = 1.0f};
    ts_softmax_desc d;
    cr_assert_eq(ts_softmax(NULL, NULL), TS_ERROR_NULL_POINTER);
#define EXPECT(change, status)                                                                     \
    do {                                                                                           \
        d = ok;                                                                                    \
        change;                                                                                    \
        cr_assert_eq(ts_softmax(&d, NULL), status, #change);                                       \
    } while (0)
    EXPECT(d.x = NULL, TS_ERROR_NULL_POINTER);
    EXPECT(d.out = NULL, TS_ERROR_NULL_POINTER);
    EXPECT(d.dtype = (ts_dtype)4, TS_ERROR_INVALID_ENUM);
    EXPECT(d.out_dtype = (ts_dtype)-1, TS_ERROR_INVALID_ENUM);
    EXPECT(d.rows = -3, TS_ERROR_INVALID_SIZE);
    EXPECT(d.cols = 0, TS_ERROR_INVALID_SIZE);
    EXPECT(d.x_stride = 200, TS_ERROR_INVALID_VALUE);
    EXPECT(d.out_stride = 0, TS_ERROR_INVALID_VALUE);
    EXPECT(d.scale = 0.0f, TS_ERROR_INVALID_VALUE);
    EXPECT(d.scale = -2.0f, TS_ERROR_INVALID_VALUE);
    EXPECT(d.scale = NAN, TS_ERROR_INVALID_VALUE);
    EXPECT(d.scale = INFINITY, TS_ERROR_INVALID_VALUE);
    EXPECT(d.scale = 3e38f, TS_ERROR_INVALID_VALUE); /* scale * log2(e) overflows */
    EXPECT(d.causal = 2, TS_ERROR_INVALID_VALUE);
    EXPECT((d.causal = 1, d.causal_rows = 0), TS_ERROR_INVALID_VALUE);
    EXPECT(d.x = (char *)buf + 1, TS_ERROR_MISALIGNED);
    EXPECT((d.out_dtype = F32, d.out = (char *)buf + 2), TS_ERROR_MISALIGNED);
    EXPECT((d.rows = 1LL << 45, d.x_stride = 1LL << 20), TS_ERROR_SIZE_OVERFLOW);
#undef EXPECT
    const ts_softmax_stream_limits limits = ts_softmax_stream_defaults();
    cr_assert_eq(ts_softmax_with_stream_limits(&ok, NULL, NULL), TS_ERROR_NULL_POINTER);
    cr_assert_eq(ts_softmax_with_stream_limits(NULL, &limits, NULL), TS_ERROR_NULL_POINTER);
    d = ok;
    d.scale = 0.0f;
    cr_assert_eq(ts_softmax_with_stream_limits(&d, &limits, NULL), TS_ERROR_INVALID_VALUE, "the same checks");
}
