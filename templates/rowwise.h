/* The row-wise kernel template: kernels that read each row of a strided matrix once, hold it in
 * registers, reduce it and write it out (the norms, softmax; a user's row kernel). How to build one:
 * docs/row-template.md. What it holds:
 *   - the model: a row is cut into slices of TS_ROWWISE_E = 1024 elements, a warp each, held in a
 *     warp vector (tiles/warp_vector.h); a row of W > 1 slices is a group of W warps that combine
 *     their statistics through shared memory (ts_group_sum, ts_group_max), at most
 *     TS_ROWWISE_MAX_WARPS (templates/rowwise_tuning.h);
 *   - the instances a family's variant header is compiled into, one set per input dtype
 *     (templates/rowwise_instances.h: general, short, whole; rowwise_one_warp_row.h,
 *     rowwise_long_row_instances.h, rowwise_rows_instances.h), each with the compile-time settings
 *     the variant reads (TS_ROWWISE_SHORT, TS_ROWWISE_WHOLE, ...);
 *   - the host side: argument checks of a strided matrix, the launch plan (here) and the dispatch
 *     ladder that picks an instance for a call (templates/rowwise_dispatch.h).
 * Host code and macros that a variant expands; the backend-free conditions are in
 * templates/rowwise_plan.h. */
#ifndef TESSERA_TEMPLATES_ROWWISE_H
#define TESSERA_TEMPLATES_ROWWISE_H

#include <limits.h>
#include <stdint.h>

#include <tessera/tessera.h>

#include "backends/backend.h"
#include "templates/rowwise_plan.h"
#include "templates/rowwise_tuning.h"
#include "tiles/warp_vector.h"

/* The warp-vector layout of an instance of input dtype `dtype`: split for fp32 where every strip is
 * whole and every dtype the input's (`whole`: the whole and rows instances), since a contiguous fp32
 * chunk takes each 16-byte access of the warp over half of 32 sectors; contiguous otherwise (16-bit
 * chunks are one access each; the general instances' run-time dtypes and the short instances'
 * partial strips measured slower split). docs/memory-bound.md, "Layouts". */
#define TS_ROWWISE_LAYOUT_FOR(dtype, whole) ((dtype) == TS_DTYPE_F32 && (whole) ? TS_WV_SPLIT : TS_WV_CONTIGUOUS)

/* The longest row this backend takes: TS_ROWWISE_MAX_COLS (tessera.h), or fewer where a block holds
 * fewer slices (8192 on CDNA). */
#define TS_ROWWISE_BACKEND_MAX_COLS                                                                \
    (TS_ROWWISE_E * TS_ROWWISE_MAX_WARPS < TS_ROWWISE_MAX_COLS ? TS_ROWWISE_E * TS_ROWWISE_MAX_WARPS \
                                                               : TS_ROWWISE_MAX_COLS)

static inline int ts_rowwise_dtype_valid(ts_dtype t) {
    return t == TS_DTYPE_F32 || t == TS_DTYPE_BF16 || t == TS_DTYPE_FP16;
}

/* The row of a family's launcher table: bf16, fp16, fp32. */
static inline int ts_rowwise_dtype_index(ts_dtype t) { return t == TS_DTYPE_BF16 ? 0 : t == TS_DTYPE_FP16 ? 1 : 2; }

/* A rows x cols matrix of dtype with a row stride: present, aligned to its element, rows that do
 * not overlap, and an extent that fits in a signed 64-bit byte offset. */
static inline ts_status ts_rowwise_check_matrix(const void *ptr, ts_dtype dtype, long long rows, int cols,
                                                long long stride) {
    if (!ptr) return TS_ERROR_NULL_POINTER;
    if (stride < cols) return TS_ERROR_INVALID_VALUE;
    if ((uintptr_t)ptr % (uintptr_t)ts_rowwise_dtype_bytes(dtype)) return TS_ERROR_MISALIGNED;
    if (stride > ((long long)1 << 60) / rows) return TS_ERROR_SIZE_OVERFLOW;
    return TS_SUCCESS;
}

/* In the whole instance of one-warp-aimed one-pass blocks a block is exactly one row group, so a
 * row's warps are the block's (no run-time division ahead of the first load). */
#define TS_ROWWISE_ONE_GROUP (TS_ROWWISE_WHOLE && TS_ROWWISE_ONE_PASS_BLOCK_WARPS == 1)

/* In a variant: declares nw (warps a row), groups (row groups a block), warp, group (this warp's
 * row group) and w (its slice of the row). An instance of one-warp blocks (TS_ROWWISE_BLOCK_WARPS_MAX
 * 1) knows nw is 1, so that its cross-warp reductions compile away. */
#define TS_ROWWISE_BLOCK_LAYOUT(warps_per_row)                                                     \
    const int nw = TS_ROWWISE_BLOCK_WARPS_MAX == 1 ? 1 : TS_ROWWISE_ONE_GROUP ? ts_num_warps() : (warps_per_row); \
    const int groups = TS_ROWWISE_ONE_GROUP ? 1 : ts_num_warps() / nw;                              \
    const int warp = ts_warp_id(), group = TS_ROWWISE_ONE_GROUP ? 0 : warp / nw,                    \
              w = TS_ROWWISE_ONE_GROUP ? warp : warp % nw

/* Blocks of about block_warps warps, as many row groups each as fit (at least one); *row_groups
 * is the grid of one pass; plan->grid is capped at TS_ROWWISE_BLOCKS_PER_SM blocks on each of `sms`
 * SMs, past which blocks loop. */
static inline void ts_rowwise_plan_blocks(long long rows, int cols, int block_warps, int sms, ts_rowwise_plan *plan,
                                          long long *row_groups) {
    const int w = (cols + TS_ROWWISE_E - 1) / TS_ROWWISE_E;
    int groups = block_warps / w;
    if (groups < 1) groups = 1;
    *row_groups = (rows + groups - 1) / groups;
    plan->warps_per_row = w;
    plan->warps = groups * w;
    plan->one_pass = 0;
    plan->whole = 0;
    plan->shared_bytes = w > 1 ? (size_t)plan->warps * 2 * sizeof(float) : 0;
    const long long cap = (long long)sms * TS_ROWWISE_BLOCKS_PER_SM;
    plan->grid = (unsigned)(*row_groups > cap ? cap : *row_groups);
}

/* The launch plan of the slice instances: where `uniform` (every output and parameter in the input's
 * dtype: the short instance's single dtype path), the rows at most TS_ROWWISE_SHORT_WARPS slices and
 * every row group fits a launch, one pass in blocks of TS_ROWWISE_ONE_PASS_BLOCK_WARPS, a row group
 * a block (the short instance); otherwise the general instance's blocks of about
 * TS_ROWWISE_BLOCK_WARPS over a capped grid. */
static inline void ts_rowwise_make_plan(long long rows, int cols, int uniform, int sms, ts_rowwise_plan *plan) {
    long long row_groups = 0;
    if (uniform) {
        ts_rowwise_plan_blocks(rows, cols, TS_ROWWISE_ONE_PASS_BLOCK_WARPS, sms, plan, &row_groups);
        if (plan->warps <= TS_ROWWISE_SHORT_WARPS && row_groups <= INT_MAX) {
            plan->one_pass = 1;
            plan->grid = (unsigned)row_groups;
            return;
        }
    }
    ts_rowwise_plan_blocks(rows, cols, TS_ROWWISE_BLOCK_WARPS, sms, plan, &row_groups);
}

/* The elements of a warp's slice in a variant: TS_ROWWISE_E, or in a long-row instance
 * (rowwise_long_row.h) the longest row it holds, TS_ROWWISE_LONG_ROW (0 elsewhere). */
#define TS_ROWWISE_SLICE_E (TS_ROWWISE_LONG_ROW ? TS_ROWWISE_LONG_ROW : TS_ROWWISE_E)
/* Whether this backend has narrow and middle long-row instances (rowwise_plan.h: shorter than the
 * long-row instance's longest row at this warp width; none on CDNA). */
#define TS_ROWWISE_HAS_LONG_ROW_NARROW                                                             \
    (TS_ROWWISE_LONG_ROW_NARROW_COLS(TS_WARP_LANES) < TS_ROWWISE_LONG_ROW_COLS(TS_WARP_LANES))
#define TS_ROWWISE_HAS_LONG_ROW_MID                                                                \
    (TS_ROWWISE_LONG_ROW_MID_COLS(TS_WARP_LANES) < TS_ROWWISE_LONG_ROW_COLS(TS_WARP_LANES))

/* Whether `rows` rows of `cols` columns take a long-row instance (rowwise_plan.h:
 * ts_rowwise_long_row, and a grid that fits), and its plan, a row a one-warp block, into *plan. */
static inline int ts_rowwise_long_row_plan(long long rows, int cols, int dtype_bytes, ts_rowwise_plan *plan) {
    if (!ts_rowwise_long_row(cols, dtype_bytes, TS_WARP_LANES) || rows > INT_MAX) return 0;
    plan->warps_per_row = 1;
    plan->warps = 1;
    plan->one_pass = 1;
    plan->whole = 0;
    plan->grid = (unsigned)rows;
    plan->shared_bytes = 0;
    return 1;
}

/* In a variant: ptr, promised 16-byte aligned in the whole instance (TS_ROWWISE_WHOLE, whose launch
 * plan guarantees it; ops/warp_vector.h). */
#define TS_ROWWISE_ASSUME_ALIGNED(ptr) TS_WV_ASSUME_ALIGNED(TS_ROWWISE_WHOLE, ptr)

/* In a variant: a row stride of `bytes`-byte elements that the launcher has checked to be a multiple
 * of 16 bytes, with its low bits cleared so that the compiler knows it too (the same value): the
 * loads and stores of a strip of rows (ops/warp_vector.h) then compile without their unaligned
 * paths. */
#define TS_ROWWISE_ALIGNED_STRIDE(stride, bytes) ((stride) & ~(long long)(16 / (bytes)-1))

/* An instance's launcher: its kernel over the plan's grid, warps and shared memory, params pointing
 * at the family's parameter struct. */
typedef ts_status (*ts_rowwise_launch_fn)(const void *params, const ts_rowwise_plan *plan, ts_stream stream);

/* Defines the ts_rowwise_launch_fn `launcher` of `kernel`. */
#define TS_ROWWISE_LAUNCHER(launcher, kernel, params_type)                                         \
    static ts_status launcher(const void *params, const ts_rowwise_plan *plan, ts_stream stream) { \
        const params_type p = *(const params_type *)params;                                        \
        return TS_LAUNCH(kernel, ts_grid_1d(plan->grid), plan->warps, plan->shared_bytes, stream, p); \
    }

#endif
