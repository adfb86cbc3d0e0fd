/* Lane-level operations the tile ops are built on, for HIP (wave64): shuffles across the wave and
 * conversions between fp32 and the 16-bit formats. CDNA3 has no bf16 conversion instruction, so
 * bf16 rounds in integer arithmetic; fp16 uses the hardware conversion through _Float16. */
#ifndef TESSERA_BACKENDS_HIP_LANE_OPS_H
#define TESSERA_BACKENDS_HIP_LANE_OPS_H

#include <math.h>

#include "backends/half_bits.h"
#include "backends/hip/backend.h"

TS_DEVICE float ts_shfl_xor_f32(float v, int lane_mask) { return __shfl_xor(v, lane_mask, 64); }
TS_DEVICE float ts_shfl_f32(float v, int src_lane) { return __shfl(v, src_lane, 64); }
TS_DEVICE unsigned ts_shfl_u32(unsigned v, int src_lane) { return (unsigned)__shfl((int)v, src_lane, 64); }
TS_DEVICE unsigned ts_shfl_xor_u32(unsigned v, int lane_mask) { return (unsigned)__shfl_xor((int)v, lane_mask, 64); }

/* 2^x for the softmax kernels; exp2f is already v_exp_f32 with a range fix-up here. */
TS_DEVICE float ts_exp2_approx(float x) { return exp2f(x); }

TS_SOFT_HALF_LANE_OPS

#endif
