/* Launchers of the kernels that test the element-wise math, selection and index ops (ops/maps.h,
 * ops/index.h, ops/reductions.h' comparisons with a vector, ops/warp_vector.h), the loads and
 * stores that convert dtypes (ops/memory.h), and the one-lane ops (ops/one_lane.h). */
#ifndef TESSERA_TESTS_TILE_MATH_KERNELS_H
#define TESSERA_TESTS_TILE_MATH_KERNELS_H

#include <tessera/tessera.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The scalars the kernels pass to the _scalar forms. */
#define TS_TM_S 0.5f
#define TS_TM_S2 (-1.25f)
#define TS_TM_ALPHA 1.5f

/* Ops on one fp32 tile of R x C (row-major inputs a, b, c, ld C), one warp: out receives R x C.
 * Vector inputs: rvec and rvec2 (R entries, as row vectors), cvec (C entries, as a column vector).
 * The tile sits at (row0, col0) of a larger matrix for the index ops; k is the index the ts_where_eq
 * forms look for. Modes TS_TM_RV_*: the op on the row vectors, broadcast over the tile's rows. */
enum {
    /* tiles: unary (SQRT of |a|, RSQRT of |a| + 0.25) */
    TS_TM_NEG, TS_TM_SQRT, TS_TM_RSQRT, TS_TM_TANH, TS_TM_SIGMOID, TS_TM_SILU, TS_TM_GELU_TANH, TS_TM_GELU_ERF,
    TS_TM_ERF,
    /* comparisons of a with b and with TS_TM_S */
    TS_TM_EQ, TS_TM_NE, TS_TM_LT, TS_TM_LE, TS_TM_GT, TS_TM_GE, TS_TM_EQ_S, TS_TM_NE_S, TS_TM_LT_S, TS_TM_LE_S,
    TS_TM_GT_S, TS_TM_GE_S,
    /* a * b + c, a * S2 + c, a * S2 + S */
    TS_TM_FMA, TS_TM_FMA_S, TS_TM_FMA_SS,
    /* mask = c > 0: mask ? a : b, mask ? a : -inf, mask ? S : S2 */
    TS_TM_WHERE, TS_TM_WHERE_S, TS_TM_WHERE_SS,
    /* user maps: a / (1 + |a|) (a TS_DEVICE function), a * ALPHA - b (a macro reading a local),
     * a * b - c (a function of three) */
    TS_TM_MAP, TS_TM_MAP2, TS_TM_MAP3,
    /* index ops: row0 + r, col0 + c; (col0 + c == k) ? a : b; (row0 + r == k) ? 1 : 0 */
    TS_TM_IOTA_ROWS, TS_TM_IOTA_COLS, TS_TM_WHERE_EQ, TS_TM_WHERE_EQ_SS,
    /* with a vector: (col0 + c == rvec[r]) * a (a target per row); (row0 + r == cvec[c]) * a */
    TS_TM_PICK_ROW, TS_TM_PICK_COL,
    /* a op rvec[r] (max, min, ne, lt, le, gt, ge) and a op cvec[c] (max, min, eq, gt) */
    TS_TM_MAX_ROW, TS_TM_MIN_ROW, TS_TM_NE_ROW, TS_TM_LT_ROW, TS_TM_LE_ROW, TS_TM_GT_ROW, TS_TM_GE_ROW,
    TS_TM_MAX_COL, TS_TM_MIN_COL, TS_TM_EQ_COL, TS_TM_GT_COL,
    /* row vectors x = rvec, y = rvec2: unary on x (SQRT of |x|, RSQRT of |x| + 0.25) */
    TS_TM_RV_NEG, TS_TM_RV_ABS, TS_TM_RV_RELU, TS_TM_RV_SQRT, TS_TM_RV_RSQRT, TS_TM_RV_TANH, TS_TM_RV_SIGMOID,
    TS_TM_RV_SILU, TS_TM_RV_GELU_TANH, TS_TM_RV_GELU_ERF, TS_TM_RV_ERF,
    /* x - S, x / S2, min(x, S) */
    TS_TM_RV_SUB_S, TS_TM_RV_DIV_S, TS_TM_RV_MIN_S,
    /* x op y, and x op S */
    TS_TM_RV_EQ, TS_TM_RV_NE, TS_TM_RV_LT, TS_TM_RV_LE, TS_TM_RV_GT, TS_TM_RV_GE, TS_TM_RV_EQ_S, TS_TM_RV_NE_S,
    TS_TM_RV_LT_S, TS_TM_RV_LE_S, TS_TM_RV_GT_S, TS_TM_RV_GE_S,
    /* x * y + x, x * S2 + y, x * S2 + S; mask = y > 0: mask ? x : y, mask ? x : S, mask ? S : S2 */
    TS_TM_RV_FMA, TS_TM_RV_FMA_S, TS_TM_RV_FMA_SS, TS_TM_RV_WHERE, TS_TM_RV_WHERE_S, TS_TM_RV_WHERE_SS,
    /* row0 + r; (row0 + r == k) ? x : y; (row0 + r == k) ? S : S2; the user maps on x, y, (x, y, x) */
    TS_TM_RV_IOTA, TS_TM_RV_WHERE_EQ, TS_TM_RV_WHERE_EQ_SS, TS_TM_RV_MAP, TS_TM_RV_MAP2, TS_TM_RV_MAP3,
    /* a column vector: col0 + c, broadcast over the tile's columns */
    TS_TM_CV_IOTA,
    TS_TM_COUNT
};

typedef struct ts_test_tile_math_case {
    const char *name;
    int rows, cols, col_layout;
    ts_status (*run)(float *out, const float *a, const float *b, const float *c, const float *rvec,
                     const float *rvec2, const float *cvec, int mode, long long row0, long long col0, long long k);
} ts_test_tile_math_case;
const ts_test_tile_math_case *ts_test_tile_math_case_at(int k);

/* Ops on fp32 warp vectors of TS_TEST_WVM_E elements, one warp, in the contiguous or the split
 * layout: x, y, z are the strips, out receives the result strip. start is the position the index
 * starts at (ts_wv_iota), k the index the ts_wv_where_eq forms look for. */
#define TS_TEST_WVM_E 1024
enum {
    /* x / y, x / S2, max(x, y), min(x, y), max(x, S), min(x, S) */
    TS_WM_DIV, TS_WM_DIV_S, TS_WM_MAXIMUM, TS_WM_MINIMUM, TS_WM_MAXIMUM_S, TS_WM_MINIMUM_S,
    /* unary on x (LOG and SQRT of |x|, RSQRT of |x| + 0.25) */
    TS_WM_EXP, TS_WM_LOG, TS_WM_ABS, TS_WM_RELU, TS_WM_NEG, TS_WM_SQRT, TS_WM_RSQRT, TS_WM_TANH, TS_WM_SIGMOID,
    TS_WM_SILU, TS_WM_GELU_TANH, TS_WM_GELU_ERF, TS_WM_ERF,
    /* x op y, x op S */
    TS_WM_EQ, TS_WM_NE, TS_WM_LT, TS_WM_LE, TS_WM_GT, TS_WM_GE, TS_WM_EQ_S, TS_WM_NE_S, TS_WM_LT_S, TS_WM_LE_S,
    TS_WM_GT_S, TS_WM_GE_S,
    /* x * y + z, x * S2 + z, x * S2 + S; mask = z > 0: mask ? x : y, mask ? x : S, mask ? S : S2 */
    TS_WM_FMA, TS_WM_FMA_S, TS_WM_FMA_SS, TS_WM_WHERE, TS_WM_WHERE_S, TS_WM_WHERE_SS,
    /* start + e; (start + e == k) ? x : y; (start + e == k) ? S : S2 */
    TS_WM_IOTA, TS_WM_WHERE_EQ, TS_WM_WHERE_EQ_SS,
    /* the user maps of the tiles' test: x / (1 + |x|), x * ALPHA - y, x * y - z */
    TS_WM_MAP, TS_WM_MAP2, TS_WM_MAP3,
    TS_WM_COUNT
};
ts_status ts_test_wv_math(float *out, const float *x, const float *y, const float *z, int mode, long long start,
                          long long k, int split);

/* Loads and stores between a global of one dtype and a tile of another: each block takes tile
 * (block / tiles_across, block % tiles_across) of `in` (rows x cols of in_dtype, leading dimension
 * ld) to `out` (out_rows x out_cols of out_dtype, the same ld) through a register tile (shared 0)
 * or a shared tile (shared 1) of the case's dtype. The dtypes are run-time values, any of the three
 * or an unknown one. */
typedef struct ts_test_convert_case {
    const char *name;
    int dtype, rows, cols;
    ts_status (*run)(void *out, int out_dtype, const void *in, int in_dtype, int rows, int cols, int out_rows,
                     int out_cols, int ld, int shared);
} ts_test_convert_case;
const ts_test_convert_case *ts_test_convert_case_at(int k);

/* Vectors between arrays of run-time dtypes, one warp, n of 64 entries valid:
 * rv_out (out_dtype) = a 64-entry fp32 row vector loaded from in (in_dtype) by ts_rv_load_typed and
 * stored by ts_rv_store_typed; sv_out (out_dtype) = in loaded into a bf16 shared vector
 * (ts_sv_load_g2s_typed), widened into a register vector (ts_rv_load_s), rounded into an fp16
 * shared vector (ts_rv_store_s) and stored (ts_sv_store_s2g_typed). */
ts_status ts_test_convert_vectors(void *rv_out, void *sv_out, int out_dtype, const void *in, int in_dtype, long long n);

/* The one-lane ops, `blocks` blocks of `warps` warps, by mode:
 *   UNGUARDED      every warp calls ts_atomic_add_i32(count, 1) in every lane
 *   GUARDED        the same inside TS_ONE_LANE
 *   LANE_ATOMIC    ts_lane_atomic_add_i32(count, 1) in every lane
 *   ONE_OPS        old = ts_atomic_add_one_i32(count, 1) (olds[(block * warps + warp) * lanes + lane]
 *                  = old in every lane), ts_store_one_i32(&ints[block * warps + warp], old + 1),
 *                  ts_store_one_f32(&floats[block * warps + warp], 0.5 * warp)
 *   LEFT_BY_BREAK  a TS_ONE_LANE region left by break, one by continue, one by return from a
 *                  function (each after a guarded add), then an unguarded add: the regions must be
 *                  closed by then */
enum { TS_OL_UNGUARDED, TS_OL_GUARDED, TS_OL_LANE_ATOMIC, TS_OL_ONE_OPS, TS_OL_LEFT_BY_BREAK };
ts_status ts_test_one_lane(int mode, int blocks, int warps, int *count, int *olds, int *ints, float *floats);
int ts_test_tile_math_lanes(void);

#ifdef __cplusplus
}
#endif

#endif
