/* What the ports' test programs share (not part of a port): host-side bf16 / fp16 / fp32 elements
 * read and written as doubles, fresh random inputs, device buffers, and the median time of a call
 * measured with events. Plain C11 over the installed API, for the programs beside the kernels. */
#ifndef PORT_CHECK_H
#define PORT_CHECK_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <tessera/tessera.h>

static inline size_t port_dtype_bytes(ts_dtype t) { return t == TS_DTYPE_F32 ? 4 : 2; }
static inline const char *port_dtype_name(ts_dtype t) {
    return t == TS_DTYPE_BF16 ? "bf16" : t == TS_DTYPE_FP16 ? "fp16" : "fp32";
}

static inline uint32_t port_f32_bits(float f) {
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}
static inline float port_bits_f32(uint32_t u) {
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

/* fp32 -> fp16 bits, rounding to nearest even, with subnormals, infinities and NaN. */
static inline uint16_t port_fp16_bits(float f) {
    const uint32_t u = port_f32_bits(f), sign = (u >> 16) & 0x8000u;
    const uint32_t a = u & 0x7fffffffu;
    if (a >= 0x7f800000u) return (uint16_t)(sign | 0x7c00u | (a > 0x7f800000u ? 0x200u : 0u));
    if (a >= 0x477ff000u) return (uint16_t)(sign | 0x7c00u); /* rounds past 65504 */
    if (a < 0x38800000u) {                                   /* below 2^-14: subnormal or zero */
        const float scaled = port_bits_f32(a) * 16777216.0f; /* exact: in units of 2^-24 */
        return (uint16_t)(sign | (uint32_t)nearbyintf(scaled));
    }
    const uint32_t m = a + 0xfffu + ((a >> 13) & 1u) - 0x38000000u; /* rebias 127 -> 15, round */
    return (uint16_t)(sign | (m >> 13));
}

static inline float port_fp16_value(uint16_t h) {
    const uint32_t sign = (uint32_t)(h & 0x8000u) << 16, e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
    if (e == 0) return port_bits_f32(sign) + (sign ? -1.0f : 1.0f) * (float)m * 5.9604644775390625e-8f;
    if (e == 31) return port_bits_f32(sign | 0x7f800000u | (m << 13));
    return port_bits_f32(sign | ((e + 112u) << 23) | (m << 13));
}

/* Element i of a host array of dtype t, as a double, and x stored there rounded to t. */
static inline double port_get(const void *p, ts_dtype t, size_t i) {
    if (t == TS_DTYPE_F32) return ((const float *)p)[i];
    const uint16_t b = ((const uint16_t *)p)[i];
    return t == TS_DTYPE_BF16 ? port_bits_f32((uint32_t)b << 16) : port_fp16_value(b);
}
static inline void port_set(void *p, ts_dtype t, size_t i, double x) {
    const float f = (float)x;
    if (t == TS_DTYPE_F32) {
        ((float *)p)[i] = f;
    } else if (t == TS_DTYPE_FP16) {
        ((uint16_t *)p)[i] = port_fp16_bits(f);
    } else {
        const uint32_t u = port_f32_bits(f);
        ((uint16_t *)p)[i] = (uint16_t)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
    }
}

/* A xorshift generator; seeded from the clock so that every run draws fresh inputs (the seed is
 * printed, PORT_SEED=<n> repeats a run). */
static uint64_t port_rng_state = 88172645463325252ull;
static inline unsigned port_seed(void) {
    const char *env = getenv("PORT_SEED");
    const unsigned seed = env ? (unsigned)strtoul(env, NULL, 10) : (unsigned)time(NULL);
    port_rng_state = 0x9e3779b97f4a7c15ull * (seed + 1u);
    return seed;
}
/* Uniform in [-1, 1). */
static inline double port_uniform(void) {
    port_rng_state ^= port_rng_state << 13;
    port_rng_state ^= port_rng_state >> 7;
    port_rng_state ^= port_rng_state << 17;
    return (double)(port_rng_state >> 11) * (2.0 / 9007199254740992.0) - 1.0;
}

/* n elements of dtype t, each offset + scale * uniform rounded to t, in a calloc'ed array. */
static inline void *port_random(ts_dtype t, size_t n, double offset, double scale) {
    void *p = calloc(n ? n : 1, port_dtype_bytes(t));
    if (p)
        for (size_t i = 0; i < n; ++i) port_set(p, t, i, offset + scale * port_uniform());
    return p;
}

/* A device copy of bytes of host memory (NULL on failure, said on stderr). */
static inline void *port_to_device(const void *host, size_t bytes) {
    void *d = NULL;
    ts_status s = ts_malloc(&d, bytes ? bytes : 1);
    if (s == TS_SUCCESS && bytes) s = ts_memcpy(d, host, bytes, TS_MEMCPY_HOST_TO_DEVICE);
    if (s != TS_SUCCESS) {
        fprintf(stderr, "device buffer of %zu bytes: %s\n", bytes, ts_status_string(s));
        ts_free(d);
        return NULL;
    }
    return d;
}

/* Whether to run the sizes of a real run (on a GPU) or small ragged ones only (on the CPU, or where
 * PORT_SMALL is set: under compute-sanitizer); 0 with a message when the backend has no device
 * here. */
static inline int port_device(const char *program, int *gpu) {
    int devices = 0;
    ts_backend backend = TS_BACKEND_HOST;
    if (ts_device_count(&devices) != TS_SUCCESS || ts_get_backend(&backend) != TS_SUCCESS) {
        fprintf(stderr, "%s: no device count\n", program);
        return -1;
    }
    if (devices == 0) {
        printf("%s: no device for this backend here, nothing run\n", program);
        return 0;
    }
    *gpu = backend != TS_BACKEND_HOST && !getenv("PORT_SMALL");
    return 1;
}

/* The largest error of every case so far, as a fraction of its tolerance (for the summary line). */
static double port_worst_ratio = 0.0;
static inline void port_note_ratio(double ratio) {
    if (!(ratio <= port_worst_ratio)) port_worst_ratio = ratio == ratio ? ratio : INFINITY;
}

/* The median of `runs` timed calls of fn(ctx) on the default stream, after one untimed call, in
 * milliseconds (negative on failure). */
typedef ts_status (*port_call_fn)(void *ctx);
static inline int port_cmp_float(const void *a, const void *b) {
    const float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}
static inline double port_median_ms(port_call_fn fn, void *ctx, int runs) {
    ts_event start = NULL, end = NULL;
    float ms[64];
    double median = -1.0;
    if (runs > 64) runs = 64;
    if (ts_event_create(&start) != TS_SUCCESS || ts_event_create(&end) != TS_SUCCESS || fn(ctx) != TS_SUCCESS)
        goto done;
    for (int i = 0; i < runs; ++i)
        if (ts_event_record(start, NULL) != TS_SUCCESS || fn(ctx) != TS_SUCCESS ||
            ts_event_record(end, NULL) != TS_SUCCESS || ts_event_synchronize(end) != TS_SUCCESS ||
            ts_event_elapsed_ms(&ms[i], start, end) != TS_SUCCESS)
            goto done;
    qsort(ms, (size_t)runs, sizeof ms[0], port_cmp_float);
    median = ms[runs / 2];
done:
    if (start) ts_event_destroy(start);
    if (end) ts_event_destroy(end);
    return median;
}

#endif
