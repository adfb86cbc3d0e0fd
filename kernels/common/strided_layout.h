/* The check and description of a (B, H, N, D) tensor with element strides {batch, head, row}, the
 * layout that attention, its backward and Based take (host code, compiled as C and as CUDA/HIP
 * C++). The dimensions may nest in any order in memory, (B, H, N, D) or (B, N, H, D) (the heads of
 * a token side by side, as in a fused QKV projection) alike, as long as no two elements share an
 * address: taken from the smallest stride up, each stride must reach past the span of the
 * dimensions below it (the innermost span is the D contiguous elements). */
#ifndef TESSERA_KERNELS_COMMON_STRIDED_LAYOUT_H
#define TESSERA_KERNELS_COMMON_STRIDED_LAYOUT_H

#include <stdint.h>

#include <tessera/tessera.h>

#include "tiles/global_layout.h"

/* TS_ERROR_NULL_POINTER, TS_ERROR_INVALID_VALUE (a stride <= 0, or two elements at one address),
 * TS_ERROR_SIZE_OVERFLOW (the tensor past 2^46 elements from its first), TS_ERROR_MISALIGNED
 * (strides not multiples of 8 elements, or ptr not 16-byte aligned: the copy engine's rows), else
 * TS_SUCCESS with *g describing the tensor. */
static inline ts_status ts_check_strided_bhnd(ts_gl *g, const void *ptr, ts_dtype dtype, long long b, long long h,
                                              long long n, long long d, const long long strides[3]) {
    if (!ptr || !strides) return TS_ERROR_NULL_POINTER;
    for (int i = 0; i < 3; ++i)
        if (strides[i] <= 0) return TS_ERROR_INVALID_VALUE;
    for (int i = 0; i < 3; ++i)
        if (strides[i] > (1LL << 46)) return TS_ERROR_SIZE_OVERFLOW;
    long long st[3] = {strides[0], strides[1], strides[2]}, ext[3] = {b, h, n};
    for (int i = 0; i < 3; ++i) /* by stride, ascending */
        for (int j = i + 1; j < 3; ++j)
            if (st[j] < st[i]) {
                const long long ts = st[i], te = ext[i];
                st[i] = st[j], ext[i] = ext[j], st[j] = ts, ext[j] = te;
            }
    long long span = d;
    for (int i = 0; i < 3; ++i) {
        if (ext[i] == 1) continue;
        if (st[i] < span) return TS_ERROR_INVALID_VALUE;
        if (ext[i] - 1 > ((1LL << 46) - span) / st[i]) return TS_ERROR_SIZE_OVERFLOW;
        span += (ext[i] - 1) * st[i];
    }
    if ((strides[0] | strides[1] | strides[2]) % 8 || ((uintptr_t)ptr & 15u)) return TS_ERROR_MISALIGNED;
    *g = ts_gl_make((void *)ptr, dtype, b, h, n, d);
    g->stride_batch = strides[0];
    g->stride_head = strides[1];
    g->stride_row = strides[2];
    return TS_SUCCESS;
}

#endif
