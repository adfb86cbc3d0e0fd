/* Host-side element access for the tests: store a double into element i of a bf16 / fp16 / fp32
 * array (rounding to nearest even) and read it back as a double, fill an array of any of the three
 * with normal draws, plus the tolerance each output dtype earns against a double-precision
 * reference. */
#ifndef TESSERA_TESTS_DTYPE_IO_H
#define TESSERA_TESTS_DTYPE_IO_H

#include <string.h>

#include <tessera/tessera.h>

#include "backends/half_bits.h"
#include "support/test_support.h"

static inline size_t ts_test_dtype_bytes(ts_dtype t) { return t == TS_DTYPE_F32 ? 4 : 2; }

static inline void ts_test_put(void *buf, ts_dtype t, size_t i, double x) {
    if (t == TS_DTYPE_F32) {
        ((float *)buf)[i] = (float)x;
        return;
    }
    ((unsigned short *)buf)[i] =
        t == TS_DTYPE_BF16 ? ts_bf16_bits_from_f32((float)x) : ts_fp16_bits_from_f32((float)x);
}

static inline double ts_test_get(const void *buf, ts_dtype t, size_t i) {
    if (t == TS_DTYPE_F32) return ((const float *)buf)[i];
    const unsigned short b = ((const unsigned short *)buf)[i];
    return t == TS_DTYPE_BF16 ? ts_f32_from_bf16_bits(b) : ts_f32_from_fp16_bits(b);
}

/* n standard normal draws into elements 0 .. n - 1 of buf, two draws a transform. */
static inline void ts_test_fill_normal_as(void *buf, ts_dtype t, size_t n, uint64_t *state) {
    for (size_t i = 0; i < n; i += 2) {
        double first, second;
        ts_test_normal_pair(state, &first, &second);
        ts_test_put(buf, t, i, first);
        if (i + 1 < n) ts_test_put(buf, t, i + 1, second);
    }
}

/* x rounded to the dtype, as a double. */
static inline double ts_test_round(ts_dtype t, double x) {
    unsigned char tmp[4];
    ts_test_put(tmp, t, 0, x);
    return ts_test_get(tmp, t, 0);
}

/* Relative tolerance of an output of dtype t whose value is computed in fp32. */
static inline double ts_test_tol(ts_dtype t) { return t == TS_DTYPE_F32 ? 2e-5 : t == TS_DTYPE_BF16 ? 1e-2 : 2e-3; }

static inline const char *ts_test_dtype_name(ts_dtype t) {
    return t == TS_DTYPE_F32 ? "f32" : t == TS_DTYPE_BF16 ? "bf16" : "fp16";
}

/* Whether every byte of buf[0 .. bytes) is 0xFF, the poison of ts_test_device_copy(NULL, ...). */
static inline int ts_test_is_poison(const void *buf, size_t bytes) {
    const unsigned char *p = (const unsigned char *)buf;
    for (size_t i = 0; i < bytes; ++i)
        if (p[i] != 0xFF) return 0;
    return 1;
}

#endif
