/* Result-against-baseline differences for the benchmarks (compare.h). */
#include "compare.h"

#include <math.h>
#include <stdlib.h>

#include "random.h"

ts_status bench_compare_bf16_rows(const void *c, const void *c_base, int m, int n, long long ld, int max_rows,
                                  double *rel) {
    const int rows = m < max_rows ? m : max_rows;
    unsigned short *x = malloc((size_t)n * 2), *y = malloc((size_t)n * 2);
    if (!x || !y) {
        free(x);
        free(y);
        return TS_ERROR_OUT_OF_MEMORY;
    }
    double worst = 0.0, scale = 0.0;
    ts_status st = TS_SUCCESS;
    for (int i = 0; i < rows && st == TS_SUCCESS; ++i) {
        const long long r = (long long)i * m / rows;
        st = ts_memcpy(x, (const unsigned short *)c + r * ld, (size_t)n * 2, TS_MEMCPY_DEVICE_TO_HOST);
        if (st == TS_SUCCESS)
            st = ts_memcpy(y, (const unsigned short *)c_base + r * ld, (size_t)n * 2, TS_MEMCPY_DEVICE_TO_HOST);
        for (int j = 0; j < n && st == TS_SUCCESS; ++j) {
            const double a = bench_bf16_value(x[j]), b = bench_bf16_value(y[j]);
            if (!(fabs(a - b) <= worst)) worst = isnan(a - b) ? INFINITY : fabs(a - b);
            if (fabs(b) > scale) scale = fabs(b);
        }
    }
    free(x);
    free(y);
    *rel = scale > 0.0 ? worst / scale : worst;
    return st;
}
