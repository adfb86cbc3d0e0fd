/* Launchers of the kernels that test the tile ops, one instantiation per tile type of the sweep.
 * Shapes, layouts and dtypes are part of a tile's type, so each combination is its own kernel; a
 * launcher is picked by an index into ts_test_tile_io_cases / ts_test_tile_f32_cases. */
#ifndef TESSERA_TESTS_TILE_KERNELS_H
#define TESSERA_TESTS_TILE_KERNELS_H

#include <tessera/tessera.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Dtype ids as in tiles/dtypes.h. */
enum { TS_TEST_F32 = 1, TS_TEST_BF16 = 2, TS_TEST_FP16 = 3 };

/* Memory round trips: each block takes tile (block / tiles_across, block % tiles_across) of `in`
 * (rows x cols, leading dimension ld, elements of the case's dtype) and writes it to out_direct
 * through registers (global -> registers -> global), to out_shared through shared memory
 * (global -> shared -> registers -> shared -> global) and to out_group through shared memory with
 * the group-scope copies of two warps. The outputs have out_rows x out_cols with the same ld. */
typedef struct ts_test_tile_io_case {
    const char *name;
    int dtype, rows, cols, col_layout;
    ts_status (*run)(void *out_direct, void *out_shared, void *out_group, const void *in, int rows, int cols,
                     int out_rows, int out_cols, int ld);
} ts_test_tile_io_case;
/* Case k, or NULL past the last. */
const ts_test_tile_io_case *ts_test_tile_io_case_at(int k);

/* fp32 ops on one tile: mode selects the op (TS_TEST_OP_*); a and b are R x C row-major inputs
 * (ld C), out receives the R x C result (or C x R for transpose), vec receives a reduction's R or
 * C values. row0/col0 place the tile for the masks (TS_TEST_OP_MASK_COLS: row0 is the column
 * limit). */
enum {
    TS_TEST_OP_COPY, TS_TEST_OP_EXP, TS_TEST_OP_EXP2, TS_TEST_OP_LOG, TS_TEST_OP_ABS, TS_TEST_OP_RELU,
    TS_TEST_OP_ADD, TS_TEST_OP_SUB, TS_TEST_OP_MUL, TS_TEST_OP_DIV, TS_TEST_OP_MAX, TS_TEST_OP_MIN,
    TS_TEST_OP_ADD_SCALAR, TS_TEST_OP_MUL_SCALAR, TS_TEST_OP_MAX_SCALAR, TS_TEST_OP_FILL_NEG_INF,
    TS_TEST_OP_ZERO, TS_TEST_OP_ROW_MAX, TS_TEST_OP_ROW_MIN, TS_TEST_OP_ROW_SUM, TS_TEST_OP_COL_MAX,
    TS_TEST_OP_COL_MIN, TS_TEST_OP_COL_SUM, TS_TEST_OP_ROW_SUM_ACC, TS_TEST_OP_COL_MAX_ACC,
    TS_TEST_OP_ADD_ROW, TS_TEST_OP_SUB_ROW, TS_TEST_OP_MUL_ROW, TS_TEST_OP_DIV_ROW, TS_TEST_OP_ADD_COL,
    TS_TEST_OP_MUL_COL, TS_TEST_OP_BROADCAST_ROW, TS_TEST_OP_BROADCAST_COL, TS_TEST_OP_CAUSAL,
    TS_TEST_OP_TRIU, TS_TEST_OP_BF16_ROUND_TRIP, TS_TEST_OP_FP16_ROUND_TRIP, TS_TEST_OP_SWAP_LAYOUT,
    TS_TEST_OP_TRANSPOSE, TS_TEST_OP_SHARED_ROW_VEC, TS_TEST_OP_SHARED_COL_VEC,
    TS_TEST_OP_EXP2_SCALE_SUB_ROW, TS_TEST_OP_MASK_COLS, TS_TEST_OP_COUNT
};

typedef struct ts_test_tile_f32_case {
    const char *name;
    int rows, cols, col_layout;
    ts_status (*run)(float *out, float *vec, const float *a, const float *b, int mode, long long row0, long long col0);
} ts_test_tile_f32_case;
const ts_test_tile_f32_case *ts_test_tile_f32_case_at(int k);

/* Packed warp vectors (ops/warp_vector_packed.h), one 1024-element strip of the case's dtype held
 * by one warp, in the contiguous layout or the split one (the cases named "split"): s = x + residual (elements before n, added in fp32 and rounded to the dtype) stored
 * to sum_out; stats[0] = the sum of s, stats[1] = the sum of (s - shift)^2 over elements before n;
 * norm_out (fp32) = (s - shift) * scale * weight for elements before n; held_out (the dtype) the
 * same with weight_held, a vector of the dtype, loaded first and held in registers. */
typedef struct ts_test_wv_packed_case {
    const char *name;
    int dtype;
    ts_status (*run)(void *sum_out, float *norm_out, void *held_out, void *params_out, float *stats,
                     const void *x, const void *residual, const float *weight, const void *weight_held,
                     long long n, float shift, float scale);
} ts_test_wv_packed_case;
const ts_test_wv_packed_case *ts_test_wv_packed_case_at(int k);

/* fp32 warp vectors (ops/warp_vector.h) loading a 1024-element strip of the case's dtype, one warp,
 * in either layout as above:
 * combined (fp32, all 1024) = (7 + x) * w for elements before n and 7 past them (a vector filled
 * with 7, then ts_wv_load_add of x and ts_wv_load_mul of w); loaded (fp32, all 1024) = x before n
 * and 0 past it (ts_wv_load). */
typedef struct ts_test_wv_case {
    const char *name;
    int dtype;
    ts_status (*run)(float *combined, float *loaded, const void *x, const void *w, long long n);
} ts_test_wv_case;
const ts_test_wv_case *ts_test_wv_case_at(int k);

/* A strip of 3072 bf16 elements in wide rows (ops/warp_vector.h: TS_WV_ROWS_WIDE) of row_chunks
 * chunks a lane (row_chunks * 8 * ts_test_wv_lanes() elements), row i at x + i * stride, one warp:
 * out (fp32, the same layout) = (x - the row's maximum) * the row's sum (ts_wv_row_max,
 * ts_wv_row_sums, ts_wv_sub_row_scalars, ts_wv_mul_row_scalars), then row i's columns at and past i
 * set to -1 (ts_wv_fill_rows_from); sums[i] = row i's sum and sq[i] = its sum of (x - sums[i])^2 by a
 * packed vector (ts_wv_packed_row_sums, _sq). */
int ts_test_wv_lanes(void);

/* A 1024-element fp32 strip x, one warp, in the contiguous or (split) the split layout: each lane's
 * maximum and sum of its own elements (ts_wv_lane_max, ts_wv_lane_sum) in lane_max[lane] and
 * lane_sum[lane]; those combined across the warp (ts_wv_warp_combine) as every lane has them, in
 * warp_max[lane] and warp_sum[lane]; and 2^x of every element (ts_wv_exp2_approx) in exp2. */
ts_status ts_test_wv_lane_stats(float *lane_max, float *lane_sum, float *warp_max, float *warp_sum, float *exp2,
                                const float *x, int split);
ts_status ts_test_wv_wide_rows(float *out, float *sums, float *sq, const void *x, long long stride, int row_chunks);

/* A strip of TS_TEST_WV_QUAD_ROWS_E bf16 elements in the split layout, in quad rows
 * (ops/warp_vector.h: TS_WV_ROWS_QUADS) of row_quads quad rows (row_quads * 4 * ts_test_wv_lanes()
 * elements), row i at x + i * stride, one warp; the last row may be partly in the strip. Per row:
 * mean = its sum / its length (ts_wv_packed_quad_row_sums), sq = the sum of (x - mean)^2
 * (ts_wv_packed_quad_row_sums_sq), scale = 1 / (1 + sq / length); out (bf16, the same layout) =
 * (x - mean) * scale * w + b with w and b one row, loaded as quad rows of stride 0
 * (ts_wv_packed_store_quad_rows_normalized_held_params), copy = x as loaded
 * (ts_wv_packed_store_quad_rows); means[i] and sqs[i] of every row wholly in the strip. row_quads:
 * 1, 3, 5 or 7 (the kernels are built for each), else TS_ERROR_INVALID_VALUE. */
#define TS_TEST_WV_QUAD_ROWS_E 3072
ts_status ts_test_wv_quad_rows(void *out, void *copy, float *means, float *sqs, const void *x, const void *w,
                               const void *b, long long stride, int row_quads);
/* The fp32 ops of the same strip (TS_WV_F32_LAYOUT(..., TS_WV_SPLIT) loaded from bf16): out (fp32, the
 * same layout) = (x - the row's maximum) * the row's sum (ts_wv_quad_row_max, ts_wv_quad_row_sums,
 * ts_wv_sub_quad_row_scalars, ts_wv_mul_quad_row_scalars), then row i's columns at and past i set to
 * -1 (ts_wv_fill_quad_rows_from), stored with ts_wv_store_quad_rows; sums[i] of every row wholly in
 * the strip. */
ts_status ts_test_wv_quad_rows_f32(float *out, float *sums, const void *x, long long stride, int row_quads);

/* Both bf16 halves of each of count words as fp32, one warp: at_use[2i + h] by ts_wvp_elem_at_use
 * (ops/warp_vector.h; a conversion of its own at each use on CUDA), plain[2i + h] by ts_wvp_elem. */
ts_status ts_test_wvp_elem_at_use(float *at_use, float *plain, const unsigned *words, int count);

#ifdef __cplusplus
}
#endif

#endif
