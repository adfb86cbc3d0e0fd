/* Where each element of a 16x16 register subtile lives on CDNA (wave64), as the MFMA
 * 16x16x16 instructions lay out their operands:
 *  16-bit row: the A operand, lane l holds row l % 16, columns 4 * (l / 16) + i;
 *  16-bit col: the B operand, lane l holds column l % 16, rows 4 * (l / 16) + i;
 *  32-bit row: the accumulator, lane l holds column l % 16, rows 4 * (l / 16) + i (the pattern
 *              of the B operand: an accumulator is not an A operand in place on this hardware);
 *  32-bit col: its transpose.
 * Element i (0..3) of lane l. Plain C so that the layout-model tests run it on the CPU. */
#ifndef TESSERA_BACKENDS_HIP_FRAGMENT_LAYOUT_H
#define TESSERA_BACKENDS_HIP_FRAGMENT_LAYOUT_H

#include "backends/common.h"

#define TS_HIP_RT_SUB_ELEMS 4
#define TS_HIP_RV_SLOTS 4

/* Nonzero when lane l of this layout holds one row, many columns (the A-operand pattern). */
TS_LAYOUT_FN int ts_hip_lane_holds_row(int layout, int bytes) {
    return (layout == TS_LAYOUT_ROW) == (bytes == 2);
}

TS_LAYOUT_FN int ts_hip_rt_row(int layout, int bytes, int lane, int i) {
    return ts_hip_lane_holds_row(layout, bytes) ? lane & 15 : 4 * (lane >> 4) + i;
}
TS_LAYOUT_FN int ts_hip_rt_col(int layout, int bytes, int lane, int i) {
    return ts_hip_lane_holds_row(layout, bytes) ? 4 * (lane >> 4) + i : lane & 15;
}

TS_LAYOUT_FN int ts_hip_rt_row_lane_bits(int layout, int bytes) {
    return ts_hip_lane_holds_row(layout, bytes) ? 0x30 : 0x0f;
}
TS_LAYOUT_FN int ts_hip_rt_col_lane_bits(int layout, int bytes) {
    return ts_hip_lane_holds_row(layout, bytes) ? 0x0f : 0x30;
}

TS_LAYOUT_FN int ts_hip_rv_row_slot(int layout, int bytes, int i) {
    return ts_hip_lane_holds_row(layout, bytes) ? 0 : i;
}
TS_LAYOUT_FN int ts_hip_rv_row_of_slot(int layout, int bytes, int lane, int s) {
    return ts_hip_lane_holds_row(layout, bytes) ? lane & 15 : 4 * (lane >> 4) + s;
}
TS_LAYOUT_FN int ts_hip_rv_row_slots(int layout, int bytes) {
    return ts_hip_lane_holds_row(layout, bytes) ? 1 : 4;
}
TS_LAYOUT_FN int ts_hip_rv_col_slot(int layout, int bytes, int i) {
    return ts_hip_lane_holds_row(layout, bytes) ? i : 0;
}
TS_LAYOUT_FN int ts_hip_rv_col_of_slot(int layout, int bytes, int lane, int s) {
    return ts_hip_lane_holds_row(layout, bytes) ? 4 * (lane >> 4) + s : lane & 15;
}
TS_LAYOUT_FN int ts_hip_rv_col_slots(int layout, int bytes) {
    return ts_hip_lane_holds_row(layout, bytes) ? 4 : 1;
}

TS_LAYOUT_FN int ts_hip_rt_transpose_perm(int bytes, int i) {
    (void)bytes;
    return i;
}

TS_LAYOUT_FN int ts_hip_rt_lane_of(int layout, int bytes, int r, int c) {
    return ts_hip_lane_holds_row(layout, bytes) ? r + 16 * (c >> 2) : c + 16 * (r >> 2);
}
TS_LAYOUT_FN int ts_hip_rt_elem_of(int layout, int bytes, int r, int c) {
    return ts_hip_lane_holds_row(layout, bytes) ? c & 3 : r & 3;
}
TS_LAYOUT_FN int ts_hip_rt_same_positions(int layout_a, int bytes_a, int layout_b, int bytes_b) {
    return ts_hip_lane_holds_row(layout_a, bytes_a) == ts_hip_lane_holds_row(layout_b, bytes_b);
}
/* Each 8-column block of a row in one quad of lanes (backends/cuda/fragment_layout.h): never here,
 * where a lane holds four neighbouring elements of a row or a column. */
TS_LAYOUT_FN int ts_hip_rt_quad_octets(int layout, int bytes) {
    (void)layout, (void)bytes;
    return 0;
}

/* The warpgroup multiply with A from registers (backends/hip/warpgroup.h) feeds each k16 step's
 * MFMA 16x16x16 A operand straight from a 16-bit row-layout tile: lane l holds row l % 16 and
 * columns 4 * (l / 16) + 0..3 of the step's subtile, the four elements of MFMA's A register pair,
 * stored as two 32-bit words of element pairs in element order. Register pair word j of k step s
 * is word 2 * s + j of a ts_rt_{bf16,fp16}_16xK tile. */
TS_LAYOUT_FN int ts_hip_wg_a_word(int kstep, int j) { return 2 * kstep + j; }

#endif
