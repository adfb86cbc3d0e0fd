/* Where each element of a 16x16 register subtile lives on Hopper, for the two register layouts:
 *  row: the mma.sync m16n8k16 A operand, which is also its accumulator (two n8 halves side by
 *       side), so an accumulator becomes an A operand in place;
 *  col: the B operand (k pairs in one register), which is the transpose of the row layout.
 * Element i (0..7) of lane l, the same for 16- and 32-bit elements. Plain C so that the
 * layout-model tests run it on the CPU, and the ops use the same functions on the GPU. */
#ifndef TESSERA_BACKENDS_CUDA_FRAGMENT_LAYOUT_H
#define TESSERA_BACKENDS_CUDA_FRAGMENT_LAYOUT_H

#include "backends/common.h"

#define TS_CUDA_RT_SUB_ELEMS 8
#define TS_CUDA_RV_SLOTS 4

TS_LAYOUT_FN int ts_cuda_rt_row(int layout, int bytes, int lane, int i) {
    (void)bytes;
    return layout == TS_LAYOUT_ROW ? (lane >> 2) + 8 * ((i >> 1) & 1)
                                   : 2 * (lane & 3) + (i & 1) + 8 * ((i >> 1) & 1);
}

TS_LAYOUT_FN int ts_cuda_rt_col(int layout, int bytes, int lane, int i) {
    (void)bytes;
    return layout == TS_LAYOUT_ROW ? 2 * (lane & 3) + (i & 1) + 8 * (i >> 2)
                                   : (lane >> 2) + 8 * (i >> 2);
}

/* Lane-id bits that differ between lanes holding the same row (for row reductions) and the same
 * column (for column reductions). */
TS_LAYOUT_FN int ts_cuda_rt_row_lane_bits(int layout, int bytes) {
    (void)bytes;
    return layout == TS_LAYOUT_ROW ? 0x03 : 0x1c;
}
TS_LAYOUT_FN int ts_cuda_rt_col_lane_bits(int layout, int bytes) {
    (void)bytes;
    return layout == TS_LAYOUT_ROW ? 0x1c : 0x03;
}

/* A per-row vector keeps, in each lane, one slot per distinct row that lane holds in a subtile:
 * the slot of element i, and the row (within the subtile) of slot s in lane l. Likewise for
 * per-column vectors. */
TS_LAYOUT_FN int ts_cuda_rv_row_slot(int layout, int bytes, int i) {
    (void)bytes;
    return layout == TS_LAYOUT_ROW ? (i >> 1) & 1 : i & 3;
}
TS_LAYOUT_FN int ts_cuda_rv_row_of_slot(int layout, int bytes, int lane, int s) {
    (void)bytes;
    return layout == TS_LAYOUT_ROW ? (lane >> 2) + 8 * s : 2 * (lane & 3) + (s & 1) + 8 * (s >> 1);
}
TS_LAYOUT_FN int ts_cuda_rv_row_slots(int layout, int bytes) {
    (void)bytes;
    return layout == TS_LAYOUT_ROW ? 2 : 4;
}
TS_LAYOUT_FN int ts_cuda_rv_col_slot(int layout, int bytes, int i) {
    (void)bytes;
    return layout == TS_LAYOUT_ROW ? (i & 1) + 2 * (i >> 2) : i >> 2;
}
TS_LAYOUT_FN int ts_cuda_rv_col_of_slot(int layout, int bytes, int lane, int s) {
    (void)bytes;
    return layout == TS_LAYOUT_ROW ? 2 * (lane & 3) + (s & 1) + 8 * (s >> 1) : (lane >> 2) + 8 * s;
}
TS_LAYOUT_FN int ts_cuda_rv_col_slots(int layout, int bytes) {
    (void)bytes;
    return layout == TS_LAYOUT_ROW ? 4 : 2;
}

/* Transposing a row-layout tile into a col-layout tile of the transposed shape keeps every element
 * in its lane: element i of the source becomes element perm(i) of the destination. */
TS_LAYOUT_FN int ts_cuda_rt_transpose_perm(int bytes, int i) {
    (void)bytes;
    return ((i >> 1) & 1) << 2 | ((i >> 2) & 1) << 1 | (i & 1);
}

/* The inverse: which lane and element hold (r, c) of a subtile. */
TS_LAYOUT_FN int ts_cuda_rt_lane_of(int layout, int bytes, int r, int c) {
    (void)bytes;
    return layout == TS_LAYOUT_ROW ? (r & 7) * 4 + ((c & 7) >> 1) : (c & 7) * 4 + ((r & 7) >> 1);
}
TS_LAYOUT_FN int ts_cuda_rt_elem_of(int layout, int bytes, int r, int c) {
    (void)bytes;
    return layout == TS_LAYOUT_ROW ? (c & 1) + 2 * (r >> 3) + 4 * (c >> 3)
                                   : (r & 1) + 2 * (r >> 3) + 4 * (c >> 3);
}

/* Nonzero when two layouts place every element in the same lane and slot, so converting between
 * them moves no data between lanes. */
TS_LAYOUT_FN int ts_cuda_rt_same_positions(int layout_a, int bytes_a, int layout_b, int bytes_b) {
    (void)bytes_a, (void)bytes_b;
    return layout_a == layout_b;
}

/* Nonzero when each 8-column block of a subtile's row lies in one quad of lanes, a word a lane:
 * lanes 4k .. 4k+3 hold the same rows, and lane l's elements i, i + 1 (i even) are the columns
 * 2 (l & 3) + 8 (i >> 2) and the next of one row, the row of element i & 3. A quad that trades
 * its words then holds each block's 8 columns in one lane (ts_store_r2g's 16-byte path). */
TS_LAYOUT_FN int ts_cuda_rt_quad_octets(int layout, int bytes) {
    (void)bytes;
    return layout == TS_LAYOUT_ROW;
}

/* wgmma with A from registers (m64nNk16, .bf16/.f16): per warp of the warpgroup, the A fragment
 * of one k16 step is the mma.sync m16n8k16 A fragment of the warp's 16 rows, four 32-bit
 * registers of two elements each (PTX ISA, "Register fragment for wgmma A", Figure 148):
 * register j of lane l holds elements 2j and 2j+1 at row l/4 + 8 * (j % 2), columns
 * 2 * (l % 4) + {0, 1} + 8 * (j / 2) of the step's 16 columns. That is element i = 2j, 2j+1 of
 * the row layout above, and a 16-bit tile keeps element pairs in words in element order, so
 * register j of k step s is word 4 * s + j of a ts_rt_{bf16,fp16}_16xK tile: the tile's words, in
 * storage order, are the instruction's A registers step after step, with nothing to permute. */
TS_LAYOUT_FN int ts_cuda_wgmma_a_word(int kstep, int j) { return 4 * kstep + j; }

#endif
