/* How far a benchmark's result lies from its baseline's: read back after the timed runs, so that a
 * speed is never reported for a wrong answer without its difference beside it. */
#ifndef TESSERA_BENCH_COMPARE_H
#define TESSERA_BENCH_COMPARE_H

#include <tessera/tessera.h>

/* Two bf16 m x n matrices in device memory, rows ld elements apart: the largest |c - c_base| over
 * up to max_rows rows spread over m, relative to the largest |c_base| of those rows (NaN counts as
 * infinitely far), in *rel. */
ts_status bench_compare_bf16_rows(const void *c, const void *c_base, int m, int n, long long ld, int max_rows,
                                  double *rel);

#endif
