/* Division by a number fixed at launch, as one multiply and one shift: the host takes the
 * multiplier once (ts_fast_div_make), the kernel divides (ts_fast_div_quot). A kernel's per-task
 * arithmetic (which head and tile a task is) otherwise divides by run-time values, and a 64-bit
 * division by one is a called routine of about a hundred instructions on CUDA.
 *
 * For 1 <= d < 2^31, with l = ceil(log2 d), shift = 31 + l and mul = ceil(2^shift / d) (below
 * 2^32), floor(n * mul / 2^shift) = floor(n / d) for every 0 <= n < 2^31: mul * d - 2^shift is
 * below d <= 2^l, so the error n (mul - 2^shift / d) stays below 1 / d. Plain C, for kernels,
 * launchers and tests. */
#ifndef TESSERA_TEMPLATES_FAST_DIV_H
#define TESSERA_TEMPLATES_FAST_DIV_H

#include "backends/common.h"

typedef struct ts_fast_div {
    unsigned d, mul, shift;
} ts_fast_div;

/* d in [1, 2^31). */
TS_LAYOUT_FN ts_fast_div ts_fast_div_make(unsigned d) {
    unsigned l = 0;
    while ((1ull << l) < d) ++l;
    ts_fast_div f;
    f.d = d;
    f.shift = 31 + l;
    f.mul = (unsigned)(((1ull << f.shift) + d - 1) / d);
    return f;
}

/* n / d for n in [0, 2^31). */
TS_LAYOUT_FN unsigned ts_fast_div_quot(ts_fast_div f, unsigned n) {
    return (unsigned)(((unsigned long long)n * f.mul) >> f.shift);
}

/* n / (first ? a : b), choosing the fields rather than the struct: a chosen struct became a stack
 * copy on gfx942 (scratch). */
TS_LAYOUT_FN unsigned ts_fast_div_quot_either(int first, ts_fast_div a, ts_fast_div b, unsigned n) {
    const unsigned mul = first ? a.mul : b.mul, shift = first ? a.shift : b.shift;
    return (unsigned)(((unsigned long long)n * mul) >> shift);
}

#endif
