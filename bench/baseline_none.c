/* No vendor baseline in this build (host and HIP builds; hipBLASLt is not available here). */
#include "baseline.h"

ts_status bench_baseline_create(bench_baseline **baseline, const char **name, ts_stream stream) {
    (void)stream;
    if (baseline) *baseline = NULL;
    if (name) *name = NULL;
    return TS_ERROR_UNSUPPORTED;
}

void bench_baseline_destroy(bench_baseline *baseline) { (void)baseline; }

ts_status bench_baseline_read(bench_baseline *baseline, const void *buf, size_t bytes, void *device_result) {
    (void)baseline, (void)buf, (void)bytes, (void)device_result;
    return TS_ERROR_UNSUPPORTED;
}

ts_status bench_baseline_gemm(bench_baseline *baseline, ts_trans trans_a, ts_trans trans_b, int m, int n,
                              int k, float alpha, const void *a, ts_dtype a_type, long long lda,
                              const void *b, ts_dtype b_type, long long ldb, float beta, void *c,
                              ts_dtype c_type, long long ldc) {
    (void)baseline, (void)trans_a, (void)trans_b, (void)m, (void)n, (void)k, (void)alpha, (void)a;
    (void)a_type, (void)lda, (void)b, (void)b_type, (void)ldb, (void)beta, (void)c, (void)c_type, (void)ldc;
    return TS_ERROR_UNSUPPORTED;
}
