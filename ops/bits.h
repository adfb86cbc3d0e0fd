/* fp32 values as their 32-bit patterns and back, through memcpy, so that no float object is read
 * through an integer lvalue (which C's aliasing rules forbid and GCC exploits). Shared by the tile
 * and warp-vector memory ops. */
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

#endif
