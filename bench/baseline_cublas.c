/* cuBLAS as the baseline of the CUDA build. cuBLAS is column-major: a row-major M x N product
 * C = op(A) op(B) is the column-major N x M product C^T = op(B)^T op(A)^T, and a row-major matrix
 * read column-major is its transpose, so the call swaps the operands and keeps their flags. */
#include <stdlib.h>

#include <cublas_v2.h>

#include "baseline.h"

struct bench_baseline {
    cublasHandle_t handle;
};

static cudaDataType_t bench_cuda_type(ts_dtype t) {
    return t == TS_DTYPE_F32 ? CUDA_R_32F : t == TS_DTYPE_BF16 ? CUDA_R_16BF : CUDA_R_16F;
}

ts_status bench_baseline_create(bench_baseline **baseline, const char **name, ts_stream stream) {
    if (!baseline || !name) return TS_ERROR_NULL_POINTER;
    bench_baseline *b = calloc(1, sizeof *b);
    if (!b) return TS_ERROR_OUT_OF_MEMORY;
    if (cublasCreate(&b->handle) != CUBLAS_STATUS_SUCCESS ||
        cublasSetStream(b->handle, (cudaStream_t)stream) != CUBLAS_STATUS_SUCCESS) {
        free(b);
        return TS_ERROR_RUNTIME;
    }
    *baseline = b;
    *name = "cuBLAS";
    return TS_SUCCESS;
}

void bench_baseline_destroy(bench_baseline *baseline) {
    if (!baseline) return;
    (void)cublasDestroy(baseline->handle);
    free(baseline);
}

ts_status bench_baseline_read(bench_baseline *baseline, const void *buf, size_t bytes, void *device_result) {
    if (!baseline || !buf || !device_result) return TS_ERROR_NULL_POINTER;
    if (bytes / sizeof(float) > 0x7fffffff) return TS_ERROR_SIZE_OVERFLOW;
    /* The result stays on the device, so that nothing waits for it; gemm passes alpha and beta
     * from the host, so the mode goes back. */
    if (cublasSetPointerMode(baseline->handle, CUBLAS_POINTER_MODE_DEVICE) != CUBLAS_STATUS_SUCCESS)
        return TS_ERROR_RUNTIME;
    const cublasStatus_t s = cublasSasum(baseline->handle, (int)(bytes / sizeof(float)), buf, 1, device_result);
    if (cublasSetPointerMode(baseline->handle, CUBLAS_POINTER_MODE_HOST) != CUBLAS_STATUS_SUCCESS)
        return TS_ERROR_RUNTIME;
    return s == CUBLAS_STATUS_SUCCESS ? TS_SUCCESS : TS_ERROR_RUNTIME;
}

ts_status bench_baseline_gemm(bench_baseline *baseline, ts_trans trans_a, ts_trans trans_b, int m, int n,
                              int k, float alpha, const void *a, ts_dtype a_type, long long lda,
                              const void *b, ts_dtype b_type, long long ldb, float beta, void *c,
                              ts_dtype c_type, long long ldc) {
    if (!baseline) return TS_ERROR_NULL_POINTER;
    const cublasStatus_t s = cublasGemmEx(
        baseline->handle, trans_b ? CUBLAS_OP_T : CUBLAS_OP_N, trans_a ? CUBLAS_OP_T : CUBLAS_OP_N, n, m, k,
        &alpha, b, bench_cuda_type(b_type), (int)ldb, a, bench_cuda_type(a_type), (int)lda, &beta, c,
        bench_cuda_type(c_type), (int)ldc, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
    return s == CUBLAS_STATUS_SUCCESS ? TS_SUCCESS : TS_ERROR_RUNTIME;
}
