/* Reductions of fp32 register tiles into register vectors and broadcasts of vectors over tiles,
 * destination first:
 *   ts_row_max(vec, tile), ts_row_min, ts_row_sum        one value per row
 *   ts_col_max(vec, tile), ts_col_min, ts_col_sum        one value per column
 *   the _acc forms, e.g. ts_row_max_acc(vec, tile, acc): vec = max(acc, row maxima of tile)
 *   ts_add_row(dst, tile, vec), ts_sub_row, ts_mul_row, ts_div_row   dst[r][c] = tile[r][c] op vec[r]
 *   ts_add_col(dst, tile, vec), ts_sub_col, ts_mul_col, ts_div_col   dst[r][c] = tile[r][c] op vec[c]
 *   ts_max_row/min_row and the comparisons ts_eq_row/ne_row/lt_row/le_row/gt_row/ge_row (to 1.0f or
 *       0.0f), and the same _col: the element with its row's (column's) entry
 *   ts_broadcast_row(dst, vec), ts_broadcast_col(dst, vec)          dst[r][c] = vec[r] / vec[c]
 *   ts_exp2_scale_sub_row(dst, tile, scale, vec)   dst[r][c] = 2^(tile[r][c] * scale - vec[r]), one
 *       fused multiply-add and one approximate exp2 per element (the backend's ts_exp2_approx,
 *       relative error about 2^-22): the numerators of an online softmax whose row maxima vec are
 *       kept in scaled units
 *   ts_exp2_scale_sub_col(dst, tile, scale, vec)   the same with vec[c], one value per column
 * A reduction first combines each lane's own elements, then combines across the lanes that hold
 * the same row (column) with xor shuffles over the lane-id bits the layout names. */
#ifndef TESSERA_OPS_REDUCTIONS_H
#define TESSERA_OPS_REDUCTIONS_H

#include <math.h>

#include "backends/lane_ops.h"
#include "ops/maps.h"

TS_DEVICE float ts_reduce_identity(int op) {
    return op == TS_OP_MAX ? -INFINITY : op == TS_OP_MIN ? INFINITY : 0.0f;
}

/* op is TS_OP_MAX, TS_OP_MIN or TS_OP_ADD; acc is read where has_acc (a constant) is 1. A flag
 * rather than a null acc: on CDNA a tile's or vector's address compared with null does not fold, and
 * keeps it in scratch. A lane combines its own elements in
 * one chain a slot: four independent chains paired at the end (a row of attention's 16 x 128
 * scores 7 + 3 deep instead of 32) were slower in attention, its exponentials starting later
 * (docs/tiles.md, "Where the ops' choices come from"). */
TS_DEVICE void ts_reduce_impl(int op, int axis, float *out, const float *t, ts_rt_desc d, const float *acc,
                              int has_acc) {
    const int subrows = d.rows / 16, subcols = d.cols / 16;
    const int blocks = axis == TS_AXIS_ROWS ? subrows : subcols;
    const int across = axis == TS_AXIS_ROWS ? subcols : subrows;
    const int slots = ts_rv_slots(axis, d.layout);
    const int lane_bits = ts_rv_shared_lane_bits(axis, d.layout);
    TS_UNROLL
    for (int blk = 0; blk < blocks; ++blk) {
        float part[TS_RV_SLOTS];
        TS_UNROLL
        for (int s = 0; s < TS_RV_SLOTS; ++s) part[s] = ts_reduce_identity(op);
        TS_UNROLL
        for (int o = 0; o < across; ++o) {
            const int sub = axis == TS_AXIS_ROWS ? blk * subcols + o : o * subcols + blk;
            TS_UNROLL
            for (int i = 0; i < TS_RT_SUB_ELEMS; ++i) {
                const int slot = axis == TS_AXIS_ROWS ? ts_rv_row_slot(d.layout, 4, i) : ts_rv_col_slot(d.layout, 4, i);
                part[slot] = ts_apply_binary(op, part[slot], t[sub * TS_RT_SUB_ELEMS + i]);
            }
        }
        TS_UNROLL
        for (int s = 0; s < TS_RV_SLOTS; ++s) {
            if (s >= slots) continue;
            TS_UNROLL
            for (int m = 1; m < TS_WARP_LANES; m <<= 1)
                if (lane_bits & m) part[s] = ts_apply_binary(op, part[s], ts_shfl_xor_f32(part[s], m));
            out[blk * TS_RV_SLOTS + s] = has_acc ? ts_apply_binary(op, acc[blk * TS_RV_SLOTS + s], part[s]) : part[s];
        }
    }
}

#define TS_CHECK_VEC_FOR(vec, tile, axis)                                                          \
    TS_STATIC_ASSERT(TS_RV_AXIS(vec) == (axis) && TS_RV_LAYOUT(vec) == TS_RT_LAYOUT(tile) &&       \
                         TS_RV_LEN(vec) == ((axis) == TS_AXIS_ROWS ? TS_RT_ROWS(tile) : TS_RT_COLS(tile)), \
                     #vec " and " #tile ": the vector does not match the tile's rows or columns and layout")

#define TS_REDUCE(op, axis, vec, tile, acc, has_acc)                                               \
    do {                                                                                           \
        TS_CHECK_F32(tile);                                                                        \
        TS_CHECK_VEC_FOR(vec, tile, axis);                                                         \
        ts_reduce_impl(op, axis, TS_RV_DATA(vec), &(tile)->v[0][0][0], TS_RT_DESC(tile), (acc), (has_acc)); \
    } while (0)
#define TS_REDUCE_ACC(op, axis, vec, tile, accv)                                                   \
    do {                                                                                           \
        TS_CHECK_SAME_VEC(vec, accv);                                                              \
        TS_REDUCE(op, axis, vec, tile, TS_RV_CDATA(accv), 1);                                      \
    } while (0)

#define ts_row_max(vec, tile) TS_REDUCE(TS_OP_MAX, TS_AXIS_ROWS, vec, tile, (const float *)0, 0)
#define ts_row_min(vec, tile) TS_REDUCE(TS_OP_MIN, TS_AXIS_ROWS, vec, tile, (const float *)0, 0)
#define ts_row_sum(vec, tile) TS_REDUCE(TS_OP_ADD, TS_AXIS_ROWS, vec, tile, (const float *)0, 0)
#define ts_col_max(vec, tile) TS_REDUCE(TS_OP_MAX, TS_AXIS_COLS, vec, tile, (const float *)0, 0)
#define ts_col_min(vec, tile) TS_REDUCE(TS_OP_MIN, TS_AXIS_COLS, vec, tile, (const float *)0, 0)
#define ts_col_sum(vec, tile) TS_REDUCE(TS_OP_ADD, TS_AXIS_COLS, vec, tile, (const float *)0, 0)
#define ts_row_max_acc(vec, tile, acc) TS_REDUCE_ACC(TS_OP_MAX, TS_AXIS_ROWS, vec, tile, acc)
#define ts_row_min_acc(vec, tile, acc) TS_REDUCE_ACC(TS_OP_MIN, TS_AXIS_ROWS, vec, tile, acc)
#define ts_row_sum_acc(vec, tile, acc) TS_REDUCE_ACC(TS_OP_ADD, TS_AXIS_ROWS, vec, tile, acc)
#define ts_col_max_acc(vec, tile, acc) TS_REDUCE_ACC(TS_OP_MAX, TS_AXIS_COLS, vec, tile, acc)
#define ts_col_min_acc(vec, tile, acc) TS_REDUCE_ACC(TS_OP_MIN, TS_AXIS_COLS, vec, tile, acc)
#define ts_col_sum_acc(vec, tile, acc) TS_REDUCE_ACC(TS_OP_ADD, TS_AXIS_COLS, vec, tile, acc)

/* ---- broadcasts ------------------------------------------------------------------------------ */

/* d = a op vec broadcast along axis. */
TS_DEVICE void ts_broadcast_impl(int op, int axis, float *d, const float *a, const float *vec, ts_rt_desc desc) {
    const int subcols = desc.cols / 16;
    TS_UNROLL
    for (int e = 0; e < TS_RT_DESC_ELEMS(desc); ++e) {
        const int sub = e / TS_RT_SUB_ELEMS, i = e % TS_RT_SUB_ELEMS;
        const float v = axis == TS_AXIS_ROWS
                            ? vec[(sub / subcols) * TS_RV_SLOTS + ts_rv_row_slot(desc.layout, 4, i)]
                            : vec[(sub % subcols) * TS_RV_SLOTS + ts_rv_col_slot(desc.layout, 4, i)];
        d[e] = ts_apply_binary(op, a[e], v);
    }
}

/* d = vec broadcast along axis: a function of its own, not ts_broadcast_impl with a null source,
 * whose test of the source against null kept a tile in scratch on CDNA (ts_reduce_impl). */
TS_DEVICE void ts_broadcast_fill_impl(int axis, float *d, const float *vec, ts_rt_desc desc) {
    const int subcols = desc.cols / 16;
    TS_UNROLL
    for (int e = 0; e < TS_RT_DESC_ELEMS(desc); ++e) {
        const int sub = e / TS_RT_SUB_ELEMS, i = e % TS_RT_SUB_ELEMS;
        d[e] = axis == TS_AXIS_ROWS ? vec[(sub / subcols) * TS_RV_SLOTS + ts_rv_row_slot(desc.layout, 4, i)]
                                    : vec[(sub % subcols) * TS_RV_SLOTS + ts_rv_col_slot(desc.layout, 4, i)];
    }
}

#define TS_BROADCAST(op, axis, dst, src, vec)                                                      \
    do {                                                                                           \
        TS_CHECK_F32(dst);                                                                         \
        TS_CHECK_SAME_TILE(dst, src);                                                              \
        TS_CHECK_VEC_FOR(vec, dst, axis);                                                          \
        ts_broadcast_impl(op, axis, &(dst)->v[0][0][0], &(src)->v[0][0][0], TS_RV_CDATA(vec), TS_RT_DESC(dst)); \
    } while (0)
#define ts_add_row(dst, src, vec) TS_BROADCAST(TS_OP_ADD, TS_AXIS_ROWS, dst, src, vec)
#define ts_sub_row(dst, src, vec) TS_BROADCAST(TS_OP_SUB, TS_AXIS_ROWS, dst, src, vec)
#define ts_mul_row(dst, src, vec) TS_BROADCAST(TS_OP_MUL, TS_AXIS_ROWS, dst, src, vec)
#define ts_div_row(dst, src, vec) TS_BROADCAST(TS_OP_DIV, TS_AXIS_ROWS, dst, src, vec)
#define ts_add_col(dst, src, vec) TS_BROADCAST(TS_OP_ADD, TS_AXIS_COLS, dst, src, vec)
#define ts_sub_col(dst, src, vec) TS_BROADCAST(TS_OP_SUB, TS_AXIS_COLS, dst, src, vec)
#define ts_mul_col(dst, src, vec) TS_BROADCAST(TS_OP_MUL, TS_AXIS_COLS, dst, src, vec)
#define ts_div_col(dst, src, vec) TS_BROADCAST(TS_OP_DIV, TS_AXIS_COLS, dst, src, vec)
/* Comparisons with the row's (column's) entry, to 1.0f or 0.0f (ops/maps.h), e.g. an index tile
 * against one target per row (ops/index.h); and the element-wise maximum and minimum with it. */
#define ts_eq_row(dst, src, vec) TS_BROADCAST(TS_OP_EQ, TS_AXIS_ROWS, dst, src, vec)
#define ts_ne_row(dst, src, vec) TS_BROADCAST(TS_OP_NE, TS_AXIS_ROWS, dst, src, vec)
#define ts_lt_row(dst, src, vec) TS_BROADCAST(TS_OP_LT, TS_AXIS_ROWS, dst, src, vec)
#define ts_le_row(dst, src, vec) TS_BROADCAST(TS_OP_LE, TS_AXIS_ROWS, dst, src, vec)
#define ts_gt_row(dst, src, vec) TS_BROADCAST(TS_OP_GT, TS_AXIS_ROWS, dst, src, vec)
#define ts_ge_row(dst, src, vec) TS_BROADCAST(TS_OP_GE, TS_AXIS_ROWS, dst, src, vec)
#define ts_max_row(dst, src, vec) TS_BROADCAST(TS_OP_MAX, TS_AXIS_ROWS, dst, src, vec)
#define ts_min_row(dst, src, vec) TS_BROADCAST(TS_OP_MIN, TS_AXIS_ROWS, dst, src, vec)
#define ts_eq_col(dst, src, vec) TS_BROADCAST(TS_OP_EQ, TS_AXIS_COLS, dst, src, vec)
#define ts_ne_col(dst, src, vec) TS_BROADCAST(TS_OP_NE, TS_AXIS_COLS, dst, src, vec)
#define ts_lt_col(dst, src, vec) TS_BROADCAST(TS_OP_LT, TS_AXIS_COLS, dst, src, vec)
#define ts_le_col(dst, src, vec) TS_BROADCAST(TS_OP_LE, TS_AXIS_COLS, dst, src, vec)
#define ts_gt_col(dst, src, vec) TS_BROADCAST(TS_OP_GT, TS_AXIS_COLS, dst, src, vec)
#define ts_ge_col(dst, src, vec) TS_BROADCAST(TS_OP_GE, TS_AXIS_COLS, dst, src, vec)
#define ts_max_col(dst, src, vec) TS_BROADCAST(TS_OP_MAX, TS_AXIS_COLS, dst, src, vec)
#define ts_min_col(dst, src, vec) TS_BROADCAST(TS_OP_MIN, TS_AXIS_COLS, dst, src, vec)
TS_DEVICE void ts_exp2_scale_sub_row_impl(float *d, const float *a, float scale, const float *vec, ts_rt_desc desc) {
    const int subcols = desc.cols / 16;
    TS_UNROLL
    for (int e = 0; e < TS_RT_DESC_ELEMS(desc); ++e) {
        const int sub = e / TS_RT_SUB_ELEMS, i = e % TS_RT_SUB_ELEMS;
        const float v = vec[(sub / subcols) * TS_RV_SLOTS + ts_rv_row_slot(desc.layout, 4, i)];
        d[e] = ts_exp2_approx(fmaf(a[e], scale, -v));
    }
}
#define ts_exp2_scale_sub_row(dst, src, scale, vec)                                                \
    do {                                                                                           \
        TS_CHECK_F32(dst);                                                                         \
        TS_CHECK_SAME_TILE(dst, src);                                                              \
        TS_CHECK_VEC_FOR(vec, dst, TS_AXIS_ROWS);                                                  \
        ts_exp2_scale_sub_row_impl(&(dst)->v[0][0][0], &(src)->v[0][0][0], (scale), TS_RV_CDATA(vec), \
                                   TS_RT_DESC(dst));                                               \
    } while (0)
/* The same with one value per column: 2^(tile[r][c] * scale - vec[c]) (attention backward's
 * transposed probabilities P^T, whose log-sum-exp is one per query, a column). */
TS_DEVICE void ts_exp2_scale_sub_col_impl(float *d, const float *a, float scale, const float *vec, ts_rt_desc desc) {
    const int subcols = desc.cols / 16;
    TS_UNROLL
    for (int e = 0; e < TS_RT_DESC_ELEMS(desc); ++e) {
        const int sub = e / TS_RT_SUB_ELEMS, i = e % TS_RT_SUB_ELEMS;
        const float v = vec[(sub % subcols) * TS_RV_SLOTS + ts_rv_col_slot(desc.layout, 4, i)];
        d[e] = ts_exp2_approx(fmaf(a[e], scale, -v));
    }
}
#define ts_exp2_scale_sub_col(dst, src, scale, vec)                                                \
    do {                                                                                           \
        TS_CHECK_F32(dst);                                                                         \
        TS_CHECK_SAME_TILE(dst, src);                                                              \
        TS_CHECK_VEC_FOR(vec, dst, TS_AXIS_COLS);                                                  \
        ts_exp2_scale_sub_col_impl(&(dst)->v[0][0][0], &(src)->v[0][0][0], (scale), TS_RV_CDATA(vec), \
                                   TS_RT_DESC(dst));                                               \
    } while (0)
#define ts_broadcast_row(dst, vec)                                                                 \
    do {                                                                                           \
        TS_CHECK_F32(dst);                                                                         \
        TS_CHECK_VEC_FOR(vec, dst, TS_AXIS_ROWS);                                                  \
        ts_broadcast_fill_impl(TS_AXIS_ROWS, &(dst)->v[0][0][0], TS_RV_CDATA(vec), TS_RT_DESC(dst));   \
    } while (0)
#define ts_broadcast_col(dst, vec)                                                                 \
    do {                                                                                           \
        TS_CHECK_F32(dst);                                                                         \
        TS_CHECK_VEC_FOR(vec, dst, TS_AXIS_COLS);                                                  \
        ts_broadcast_fill_impl(TS_AXIS_COLS, &(dst)->v[0][0][0], TS_RV_CDATA(vec), TS_RT_DESC(dst));   \
    } while (0)

#endif
