/* The accumulator stores a matrix product's epilogue and split-K use (ops/store_axpby.h,
 * ops/fragment_groups.h), against references in double on fresh random tiles: alpha and beta,
 * every output dtype, the transposed form, ragged edges (nothing written past the product's rows
 * and columns, nothing read with beta == 0), and the group order's round trip through memory for
 * one to nine pieces, added in order; a register tile's column blocks as tiles of their own
 * (ops/register_slices.h). On the CPU: the group order of every backend's fragment layout places
 * each element of a tile exactly once. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "backends/cuda/fragment_layout.h"
#include "backends/half_bits.h"
#include "backends/hip/fragment_layout.h"
#include "backends/host/fragment_layout.h"
#include "support/test_support.h"
#include "tests/kernels/accumulator_kernels.h"

enum { R = TS_TEST_ACC_ROWS, C = TS_TEST_ACC_COLS };

static size_t dtype_bytes(int dtype) { return dtype == 1 ? 4 : 2; }
static double get_elem(const void *p, int dtype, size_t i) {
    if (dtype == 1) return ((const float *)p)[i];
    const unsigned short b = ((const unsigned short *)p)[i];
    return dtype == 2 ? ts_f32_from_bf16_bits(b) : ts_f32_from_fp16_bits(b);
}
static void set_elem(void *p, int dtype, size_t i, float x) {
    if (dtype == 1)
        ((float *)p)[i] = x;
    else
        ((unsigned short *)p)[i] = dtype == 2 ? ts_bf16_bits_from_f32(x) : ts_fp16_bits_from_f32(x);
}

/* A product of rows x cols in memory of `mem_rows` rows of ld elements: (r, c) at r * ld + c, or
 * transposed at c * ld + r. */
typedef struct {
    int dtype, transposed;
    long long rows, cols, ld, row0, col0;
    float alpha, beta;
} store_case;

static size_t mem_elems(const store_case *s) { return (size_t)(s->transposed ? s->cols : s->rows) * s->ld; }
static size_t place(const store_case *s, long long r, long long c) {
    return (size_t)(s->transposed ? c * s->ld + r : r * s->ld + c);
}

/* Runs `pieces` random tiles through the store (pieces 0: ts_store_r2g_axpby of one tile) or the
 * group round trip and reduction, and checks every element of memory. */
static void check_case(store_case s, int pieces) {
    uint64_t seed = ts_test_fresh_seed(), st = seed;
    const int tiles = pieces ? pieces : 1;
    float *in = malloc(sizeof(float) * R * C * tiles);
    ts_test_fill_normal(in, (size_t)R * C * tiles, &st);
    const size_t n = mem_elems(&s), bytes = n * dtype_bytes(s.dtype);
    unsigned char *c0 = malloc(bytes), *got = malloc(bytes);
    for (size_t i = 0; i < n; ++i) set_elem(c0, s.dtype, i, (float)ts_test_normal(&st));
    void *d_in = ts_test_device_copy(in, sizeof(float) * R * C * tiles);
    /* With beta == 0 the destination must not be read: NaN everywhere but where it is written. */
    void *d_out = ts_test_device_copy(s.beta != 0.0f ? c0 : NULL, bytes);
    cr_assert(d_in && d_out);
    const ts_test_acc_out out = {d_out, s.dtype, s.transposed, s.rows, s.cols, s.ld};
    if (pieces == 0) {
        cr_assert_eq(ts_test_store_axpby(d_in, out, s.row0, s.col0, s.alpha, s.beta), TS_SUCCESS);
    } else {
        /* The pieces' areas apart by more than a tile, the groups in a shuffled order. */
        const long long stride = R * C + 4 * (long long)(ts_test_uniform(&st) * 8);
        const int groups = ts_test_acc_groups();
        cr_assert_eq(groups * 4 * (R * C / (groups * 4)), R * C);
        int *order = malloc(sizeof(int) * groups);
        for (int g = 0; g < groups; ++g) order[g] = g;
        for (int g = groups - 1; g > 0; --g) {
            const int k = (int)(ts_test_uniform(&st) * (g + 1)), t = order[g];
            order[g] = order[k];
            order[k] = t;
        }
        void *d_area = ts_test_device_copy(NULL, sizeof(float) * (size_t)stride * pieces);
        void *d_order = ts_test_device_copy(order, sizeof(int) * groups);
        cr_assert(d_area && d_order);
        cr_assert_eq(ts_test_reduce_groups(d_in, pieces, d_area, stride, d_order, out, s.row0, s.col0, s.alpha, s.beta),
                     TS_SUCCESS);
        cr_assert_eq(ts_device_synchronize(), TS_SUCCESS);
        cr_assert_eq(ts_free(d_area), TS_SUCCESS);
        cr_assert_eq(ts_free(d_order), TS_SUCCESS);
        free(order);
    }
    cr_assert_eq(ts_device_synchronize(), TS_SUCCESS);
    cr_assert_eq(ts_test_copy_back(got, d_out, bytes), TS_SUCCESS);
    const double out_eps = s.dtype == 1 ? 1e-6 : s.dtype == 2 ? 1.0 / 256 : 1.0 / 2048;
    for (long long r = 0; r < (s.transposed ? s.cols : s.rows); ++r)
        for (long long c = 0; c < s.ld; ++c) {
            /* Memory element (r, c) is the product's (r, c), or transposed its (c, r). */
            const long long pr = s.transposed ? c : r, pc = s.transposed ? r : c;
            const size_t i = place(&s, pr, pc);
            const long long tr = pr - s.row0, tc = pc - s.col0;
            const int written = pr < s.rows && pc < s.cols && tr >= 0 && tr < R && tc >= 0 && tc < C;
            const double v = get_elem(got, s.dtype, i);
            if (!written) {
                if (s.beta != 0.0f)
                    cr_assert(v == get_elem(c0, s.dtype, i), "(%lld, %lld) changed (seed %llu)", pr, pc,
                              (unsigned long long)seed);
                else
                    cr_assert(isnan(v), "(%lld, %lld) written (seed %llu)", pr, pc, (unsigned long long)seed);
                continue;
            }
            double sum = 0.0, mag = 0.0;
            for (int j = 0; j < tiles; ++j) {
                const double x = in[((size_t)j * R + tr) * C + tc];
                sum += x;
                mag += fabs(x);
            }
            const double old = s.beta != 0.0f ? get_elem(c0, s.dtype, i) : 0.0;
            const double ref = s.alpha * sum + s.beta * old;
            const double tol = 1e-6 * (fabs(s.alpha) * mag + fabs(s.beta * old) + 1.0) + out_eps * fabs(ref);
            cr_assert(fabs(v - ref) <= tol, "dtype %d transposed %d pieces %d: (%lld, %lld) = %.7g, reference %.7g (seed %llu)",
                      s.dtype, s.transposed, pieces, pr, pc, v, ref, (unsigned long long)seed);
        }
    cr_assert_eq(ts_free(d_in), TS_SUCCESS);
    cr_assert_eq(ts_free(d_out), TS_SUCCESS);
    free(in);
    free(c0);
    free(got);
}

/* Places of the tile: whole inside, cut by the last rows and columns, and partly past both. */
static const long long spots[][6] = {
    /* rows, cols, ld, row0, col0, transposed */
    {40, 100, 104, 16, 32, 0}, {20, 70, 72, 8, 30, 0}, {16, 64, 64, 0, 0, 0},
    {40, 100, 48, 16, 32, 1},  {20, 70, 24, 8, 30, 1}, {9, 33, 16, 0, 0, 1},
};

Test(accumulator_ops, store_axpby_every_dtype_edge_and_form) {
    TS_TEST_REQUIRE_DEVICE();
    const float ab[][2] = {{1.0f, 0.0f}, {-0.5f, 0.75f}, {2.0f, -1.0f}};
    for (int dtype = 1; dtype <= 3; ++dtype)
        for (int k = 0; k < 6; ++k)
            for (int a = 0; a < 3; ++a) {
                const store_case s = {dtype, (int)spots[k][5], spots[k][0], spots[k][1], spots[k][2],
                                      spots[k][3], spots[k][4], ab[a][0], ab[a][1]};
                check_case(s, 0);
            }
}

Test(accumulator_ops, group_order_round_trip_and_reduction) {
    TS_TEST_REQUIRE_DEVICE();
    for (int pieces = 1; pieces <= 9; ++pieces)
        for (int dtype = 1; dtype <= 3; ++dtype) {
            const int k = (pieces + dtype) % 6;
            const store_case s = {dtype, (int)spots[k][5], spots[k][0], spots[k][1], spots[k][2], spots[k][3],
                                  spots[k][4], pieces % 2 ? 1.0f : 0.5f, pieces % 3 ? 0.0f : -1.0f};
            check_case(s, pieces);
        }
}

Test(accumulator_ops, column_blocks_of_a_register_tile) {
    TS_TEST_REQUIRE_DEVICE();
    uint64_t seed = ts_test_fresh_seed(), st = seed;
    for (int dtype = 1; dtype <= 2; ++dtype) {
        const size_t n = 16 * 256, bytes = n * dtype_bytes(dtype);
        unsigned char *in = malloc(bytes), *got = malloc(bytes);
        for (size_t i = 0; i < n; ++i) set_elem(in, dtype, i, (float)ts_test_normal(&st));
        void *d_in = ts_test_device_copy(in, bytes), *d_out = ts_test_device_copy(NULL, bytes);
        cr_assert(d_in && d_out);
        cr_assert_eq(ts_test_copy_cols(d_in, d_out, dtype), TS_SUCCESS);
        cr_assert_eq(ts_device_synchronize(), TS_SUCCESS);
        cr_assert_eq(ts_test_copy_back(got, d_out, bytes), TS_SUCCESS);
        cr_assert_eq(memcmp(got, in, bytes), 0, "dtype %d: a column block moved (seed %llu)", dtype,
                     (unsigned long long)seed);
        cr_assert_eq(ts_free(d_in), TS_SUCCESS);
        cr_assert_eq(ts_free(d_out), TS_SUCCESS);
        free(in);
        free(got);
    }
}

/* The group order: lane l's element e at 4 * ((e / 4) * lanes + l) + e % 4. For each backend's
 * fragment layout of a 16 x 64 fp32 row tile, every element of the tile is stored exactly once,
 * at offsets that fill the R * C floats, and a group's lanes are one contiguous run. */
typedef int (*layout_fn)(int layout, int bytes, int lane, int i);
static void check_group_order(const char *name, int lanes, int sub_elems, layout_fn row, layout_fn col) {
    const int elems = (R / 16) * (C / 16) * sub_elems;
    cr_assert_eq(elems % 4, 0, "%s", name);
    cr_assert_eq(elems * lanes, R * C, "%s", name);
    int *at = calloc(R * C, sizeof *at), *cell = calloc(R * C, sizeof *cell);
    for (int lane = 0; lane < lanes; ++lane)
        for (int e = 0; e < elems; ++e) {
            const int s = e / sub_elems, i = e % sub_elems;
            const int r = (s / (C / 16)) * 16 + row(TS_LAYOUT_ROW, 4, lane, i), c = (s % (C / 16)) * 16 + col(TS_LAYOUT_ROW, 4, lane, i);
            const int off = 4 * ((e / 4) * lanes + lane) + e % 4;
            cr_assert(off >= 0 && off < R * C && r >= 0 && r < R && c >= 0 && c < C, "%s lane %d e %d", name, lane, e);
            cr_assert_eq(at[off]++, 0, "%s: offset %d twice", name, off);
            cr_assert_eq(cell[r * C + c]++, 0, "%s: element (%d, %d) twice", name, r, c);
            /* A group's 16-byte pieces, lane after lane. */
            cr_assert_eq(off / (4 * lanes), e / 4);
            cr_assert_eq(off % (4 * lanes) / 4, lane);
        }
    free(at);
    free(cell);
}

Test(accumulator_ops, group_order_covers_every_backends_tile_once) {
    check_group_order("cuda", 32, TS_CUDA_RT_SUB_ELEMS, ts_cuda_rt_row, ts_cuda_rt_col);
    check_group_order("hip", 64, TS_HIP_RT_SUB_ELEMS, ts_hip_rt_row, ts_hip_rt_col);
    check_group_order("host", 1, TS_HOST_RT_SUB_ELEMS, ts_host_rt_row, ts_host_rt_col);
}
