/* The vendor baselines tessera-bench times in the same process as Tessera's kernels: cuBLAS in a
 * CUDA build (baseline_cublas.c), none elsewhere (baseline_none.c), where every call says
 * TS_ERROR_UNSUPPORTED and the bench reports no baseline. */
#ifndef TESSERA_BENCH_BASELINE_H
#define TESSERA_BENCH_BASELINE_H

#include <stddef.h>

#include <tessera/tessera.h>

typedef struct bench_baseline bench_baseline;

/* *name is the baseline's name for reports ("cuBLAS"). */
ts_status bench_baseline_create(bench_baseline **baseline, const char **name, ts_stream stream);
void bench_baseline_destroy(bench_baseline *baseline);

/* The same operation as ts_gemm, with the same row-major conventions. */
ts_status bench_baseline_gemm(bench_baseline *baseline, ts_trans trans_a, ts_trans trans_b, int m, int n,
                              int k, float alpha, const void *a, ts_dtype a_type, long long lda,
                              const void *b, ts_dtype b_type, long long ldb, float beta, void *c,
                              ts_dtype c_type, long long ldc);

/* Reads every byte of buf (a sum of its floats into *device_result, 4 bytes of device memory) on
 * the baseline's stream and writes nothing else: the timer's L2 flush, which leaves the cache
 * holding clean lines only (timing.c). */
ts_status bench_baseline_read(bench_baseline *baseline, const void *buf, size_t bytes, void *device_result);

#endif
