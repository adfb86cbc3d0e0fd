/* What the example programs share: a check that stops a program at the first failing Tessera call,
 * and bf16 conversions for making inputs and reading results on the host. */
#ifndef TESSERA_EXAMPLE_UTIL_H
#define TESSERA_EXAMPLE_UTIL_H

#include <stdio.h>
#include <string.h>

#include <tessera/tessera.h>

/* Inside main: print the failing call and its status, and return 1. */
#define CHECK(call)                                                                                \
    do {                                                                                           \
        ts_status s_ = (call);                                                                     \
        if (s_ != TS_SUCCESS) {                                                                    \
            fprintf(stderr, "%s failed: %s\n", #call, ts_status_string(s_));                       \
            return 1;                                                                              \
        }                                                                                          \
    } while (0)

/* fp32 -> bf16 by rounding to nearest even (finite values), and back. */
static inline unsigned short to_bf16(double x) {
    const float f = (float)x;
    unsigned u;
    memcpy(&u, &f, sizeof u);
    u += 0x7fffu + ((u >> 16) & 1u);
    return (unsigned short)(u >> 16);
}

static inline double from_bf16(unsigned short b) {
    const unsigned u = (unsigned)b << 16;
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

#endif
