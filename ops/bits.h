/* fp32 values as their 32-bit patterns and back, through memcpy, so that no float object is read
 * through an integer lvalue (which C's aliasing rules forbid and GCC exploits), and elements of
 * fp32 or 16-bit arrays as raw bits. Shared by the tile and warp-vector memory ops. */
#ifndef TESSERA_OPS_BITS_H
#define TESSERA_OPS_BITS_H

#include <string.h>

#include "backends/backend.h"

TS_DEVICE unsigned ts_f32_bits(float f) {
    unsigned u;
    memcpy(&u, &f, sizeof u);
    return u;
}

TS_DEVICE float ts_bits_f32(unsigned u) {
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

/* Element `idx` of an array of `bytes`-byte elements (floats or 16-bit values), as raw bits. */
TS_DEVICE unsigned ts_raw_get(const void *p, int bytes, long long idx) {
    if (bytes == 4) return ts_f32_bits(((const float *)p)[idx]);
    return ((const unsigned short *)p)[idx];
}
TS_DEVICE void ts_raw_set(void *p, int bytes, long long idx, unsigned bits) {
    if (bytes == 4)
        ((float *)p)[idx] = ts_bits_f32(bits);
    else
        ((unsigned short *)p)[idx] = (unsigned short)bits;
}

#endif
