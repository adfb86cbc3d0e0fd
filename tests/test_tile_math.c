/* The element-wise math, comparison, selection, index and user-map ops of fp32 register tiles,
 * register vectors (ops/maps.h, ops/index.h, ops/reductions.h) and warp vectors
 * (ops/warp_vector.h), against references computed in double on fresh random inputs, in every
 * shape and layout of the test kernels. Inputs are drawn per op, with equal values planted where an
 * op compares, and indices that fall inside and outside the tile where an op picks by index. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "support/test_support.h"
#include "tests/kernels/tile_math_kernels.h"

/* ---- references ------------------------------------------------------------------------------ */

static double sigmoid(double x) { return 1.0 / (1.0 + exp(-x)); }
static double gelu_tanh(double x) { return 0.5 * x * (1.0 + tanh(sqrt(2.0 / 3.14159265358979323846) * (x + 0.044715 * x * x * x))); }
static double gelu_erf(double x) { return 0.5 * x * (1.0 + erf(x / sqrt(2.0))); }
static double softsign(double x) { return x / (1.0 + fabs(x)); }
static double truth(int t) { return t ? 1.0 : 0.0; }

/* The unary math shared by tiles, register vectors and warp vectors, by name. */
enum { U_NEG, U_ABS, U_RELU, U_SQRT, U_RSQRT, U_TANH, U_SIGMOID, U_SILU, U_GELU_TANH, U_GELU_ERF, U_ERF, U_EXP, U_LOG };
static double unary(int op, double x) {
    switch (op) {
    case U_NEG: return -x;
    case U_ABS: return fabs(x);
    case U_RELU: return x > 0 ? x : 0;
    case U_SQRT: return sqrt(fabs(x));
    case U_RSQRT: return 1.0 / sqrt(fabs(x) + 0.25);
    case U_TANH: return tanh(x);
    case U_SIGMOID: return sigmoid(x);
    case U_SILU: return x * sigmoid(x);
    case U_GELU_TANH: return gelu_tanh(x);
    case U_GELU_ERF: return gelu_erf(x);
    case U_ERF: return erf(x);
    case U_EXP: return exp(x);
    default: return log(fabs(x));
    }
}
/* Comparisons in the order of the ops: eq, ne, lt, le, gt, ge. */
static double compare(int op, double x, double y) {
    switch (op) {
    case 0: return truth(x == y);
    case 1: return truth(x != y);
    case 2: return truth(x < y);
    case 3: return truth(x <= y);
    case 4: return truth(x > y);
    default: return truth(x >= y);
    }
}

/* fp32 math against double: a few ulps of the result, or of `scale` where the result is smaller
 * than its terms (a cancellation, as in gelu of a negative x). */
static int close_enough(double got, double ref, double scale) {
    if (isinf(ref) || isnan(ref)) return got == ref || (isnan(ref) && isnan(got));
    return fabs(got - ref) <= 4e-6 * (fabs(ref) + scale) + 1e-30;
}

/* ---- tiles and register vectors ---------------------------------------------------------------- */

typedef struct {
    int R, C;
    float *a, *b, *c, *rvec, *rvec2, *cvec;
    long long row0, col0, k;
} tm_inputs;

static double A(const tm_inputs *in, int r, int col) { return in->a[(size_t)r * in->C + col]; }
static double B(const tm_inputs *in, int r, int col) { return in->b[(size_t)r * in->C + col]; }
static double Cm(const tm_inputs *in, int r, int col) { return in->c[(size_t)r * in->C + col]; }

/* Draws the inputs of one mode: normal values (times 2, so the activations see their tails), then
 * equal values planted for the comparisons, targets and indices for the index ops. */
static void tm_draw(tm_inputs *in, int mode, uint64_t *st) {
    const int R = in->R, C = in->C, n = R * C;
    for (int i = 0; i < n; ++i) {
        in->a[i] = (float)(2.0 * ts_test_normal(st));
        in->b[i] = (float)(2.0 * ts_test_normal(st));
        in->c[i] = (float)(2.0 * ts_test_normal(st));
        if (fabsf(in->b[i]) < 0.05f) in->b[i] = 0.5f;
    }
    for (int i = 0; i < R; ++i) {
        in->rvec[i] = (float)(2.0 * ts_test_normal(st));
        in->rvec2[i] = (float)(2.0 * ts_test_normal(st));
    }
    for (int i = 0; i < C; ++i) in->cvec[i] = (float)(2.0 * ts_test_normal(st));
    /* equal pairs and the scalar S, about a third of the elements each */
    for (int i = 0; i < n; ++i) {
        const double u = ts_test_uniform(st);
        if (u < 0.3) in->b[i] = in->a[i];
        else if (u < 0.6) in->a[i] = TS_TM_S;
    }
    for (int i = 0; i < R; ++i) {
        const double u = ts_test_uniform(st);
        if (u < 0.3) in->rvec2[i] = in->rvec[i];
        else if (u < 0.6) in->rvec[i] = TS_TM_S;
    }
    /* one of each for certain, so the equal cases are always exercised */
    in->b[0] = in->a[0];
    in->a[n - 1] = TS_TM_S;
    in->rvec2[0] = in->rvec[0];
    in->rvec[R - 1] = TS_TM_S;
    in->row0 = (long long)(ts_test_uniform(st) * 100000);
    in->col0 = (long long)(ts_test_uniform(st) * 100000);
    if (mode == TS_TM_WHERE_EQ || mode == TS_TM_WHERE_EQ_SS || mode == TS_TM_RV_WHERE_EQ ||
        mode == TS_TM_RV_WHERE_EQ_SS) {
        const int rows_axis = mode != TS_TM_WHERE_EQ;
        const long long origin = rows_axis ? in->row0 : in->col0;
        in->k = origin + (long long)(ts_test_uniform(st) * ((rows_axis ? R : C) + 2)) - 1; /* one past either edge too */
    }
    if (mode == TS_TM_PICK_ROW) /* a target column per row, some outside the tile */
        for (int r = 0; r < R; ++r) in->rvec[r] = (float)(in->col0 + (long long)(ts_test_uniform(st) * (C + 2)) - 1);
    if (mode == TS_TM_PICK_COL)
        for (int col = 0; col < C; ++col) in->cvec[col] = (float)(in->row0 + (long long)(ts_test_uniform(st) * (R + 2)) - 1);
    if (mode == TS_TM_EQ_COL) /* some columns' entry equal to one of the column's elements */
        for (int col = 0; col < C; ++col)
            if (ts_test_uniform(st) < 0.7) in->cvec[col] = in->a[(size_t)(ts_test_uniform(st) * R) * C + col];
    if (mode == TS_TM_NE_ROW || mode == TS_TM_LE_ROW || mode == TS_TM_GE_ROW)
        for (int r = 0; r < R; ++r)
            if (ts_test_uniform(st) < 0.7) in->rvec[r] = in->a[(size_t)r * C + (size_t)(ts_test_uniform(st) * C)];
}

/* The expected output at (r, col) and the scale of its terms. */
static double tm_expect(const tm_inputs *in, int mode, int r, int col, double *scale) {
    const double a = A(in, r, col), b = B(in, r, col), c = Cm(in, r, col);
    const double x = in->rvec[r], y = in->rvec2[r], cv = in->cvec[col];
    const double S = TS_TM_S, S2 = TS_TM_S2, alpha = TS_TM_ALPHA;
    const double row = (double)(in->row0 + r), column = (double)(in->col0 + col);
    *scale = 0.0;
    switch (mode) {
    case TS_TM_NEG: return unary(U_NEG, a);
    case TS_TM_SQRT: return unary(U_SQRT, a);
    case TS_TM_RSQRT: return unary(U_RSQRT, a);
    case TS_TM_TANH: *scale = 1; return unary(U_TANH, a);
    case TS_TM_SIGMOID: *scale = 1; return unary(U_SIGMOID, a);
    case TS_TM_SILU: *scale = 1 + fabs(a); return unary(U_SILU, a);
    case TS_TM_GELU_TANH: *scale = 1 + fabs(a); return unary(U_GELU_TANH, a);
    case TS_TM_GELU_ERF: *scale = 1 + fabs(a); return unary(U_GELU_ERF, a);
    case TS_TM_ERF: *scale = 1; return unary(U_ERF, a);
    case TS_TM_EQ: case TS_TM_NE: case TS_TM_LT: case TS_TM_LE: case TS_TM_GT: case TS_TM_GE:
        return compare(mode - TS_TM_EQ, a, b);
    case TS_TM_EQ_S: case TS_TM_NE_S: case TS_TM_LT_S: case TS_TM_LE_S: case TS_TM_GT_S: case TS_TM_GE_S:
        return compare(mode - TS_TM_EQ_S, a, S);
    case TS_TM_FMA: return a * b + c;
    case TS_TM_FMA_S: return a * S2 + c;
    case TS_TM_FMA_SS: return a * S2 + S;
    case TS_TM_WHERE: return c > 0 ? a : b;
    case TS_TM_WHERE_S: return c > 0 ? a : -INFINITY;
    case TS_TM_WHERE_SS: return c > 0 ? S : S2;
    case TS_TM_MAP: return softsign(a);
    case TS_TM_MAP2: *scale = fabs(a * alpha) + fabs(b); return a * alpha - b;
    case TS_TM_MAP3: *scale = fabs(a * b) + fabs(c); return a * b - c;
    case TS_TM_IOTA_ROWS: return row;
    case TS_TM_IOTA_COLS: return column;
    case TS_TM_WHERE_EQ: return column == (double)in->k ? a : b;
    case TS_TM_WHERE_EQ_SS: return truth(row == (double)in->k);
    case TS_TM_PICK_ROW: return column == x ? a : 0.0;
    case TS_TM_PICK_COL: return row == cv ? a : 0.0;
    case TS_TM_MAX_ROW: return fmax(a, x);
    case TS_TM_MIN_ROW: return fmin(a, x);
    case TS_TM_NE_ROW: return compare(1, a, x);
    case TS_TM_LT_ROW: return compare(2, a, x);
    case TS_TM_LE_ROW: return compare(3, a, x);
    case TS_TM_GT_ROW: return compare(4, a, x);
    case TS_TM_GE_ROW: return compare(5, a, x);
    case TS_TM_MAX_COL: return fmax(a, cv);
    case TS_TM_MIN_COL: return fmin(a, cv);
    case TS_TM_EQ_COL: return compare(0, a, cv);
    case TS_TM_GT_COL: return compare(4, a, cv);
    case TS_TM_RV_NEG: return unary(U_NEG, x);
    case TS_TM_RV_ABS: return unary(U_ABS, x);
    case TS_TM_RV_RELU: return unary(U_RELU, x);
    case TS_TM_RV_SQRT: return unary(U_SQRT, x);
    case TS_TM_RV_RSQRT: return unary(U_RSQRT, x);
    case TS_TM_RV_TANH: *scale = 1; return unary(U_TANH, x);
    case TS_TM_RV_SIGMOID: *scale = 1; return unary(U_SIGMOID, x);
    case TS_TM_RV_SILU: *scale = 1 + fabs(x); return unary(U_SILU, x);
    case TS_TM_RV_GELU_TANH: *scale = 1 + fabs(x); return unary(U_GELU_TANH, x);
    case TS_TM_RV_GELU_ERF: *scale = 1 + fabs(x); return unary(U_GELU_ERF, x);
    case TS_TM_RV_ERF: *scale = 1; return unary(U_ERF, x);
    case TS_TM_RV_SUB_S: *scale = fabs(x) + S; return x - S;
    case TS_TM_RV_DIV_S: return x / S2;
    case TS_TM_RV_MIN_S: return fmin(x, S);
    case TS_TM_RV_EQ: case TS_TM_RV_NE: case TS_TM_RV_LT: case TS_TM_RV_LE: case TS_TM_RV_GT: case TS_TM_RV_GE:
        return compare(mode - TS_TM_RV_EQ, x, y);
    case TS_TM_RV_EQ_S: case TS_TM_RV_NE_S: case TS_TM_RV_LT_S: case TS_TM_RV_LE_S: case TS_TM_RV_GT_S:
    case TS_TM_RV_GE_S:
        return compare(mode - TS_TM_RV_EQ_S, x, S);
    case TS_TM_RV_FMA: return x * y + x;
    case TS_TM_RV_FMA_S: return x * S2 + y;
    case TS_TM_RV_FMA_SS: return x * S2 + S;
    case TS_TM_RV_WHERE: return y > 0 ? x : y;
    case TS_TM_RV_WHERE_S: return y > 0 ? x : S;
    case TS_TM_RV_WHERE_SS: return y > 0 ? S : S2;
    case TS_TM_RV_IOTA: return row;
    case TS_TM_RV_WHERE_EQ: return row == (double)in->k ? x : y;
    case TS_TM_RV_WHERE_EQ_SS: return row == (double)in->k ? S : S2;
    case TS_TM_RV_MAP: return softsign(x);
    case TS_TM_RV_MAP2: *scale = fabs(x * alpha) + fabs(y); return x * alpha - y;
    case TS_TM_RV_MAP3: *scale = fabs(x * y) + fabs(x); return x * y - x;
    default: return column; /* TS_TM_CV_IOTA */
    }
}

static void check_tile_math_case(const ts_test_tile_math_case *tc) {
    uint64_t seed = ts_test_fresh_seed(), st = seed;
    const int R = tc->rows, C = tc->cols, n = R * C;
    tm_inputs in = {R, C, malloc(n * sizeof(float)), malloc(n * sizeof(float)), malloc(n * sizeof(float)),
                    malloc(R * sizeof(float)), malloc(R * sizeof(float)), malloc(C * sizeof(float)), 0, 0, 0};
    float *out = malloc(n * sizeof(float));
    for (int mode = 0; mode < TS_TM_COUNT; ++mode) {
        tm_draw(&in, mode, &st);
        float *da = ts_test_device_copy(in.a, n * sizeof(float)), *db = ts_test_device_copy(in.b, n * sizeof(float));
        float *dc = ts_test_device_copy(in.c, n * sizeof(float)), *dout = ts_test_device_copy(NULL, n * sizeof(float));
        float *dr = ts_test_device_copy(in.rvec, R * sizeof(float)), *dr2 = ts_test_device_copy(in.rvec2, R * sizeof(float));
        float *dcv = ts_test_device_copy(in.cvec, C * sizeof(float));
        cr_assert(da && db && dc && dout && dr && dr2 && dcv);
        cr_assert_eq(tc->run(dout, da, db, dc, dr, dr2, dcv, mode, in.row0, in.col0, in.k), TS_SUCCESS, "%s mode %d",
                     tc->name, mode);
        cr_assert_eq(ts_device_synchronize(), TS_SUCCESS);
        cr_assert_eq(ts_test_copy_back(out, dout, n * sizeof(float)), TS_SUCCESS);
        int hits = 0;
        for (int r = 0; r < R; ++r)
            for (int col = 0; col < C; ++col) {
                double scale;
                const double ref = tm_expect(&in, mode, r, col, &scale);
                const float got = out[(size_t)r * C + col];
                hits += ref == 1.0;
                cr_assert(close_enough(got, ref, scale), "%s mode %d at (%d, %d) (origin %lld, %lld, k %lld): %.9g vs %.9g (seed %llu)",
                          tc->name, mode, r, col, in.row0, in.col0, in.k, (double)got, ref, (unsigned long long)seed);
            }
        /* The comparisons' planted equal values: some elements compare equal, so a constant 0 fails. */
        if (mode == TS_TM_EQ || mode == TS_TM_EQ_S || mode == TS_TM_RV_EQ || mode == TS_TM_RV_EQ_S || mode == TS_TM_EQ_COL)
            cr_assert(hits > 0, "%s mode %d: no equal elements drawn (seed %llu)", tc->name, mode, (unsigned long long)seed);
        cr_assert_eq(ts_free(da), TS_SUCCESS);
        cr_assert_eq(ts_free(db), TS_SUCCESS);
        cr_assert_eq(ts_free(dc), TS_SUCCESS);
        cr_assert_eq(ts_free(dout), TS_SUCCESS);
        cr_assert_eq(ts_free(dr), TS_SUCCESS);
        cr_assert_eq(ts_free(dr2), TS_SUCCESS);
        cr_assert_eq(ts_free(dcv), TS_SUCCESS);
    }
    free(in.a);
    free(in.b);
    free(in.c);
    free(in.rvec);
    free(in.rvec2);
    free(in.cvec);
    free(out);
}

Test(tile_math, tile_and_vector_ops_every_shape_and_layout) {
    TS_TEST_REQUIRE_DEVICE();
    const ts_test_tile_math_case *tc;
    for (int k = 0; (tc = ts_test_tile_math_case_at(k)) != NULL; ++k) check_tile_math_case(tc);
}

/* ---- warp vectors -------------------------------------------------------------------------------- */

static double wm_expect(int mode, double x, double y, double z, double pos, long long k, double *scale) {
    const double S = TS_TM_S, S2 = TS_TM_S2, alpha = TS_TM_ALPHA;
    *scale = 0.0;
    switch (mode) {
    case TS_WM_DIV: return x / y;
    case TS_WM_DIV_S: return x / S2;
    case TS_WM_MAXIMUM: return fmax(x, y);
    case TS_WM_MINIMUM: return fmin(x, y);
    case TS_WM_MAXIMUM_S: return fmax(x, S);
    case TS_WM_MINIMUM_S: return fmin(x, S);
    case TS_WM_EXP: return unary(U_EXP, x);
    case TS_WM_LOG: *scale = 1; return unary(U_LOG, x);
    case TS_WM_ABS: return unary(U_ABS, x);
    case TS_WM_RELU: return unary(U_RELU, x);
    case TS_WM_NEG: return unary(U_NEG, x);
    case TS_WM_SQRT: return unary(U_SQRT, x);
    case TS_WM_RSQRT: return unary(U_RSQRT, x);
    case TS_WM_TANH: *scale = 1; return unary(U_TANH, x);
    case TS_WM_SIGMOID: *scale = 1; return unary(U_SIGMOID, x);
    case TS_WM_SILU: *scale = 1 + fabs(x); return unary(U_SILU, x);
    case TS_WM_GELU_TANH: *scale = 1 + fabs(x); return unary(U_GELU_TANH, x);
    case TS_WM_GELU_ERF: *scale = 1 + fabs(x); return unary(U_GELU_ERF, x);
    case TS_WM_ERF: *scale = 1; return unary(U_ERF, x);
    case TS_WM_EQ: case TS_WM_NE: case TS_WM_LT: case TS_WM_LE: case TS_WM_GT: case TS_WM_GE:
        return compare(mode - TS_WM_EQ, x, y);
    case TS_WM_EQ_S: case TS_WM_NE_S: case TS_WM_LT_S: case TS_WM_LE_S: case TS_WM_GT_S: case TS_WM_GE_S:
        return compare(mode - TS_WM_EQ_S, x, S);
    case TS_WM_FMA: return x * y + z;
    case TS_WM_FMA_S: return x * S2 + z;
    case TS_WM_FMA_SS: return x * S2 + S;
    case TS_WM_WHERE: return z > 0 ? x : y;
    case TS_WM_WHERE_S: return z > 0 ? x : S;
    case TS_WM_WHERE_SS: return z > 0 ? S : S2;
    case TS_WM_IOTA: return pos;
    case TS_WM_WHERE_EQ: return pos == (double)k ? x : y;
    case TS_WM_WHERE_EQ_SS: return pos == (double)k ? S : S2;
    case TS_WM_MAP: return softsign(x);
    case TS_WM_MAP2: *scale = fabs(x * alpha) + fabs(y); return x * alpha - y;
    default: *scale = fabs(x * y) + fabs(z); return x * y - z; /* TS_WM_MAP3 */
    }
}

Test(tile_math, warp_vector_ops_both_layouts) {
    TS_TEST_REQUIRE_DEVICE();
    enum { E = TS_TEST_WVM_E };
    uint64_t seed = ts_test_fresh_seed(), st = seed;
    float *x = malloc(E * sizeof(float)), *y = malloc(E * sizeof(float)), *z = malloc(E * sizeof(float));
    float *out = malloc(E * sizeof(float));
    for (int split = 0; split < 2; ++split)
        for (int mode = 0; mode < TS_WM_COUNT; ++mode) {
            for (int i = 0; i < E; ++i) {
                x[i] = (float)(2.0 * ts_test_normal(&st));
                y[i] = (float)(2.0 * ts_test_normal(&st));
                z[i] = (float)(2.0 * ts_test_normal(&st));
                if (fabsf(y[i]) < 0.05f) y[i] = 0.5f;
                const double u = ts_test_uniform(&st);
                if (u < 0.3) y[i] = x[i];
                else if (u < 0.6) x[i] = TS_TM_S;
            }
            const long long start = (long long)(ts_test_uniform(&st) * 1000000);
            const long long k = start + (long long)(ts_test_uniform(&st) * E);
            float *dx = ts_test_device_copy(x, E * sizeof(float)), *dy = ts_test_device_copy(y, E * sizeof(float));
            float *dz = ts_test_device_copy(z, E * sizeof(float)), *dout = ts_test_device_copy(NULL, E * sizeof(float));
            cr_assert(dx && dy && dz && dout);
            cr_assert_eq(ts_test_wv_math(dout, dx, dy, dz, mode, start, k, split), TS_SUCCESS, "mode %d", mode);
            cr_assert_eq(ts_device_synchronize(), TS_SUCCESS);
            cr_assert_eq(ts_test_copy_back(out, dout, E * sizeof(float)), TS_SUCCESS);
            int picked = 0;
            for (int e = 0; e < E; ++e) {
                double scale;
                const double ref = wm_expect(mode, x[e], y[e], z[e], (double)(start + e), k, &scale);
                picked += mode == TS_WM_WHERE_EQ_SS && ref == TS_TM_S;
                cr_assert(close_enough(out[e], ref, scale), "%s mode %d element %d: %.9g vs %.9g (start %lld, k %lld, seed %llu)",
                          split ? "split" : "contiguous", mode, e, (double)out[e], ref, start, k,
                          (unsigned long long)seed);
            }
            if (mode == TS_WM_WHERE_EQ_SS) cr_assert_eq(picked, 1, "exactly one element is at index k");
            cr_assert_eq(ts_free(dx), TS_SUCCESS);
            cr_assert_eq(ts_free(dy), TS_SUCCESS);
            cr_assert_eq(ts_free(dz), TS_SUCCESS);
            cr_assert_eq(ts_free(dout), TS_SUCCESS);
        }
    free(x);
    free(y);
    free(z);
    free(out);
}

/* A CPU test of the references themselves, which every binary holds: known values of the
 * activations, so a wrong reference cannot make a wrong op pass. */
Test(tile_math, references_match_known_values) {
    cr_assert_float_eq(sigmoid(0.0), 0.5, 1e-15);
    cr_assert_float_eq(unary(U_SILU, 1.0), 0.7310585786300049, 1e-12);
    cr_assert_float_eq(gelu_erf(1.0), 0.8413447460685429, 1e-12);
    cr_assert_float_eq(gelu_tanh(1.0), 0.8411919906082768, 1e-12);
    cr_assert_float_eq(unary(U_RSQRT, 3.75), 0.5, 1e-15);
    cr_assert_float_eq(softsign(-3.0), -0.75, 1e-15);
}
