/* Where each element of a 16x16 register subtile lives on CDNA: the per-lane layout of the
 * v_mfma_f32_16x16x16 accumulator, where lane l holds four consecutive rows of column l % 16.
 * Element i (0..3) of lane l. Plain C so the layout-model tests run it on the CPU. */
#ifndef TESSERA_BACKENDS_HIP_FRAGMENT_LAYOUT_H
#define TESSERA_BACKENDS_HIP_FRAGMENT_LAYOUT_H

#include "backends/common.h"

#define TS_HIP_RT_SUB_ELEMS 4

TS_LAYOUT_FN int ts_hip_rt_row(int lane, int i) { return 4 * (lane >> 4) + i; }
TS_LAYOUT_FN int ts_hip_rt_col(int lane, int i) { return (void)i, lane & 15; }

#endif
