/* Which element of a 16x16 register subtile feeds which register of v_mfma_f32_16x16x16
 * (bf16_1k and f16), for each operand and layout. On CDNA every case is the identity, and that is
 * a property of backends/hip/fragment_layout.h worth keeping: the 16-bit row layout is the A
 * operand (lane l: row l % 16, k = 4 * (l / 16) + i), so a row-layout N x K tile of B^T is the B
 * operand as it stands (lane l: column n = l % 16 of B, k = 4 * (l / 16) + i); the 16-bit col
 * layout is the B operand, so a col-layout K x M tile of A^T is the A operand; the fp32 row layout
 * is the accumulator (lane l: column l % 16, rows 4 * (l / 16) + i). All four transposition
 * forms therefore run one instruction per subtile product with no register moves.
 *
 * backends/hip/mma.h builds its operands through these functions and the layout-model tests run
 * them through a C model of the instruction written from AMD's documentation, so a layout change
 * that breaks the identity fails on the CPU. Plain C. */
#ifndef TESSERA_BACKENDS_HIP_MMA_LAYOUT_H
#define TESSERA_BACKENDS_HIP_MMA_LAYOUT_H

#include "backends/common.h"

/* Element (0..3) of a 16-bit subtile in `layout` that is item j (0..3) of the A operand (row
 * layout: A; col layout: A^T) or of the B operand (col layout: B; row layout: B^T). */
TS_LAYOUT_FN int ts_hip_mma_a_elem(int layout, int j) { return (void)layout, j; }
TS_LAYOUT_FN int ts_hip_mma_b_elem(int layout, int j) { return (void)layout, j; }
/* Element (0..3) of an fp32 row-layout subtile that is accumulator register r (0..3). */
TS_LAYOUT_FN int ts_hip_mma_c_elem(int r) { return r; }

/* In 32-bit words (0..1): the word that is operand register r (0..1). */
TS_LAYOUT_FN int ts_hip_mma_a_word(int layout, int r) {
    return ts_hip_mma_a_elem(layout, 2 * r) >> 1;
}
TS_LAYOUT_FN int ts_hip_mma_b_word(int layout, int r) {
    return ts_hip_mma_b_elem(layout, 2 * r) >> 1;
}

#endif
