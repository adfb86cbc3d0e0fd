/* Where each element of a 16x16 register subtile lives on Hopper: the per-lane layout of the
 * mma.sync m16n8k16 accumulator (two n8 halves side by side), which is also the layout of its A
 * operand, so an accumulator converts to an A operand in place. Element i (0..7) of lane l. Plain C
 * so the layout-model tests run it on the CPU. */
#ifndef TESSERA_BACKENDS_CUDA_FRAGMENT_LAYOUT_H
#define TESSERA_BACKENDS_CUDA_FRAGMENT_LAYOUT_H

#include "backends/common.h"

#define TS_CUDA_RT_SUB_ELEMS 8

TS_LAYOUT_FN int ts_cuda_rt_row(int lane, int i) { return (lane >> 2) + 8 * ((i >> 1) & 1); }
TS_LAYOUT_FN int ts_cuda_rt_col(int lane, int i) { return 2 * (lane & 3) + (i & 1) + 8 * (i >> 2); }

#endif
