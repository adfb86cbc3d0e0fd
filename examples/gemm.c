/* C = A B with Tessera's GEMM from a plain C program: bf16 inputs made on the host, the product in
 * fp32, checked against a reference computed here. Runs on whatever backend the library was built
 * for (on the host backend, on the CPU). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tessera/tessera.h>

#include "example_util.h"

int main(void) {
    /* Not multiples of the kernel's tiles: the tails are the library's business. */
    enum { M = 200, N = 136, K = 96 };
    EXIT_IF_NO_DEVICE();
    unsigned short *a = malloc(sizeof *a * M * K), *b = malloc(sizeof *b * K * N);
    float *c = malloc(sizeof *c * M * N);
    if (!a || !b || !c) return 1;
    for (int i = 0; i < M * K; ++i) a[i] = to_bf16((float)((i * 37) % 101) / 50.0f - 1.0f);
    for (int i = 0; i < K * N; ++i) b[i] = to_bf16((float)((i * 53) % 97) / 48.0f - 1.0f);

    void *da, *db, *dc;
    CHECK(ts_malloc(&da, sizeof *a * M * K));
    CHECK(ts_malloc(&db, sizeof *b * K * N));
    CHECK(ts_malloc(&dc, sizeof *c * M * N));
    CHECK(ts_memcpy(da, a, sizeof *a * M * K, TS_MEMCPY_HOST_TO_DEVICE));
    CHECK(ts_memcpy(db, b, sizeof *b * K * N, TS_MEMCPY_HOST_TO_DEVICE));
    /* Row-major A (M x K) and B (K x N); leading dimensions are the row lengths. */
    CHECK(ts_gemm(TS_NO_TRANS, TS_NO_TRANS, M, N, K, 1.0f, da, TS_DTYPE_BF16, K, db, TS_DTYPE_BF16, N, 0.0f, dc,
                  TS_DTYPE_F32, N, NULL));
    CHECK(ts_memcpy(c, dc, sizeof *c * M * N, TS_MEMCPY_DEVICE_TO_HOST));

    double worst = 0.0;
    for (int i = 0; i < M; ++i)
        for (int j = 0; j < N; ++j) {
            double ref = 0.0;
            for (int k = 0; k < K; ++k) ref += (double)from_bf16(a[i * K + k]) * from_bf16(b[k * N + j]);
            worst = fmax(worst, fabs(c[i * N + j] - ref));
        }
    printf("gemm %dx%dx%d: largest error against a double reference %.3g\n", M, N, K, worst);
    CHECK(ts_free(da));
    CHECK(ts_free(db));
    CHECK(ts_free(dc));
    free(a);
    free(b);
    free(c);
    return worst < 1e-3 ? 0 : 1;
}
