/* The matrix multiply-accumulate of one 16x16x16 subtile product on the host backend, where a
 * warp is one thread holding whole subtiles: unpack the operands through the host layout's index
 * functions into plain matrices, multiply with fp32 accumulation. Going through the index
 * functions, not the row-major/column-major shortcut the layout happens to be, keeps this right
 * if the host layout changes. */
#ifndef TESSERA_BACKENDS_HOST_MMA_H
#define TESSERA_BACKENDS_HOST_MMA_H

#include "backends/host/backend.h"
#include "backends/host/fragment_layout.h"
#include "backends/host/lane_ops.h"

/* Element i of a 16-bit subtile as a float. */
TS_DEVICE float ts_host_mma_elem16(const unsigned *words, int i, int bf16) {
    const unsigned short bits = (unsigned short)(words[i >> 1] >> (16 * (i & 1)));
    return bf16 ? ts_unpack_bf16(bits) : ts_unpack_fp16(bits);
}

/* One subtile product, the primitive ops/mma.h is built on (every backend has it):
 * d = a * b (+ c if accumulate) where d and c are fp32 row-layout subtiles, a is a 16-bit subtile
 * of A (row layout) or A^T (col layout), b one of B (col layout) or B^T (row layout). d may be
 * c: each output element reads only its own accumulator. */
TS_DEVICE void ts_mma_sub16(float *d, const float *c, int accumulate, const unsigned *a,
                            int a_layout, const unsigned *b, int b_layout, int bf16) {
    float am[16][16], bm[16][16]; /* am[m][k], bm[k][n] */
    for (int i = 0; i < TS_HOST_RT_SUB_ELEMS; ++i) {
        const int ar = ts_host_rt_row(a_layout, 2, 0, i), ac = ts_host_rt_col(a_layout, 2, 0, i);
        const int br = ts_host_rt_row(b_layout, 2, 0, i), bc = ts_host_rt_col(b_layout, 2, 0, i);
        const float av = ts_host_mma_elem16(a, i, bf16), bv = ts_host_mma_elem16(b, i, bf16);
        /* A col-layout a holds A^T (K x M); a row-layout b holds B^T (N x K). */
        if (a_layout == TS_LAYOUT_ROW) am[ar][ac] = av; else am[ac][ar] = av;
        if (b_layout == TS_LAYOUT_COL) bm[br][bc] = bv; else bm[bc][br] = bv;
    }
    for (int i = 0; i < TS_HOST_RT_SUB_ELEMS; ++i) {
        const int r = ts_host_rt_row(TS_LAYOUT_ROW, 4, 0, i);
        const int col = ts_host_rt_col(TS_LAYOUT_ROW, 4, 0, i);
        float acc = accumulate ? c[i] : 0.0f;
        for (int k = 0; k < 16; ++k) acc += am[r][k] * bm[k][col];
        d[i] = acc;
    }
}

#endif
