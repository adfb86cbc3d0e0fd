/* What the example programs share: a check that stops a program at the first failing Tessera call,
 * bf16 conversions for making inputs and reading results on the host, reproducible random inputs,
 * and a device copy of a host buffer. */
#ifndef TESSERA_EXAMPLE_UTIL_H
#define TESSERA_EXAMPLE_UTIL_H

#include <stdio.h>
#include <stdlib.h>
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

/* Inside main: where this backend has no device, say so and return 0 (nothing to run). */
#define EXIT_IF_NO_DEVICE()                                                                        \
    do {                                                                                           \
        int count_ = 0;                                                                            \
        CHECK(ts_device_count(&count_));                                                           \
        if (count_ == 0) {                                                                         \
            printf("no device for this backend; nothing to run\n");                                \
            return 0;                                                                              \
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

/* The next value in [-1, 1) of a linear congruential generator whose state is *lcg. */
static inline double uniform(unsigned *lcg) {
    *lcg = *lcg * 1664525u + 1013904223u;
    return (double)(*lcg >> 8) / (double)(1u << 23) - 1.0;
}

/* n bf16 values offset + scale * uniform(lcg), in a malloc'ed array (NULL if out of memory). */
static inline unsigned short *random_bf16(unsigned *lcg, size_t n, double offset, double scale) {
    unsigned short *p = (unsigned short *)malloc(n * sizeof *p);
    if (p)
        for (size_t i = 0; i < n; ++i) p[i] = to_bf16(offset + scale * uniform(lcg));
    return p;
}

/* A device buffer of `bytes` bytes, holding a copy of host's when host is not NULL; NULL on failure. */
static inline void *to_device(const void *host, size_t bytes) {
    void *d = NULL;
    if (ts_malloc(&d, bytes) != TS_SUCCESS) return NULL;
    if (host && ts_memcpy(d, host, bytes, TS_MEMCPY_HOST_TO_DEVICE) != TS_SUCCESS) return NULL;
    return d;
}

#endif
