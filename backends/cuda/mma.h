/* The warp-scope matrix multiply-accumulate of one 16x16x16 subtile product on CUDA:
 * mma.sync.aligned.m16n8k16 (fp32 accumulation from bf16 or fp16), two instructions per subtile,
 * one per n8 half of the output. The operand registers are whole 32-bit words of the register
 * tiles, picked by backends/cuda/mma_layout.h (the permutation each transposition form needs),
 * which the layout-model tests check against a model of the instruction. mma.sync is an sm_80
 * instruction; Tessera builds for sm_90a. */
#ifndef TESSERA_BACKENDS_CUDA_MMA_H
#define TESSERA_BACKENDS_CUDA_MMA_H

#include "backends/cuda/backend.h"
#include "backends/cuda/mma_layout.h"

/* d = a * b + c for one m16n8k16 tile, in the PTX fragment registers. d and c may be the same
 * registers: the instruction reads all its sources before it writes. */
TS_DEVICE void ts_cuda_mma_m16n8k16(float *d, const unsigned *a, const unsigned *b, const float *c,
                                    int bf16) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
    (void)d, (void)a, (void)b, (void)c, (void)bf16;
    __trap();
#else
    if (bf16) {
        asm("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 "
            "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%10, %11, %12, %13};"
            : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
            : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "f"(c[0]),
              "f"(c[1]), "f"(c[2]), "f"(c[3]));
    } else {
        asm("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
            "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%10, %11, %12, %13};"
            : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
            : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "f"(c[0]),
              "f"(c[1]), "f"(c[2]), "f"(c[3]));
    }
#endif
}

/* One subtile product, the primitive ops/mma.h is built on (every backend has it):
 * d = a * b (+ c if accumulate) where d and c are fp32 row-layout subtiles (8 floats per lane),
 * a is a 16-bit subtile of A (row layout) or A^T (col layout), b one of B (col layout) or B^T
 * (row layout), 4 words per lane each. d may be c. Every argument but the pointers' contents is a
 * compile-time constant once inlined, so the permutations cost nothing. */
TS_DEVICE void ts_mma_sub16(float *d, const float *c, int accumulate, const unsigned *a,
                            int a_layout, const unsigned *b, int b_layout, int bf16) {
    unsigned ar[4];
    TS_UNROLL
    for (int r = 0; r < 4; ++r) ar[r] = a[ts_cuda_mma_a_word(a_layout, r)];
    TS_UNROLL
    for (int half = 0; half < 2; ++half) {
        unsigned br[2];
        float cr[4], dr[4];
        TS_UNROLL
        for (int r = 0; r < 2; ++r) br[r] = b[ts_cuda_mma_b_word(b_layout, half, r)];
        TS_UNROLL
        for (int r = 0; r < 4; ++r) cr[r] = accumulate ? c[ts_cuda_mma_c_elem(half, r)] : 0.0f;
        ts_cuda_mma_m16n8k16(dr, ar, br, cr, bf16);
        TS_UNROLL
        for (int r = 0; r < 4; ++r) d[ts_cuda_mma_c_elem(half, r)] = dr[r];
    }
}

#endif
