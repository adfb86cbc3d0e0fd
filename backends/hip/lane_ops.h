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

/* ---- for ops/math.h, ops/one_lane.h and the checks of ops/memory.h ---------------------------- */

/* 1 / sqrt(x) (the device library's v_rsq_f32 with its fix-ups). */
TS_DEVICE float ts_rsqrt_f32(float x) { return rsqrtf(x); }

/* TS_ONE_LANE { ... }: the statement runs in lane 0 only (every lane reaches it). A one-pass loop,
 * as on the host, where it also marks the region (backends/host/lane_ops.h). */
#define TS_ONE_LANE for (int ts_one_lane_open_ = ts_lane_id() == 0; ts_one_lane_open_; ts_one_lane_open_ = 0)

/* An atomic add each lane makes with its own value, for lane-level code. */
TS_DEVICE int ts_lane_atomic_add_i32(int *ptr, int value) { return ts_atomic_add_i32(ptr, value); }

/* Adds to an fp32 word of global memory, relaxed and device-wide, each lane its own value. */
TS_DEVICE void ts_lane_atomic_add_f32(float *ptr, float value) { atomicAdd(ptr, value); }

/* A GPU has no channel for a contract violation found in a kernel (the host fails the launch): the
 * caller goes on with a harmless result. */
TS_DEVICE void ts_fail_launch(ts_status status) { (void)status; }

#endif
