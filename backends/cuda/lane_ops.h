/* Lane-level operations the tile ops are built on, for CUDA: shuffles across a warp's lanes and
 * packed conversions between fp32 and the 16-bit formats (cvt.rn.bf16x2 / f16x2). */
#ifndef TESSERA_BACKENDS_CUDA_LANE_OPS_H
#define TESSERA_BACKENDS_CUDA_LANE_OPS_H

#include "backends/cuda/backend.h"

TS_DEVICE float ts_shfl_xor_f32(float v, int lane_mask) { return __shfl_xor_sync(0xffffffffu, v, lane_mask); }
TS_DEVICE float ts_shfl_f32(float v, int src_lane) { return __shfl_sync(0xffffffffu, v, src_lane); }
TS_DEVICE unsigned ts_shfl_u32(unsigned v, int src_lane) { return __shfl_sync(0xffffffffu, v, src_lane); }

/* lo in the low half, hi in the high half, as the matrix instructions read a pair. */
TS_DEVICE unsigned ts_pack_bf16x2(float lo, float hi) {
    unsigned r;
    asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(hi), "f"(lo));
    return r;
}
TS_DEVICE unsigned ts_pack_fp16x2(float lo, float hi) {
    unsigned r;
    asm("cvt.rn.f16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(hi), "f"(lo));
    return r;
}
TS_DEVICE float ts_unpack_bf16(unsigned short bits) { return __uint_as_float((unsigned)bits << 16); }
TS_DEVICE float ts_unpack_fp16(unsigned short bits) {
    float f;
    asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(bits));
    return f;
}

#endif
