/* The warp-scope matrix multiply-accumulate of one 16x16x16 subtile product on CDNA (wave64):
 * one v_mfma_f32_16x16x16 (bf16_1k for bf16, f16 for fp16; fp32 accumulation) per subtile. The
 * register tiles' layouts are the instruction's operand layouts, so all four transposition forms
 * pass the tile words straight through (backends/hip/mma_layout.h says why, the layout-model tests
 * check it). The builtins exist on gfx90a and gfx942 alike. */
#ifndef TESSERA_BACKENDS_HIP_MMA_H
#define TESSERA_BACKENDS_HIP_MMA_H

#include "backends/hip/backend.h"
#include "backends/hip/mma_layout.h"

typedef short ts_hip_bf16x4 __attribute__((ext_vector_type(4)));
typedef _Float16 ts_hip_f16x4 __attribute__((ext_vector_type(4)));
typedef float ts_hip_f32x4 __attribute__((ext_vector_type(4)));
typedef unsigned ts_hip_u32x2 __attribute__((ext_vector_type(2)));

/* One subtile product, the primitive ops/mma.h is built on (every backend has it):
 * d = a * b (+ c if accumulate) where d and c are fp32 row-layout subtiles (4 floats per lane),
 * a is a 16-bit subtile of A (row layout) or A^T (col layout), b one of B (col layout) or B^T
 * (row layout), 2 words per lane each. d may be c. */
TS_DEVICE void ts_mma_sub16(float *d, const float *c, int accumulate, const unsigned *a,
                            int a_layout, const unsigned *b, int b_layout, int bf16) {
    ts_hip_u32x2 aw, bw;
    aw.x = a[ts_hip_mma_a_word(a_layout, 0)];
    aw.y = a[ts_hip_mma_a_word(a_layout, 1)];
    bw.x = b[ts_hip_mma_b_word(b_layout, 0)];
    bw.y = b[ts_hip_mma_b_word(b_layout, 1)];
    ts_hip_f32x4 acc;
    acc.x = accumulate ? c[ts_hip_mma_c_elem(0)] : 0.0f;
    acc.y = accumulate ? c[ts_hip_mma_c_elem(1)] : 0.0f;
    acc.z = accumulate ? c[ts_hip_mma_c_elem(2)] : 0.0f;
    acc.w = accumulate ? c[ts_hip_mma_c_elem(3)] : 0.0f;
    /* cbsz, abid, blgp = 0: no broadcast or lane permutation of the operands. */
    if (bf16)
        acc = __builtin_amdgcn_mfma_f32_16x16x16bf16_1k(__builtin_bit_cast(ts_hip_bf16x4, aw),
                                                        __builtin_bit_cast(ts_hip_bf16x4, bw),
                                                        acc, 0, 0, 0);
    else
        acc = __builtin_amdgcn_mfma_f32_16x16x16f16(__builtin_bit_cast(ts_hip_f16x4, aw),
                                                    __builtin_bit_cast(ts_hip_f16x4, bw), acc, 0,
                                                    0, 0);
    d[ts_hip_mma_c_elem(0)] = acc.x;
    d[ts_hip_mma_c_elem(1)] = acc.y;
    d[ts_hip_mma_c_elem(2)] = acc.z;
    d[ts_hip_mma_c_elem(3)] = acc.w;
}

#endif
