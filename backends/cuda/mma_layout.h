/* Which element of a 16x16 register subtile feeds which register of mma.sync m16n8k16, for each
 * operand and each layout an operand tile may have. backends/cuda/mma.h builds the instruction's
 * registers with these functions and the layout-model tests feed the same functions to a C model
 * of the instruction on the CPU, so a wrong permutation fails in CI without a GPU.
 *
 * The tile layouts are backends/cuda/fragment_layout.h's; the instruction's fragments are the
 * PTX ISA's (section "Matrix Fragments for mma.m16n8k16 with floating point type"). One 16x16x16
 * subtile product is two instructions, one per n8 half of the output (half 0: columns 0-7).
 *
 *  A operand, a0..a7 in four 32-bit registers (a_{2r} low, a_{2r+1} high in register r):
 *    row-layout M x K tile (A):    a_j is element j: the row layout is the A fragment.
 *    col-layout K x M tile (A^T):  a_j is element j with bits 1 and 2 swapped, because the col
 *                                  layout steps rows by bit 1 and columns by bit 2 where the A
 *                                  fragment steps rows by bit 1 and k by bit 2 of the transpose.
 *  B operand of half h, b0..b3 in two registers:
 *    col-layout K x N tile (B):    b_j is element 4h + j: the col layout is two B fragments.
 *    row-layout N x K tile (B^T):  b_j is element (j & 1) | h << 1 | (j >> 1) << 2, that is
 *                                  {0,1,4,5} for half 0 and {2,3,6,7} for half 1.
 *  C and D of half h, c0..c3: element 4h + r of the fp32 row-layout tile.
 *
 * Every permutation keeps the two 16-bit elements of a 32-bit word together (element 2w and
 * 2w + 1 go to the low and high half of one register), so the operands are whole words of the
 * tile and no instruction is spent on repacking. Plain C for the CPU tests. */
#ifndef TESSERA_BACKENDS_CUDA_MMA_LAYOUT_H
#define TESSERA_BACKENDS_CUDA_MMA_LAYOUT_H

#include "backends/common.h"

/* Element (0..7) of a 16-bit subtile in `layout` that is a_j (0..7) of the A fragment. */
TS_LAYOUT_FN int ts_cuda_mma_a_elem(int layout, int j) {
    return layout == TS_LAYOUT_ROW ? j : (j & 1) | ((j >> 2) & 1) << 1 | ((j >> 1) & 1) << 2;
}

/* Element (0..7) of a 16-bit subtile in `layout` that is b_j (0..3) of the B fragment of the
 * n8 half `half` (0 or 1). */
TS_LAYOUT_FN int ts_cuda_mma_b_elem(int layout, int half, int j) {
    return layout == TS_LAYOUT_COL ? 4 * half + j : (j & 1) | half << 1 | (j >> 1) << 2;
}

/* Element (0..7) of an fp32 row-layout subtile that is c_r / d_r (0..3) of the n8 half `half`. */
TS_LAYOUT_FN int ts_cuda_mma_c_elem(int half, int r) { return 4 * half + r; }

/* The same maps in 32-bit words of a 16-bit subtile (0..3): word that is A register r (0..3),
 * and word that is B register r (0..1) of half `half`. */
TS_LAYOUT_FN int ts_cuda_mma_a_word(int layout, int r) {
    return ts_cuda_mma_a_elem(layout, 2 * r) >> 1;
}
TS_LAYOUT_FN int ts_cuda_mma_b_word(int layout, int half, int r) {
    return ts_cuda_mma_b_elem(layout, half, 2 * r) >> 1;
}

#endif
