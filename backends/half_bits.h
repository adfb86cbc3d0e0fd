/* Conversions between fp32 and the 16-bit formats in portable code, for the backends without a bf16
 * conversion instruction (host, CDNA3) and for the tests' references: bf16 rounds to nearest even
 * in integer arithmetic (NaN kept quiet); fp16 goes through the compiler's _Float16 (GCC on x86-64,
 * clang for AMD GPUs), which rounds to nearest even. */
#ifndef TESSERA_BACKENDS_HALF_BITS_H
#define TESSERA_BACKENDS_HALF_BITS_H

#include <string.h>

#include "backends/common.h"

TS_LAYOUT_FN unsigned short ts_bf16_bits_from_f32(float f) {
    unsigned u;
    memcpy(&u, &f, sizeof u);
    if ((u & 0x7fffffffu) > 0x7f800000u) return (unsigned short)((u >> 16) | 0x40u);
    u += 0x7fffu + ((u >> 16) & 1u);
    return (unsigned short)(u >> 16);
}

TS_LAYOUT_FN float ts_f32_from_bf16_bits(unsigned short b) {
    unsigned u = (unsigned)b << 16;
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

#if !defined(__CUDACC__)
TS_LAYOUT_FN unsigned short ts_fp16_bits_from_f32(float f) {
    _Float16 h = (_Float16)f;
    unsigned short b;
    memcpy(&b, &h, sizeof b);
    return b;
}

TS_LAYOUT_FN float ts_f32_from_fp16_bits(unsigned short b) {
    _Float16 h;
    memcpy(&h, &b, sizeof h);
    return (float)h;
}

/* The lane-level pack and unpack operations (backends/lane_ops.h) for backends that convert in
 * software. */
#define TS_SOFT_HALF_LANE_OPS                                                                      \
    TS_DEVICE unsigned ts_pack_bf16x2(float lo, float hi) {                                        \
        return (unsigned)ts_bf16_bits_from_f32(lo) | ((unsigned)ts_bf16_bits_from_f32(hi) << 16);  \
    }                                                                                              \
    TS_DEVICE unsigned ts_pack_fp16x2(float lo, float hi) {                                        \
        return (unsigned)ts_fp16_bits_from_f32(lo) | ((unsigned)ts_fp16_bits_from_f32(hi) << 16);  \
    }                                                                                              \
    TS_DEVICE float ts_unpack_bf16(unsigned short bits) { return ts_f32_from_bf16_bits(bits); }    \
    TS_DEVICE float ts_unpack_fp16(unsigned short bits) { return ts_f32_from_fp16_bits(bits); }    \
    TS_DEVICE float ts_unpack_bf16_at_use(unsigned word, int high) {                               \
        return ts_unpack_bf16((unsigned short)(high ? word >> 16 : word));                         \
    }
#endif

#endif
