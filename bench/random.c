/* Random benchmark inputs; see random.h. */
#include "random.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

unsigned short bench_bf16_bits(float f) {
    unsigned u;
    memcpy(&u, &f, sizeof u);
    u += 0x7fffu + ((u >> 16) & 1u);
    return (unsigned short)(u >> 16);
}

float bench_bf16_value(unsigned short bits) {
    const unsigned u = (unsigned)bits << 16;
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

ts_status bench_fill_bf16_normal(void *dev, size_t count, unsigned long long seed) {
    const size_t block = count < ((size_t)1 << 22) ? count : ((size_t)1 << 22);
    unsigned short *h = calloc(block, sizeof *h);
    if (!h) return TS_ERROR_OUT_OF_MEMORY;
    for (size_t i = 0; i < block; ++i) {
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        const double u1 = ((double)(seed >> 11) + 1.0) * 0x1.0p-53;
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        const double u2 = (double)(seed >> 11) * 0x1.0p-53;
        h[i] = bench_bf16_bits((float)(sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2)));
    }
    ts_status st = ts_memcpy(dev, h, block * sizeof *h, TS_MEMCPY_HOST_TO_DEVICE);
    free(h);
    for (size_t done = block; st == TS_SUCCESS && done < count;) {
        const size_t n = done < count - done ? done : count - done;
        st = ts_memcpy((unsigned short *)dev + done, dev, n * sizeof(unsigned short), TS_MEMCPY_DEVICE_TO_DEVICE);
        done += n;
    }
    return st;
}
