/* What the row-wise memory-bound kernels (kernels/norm, kernels/softmax) share on the host side:
 * argument checks of a strided matrix, the warp-vector type and the launch plan. A row is cut
 * into slices of TS_ROWWISE_E = 1024 elements, one warp each (in registers); a row of up to 1024
 * elements is one warp's, a longer one is a group of W = ceil(cols / TS_ROWWISE_E) warps that
 * combine their statistics through shared memory, at most 16 warps (8 on HIP, whose 16-wave blocks
 * would halve the registers a lane may have: rows of 8192 at most there). A block holds G groups
 * (about 8 warps) and walks the rows G at a time, block after block, so that any row count works;
 * the grid is the number of row groups, capped at 32 blocks per SM, beyond which blocks loop. A
 * family's short instance instead takes the rows in one pass, a row group a block
 * (ts_rowwise_make_plan), and its whole instance the same for whole, aligned slices
 * (rowwise_instances.h, rowwise_plan.h). */
#ifndef TESSERA_TEMPLATES_ROWWISE_H
#define TESSERA_TEMPLATES_ROWWISE_H

#include <limits.h>
#include <stdint.h>

#include <tessera/tessera.h>

#include "backends/backend.h"
#include "templates/rowwise_plan.h"
#include "tiles/warp_vector.h"

/* The layout of the warp vectors (tiles/warp_vector.h) of a row-wise instance of input dtype `dtype`
 * whose strips are whole and whose dtypes are uniform (`whole`: the whole instances, the rows
 * instances) or not: split for whole fp32 strips, whose contiguous chunks would take each 16-byte
 * access of the warp over half of 32 sectors (an fp32 row then cost the H200's L2 twice the requests
 * of its bytes: RMSNorm + residual fp32 65536 x 1024 3.72 -> 4.22 TB/s split, softmax 3.54 -> 4.28);
 * contiguous for 16-bit rows, whose chunks are one 16-byte access each, in the general instances,
 * whose run-time output and parameter dtypes would each take a second access path (split, the fp32
 * norm's spilled 56 bytes at its 128 registers), and in the short instances, whose partial strips
 * measured slower split (the fp32 norms at 65536 x 768 4.18 -> 3.56 TB/s; not analysed).
 * TS_ROWWISE_F32_SPLIT 0: contiguous everywhere, for A/B runs. */
#define TS_ROWWISE_LAYOUT_FOR(dtype, whole) ((dtype) == TS_DTYPE_F32 && (whole) ? TS_WV_SPLIT : TS_WV_CONTIGUOUS)
#ifndef TS_ROWWISE_MAX_WARPS
#if TS_WARP_LANES == 64
#define TS_ROWWISE_MAX_WARPS 8 /* 512 threads: 256 VGPRs a lane; 16 waves would cap them at 128 */
#else
#define TS_ROWWISE_MAX_WARPS 16
#endif
#endif
/* Rows of up to TS_ROWWISE_SHORT_WARPS * TS_ROWWISE_E columns (all but the longest) run on a second
 * instance of each kernel, with blocks of at most TS_ROWWISE_SHORT_WARPS warps whose registers the
 * compiler keeps low enough for several blocks per SM (TS_KERNEL_RESIDENT; each kernel picks its
 * count). Occupancy is what these kernels need to keep enough loads in flight: on the H200 the
 * norms went from 3.55 to 3.69 TB/s (RMSNorm + residual, 16384 x 4096) with three 8-warp blocks
 * per SM instead of two, and softmax from 2.61 to 3.71 with four (bench/results, 2026-11-30). */
#ifndef TS_ROWWISE_SHORT_WARPS
#define TS_ROWWISE_SHORT_WARPS 8
#endif
#ifndef TS_ROWWISE_BLOCK_WARPS
#define TS_ROWWISE_BLOCK_WARPS 8
#endif
/* The longest row this backend takes: TS_ROWWISE_MAX_COLS, or 8192 on HIP. */
#define TS_ROWWISE_BACKEND_MAX_COLS                                                                \
    (TS_ROWWISE_E * TS_ROWWISE_MAX_WARPS < TS_ROWWISE_MAX_COLS ? TS_ROWWISE_E * TS_ROWWISE_MAX_WARPS \
                                                               : TS_ROWWISE_MAX_COLS)
#ifndef TS_ROWWISE_BLOCKS_PER_SM
#define TS_ROWWISE_BLOCKS_PER_SM 32
#endif
#if TS_ROWWISE_BLOCK_WARPS > TS_ROWWISE_SHORT_WARPS
#error "TS_ROWWISE_BLOCK_WARPS is at most TS_ROWWISE_SHORT_WARPS"
#endif

static inline int ts_rowwise_dtype_valid(ts_dtype t) {
    return t == TS_DTYPE_F32 || t == TS_DTYPE_BF16 || t == TS_DTYPE_FP16;
}

/* The row of a kernel family's launcher table: bf16, fp16, fp32. */
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

/* Warps a block of a one-pass launch aims at: one row group (W warps for a row of W slices), as
 * small as the rows allow, so that blocks free their SM slots row by row. On the H200 against
 * 8-warp blocks (bench/results/nvidia-h200-2026-12-01-norm-block-hint-ab.txt): +1-2% at 65536 x 1024
 * for RMSNorm and LayerNorm + residual, equal at 16384 x 4096 (softmax, whose blocks then looped
 * over a capped grid, lost 4%; in one pass it gained, ...-2026-12-01-softmax-rope-ab.txt). */
#ifndef TS_ROWWISE_ONE_PASS_BLOCK_WARPS
#define TS_ROWWISE_ONE_PASS_BLOCK_WARPS 1
#endif

/* A one-pass launch in blocks aimed at one warp (TS_ROWWISE_ONE_PASS_BLOCK_WARPS 1) holds exactly one
 * row group a block (ts_rowwise_plan_blocks: max(1, 1 / W) groups), so the whole instance takes a
 * row's warps from the block size instead of dividing by the run-time warps a row: two integer
 * divisions, some fifty instructions ahead of each block's first load. (The short instances keep
 * the division: without it ptxas spilled two bytes in the bf16 norm's.) TS_ROWWISE_LAYOUT_FROM_BLOCK
 * 0 divides everywhere, for A/B runs. */
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
 * is the grid of one pass, with no cap. */
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

/* The launch plan of a family (kernels/norm, kernels/softmax) whose short instance takes the rows
 * in one pass with a single dtype path: where `uniform` (the call's dtypes are that path's), the
 * rows are short (at most TS_ROWWISE_SHORT_WARPS warps a row) and every row group fits a launch,
 * one pass in blocks of TS_ROWWISE_ONE_PASS_BLOCK_WARPS; otherwise the general instance's blocks
 * of about TS_ROWWISE_BLOCK_WARPS over a capped grid. */
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

/* The elements of a warp's slice in an instance's variant: TS_ROWWISE_E, or in a long-row instance
 * (rowwise_long_row.h) the longest row it holds, which TS_ROWWISE_LONG_ROW is there (0 elsewhere). */
#define TS_ROWWISE_SLICE_E (TS_ROWWISE_LONG_ROW ? TS_ROWWISE_LONG_ROW : TS_ROWWISE_E)
/* Whether this backend has narrow and middle long-row instances, for rows of at most
 * TS_ROWWISE_LONG_ROW_NARROW_COLS and TS_ROWWISE_LONG_ROW_MID_COLS (rowwise_plan.h), shorter than
 * the long-row instances' longest (a family instantiates and routes to them only where it does). */
#define TS_ROWWISE_HAS_LONG_ROW_NARROW                                                             \
    (TS_ROWWISE_LONG_ROW_NARROW_COLS(TS_WARP_LANES) < TS_ROWWISE_LONG_ROW_COLS(TS_WARP_LANES))
#define TS_ROWWISE_HAS_LONG_ROW_MID                                                                \
    (TS_ROWWISE_LONG_ROW_MID_COLS(TS_WARP_LANES) < TS_ROWWISE_LONG_ROW_COLS(TS_WARP_LANES))

/* Whether `rows` rows of `cols` columns take a long-row instance (and its plan, a row a one-warp
 * block, into *plan): rowwise_plan.h's ts_rowwise_long_row, and a grid that fits. The family adds
 * that its dtypes are uniform and its matrices ts_rowwise_aligned16. */
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

/* Which of a family's long-row instances a row that takes one runs on: the shortest that holds it,
 * of those this backend has and the family uses (use_narrow, use_mid: its knobs), since fewer of its
 * registers lie past the row and more blocks fit an SM. */
typedef enum {
    TS_ROWWISE_LONG_ROW_INSTANCE_FULL,   /* at most TS_ROWWISE_LONG_ROW_COLS */
    TS_ROWWISE_LONG_ROW_INSTANCE_MID,    /* at most TS_ROWWISE_LONG_ROW_MID_COLS */
    TS_ROWWISE_LONG_ROW_INSTANCE_NARROW, /* at most TS_ROWWISE_LONG_ROW_NARROW_COLS */
} ts_rowwise_long_row_instance;
static inline ts_rowwise_long_row_instance ts_rowwise_long_row_pick(int cols, int use_narrow, int use_mid) {
    if (use_narrow && TS_ROWWISE_HAS_LONG_ROW_NARROW && cols <= TS_ROWWISE_LONG_ROW_NARROW_COLS(TS_WARP_LANES))
        return TS_ROWWISE_LONG_ROW_INSTANCE_NARROW;
    if (use_mid && TS_ROWWISE_HAS_LONG_ROW_MID && cols <= TS_ROWWISE_LONG_ROW_MID_COLS(TS_WARP_LANES))
        return TS_ROWWISE_LONG_ROW_INSTANCE_MID;
    return TS_ROWWISE_LONG_ROW_INSTANCE_FULL;
}

/* In a variant: ptr, promised 16-byte aligned in the whole instance (TS_ROWWISE_WHOLE, whose launch
 * plan guarantees it; ops/warp_vector.h). */
#define TS_ROWWISE_ASSUME_ALIGNED(ptr) TS_WV_ASSUME_ALIGNED(TS_ROWWISE_WHOLE, ptr)

/* In a variant: a row stride of `bytes`-byte elements that the launcher has checked to be a multiple
 * of 16 bytes, with its low bits cleared so that the compiler knows it too (the same value): the
 * loads and stores of a strip of rows (ops/warp_vector.h) then compile without their unaligned
 * paths. */
#define TS_ROWWISE_ALIGNED_STRIDE(stride, bytes) ((stride) & ~(long long)(16 / (bytes)-1))

/* Defines launcher(params, plan, stream): kernel over the plan's grid, warps and shared memory. */
#define TS_ROWWISE_LAUNCHER(launcher, kernel, params_type)                                         \
    static ts_status launcher(const params_type *params, const ts_rowwise_plan *plan, ts_stream stream) { \
        const params_type p = *params;                                                             \
        return TS_LAUNCH(kernel, ts_grid_1d(plan->grid), plan->warps, plan->shared_bytes, stream, p); \
    }

#endif
