/* Lane-level operations the tile ops are built on, for the host backend: a warp has one lane, so
 * shuffles return their own value; conversions round to nearest even (fp16 through GCC's
 * _Float16). */
#ifndef TESSERA_BACKENDS_HOST_LANE_OPS_H
#define TESSERA_BACKENDS_HOST_LANE_OPS_H

#include <string.h>

#include "backends/bf16_bits.h"
#include "backends/host/backend.h"

TS_DEVICE float ts_shfl_xor_f32(float v, int lane_mask) { return (void)lane_mask, v; }
TS_DEVICE float ts_shfl_f32(float v, int src_lane) { return (void)src_lane, v; }
TS_DEVICE unsigned ts_shfl_u32(unsigned v, int src_lane) { return (void)src_lane, v; }

TS_DEVICE unsigned ts_pack_bf16x2(float lo, float hi) {
    return (unsigned)ts_bf16_bits_from_f32(lo) | ((unsigned)ts_bf16_bits_from_f32(hi) << 16);
}
TS_DEVICE unsigned short ts_host_fp16_bits(float f) {
    _Float16 h = (_Float16)f;
    unsigned short b;
    memcpy(&b, &h, sizeof b);
    return b;
}
TS_DEVICE unsigned ts_pack_fp16x2(float lo, float hi) {
    return (unsigned)ts_host_fp16_bits(lo) | ((unsigned)ts_host_fp16_bits(hi) << 16);
}
TS_DEVICE float ts_unpack_bf16(unsigned short bits) { return ts_f32_from_bf16_bits(bits); }
TS_DEVICE float ts_unpack_fp16(unsigned short bits) {
    _Float16 h;
    memcpy(&h, &bits, sizeof h);
    return (float)h;
}

#endif
