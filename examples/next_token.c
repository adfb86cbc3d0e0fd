/* The last step of a language model's forward pass from Tessera's kernels: the final norm, the
 * projection onto the vocabulary and the softmax over it, checked against a double-precision
 * reference computed here:
 *
 *     y      = rmsnorm(h) * w_norm                ts_rmsnorm
 *     logits = y Wvocab                           ts_gemm (fp32 out)
 *     p      = softmax(logits / temperature)      ts_softmax (scale = 1 / temperature, fp32 out)
 *
 * A row of logits is the vocabulary, V = 32000 columns here: longer than the rows the softmax holds
 * in registers, so it runs on the stream instances (docs/memory-bound.md). Then each token's most
 * probable next token. Small enough (4 tokens) to run in a moment on the host backend too. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tessera/tessera.h>

#include "example_util.h"

enum { N = 4, HID = 128, V = 32000 };

/* The reference: y rounded to bf16 where the norm stores it, logits and probabilities in double. */
static void reference(const unsigned short *h, const unsigned short *wn, const unsigned short *wv, double temperature,
                      double *p) {
    static double y[N][HID];
    for (int i = 0; i < N; ++i) {
        double ss = 0.0;
        for (int j = 0; j < HID; ++j) ss += from_bf16(h[i * HID + j]) * from_bf16(h[i * HID + j]);
        const double r = 1.0 / sqrt(ss / HID + 1e-5);
        for (int j = 0; j < HID; ++j) y[i][j] = from_bf16(to_bf16(from_bf16(h[i * HID + j]) * r * from_bf16(wn[j])));
    }
    for (int i = 0; i < N; ++i) {
        double *row = p + (size_t)i * V, m = -INFINITY, sum = 0.0;
        for (int v = 0; v < V; ++v) {
            double s = 0.0;
            for (int k = 0; k < HID; ++k) s += y[i][k] * from_bf16(wv[(size_t)k * V + v]);
            row[v] = s / temperature;
            m = fmax(m, row[v]);
        }
        for (int v = 0; v < V; ++v) sum += (row[v] = exp(row[v] - m));
        for (int v = 0; v < V; ++v) row[v] /= sum;
    }
}

int main(void) {
    EXIT_IF_NO_DEVICE();
    const float temperature = 0.7f;
    unsigned lcg = 2024u;
    unsigned short *h = random_bf16(&lcg, (size_t)N * HID, 0.0, 1.0), *wn = random_bf16(&lcg, HID, 1.0, 0.5);
    unsigned short *wv = random_bf16(&lcg, (size_t)HID * V, 0.0, 0.3);
    double *ref = malloc(sizeof *ref * N * V);
    float *p = malloc(sizeof *p * N * V);
    if (!h || !wn || !wv || !ref || !p) return 1;

    unsigned short *dh = to_device(h, 2 * N * HID), *dwn = to_device(wn, 2 * HID);
    unsigned short *dwv = to_device(wv, (size_t)2 * HID * V), *dy = to_device(NULL, 2 * N * HID);
    float *dlogits = to_device(NULL, (size_t)4 * N * V), *dp = to_device(NULL, (size_t)4 * N * V);
    if (!dh || !dwn || !dwv || !dy || !dlogits || !dp) return 1;

    const ts_norm_desc norm = {.rows = N, .cols = HID, .dtype = TS_DTYPE_BF16, .out_dtype = TS_DTYPE_BF16,
                               .param_dtype = TS_DTYPE_BF16, .x = dh, .x_stride = HID, .weight = dwn,
                               .out = dy, .out_stride = HID, .eps = 1e-5f};
    CHECK(ts_rmsnorm(&norm, NULL));
    CHECK(ts_gemm(TS_NO_TRANS, TS_NO_TRANS, N, V, HID, 1.0f, dy, TS_DTYPE_BF16, HID, dwv, TS_DTYPE_BF16, V, 0.0f,
                  dlogits, TS_DTYPE_F32, V, NULL));
    const ts_softmax_desc softmax = {.rows = N, .cols = V, .dtype = TS_DTYPE_F32, .out_dtype = TS_DTYPE_F32,
                                     .x = dlogits, .x_stride = V, .out = dp, .out_stride = V,
                                     .scale = 1.0f / temperature};
    CHECK(ts_softmax(&softmax, NULL));
    CHECK(ts_device_synchronize());
    CHECK(ts_memcpy(p, dp, (size_t)4 * N * V, TS_MEMCPY_DEVICE_TO_HOST));

    reference(h, wn, wv, temperature, ref);
    double worst = 0.0; /* the largest error of a token's probabilities, summed over the vocabulary */
    for (int i = 0; i < N; ++i) {
        double l1 = 0.0;
        int best = 0, best_ref = 0;
        for (int v = 0; v < V; ++v) {
            l1 += fabs(p[(size_t)i * V + v] - ref[(size_t)i * V + v]);
            if (p[(size_t)i * V + v] > p[(size_t)i * V + best]) best = v;
            if (ref[(size_t)i * V + v] > ref[(size_t)i * V + best_ref]) best_ref = v;
        }
        worst = fmax(worst, l1);
        printf("token %d: next token %d with p = %.4f (reference %d, %.4f)\n", i, best, p[(size_t)i * V + best],
               best_ref, ref[(size_t)i * V + best_ref]);
    }
    printf("softmax over %d logits, %d tokens: largest summed error of a token's probabilities %.3g\n", V, N, worst);

    void *bufs[] = {dh, dwn, dwv, dy, dlogits, dp};
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; ++i) CHECK(ts_free(bufs[i]));
    free(h), free(wn), free(wv), free(ref), free(p);
    /* fp32 logits and probabilities: agreement to a few fp32 roundings of each. */
    return worst < 1e-4 ? 0 : 1;
}
