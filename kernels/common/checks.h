/* Argument checks the public launchers share (host code, compiled as C and as CUDA/HIP C++): tile
 * counts in 64-bit arithmetic, so that sizes near INT_MAX cannot overflow, and the overlap test of
 * two tensors that a call reads and writes, which docs/contract.md defines: two tensors overlap
 * when some byte lies in an element of each. A tensor is described by its layout in bytes, its
 * dimensions nested (each stride at least the span of the dimensions inside it, as every launcher
 * checks first); the test is exact for tensors that interleave along dimensions of equal stride
 * (the heads of Q and K in one fused projection, alternate rows of one buffer) and for tensors
 * that fall apart between slots of the other's outer dimension, and otherwise takes intersecting
 * byte ranges as an overlap. */
#ifndef TESSERA_KERNELS_COMMON_CHECKS_H
#define TESSERA_KERNELS_COMMON_CHECKS_H

#include <stdint.h>

#include <tessera/tessera.h>

/* ceil(n / tile) for 0 <= n and tile >= 1, without the overflow of (n + tile - 1) / tile. */
static inline long long ts_check_tiles(long long n, long long tile) { return n / tile + (n % tile != 0); }

/* floor(a / b) for b >= 1 and any sign of a. */
static inline long long ts_check_floor_div(long long a, long long b) {
    const long long q = a / b;
    return q * b > a ? q - 1 : q;
}

#define TS_CHECK_MAX_DIMS 4

/* A tensor's elements as bytes: base + sum of i_d * stride[d] for 0 <= i_d < extent[d], each the
 * start of a run of `run` contiguous bytes. Dimensions of extent 1 are left out; the others are
 * kept outermost (largest stride) first. nested is 0 where a stride is below the span of the
 * dimensions inside it (the overlap test then compares byte ranges only). */
typedef struct ts_check_layout {
    uintptr_t base;
    int dims, nested;
    long long extent[TS_CHECK_MAX_DIMS];
    long long stride[TS_CHECK_MAX_DIMS];
    long long run;
} ts_check_layout;

/* Bytes from the first element of dimension d inward to one past the last. */
static inline long long ts_check_span_from(const ts_check_layout *l, int d) {
    long long span = l->run;
    for (int i = d; i < l->dims; ++i) span += (l->extent[i] - 1) * l->stride[i];
    return span;
}

/* The layout of a tensor of `dims` dimensions (extents >= 1, strides >= 0, in elements, in any
 * order) whose innermost `inner` elements are contiguous. The launchers call it on checked
 * arguments, whose byte spans stay below 2^62. */
static inline ts_check_layout ts_check_layout_make(const void *ptr, int elem_bytes, int dims, const long long *extent,
                                                   const long long *stride, long long inner) {
    ts_check_layout l;
    l.base = (uintptr_t)ptr;
    l.dims = 0;
    l.nested = 1;
    l.run = inner * elem_bytes;
    for (int i = 0; i < TS_CHECK_MAX_DIMS; ++i) l.extent[i] = l.stride[i] = 0;
    for (int i = 0; i < dims && i < TS_CHECK_MAX_DIMS; ++i) {
        if (extent[i] <= 1) continue;
        /* insertion by stride, descending */
        int at = l.dims;
        while (at > 0 && l.stride[at - 1] < stride[i] * elem_bytes) {
            l.extent[at] = l.extent[at - 1];
            l.stride[at] = l.stride[at - 1];
            --at;
        }
        l.extent[at] = extent[i];
        l.stride[at] = stride[i] * elem_bytes;
        ++l.dims;
    }
    for (int i = 0; i < l.dims; ++i)
        if (l.stride[i] < ts_check_span_from(&l, i + 1)) l.nested = 0;
    return l;
}

/* A rows x cols matrix with a row stride, in elements. */
static inline ts_check_layout ts_check_matrix_layout(const void *ptr, int elem_bytes, long long rows, long long cols,
                                                     long long stride) {
    return ts_check_layout_make(ptr, elem_bytes, 1, &rows, &stride, cols);
}

/* Whether a (from dimension da inward) and b (from db inward), b's base `delta` bytes after a's,
 * share no byte. Where a's outer dimension and b's have the same stride S, both are slots of S
 * bytes and only the pairs of slots whose contents can meet (at most two relative offsets) are
 * compared; where one's outer stride S is larger and the other spans at most S bytes, the other
 * meets at most two of its slots. Each step leaves out a dimension, so the recursion is at most
 * 2 * TS_CHECK_MAX_DIMS deep with at most two branches a step. */
static inline int ts_check_apart_from(const ts_check_layout *a, int da, const ts_check_layout *b, int db,
                                      long long delta) {
    const long long span_a = ts_check_span_from(a, da), span_b = ts_check_span_from(b, db);
    if (delta >= span_a || delta + span_b <= 0) return 1;
    if (da == a->dims && db == b->dims) return 0; /* two runs that meet */
    const long long sa = da < a->dims ? a->stride[da] : 0, sb = db < b->dims ? b->stride[db] : 0;
    if (sa < sb) return ts_check_apart_from(b, db, a, da, -delta);
    const long long s = sa, inner_a = ts_check_span_from(a, da + 1);
    if (sa == sb) {
        /* Slot i of a against slot j of b at relative offset r = delta + (j - i) s: they can meet
         * only for -inner_b < r < inner_a. */
        const long long inner_b = ts_check_span_from(b, db + 1);
        long long lo = ts_check_floor_div(-inner_b - delta, s) + 1, hi = -ts_check_floor_div(delta - inner_a, s) - 1;
        if (lo < -(a->extent[da] - 1)) lo = -(a->extent[da] - 1);
        if (hi > b->extent[db] - 1) hi = b->extent[db] - 1;
        if (hi - lo > 3) return 0;
        for (long long k = lo; k <= hi; ++k)
            if (!ts_check_apart_from(a, da + 1, b, db + 1, delta + k * s)) return 0;
        return 1;
    }
    if (span_b > s) return 0; /* b reaches over more than one slot of a: taken as an overlap */
    /* Slot i of a, [i s, i s + inner_a), against b's [delta, delta + span_b). */
    long long lo = ts_check_floor_div(delta - inner_a, s) + 1, hi = -ts_check_floor_div(-(delta + span_b), s) - 1;
    if (lo < 0) lo = 0;
    if (hi > a->extent[da] - 1) hi = a->extent[da] - 1;
    if (hi - lo > 3) return 0;
    for (long long i = lo; i <= hi; ++i)
        if (!ts_check_apart_from(a, da + 1, b, db, delta - i * s)) return 0;
    return 1;
}

/* Whether two tensors share no byte. */
static inline int ts_check_apart(const ts_check_layout *a, const ts_check_layout *b) {
    const long long span_a = ts_check_span_from(a, 0), span_b = ts_check_span_from(b, 0);
    /* Ranges that do not meet, compared without forming an address past the end of memory. */
    if (b->base >= a->base ? b->base - a->base >= (uintptr_t)span_a : a->base - b->base >= (uintptr_t)span_b) return 1;
    if (!a->nested || !b->nested) return 0;
    /* The ranges meet, so the distance is below 2^62 and fits a signed offset. */
    const long long delta = b->base >= a->base ? (long long)(b->base - a->base) : -(long long)(a->base - b->base);
    return ts_check_apart_from(a, 0, b, 0, delta);
}

/* TS_ERROR_INVALID_VALUE where two tensors that must not overlap do. */
static inline ts_status ts_check_disjoint(const ts_check_layout *a, const ts_check_layout *b) {
    return ts_check_apart(a, b) ? TS_SUCCESS : TS_ERROR_INVALID_VALUE;
}

/* The same, but an output that is exactly its input (in_place: the same pointer, dtype and
 * strides, as the call's documentation allows) passes. */
static inline ts_status ts_check_disjoint_or_same(const ts_check_layout *out, const ts_check_layout *in, int in_place) {
    return in_place || ts_check_apart(out, in) ? TS_SUCCESS : TS_ERROR_INVALID_VALUE;
}

#endif
