/* Lane-level operations the tile ops are built on, for HIP (wave64): shuffles across the wave and
 * conversions between fp32 and the 16-bit formats. CDNA3 has no bf16 conversion instruction, so
 * bf16 rounds in integer arithmetic; fp16 uses the hardware conversion through _Float16. */
#ifndef TESSERA_BACKENDS_HIP_LANE_OPS_H
#define TESSERA_BACKENDS_HIP_LANE_OPS_H

#include "backends/bf16_bits.h"
#include "backends/hip/backend.h"

TS_DEVICE float ts_shfl_xor_f32(float v, int lane_mask) { return __shfl_xor(v, lane_mask, 64); }
TS_DEVICE float ts_shfl_f32(float v, int src_lane) { return __shfl(v, src_lane, 64); }
TS_DEVICE unsigned ts_shfl_u32(unsigned v, int src_lane) { return (unsigned)__shfl((int)v, src_lane, 64); }

TS_DEVICE unsigned ts_pack_bf16x2(float lo, float hi) {
    return (unsigned)ts_bf16_bits_from_f32(lo) | ((unsigned)ts_bf16_bits_from_f32(hi) << 16);
}
TS_DEVICE unsigned short ts_hip_fp16_bits(float f) {
    _Float16 h = (_Float16)f;
    unsigned short b;
    memcpy(&b, &h, sizeof b);
    return b;
}
TS_DEVICE unsigned ts_pack_fp16x2(float lo, float hi) {
    return (unsigned)ts_hip_fp16_bits(lo) | ((unsigned)ts_hip_fp16_bits(hi) << 16);
}
TS_DEVICE float ts_unpack_bf16(unsigned short bits) { return ts_f32_from_bf16_bits(bits); }
TS_DEVICE float ts_unpack_fp16(unsigned short bits) {
    _Float16 h;
    memcpy(&h, &bits, sizeof h);
    return (float)h;
}

#endif
