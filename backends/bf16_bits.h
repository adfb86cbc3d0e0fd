/* bf16 and fp32 bit conversions in portable C, for the backends without a conversion instruction
 * (host, CDNA3): round to nearest even, NaN kept quiet. */
#ifndef TESSERA_BACKENDS_BF16_BITS_H
#define TESSERA_BACKENDS_BF16_BITS_H

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

#endif
