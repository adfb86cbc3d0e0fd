/* The tile ops across dtypes, shapes and layouts, against references computed in double:
 * memory round trips (global <-> registers, global <-> shared <-> registers) at ragged edges, and
 * every fp32 map, reduction, broadcast, mask, conversion and transpose. Fresh random inputs every
 * run; outputs poisoned first. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "support/dtype_io.h"
#include "support/test_support.h"
#include "tests/kernels/tile_kernels.h"
#include "tiles/warp_vector_layout.h"
#include "backends/half_bits.h"

/* ---- memory round trips ---------------------------------------------------------------------- */

static void fill_random_elements(void *p, int dtype, size_t n, uint64_t *st) {
    for (size_t i = 0; i < n; ++i) {
        const float x = (float)ts_test_normal(st);
        if (dtype == TS_TEST_F32)
            ((float *)p)[i] = x;
        else
            ((unsigned short *)p)[i] = dtype == TS_TEST_BF16 ? ts_bf16_bits_from_f32(x) : ts_fp16_bits_from_f32(x);
    }
}

static void check_io(const ts_test_tile_io_case *c, int rows, int cols, int pad) {
    uint64_t seed = ts_test_fresh_seed(), st = seed;
    const int bytes = c->dtype == TS_TEST_F32 ? 4 : 2;
    /* Outputs cover whole tiles, so what a load zero-filled past the input's edge shows up. */
    const int out_rows = (rows + c->rows - 1) / c->rows * c->rows;
    const int out_cols = (cols + c->cols - 1) / c->cols * c->cols;
    const int ld = out_cols + pad;
    const size_t n = (size_t)out_rows * ld, nbytes = n * bytes;
    unsigned char *in = malloc(nbytes), *direct = malloc(nbytes), *shared = malloc(nbytes), *group = malloc(nbytes);
    fill_random_elements(in, c->dtype, n, &st);
    void *d_in = ts_test_device_copy(in, nbytes);
    void *d_direct = ts_test_device_copy(NULL, nbytes), *d_shared = ts_test_device_copy(NULL, nbytes);
    void *d_group = ts_test_device_copy(NULL, nbytes);
    cr_assert(d_in && d_direct && d_shared && d_group);
    cr_assert_eq(c->run(d_direct, d_shared, d_group, d_in, rows, cols, out_rows, out_cols, ld), TS_SUCCESS, "%s",
                 c->name);
    cr_assert_eq(ts_device_synchronize(), TS_SUCCESS);
    cr_assert_eq(ts_test_copy_back(direct, d_direct, nbytes), TS_SUCCESS);
    cr_assert_eq(ts_test_copy_back(shared, d_shared, nbytes), TS_SUCCESS);
    cr_assert_eq(ts_test_copy_back(group, d_group, nbytes), TS_SUCCESS);
    for (int r = 0; r < out_rows; ++r)
        for (int j = 0; j < ld; ++j) {
            const size_t i = ((size_t)r * ld + j) * bytes;
            unsigned char expect[4];
            if (j >= out_cols) {
                memset(expect, 0xFF, bytes); /* padding: never written */
            } else if (r < rows && j < cols) {
                memcpy(expect, in + i, bytes);
            } else {
                memset(expect, 0, bytes); /* zero-filled on load */
            }
            cr_assert_eq(memcmp(direct + i, expect, bytes), 0, "%s %dx%d: direct (%d,%d) (seed %llu)", c->name, rows, cols, r, j,
                         (unsigned long long)seed);
            cr_assert_eq(memcmp(shared + i, expect, bytes), 0, "%s %dx%d: via shared (%d,%d) (seed %llu)", c->name, rows, cols,
                         r, j, (unsigned long long)seed);
            cr_assert_eq(memcmp(group + i, expect, bytes), 0, "%s %dx%d: group copies (%d,%d) (seed %llu)", c->name, rows,
                         cols, r, j, (unsigned long long)seed);
        }
    cr_assert_eq(ts_free(d_in), TS_SUCCESS);
    cr_assert_eq(ts_free(d_direct), TS_SUCCESS);
    cr_assert_eq(ts_free(d_shared), TS_SUCCESS);
    cr_assert_eq(ts_free(d_group), TS_SUCCESS);
    free(in);
    free(direct);
    free(shared);
    free(group);
}

Test(tiles, memory_round_trips_every_dtype_layout_and_shape) {
    TS_TEST_REQUIRE_DEVICE();
    const ts_test_tile_io_case *c;
    for (int k = 0; (c = ts_test_tile_io_case_at(k)) != NULL; ++k) {
        check_io(c, c->rows, c->cols, 0);              /* one whole tile */
        check_io(c, 2 * c->rows, 3 * c->cols, 8);      /* several whole tiles */
        check_io(c, c->rows + 5, 2 * c->cols - 3, 3);  /* ragged in both directions */
        check_io(c, 1, 1, 0);                          /* a single element */
    }
}

/* ---- fp32 ops --------------------------------------------------------------------------------- */

static double ref_unary(int mode, double x) {
    switch (mode) {
    case TS_TEST_OP_EXP: return exp(x);
    case TS_TEST_OP_EXP2: return exp2(x);
    case TS_TEST_OP_LOG: return log(fabs(x));
    case TS_TEST_OP_ABS: return fabs(x);
    case TS_TEST_OP_RELU: return x > 0 ? x : 0;
    case TS_TEST_OP_ADD_SCALAR: return x + 1.5;
    case TS_TEST_OP_MUL_SCALAR: return x * -0.75;
    case TS_TEST_OP_MAX_SCALAR: return fmax(x, 0.25);
    case TS_TEST_OP_FILL_NEG_INF: return -INFINITY;
    case TS_TEST_OP_ZERO: return 0.0;
    default: return x;
    }
}

static double ref_binary(int mode, double x, double y) {
    switch (mode) {
    case TS_TEST_OP_ADD: return x + y;
    case TS_TEST_OP_SUB: return x - y;
    case TS_TEST_OP_MUL: return x * y;
    case TS_TEST_OP_DIV: return x / y;
    case TS_TEST_OP_MAX: return fmax(x, y);
    default: return fmin(x, y);
    }
}

typedef struct { int rows, cols; const float *a, *b; } mats;
static double at(const float *m, int cols, int r, int c) { return m[(size_t)r * cols + c]; }

static double row_reduce(const float *m, int cols, int r, int op) { /* op: 0 max, 1 min, 2 sum */
    double acc = op == 0 ? -INFINITY : op == 1 ? INFINITY : 0.0;
    for (int c = 0; c < cols; ++c) acc = op == 0 ? fmax(acc, at(m, cols, r, c)) : op == 1 ? fmin(acc, at(m, cols, r, c)) : acc + at(m, cols, r, c);
    return acc;
}
static double col_reduce(const float *m, int rows, int cols, int c, int op) {
    double acc = op == 0 ? -INFINITY : op == 1 ? INFINITY : 0.0;
    for (int r = 0; r < rows; ++r) acc = op == 0 ? fmax(acc, at(m, cols, r, c)) : op == 1 ? fmin(acc, at(m, cols, r, c)) : acc + at(m, cols, r, c);
    return acc;
}

/* The expected value of output element (r, c) (or vector entry r when is_vec). */
static double expect_elem(int mode, mats m, int r, int c, long long row0, long long col0) {
    const double x = at(m.a, m.cols, r, c), y = at(m.b, m.cols, r, c);
    switch (mode) {
    case TS_TEST_OP_ADD: case TS_TEST_OP_SUB: case TS_TEST_OP_MUL: case TS_TEST_OP_DIV: case TS_TEST_OP_MAX: case TS_TEST_OP_MIN:
        return ref_binary(mode, x, y);
    case TS_TEST_OP_ADD_ROW: return x + row_reduce(m.b, m.cols, r, 2);
    case TS_TEST_OP_SUB_ROW: return x - row_reduce(m.b, m.cols, r, 0);
    case TS_TEST_OP_EXP2_SCALE_SUB_ROW: return exp2(0.7 * x - 0.7 * row_reduce(m.b, m.cols, r, 0));
    case TS_TEST_OP_MUL_ROW: return x * row_reduce(m.b, m.cols, r, 1);
    case TS_TEST_OP_DIV_ROW: return x / exp(row_reduce(m.b, m.cols, r, 0));
    case TS_TEST_OP_ADD_COL: return x + col_reduce(m.b, m.rows, m.cols, c, 2);
    case TS_TEST_OP_MUL_COL: return x * col_reduce(m.b, m.rows, m.cols, c, 0);
    case TS_TEST_OP_BROADCAST_ROW: case TS_TEST_OP_SHARED_ROW_VEC: return row_reduce(m.a, m.cols, r, 2);
    case TS_TEST_OP_BROADCAST_COL: case TS_TEST_OP_SHARED_COL_VEC: return col_reduce(m.a, m.rows, m.cols, c, 1);
    case TS_TEST_OP_CAUSAL: return (col0 + c) - (row0 + r) <= 0 ? x : -INFINITY;
    case TS_TEST_OP_TRIU: return (col0 + c) - (row0 + r) >= 3 ? x : 0.0;
    case TS_TEST_OP_MASK_COLS: return col0 + c < row0 ? x : -INFINITY; /* row0: the column limit */
    case TS_TEST_OP_BF16_ROUND_TRIP: return ts_f32_from_bf16_bits(ts_bf16_bits_from_f32((float)x));
    case TS_TEST_OP_FP16_ROUND_TRIP: return ts_f32_from_fp16_bits(ts_fp16_bits_from_f32((float)x));
    default: return ref_unary(mode, x);
    }
}

static int mode_is_mask(int mode) {
    return mode == TS_TEST_OP_CAUSAL || mode == TS_TEST_OP_TRIU || mode == TS_TEST_OP_MASK_COLS;
}
/* Where the masks place the tile: near the origin, where the diagonal or the limit crosses it; far
 * past 2^31, the same; and with rows and columns 3e9 apart either way, where nothing or everything
 * is masked. The masks take one 64-bit offset a tile and compare in 32 bits: these check the
 * offset's clamp (3e9 truncated to 32 bits changes sign). */
static void mask_placement(int place, uint64_t *st, long long *row0, long long *col0) {
    const long long far = place == 0 ? 0 : 3000000000LL;
    const long long apart = place == 2 ? 3000000000LL : place == 3 ? -3000000000LL : 0;
    *row0 = far + (long long)(ts_test_uniform(st) * 40) - 20;
    *col0 = far + apart + (long long)(ts_test_uniform(st) * 40) - 20;
}
static int mode_is_vec(int mode) { return mode >= TS_TEST_OP_ROW_MAX && mode <= TS_TEST_OP_COL_MAX_ACC; }
static int mode_is_row_vec(int mode) {
    return mode == TS_TEST_OP_ROW_MAX || mode == TS_TEST_OP_ROW_MIN || mode == TS_TEST_OP_ROW_SUM || mode == TS_TEST_OP_ROW_SUM_ACC;
}

static double expect_vec(int mode, mats m, int i) {
    switch (mode) {
    case TS_TEST_OP_ROW_MAX: return row_reduce(m.a, m.cols, i, 0);
    case TS_TEST_OP_ROW_MIN: return row_reduce(m.a, m.cols, i, 1);
    case TS_TEST_OP_ROW_SUM: return row_reduce(m.a, m.cols, i, 2);
    case TS_TEST_OP_COL_MAX: return col_reduce(m.a, m.rows, m.cols, i, 0);
    case TS_TEST_OP_COL_MIN: return col_reduce(m.a, m.rows, m.cols, i, 1);
    case TS_TEST_OP_COL_SUM: return col_reduce(m.a, m.rows, m.cols, i, 2);
    case TS_TEST_OP_ROW_SUM_ACC: return row_reduce(m.b, m.cols, i, 0) + row_reduce(m.a, m.cols, i, 2);
    default: return fmax(col_reduce(m.b, m.rows, m.cols, i, 2), col_reduce(m.a, m.rows, m.cols, i, 0));
    }
}

/* Sums of n fp32 terms carry rounding of about n ulps of the terms' size; everything else is one
 * or two roundings of the result. */
static double sum_terms(int mode, int rows, int cols) {
    switch (mode) {
    case TS_TEST_OP_ROW_SUM: case TS_TEST_OP_ROW_SUM_ACC: case TS_TEST_OP_ADD_ROW: case TS_TEST_OP_BROADCAST_ROW:
    case TS_TEST_OP_SHARED_ROW_VEC: return cols;
    case TS_TEST_OP_COL_SUM: case TS_TEST_OP_COL_MAX_ACC: case TS_TEST_OP_ADD_COL: return rows;
    default: return 1.0;
    }
}

static int close_enough(double got, double ref, double scale) {
    if (isinf(ref) || isnan(ref)) return got == ref || (isnan(ref) && isnan(got));
    return fabs(got - ref) <= 2e-6 * (fabs(ref) + scale) + 1e-30;
}

static void check_f32_case(const ts_test_tile_f32_case *c) {
    uint64_t seed = ts_test_fresh_seed(), st = seed;
    const int R = c->rows, C = c->cols, n = R * C, vn = R > C ? R : C;
    float *a = malloc(n * sizeof(float)), *b = malloc(n * sizeof(float)), *out = malloc(n * sizeof(float));
    float *vec = malloc(vn * sizeof(float));
    ts_test_fill_normal(a, n, &st);
    ts_test_fill_normal(b, n, &st);
    for (int i = 0; i < n; ++i) if (fabsf(b[i]) < 0.05f) b[i] = 0.5f; /* divisors away from zero */
    mats m = {R, C, a, b};
    float *da = ts_test_device_copy(a, n * sizeof(float)), *db = ts_test_device_copy(b, n * sizeof(float));
    cr_assert(da && db);
    for (int mode = 0; mode < TS_TEST_OP_COUNT; ++mode)
        for (int place = 0; place < (mode_is_mask(mode) ? 4 : 1); ++place) {
            long long row0, col0;
            mask_placement(place, &st, &row0, &col0);
            float *dout = ts_test_device_copy(NULL, n * sizeof(float)), *dvec = ts_test_device_copy(NULL, vn * sizeof(float));
            cr_assert(dout && dvec);
            cr_assert_eq(c->run(dout, dvec, da, db, mode, row0, col0), TS_SUCCESS, "%s mode %d", c->name, mode);
            cr_assert_eq(ts_device_synchronize(), TS_SUCCESS);
            if (mode == TS_TEST_OP_SHARED_ROW_VEC || mode == TS_TEST_OP_SHARED_COL_VEC) {
                /* The vector that went through shared memory, entry by entry. */
                const int len = mode == TS_TEST_OP_SHARED_ROW_VEC ? R : C;
                cr_assert_eq(ts_test_copy_back(vec, dvec, vn * sizeof(float)), TS_SUCCESS);
                for (int i = 0; i < len; ++i) {
                    const double ref = mode == TS_TEST_OP_SHARED_ROW_VEC ? row_reduce(a, C, i, 2) : col_reduce(a, R, C, i, 1);
                    cr_assert(close_enough(vec[i], ref, sum_terms(mode, R, C)), "%s mode %d shared vector %d: %g vs %g (seed %llu)",
                              c->name, mode, i, (double)vec[i], ref, (unsigned long long)seed);
                }
            }
            if (mode_is_vec(mode)) {
                const int len = mode_is_row_vec(mode) ? R : C;
                cr_assert_eq(ts_test_copy_back(vec, dvec, vn * sizeof(float)), TS_SUCCESS);
                for (int i = 0; i < len; ++i) {
                    const double ref = expect_vec(mode, m, i);
                    cr_assert(close_enough(vec[i], ref, sum_terms(mode, R, C)), "%s mode %d entry %d: %g vs %g (seed %llu)", c->name, mode, i,
                              (double)vec[i], ref, (unsigned long long)seed);
                }
            } else {
                cr_assert_eq(ts_test_copy_back(out, dout, n * sizeof(float)), TS_SUCCESS);
                for (int r = 0; r < R; ++r)
                    for (int col = 0; col < C; ++col) {
                        double ref;
                        float got;
                        if (mode == TS_TEST_OP_TRANSPOSE) {
                            ref = at(a, C, r, col);
                            got = out[(size_t)col * R + r];
                        } else {
                            ref = expect_elem(mode, m, r, col, row0, col0);
                            got = out[(size_t)r * C + col];
                        }
                        cr_assert(close_enough(got, ref, sum_terms(mode, R, C)), "%s mode %d at (%lld, %lld) (%d,%d): %.9g vs %.9g (seed %llu)", c->name, mode, row0, col0, r,
                                  col, (double)got, ref, (unsigned long long)seed);
                    }
            }
            cr_assert_eq(ts_free(dout), TS_SUCCESS);
            cr_assert_eq(ts_free(dvec), TS_SUCCESS);
        }
    cr_assert_eq(ts_free(da), TS_SUCCESS);
    cr_assert_eq(ts_free(db), TS_SUCCESS);
    free(a);
    free(b);
    free(out);
    free(vec);
}

Test(tiles, fp32_ops_every_shape_and_layout) {
    TS_TEST_REQUIRE_DEVICE();
    const ts_test_tile_f32_case *c;
    for (int k = 0; (c = ts_test_tile_f32_case_at(k)) != NULL; ++k) check_f32_case(c);
}

/* ---- packed warp vectors --------------------------------------------------------------------- */

/* One strip of n valid elements at `offset` elements past a 16-byte aligned base (offset 0: the
 * 16-byte path; 1: element by element). The stored sum must match the fp32 add rounded to the
 * dtype bit for bit and leave everything past n alone; the reductions and the normalized store are
 * checked against double. */
static void check_wv_packed(const ts_test_wv_packed_case *c, long long n, int offset) {
    enum { E = 1024, SLACK = 16 };
    const ts_dtype dt = (ts_dtype)c->dtype;
    const size_t b = ts_test_dtype_bytes(dt), len = E + SLACK;
    uint64_t seed = ts_test_fresh_seed(), st = seed;
    unsigned char *x = malloc(len * b), *r = malloc(len * b), *sum = malloc(len * b);
    unsigned char *wh = malloc(len * b), *held = malloc(len * b), *params = malloc(len * b);
    float *w = malloc(len * sizeof(float)), *norm = malloc(len * sizeof(float)), stats[2];
    for (size_t i = 0; i < len; ++i) {
        ts_test_put(x, dt, i, 3.0 + ts_test_normal(&st));
        ts_test_put(r, dt, i, ts_test_normal(&st));
        w[i] = (float)(1.0 + 0.5 * ts_test_normal(&st));
        ts_test_put(wh, dt, i, 1.0 + 0.5 * ts_test_normal(&st));
    }
    const float shift = 3.0f, scale = 0.75f;
    void *dx = ts_test_device_copy(x, len * b), *dr = ts_test_device_copy(r, len * b);
    void *dsum = ts_test_device_copy(NULL, len * b), *dw = ts_test_device_copy(w, len * sizeof(float));
    void *dnorm = ts_test_device_copy(NULL, len * sizeof(float)), *dstats = ts_test_device_copy(NULL, sizeof stats);
    void *dwh = ts_test_device_copy(wh, len * b), *dheld = ts_test_device_copy(NULL, len * b);
    void *dparams = ts_test_device_copy(NULL, len * b);
    cr_assert(dx && dr && dsum && dw && dnorm && dstats && dwh && dheld && dparams);
    const size_t ob = (size_t)offset * b;
    cr_assert_eq(c->run((char *)dsum + ob, (float *)dnorm + offset, (char *)dheld + ob, (char *)dparams + ob,
                        (float *)dstats, (char *)dx + ob, (char *)dr + ob,
                        (float *)dw + offset, (char *)dwh + ob, n, shift, scale),
                 TS_SUCCESS, "%s", c->name);
    cr_assert_eq(ts_device_synchronize(), TS_SUCCESS);
    cr_assert_eq(ts_test_copy_back(held, dheld, len * b), TS_SUCCESS);
    cr_assert_eq(ts_test_copy_back(params, dparams, len * b), TS_SUCCESS);
    cr_assert_eq(ts_test_copy_back(sum, dsum, len * b), TS_SUCCESS);
    cr_assert_eq(ts_test_copy_back(norm, dnorm, len * sizeof(float)), TS_SUCCESS);
    cr_assert_eq(ts_test_copy_back(stats, dstats, sizeof stats), TS_SUCCESS);
    double ref_sum = 0.0, ref_sq = 0.0, abs_sum = 0.0;
    for (size_t i = 0; i < len; ++i) {
        const long long e = (long long)i - offset; /* element of the strip */
        if (e < 0 || e >= n) {
            cr_assert(ts_test_is_poison(sum + i * b, b), "%s n=%lld offset %d: sum element %lld written", c->name, n,
                      offset, e);
            cr_assert(ts_test_is_poison(&norm[i], sizeof(float)), "%s n=%lld offset %d: normalized element %lld written",
                      c->name, n, offset, e);
            cr_assert(ts_test_is_poison(held + i * b, b), "%s n=%lld offset %d: held-weight element %lld written",
                      c->name, n, offset, e);
            cr_assert(ts_test_is_poison(params + i * b, b), "%s n=%lld offset %d: held-params element %lld written",
                      c->name, n, offset, e);
            continue;
        }
        unsigned char expect[4];
        ts_test_put(expect, dt, 0, (float)ts_test_get(x, dt, i) + (float)ts_test_get(r, dt, i));
        cr_assert_eq(memcmp(sum + i * b, expect, b), 0, "%s n=%lld offset %d: sum element %lld (seed %llu)", c->name, n,
                     offset, e, (unsigned long long)seed);
        const double s = ts_test_get(expect, dt, 0);
        ref_sum += s;
        abs_sum += fabs(s);
        ref_sq += (s - shift) * (s - shift);
        const double y = (s - shift) * scale * w[i];
        cr_assert_leq(fabs(norm[i] - y), 1e-5 * fabs(y) + 1e-6, "%s n=%lld offset %d: normalized %lld = %g, not %g",
                      c->name, n, offset, e, norm[i], y);
        /* The held weight's product, rounded to the dtype: within its rounding of the double one. */
        const double yh = (s - shift) * scale * ts_test_get(wh, dt, i), gh = ts_test_get(held, dt, i);
        cr_assert_leq(fabs(gh - yh), ts_test_tol(dt) * fabs(yh) + 1e-6,
                      "%s n=%lld offset %d: held-weight normalized %lld = %g, not %g", c->name, n, offset, e, gh, yh);
        /* With the residual strip as a held bias: the fp32 result rounded once to the dtype. */
        const double yp = yh + ts_test_get(r, dt, i), gp = ts_test_get(params, dt, i);
        cr_assert_leq(fabs(gp - yp), ts_test_tol(dt) * fabs(yp) + 1e-5,
                      "%s n=%lld offset %d: held-params normalized %lld = %g, not %g", c->name, n, offset, e, gp, yp);
    }
    cr_assert_leq(fabs(stats[0] - ref_sum), 1e-5 * abs_sum + 1e-6, "%s n=%lld offset %d: sum %g, not %g", c->name, n,
                  offset, stats[0], ref_sum);
    cr_assert_leq(fabs(stats[1] - ref_sq), 1e-5 * ref_sq + 1e-6, "%s n=%lld offset %d: centred sum of squares %g, not %g",
                  c->name, n, offset, stats[1], ref_sq);
    void *bufs[] = {dx, dr, dsum, dw, dnorm, dstats, dwh, dheld, dparams};
    for (int i = 0; i < 9; ++i) cr_assert_eq(ts_free(bufs[i]), TS_SUCCESS);
    free(x), free(r), free(sum), free(w), free(norm), free(wh), free(held), free(params);
}

/* The warp vectors' layouts (tiles/warp_vector.h) as plain arithmetic at the widths of both GPU
 * families: every element of the strip held exactly once; a quad is 4 consecutive elements and a
 * chunk lies within its 8 * lanes elements (so wide rows of whole chunks hold whole chunks); in the
 * contiguous layout a chunk is 8 consecutive elements; in the split one each 16-byte access of the
 * warp to an fp32 strip (quad h of chunk k in every lane) reads 16 * lanes consecutive bytes; and
 * TS_WV_CHUNK_END is one past a chunk's last element. */
Test(tiles, warp_vector_layouts) {
    enum { E = 2048 };
    static unsigned char seen[E];
    const int widths[] = {32, 64};
    for (int wi = 0; wi < 2; ++wi)
        for (int split = 0; split <= 1; ++split) {
            const int lanes = widths[wi], chunks = E / (TS_WV_CHUNK * lanes);
            memset(seen, 0, sizeof seen);
            for (int k = 0; k < chunks; ++k)
                for (int lane = 0; lane < lanes; ++lane) {
                    const int start = TS_WV_CHUNK_START(k, lane, split, lanes);
                    int last = -1;
                    for (int j = 0; j < TS_WV_CHUNK; ++j) {
                        const int pos = TS_WV_POS(start, j, split, lanes);
                        cr_assert(pos >= k * TS_WV_CHUNK * lanes && pos < (k + 1) * TS_WV_CHUNK * lanes,
                                  "lanes %d split %d: chunk %d of lane %d element %d at %d, outside its chunks",
                                  lanes, split, k, lane, j, pos);
                        cr_assert_eq(seen[pos]++, 0, "lanes %d split %d: element %d held twice", lanes, split, pos);
                        cr_assert_eq(pos, TS_WV_POS(start, j / TS_WV_QUAD * TS_WV_QUAD, split, lanes) + j % TS_WV_QUAD);
                        if (!split) cr_assert_eq(pos, (k * lanes + lane) * TS_WV_CHUNK + j);
                        if (split)
                            cr_assert_eq(pos, TS_WV_POS(TS_WV_CHUNK_START(k, 0, split, lanes), j, split, lanes) +
                                                  TS_WV_QUAD * lane,
                                         "lanes %d: quad %d of chunk %d, lane %d, not after lane %d's", lanes,
                                         j / TS_WV_QUAD, k, lane, lane - 1);
                        last = pos > last ? pos : last;
                    }
                    cr_assert_eq(TS_WV_CHUNK_END(start, split, lanes), last + 1, "lanes %d split %d", lanes, split);
                }
            for (int e = 0; e < E; ++e) cr_assert_eq(seen[e], 1, "lanes %d split %d: element %d not held", lanes, split, e);
        }
}

Test(tiles, packed_warp_vectors_every_dtype_and_tail) {
    TS_TEST_REQUIRE_DEVICE();
    const long long ns[] = {1024, 768, 1000, 1017, 9, 1, 0};
    const ts_test_wv_packed_case *c;
    for (int k = 0; (c = ts_test_wv_packed_case_at(k)) != NULL; ++k)
        for (int i = 0; i < (int)(sizeof ns / sizeof ns[0]); ++i)
            for (int offset = 0; offset < 2; ++offset) check_wv_packed(c, ns[i], offset);
}

static void check_wv(const ts_test_wv_case *c, long long n, int offset) {
    enum { E = 1024, SLACK = 16 };
    const ts_dtype dt = (ts_dtype)c->dtype;
    const size_t b = ts_test_dtype_bytes(dt), len = E + SLACK;
    uint64_t seed = ts_test_fresh_seed(), st = seed;
    unsigned char *x = malloc(len * b), *w = malloc(len * b);
    float *combined = malloc(E * sizeof(float)), *loaded = malloc(E * sizeof(float));
    cr_assert(x && w && combined && loaded);
    for (size_t i = 0; i < len; ++i) {
        ts_test_put(x, dt, i, ts_test_normal(&st));
        ts_test_put(w, dt, i, 1.0 + 0.5 * ts_test_normal(&st));
    }
    void *dx = ts_test_device_copy(x, len * b), *dw = ts_test_device_copy(w, len * b);
    void *dc = ts_test_device_copy(NULL, E * sizeof(float)), *dl = ts_test_device_copy(NULL, E * sizeof(float));
    cr_assert(dx && dw && dc && dl);
    const size_t ob = (size_t)offset * b;
    cr_assert_eq(c->run((float *)dc, (float *)dl, (char *)dx + ob, (char *)dw + ob, n), TS_SUCCESS, "%s", c->name);
    cr_assert_eq(ts_device_synchronize(), TS_SUCCESS);
    cr_assert_eq(ts_test_copy_back(combined, dc, E * sizeof(float)), TS_SUCCESS);
    cr_assert_eq(ts_test_copy_back(loaded, dl, E * sizeof(float)), TS_SUCCESS);
    for (long long e = 0; e < E; ++e) {
        const size_t i = (size_t)(e + offset);
        const float xe = (float)ts_test_get(x, dt, i), we = (float)ts_test_get(w, dt, i);
        const float want_c = e < n ? (7.0f + xe) * we : 7.0f, want_l = e < n ? xe : 0.0f;
        cr_assert_eq(combined[e], want_c, "%s n=%lld offset %d: combined element %lld = %g, not %g (seed %llu)",
                     c->name, n, offset, e, combined[e], want_c, (unsigned long long)seed);
        cr_assert_eq(loaded[e], want_l, "%s n=%lld offset %d: loaded element %lld = %g, not %g (seed %llu)", c->name,
                     n, offset, e, loaded[e], want_l, (unsigned long long)seed);
    }
    void *bufs[] = {dx, dw, dc, dl};
    for (int i = 0; i < 4; ++i) cr_assert_eq(ts_free(bufs[i]), TS_SUCCESS);
    free(x), free(w), free(combined), free(loaded);
}

/* Loads that combine (add, multiply) and widen 16-bit elements, whole strips and partial ones (a
 * partly valid chunk, and with offset 1 an unaligned strip), against the same arithmetic on the CPU. */
Test(tiles, warp_vector_loads_every_dtype_and_tail) {
    TS_TEST_REQUIRE_DEVICE();
    const long long ns[] = {1024, 768, 1000, 1017, 9, 1, 0};
    const ts_test_wv_case *c;
    for (int k = 0; (c = ts_test_wv_case_at(k)) != NULL; ++k)
        for (int i = 0; i < (int)(sizeof ns / sizeof ns[0]); ++i)
            for (int offset = 0; offset < 2; ++offset) check_wv(c, ns[i], offset);
}

/* A lane's own statistics and their combination across the warp, in both layouts: each lane's
 * maximum (exact) and sum (to fp32 rounding) of the elements the layout gives it (TS_WV_CHUNK_START,
 * TS_WV_POS), the warp's the same bits in every lane, the maximum exact; and the approximate 2^x
 * within 2^-21 of 2^x. */
Test(tiles, warp_vector_lane_statistics) {
    TS_TEST_REQUIRE_DEVICE();
    enum { E = 1024, LANES_MAX = 64 };
    const int lanes = ts_test_wv_lanes(), chunks = E / (TS_WV_CHUNK * lanes);
    uint64_t seed = ts_test_fresh_seed(), st = seed;
    static float x[E], got_exp2[E], lmax[LANES_MAX], lsum[LANES_MAX], wmax[LANES_MAX], wsum[LANES_MAX];
    for (int e = 0; e < E; ++e) x[e] = (float)(8.0 * ts_test_normal(&st));
    for (int split = 0; split <= 1; ++split) {
        float *dx = ts_test_device_copy(x, sizeof x), *de = ts_test_device_copy(NULL, sizeof got_exp2);
        float *d[4];
        for (int i = 0; i < 4; ++i) d[i] = ts_test_device_copy(NULL, LANES_MAX * sizeof(float));
        cr_assert(dx && de && d[0] && d[1] && d[2] && d[3]);
        cr_assert_eq(ts_test_wv_lane_stats(d[0], d[1], d[2], d[3], de, dx, split), TS_SUCCESS);
        cr_assert_eq(ts_device_synchronize(), TS_SUCCESS);
        float *outs[4] = {lmax, lsum, wmax, wsum};
        for (int i = 0; i < 4; ++i) cr_assert_eq(ts_test_copy_back(outs[i], d[i], lanes * sizeof(float)), TS_SUCCESS);
        cr_assert_eq(ts_test_copy_back(got_exp2, de, sizeof got_exp2), TS_SUCCESS);
        double all_max = -INFINITY, all_sum = 0.0, all_abs = 0.0;
        for (int lane = 0; lane < lanes; ++lane) {
            double m = -INFINITY, sum = 0.0, abs_sum = 0.0;
            for (int k = 0; k < chunks; ++k)
                for (int j = 0; j < TS_WV_CHUNK; ++j) {
                    const double v = x[TS_WV_POS(TS_WV_CHUNK_START(k, lane, split, lanes), j, split, lanes)];
                    m = fmax(m, v), sum += v, abs_sum += fabs(v);
                }
            cr_assert_eq(lmax[lane], (float)m, "split %d lane %d: maximum %g, not %g (seed %llu)", split, lane,
                         lmax[lane], m, (unsigned long long)seed);
            cr_assert_leq(fabs(lsum[lane] - sum), 1e-6 * abs_sum, "split %d lane %d: sum %g, not %g (seed %llu)",
                          split, lane, lsum[lane], sum, (unsigned long long)seed);
            all_max = fmax(all_max, m), all_sum += sum, all_abs += abs_sum;
        }
        for (int lane = 0; lane < lanes; ++lane) {
            cr_assert_eq(wmax[lane], (float)all_max, "split %d lane %d: warp maximum %g (seed %llu)", split, lane,
                         wmax[lane], (unsigned long long)seed);
            cr_assert(memcmp(&wsum[lane], &wsum[0], sizeof(float)) == 0, "split %d: lane %d's warp sum differs",
                      split, lane);
        }
        cr_assert_leq(fabs(wsum[0] - all_sum), 1e-6 * all_abs, "split %d: warp sum %g, not %g (seed %llu)", split,
                      wsum[0], all_sum, (unsigned long long)seed);
        for (int e = 0; e < E; ++e) {
            const double want = exp2((double)x[e]);
            cr_assert_leq(fabs(got_exp2[e] - want), 0x1p-21 * want, "split %d: 2^%g = %g, not %g", split, x[e],
                          got_exp2[e], want);
        }
        cr_assert_eq(ts_free(dx), TS_SUCCESS);
        cr_assert_eq(ts_free(de), TS_SUCCESS);
        for (int i = 0; i < 4; ++i) cr_assert_eq(ts_free(d[i]), TS_SUCCESS);
    }
}

/* Strips of wide rows of one, two and three chunks a lane, rows apart by a padded stride: the per-row
 * reductions, per-row scalars, the per-row fill and the packed per-row sums against the CPU in
 * double (the sums and maxima exact up to fp32 rounding). */
Test(tiles, warp_vector_wide_rows) {
    TS_TEST_REQUIRE_DEVICE();
    enum { E = 3072 };
    for (int rc = 1; rc <= 3; ++rc) {
        const long long len = (long long)rc * 8 * ts_test_wv_lanes(), rows = E / len, stride = len + 8;
        const size_t n = (size_t)(rows * stride);
        uint64_t seed = ts_test_fresh_seed(), st = seed;
        unsigned short *x = malloc(n * 2);
        float *out = malloc(n * sizeof(float)), sums[E], sq[E];
        cr_assert(x && out);
        for (size_t i = 0; i < n; ++i) ts_test_put(x, TS_DTYPE_BF16, i, ts_test_normal(&st));
        void *dx = ts_test_device_copy(x, n * 2), *dout = ts_test_device_copy(NULL, n * sizeof(float));
        void *dsums = ts_test_device_copy(NULL, rows * sizeof(float)), *dsq = ts_test_device_copy(NULL, rows * sizeof(float));
        cr_assert(dx && dout && dsums && dsq);
        cr_assert_eq(ts_test_wv_wide_rows((float *)dout, (float *)dsums, (float *)dsq, dx, stride, rc), TS_SUCCESS);
        cr_assert_eq(ts_device_synchronize(), TS_SUCCESS);
        cr_assert_eq(ts_test_copy_back(out, dout, n * sizeof(float)), TS_SUCCESS);
        cr_assert_eq(ts_test_copy_back(sums, dsums, rows * sizeof(float)), TS_SUCCESS);
        cr_assert_eq(ts_test_copy_back(sq, dsq, rows * sizeof(float)), TS_SUCCESS);
        for (long long r = 0; r < rows; ++r) {
            double m = -INFINITY, sum = 0.0, dev = 0.0, abs_sum = 0.0;
            for (long long c = 0; c < len; ++c) {
                const double v = ts_test_get(x, TS_DTYPE_BF16, (size_t)(r * stride + c));
                m = v > m ? v : m;
                sum += v;
                abs_sum += fabs(v);
            }
            for (long long c = 0; c < len; ++c) {
                const double v = ts_test_get(x, TS_DTYPE_BF16, (size_t)(r * stride + c)) - sums[r];
                dev += v * v;
            }
            const double tol = 1e-6 * abs_sum + 1e-6;
            cr_assert_leq(fabs(sums[r] - sum), 10 * tol, "rows of %d chunks: row %lld sum %g, not %g (seed %llu)", rc, r,
                          sums[r], sum, (unsigned long long)seed);
            cr_assert_leq(fabs(sq[r] - dev), 1e-5 * dev, "rows of %d chunks: row %lld squares %g, not %g (seed %llu)", rc,
                          r, sq[r], dev, (unsigned long long)seed);
            for (long long c = 0; c < len; ++c) {
                const double v = ts_test_get(x, TS_DTYPE_BF16, (size_t)(r * stride + c));
                const double want = c >= r ? -1.0 : (v - m) * sum, got = out[r * stride + c];
                cr_assert_leq(fabs(got - want), 1e-5 * (fabs(want) + abs_sum), "rows of %d chunks: (%lld, %lld) = %g, not %g (seed %llu)",
                              rc, r, c, got, want, (unsigned long long)seed);
            }
        }
        void *bufs[] = {dx, dout, dsums, dsq};
        for (int i = 0; i < 4; ++i) cr_assert_eq(ts_free(bufs[i]), TS_SUCCESS);
        free(x), free(out);
    }
}

/* Strips of quad rows of 1, 3, 5 and 7 quad rows (an odd count puts a chunk's two quads in two
 * rows; 5 and 7 leave the strip's last row partly outside it), rows apart by a padded stride, in the
 * split layout: the per-row sums and squares, the normalized store with a weight and bias of one row
 * loaded with a row stride of 0, and the plain store, against the CPU (the means and squares in
 * double, the stores to bf16 rounding, the copy exact, and nothing written between the rows); and
 * the fp32 vector's per-row maximum, sums, per-row scalars and per-row fill of the same strip. */
Test(tiles, warp_vector_quad_rows) {
    TS_TEST_REQUIRE_DEVICE();
    const int quad = 4 * ts_test_wv_lanes(), quads = TS_TEST_WV_QUAD_ROWS_E / quad;
    const int rqs[4] = {1, 3, 5, 7};
    for (int i = 0; i < 4; ++i) {
        const int rq = rqs[i], len = rq * quad, whole = quads / rq, touched = (quads + rq - 1) / rq;
        const long long stride = len + 8;
        const size_t n = (size_t)(touched * stride);
        uint64_t seed = ts_test_fresh_seed(), st = seed;
        unsigned short *x = malloc(n * 2), *w = malloc((size_t)len * 2), *b = malloc((size_t)len * 2);
        unsigned short *out = malloc(n * 2), *copy = malloc(n * 2);
        float *means = malloc((size_t)whole * sizeof(float)), *sqs = malloc((size_t)whole * sizeof(float));
        cr_assert(x && w && b && out && copy && means && sqs);
        for (size_t e = 0; e < n; ++e) ts_test_put(x, TS_DTYPE_BF16, e, 0.5 + ts_test_normal(&st));
        for (int c = 0; c < len; ++c) {
            ts_test_put(w, TS_DTYPE_BF16, (size_t)c, ts_test_normal(&st));
            ts_test_put(b, TS_DTYPE_BF16, (size_t)c, ts_test_normal(&st));
        }
        void *dx = ts_test_device_copy(x, n * 2), *dw = ts_test_device_copy(w, (size_t)len * 2);
        void *db = ts_test_device_copy(b, (size_t)len * 2), *dout = ts_test_device_copy(NULL, n * 2);
        void *dcopy = ts_test_device_copy(NULL, n * 2); /* out and copy poisoned: 0xffff where not written */
        void *dmeans = ts_test_device_copy(NULL, (size_t)whole * sizeof(float));
        void *dsqs = ts_test_device_copy(NULL, (size_t)whole * sizeof(float));
        cr_assert(dx && dw && db && dout && dcopy && dmeans && dsqs);
        cr_assert_eq(ts_test_wv_quad_rows(dout, dcopy, (float *)dmeans, (float *)dsqs, dx, dw, db, stride, rq), TS_SUCCESS);
        cr_assert_eq(ts_device_synchronize(), TS_SUCCESS);
        cr_assert_eq(ts_test_copy_back(out, dout, n * 2), TS_SUCCESS);
        cr_assert_eq(ts_test_copy_back(copy, dcopy, n * 2), TS_SUCCESS);
        cr_assert_eq(ts_test_copy_back(means, dmeans, (size_t)whole * sizeof(float)), TS_SUCCESS);
        cr_assert_eq(ts_test_copy_back(sqs, dsqs, (size_t)whole * sizeof(float)), TS_SUCCESS);
        for (int r = 0; r < touched; ++r)
            for (long long c = 0; c < stride; ++c) {
                const size_t e = (size_t)(r * stride + c);
                const int in_strip = c < len && (long long)r * len + c < TS_TEST_WV_QUAD_ROWS_E;
                cr_assert_eq(copy[e], in_strip ? x[e] : 0xffff, "quad rows of %d: copy (%d, %lld) = %#x (seed %llu)", rq,
                             r, c, copy[e], (unsigned long long)seed);
                if (!in_strip)
                    cr_assert_eq(out[e], 0xffff, "quad rows of %d: out (%d, %lld) written outside the strip", rq, r, c);
            }
        for (int r = 0; r < whole; ++r) {
            double sum = 0.0, abs_sum = 0.0, dev = 0.0;
            for (int c = 0; c < len; ++c) {
                const double v = ts_test_get(x, TS_DTYPE_BF16, (size_t)(r * stride + c));
                sum += v;
                abs_sum += fabs(v);
            }
            for (int c = 0; c < len; ++c) {
                const double v = ts_test_get(x, TS_DTYPE_BF16, (size_t)(r * stride + c)) - means[r];
                dev += v * v;
            }
            cr_assert_leq(fabs(means[r] - sum / len), 1e-6 * abs_sum / len + 1e-7,
                          "quad rows of %d: row %d mean %g, not %g (seed %llu)", rq, r, means[r], sum / len,
                          (unsigned long long)seed);
            cr_assert_leq(fabs(sqs[r] - dev), 1e-5 * dev, "quad rows of %d: row %d squares %g, not %g (seed %llu)", rq,
                          r, sqs[r], dev, (unsigned long long)seed);
            const double scale = 1.0 / (1.0 + (double)sqs[r] / len);
            for (int c = 0; c < len; ++c) {
                const size_t e = (size_t)(r * stride + c);
                const double v = ts_test_get(x, TS_DTYPE_BF16, e), wc = ts_test_get(w, TS_DTYPE_BF16, (size_t)c);
                const double want = (v - means[r]) * scale * wc + ts_test_get(b, TS_DTYPE_BF16, (size_t)c);
                const double got = ts_test_get(out, TS_DTYPE_BF16, e);
                cr_assert_leq(fabs(got - want), 8e-3 * fabs(want) + 1e-4 * (fabs(wc) + 1.0),
                              "quad rows of %d: out (%d, %d) = %g, not %g (seed %llu)", rq, r, c, got, want,
                              (unsigned long long)seed);
            }
        }
        /* The fp32 ops of the same strip. */
        float *fout = malloc(n * sizeof(float)), *fsums = malloc((size_t)whole * sizeof(float));
        void *dfout = ts_test_device_copy(NULL, n * sizeof(float)), *dfsums = ts_test_device_copy(NULL, (size_t)whole * sizeof(float));
        cr_assert(fout && fsums && dfout && dfsums);
        cr_assert_eq(ts_test_wv_quad_rows_f32((float *)dfout, (float *)dfsums, dx, stride, rq), TS_SUCCESS);
        cr_assert_eq(ts_device_synchronize(), TS_SUCCESS);
        cr_assert_eq(ts_test_copy_back(fout, dfout, n * sizeof(float)), TS_SUCCESS);
        cr_assert_eq(ts_test_copy_back(fsums, dfsums, (size_t)whole * sizeof(float)), TS_SUCCESS);
        for (int r = 0; r < touched; ++r)
            for (long long c = 0; c < stride; ++c) {
                const int in_strip = c < len && (long long)r * len + c < TS_TEST_WV_QUAD_ROWS_E;
                if (!in_strip)
                    cr_assert(isnan(fout[r * stride + c]), "quad rows of %d: fp32 out (%d, %lld) written outside the strip",
                              rq, r, c);
            }
        for (int r = 0; r < whole; ++r) {
            double mx = -INFINITY, sum = 0.0, abs_sum = 0.0;
            for (int c = 0; c < len; ++c) {
                const double v = ts_test_get(x, TS_DTYPE_BF16, (size_t)(r * stride + c));
                mx = v > mx ? v : mx;
                sum += v;
                abs_sum += fabs(v);
            }
            cr_assert_leq(fabs(fsums[r] - sum), 1e-5 * abs_sum + 1e-6, "quad rows of %d: row %d sum %g, not %g (seed %llu)",
                          rq, r, fsums[r], sum, (unsigned long long)seed);
            for (int c = 0; c < len; ++c) {
                const double v = ts_test_get(x, TS_DTYPE_BF16, (size_t)(r * stride + c));
                const double want = c >= r ? -1.0 : (v - mx) * fsums[r], got = fout[r * stride + c];
                cr_assert_leq(fabs(got - want), 1e-5 * (fabs(want) + abs_sum),
                              "quad rows of %d: fp32 (%d, %d) = %g, not %g (seed %llu)", rq, r, c, got, want,
                              (unsigned long long)seed);
            }
        }
        void *bufs[] = {dx, dw, db, dout, dcopy, dmeans, dsqs, dfout, dfsums};
        for (int k = 0; k < 9; ++k) cr_assert_eq(ts_free(bufs[k]), TS_SUCCESS);
        free(x), free(w), free(b), free(out), free(copy), free(means), free(sqs), free(fout), free(fsums);
    }
}

/* The bf16 conversion at each use (ts_wvp_elem_at_use, the norms' long-row instances) gives the
 * bits of the plain one and of the word's halves, low half first, on random finite words. */
Test(tiles, bf16_elements_at_use) {
    TS_TEST_REQUIRE_DEVICE();
    enum { COUNT = 1000 };
    uint64_t seed = ts_test_fresh_seed(), st = seed;
    unsigned words[COUNT];
    for (int i = 0; i < COUNT; ++i) {
        unsigned w;
        do w = (unsigned)(ts_test_uniform(&st) * 4294967296.0);
        while ((w & 0x7f800000u) == 0x7f800000u || (w & 0x7f80u) == 0x7f80u);
        words[i] = w;
    }
    void *dw = ts_test_device_copy(words, sizeof words);
    void *da = ts_test_device_copy(NULL, 2 * COUNT * sizeof(float)), *dp = ts_test_device_copy(NULL, 2 * COUNT * sizeof(float));
    cr_assert(dw && da && dp);
    cr_assert_eq(ts_test_wvp_elem_at_use((float *)da, (float *)dp, (const unsigned *)dw, COUNT), TS_SUCCESS);
    cr_assert_eq(ts_device_synchronize(), TS_SUCCESS);
    float at_use[2 * COUNT], plain[2 * COUNT];
    cr_assert_eq(ts_test_copy_back(at_use, da, sizeof at_use), TS_SUCCESS);
    cr_assert_eq(ts_test_copy_back(plain, dp, sizeof plain), TS_SUCCESS);
    for (int i = 0; i < 2 * COUNT; ++i) {
        const unsigned want = i & 1 ? words[i / 2] & 0xffff0000u : words[i / 2] << 16;
        unsigned got, got_plain;
        memcpy(&got, &at_use[i], sizeof got);
        memcpy(&got_plain, &plain[i], sizeof got_plain);
        cr_assert_eq(got, want, "element %d: 0x%08x, not 0x%08x (seed %llu)", i, got, want, (unsigned long long)seed);
        cr_assert_eq(got_plain, want, "plain element %d: 0x%08x, not 0x%08x (seed %llu)", i, got_plain, want,
                     (unsigned long long)seed);
    }
    void *bufs[] = {dw, da, dp};
    for (int i = 0; i < 3; ++i) cr_assert_eq(ts_free(bufs[i]), TS_SUCCESS);
}

/* ---- CPU checks of the conversions the ops rely on ------------------------------------------- */

Test(tiles, bf16_rounding_is_nearest_even) {
    /* 1 + 2^-8 lies halfway between two bf16 values and rounds to the even one, 1.0. */
    cr_assert_eq(ts_bf16_bits_from_f32(1.00390625f), 0x3f80);
    /* 1 + 3 * 2^-8 is halfway too and rounds up to the even 1 + 2^-6. */
    cr_assert_eq(ts_bf16_bits_from_f32(1.01171875f), 0x3f82);
    cr_assert_eq(ts_bf16_bits_from_f32(-2.0f), 0xc000);
    cr_assert_eq(ts_bf16_bits_from_f32(INFINITY), 0x7f80);
    cr_assert(isnan(ts_f32_from_bf16_bits(ts_bf16_bits_from_f32(NAN))));
    cr_assert_eq(ts_f32_from_bf16_bits(0x4049), 3.140625f);
}
