/* Lane-level operations the tile ops are built on, for the host backend: a warp has one lane, so
 * shuffles return their own value; conversions round to nearest even (fp16 through GCC's
 * _Float16). */
#ifndef TESSERA_BACKENDS_HOST_LANE_OPS_H
#define TESSERA_BACKENDS_HOST_LANE_OPS_H

#include <math.h>
#include <string.h>

#include "backends/half_bits.h"
#include "backends/host/backend.h"

TS_DEVICE float ts_shfl_xor_f32(float v, int lane_mask) { return (void)lane_mask, v; }
TS_DEVICE float ts_shfl_f32(float v, int src_lane) { return (void)src_lane, v; }
TS_DEVICE unsigned ts_shfl_u32(unsigned v, int src_lane) { return (void)src_lane, v; }
TS_DEVICE unsigned ts_shfl_xor_u32(unsigned v, int lane_mask) { return (void)lane_mask, v; }

/* 2^x for the softmax kernels (the GPU backends' approximate form; exact here). */
TS_DEVICE float ts_exp2_approx(float x) { return exp2f(x); }

TS_SOFT_HALF_LANE_OPS

#endif
