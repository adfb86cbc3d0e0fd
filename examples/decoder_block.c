/* The attention half of a pre-norm transformer decoder layer from Tessera's kernels, as a plain C
 * program would chain them, checked against a double-precision reference computed here:
 *
 *     h   = x + residual                       ts_rmsnorm (fused residual add, h returned)
 *     y   = rmsnorm(h) * w_norm
 *     qkv = y Wqkv                             ts_gemm (bf16 out)
 *     q,k = rope(q), rope(k)                   ts_rotary, in place, through strides into qkv
 *     o   = causal attention(q, k, v)          ts_attention_forward (grouped-query, strides into qkv)
 *     out = h + o Wo                           ts_gemm (beta = 1 adds the residual stream)
 *
 * No copies between the steps: every kernel reads its operands where the previous one wrote them,
 * by strides. Sizes are small and ragged (48 tokens) so that it runs in a moment on the host
 * backend too. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tessera/tessera.h>

#include "example_util.h"

enum { N = 48, HQ = 2, HKV = 1, D = 64, HID = HQ * D, QKV = (HQ + 2 * HKV) * D };

static double round_bf16(double x) { return from_bf16(to_bf16(x)); }

/* The reference, step by step, rounding to bf16 where the kernels store bf16. */
static void reference(const unsigned short *x, const unsigned short *res, const unsigned short *wn,
                      const unsigned short *wqkv, const unsigned short *wo, double *out) {
    static double h[N][HID], y[N][HID], qkv[N][QKV], o[N][HID];
    for (int i = 0; i < N; ++i) {
        double ss = 0.0;
        for (int j = 0; j < HID; ++j) {
            h[i][j] = round_bf16(from_bf16(x[i * HID + j]) + from_bf16(res[i * HID + j]));
            ss += h[i][j] * h[i][j];
        }
        const double r = 1.0 / sqrt(ss / HID + 1e-5);
        for (int j = 0; j < HID; ++j) y[i][j] = round_bf16(h[i][j] * r * from_bf16(wn[j]));
    }
    for (int i = 0; i < N; ++i)
        for (int j = 0; j < QKV; ++j) {
            double s = 0.0;
            for (int k = 0; k < HID; ++k) s += y[i][k] * from_bf16(wqkv[k * QKV + j]);
            qkv[i][j] = round_bf16(s);
        }
    /* Rotate-half RoPE on the Q and K heads (the first HQ + HKV heads of a row), position = i. */
    for (int i = 0; i < N; ++i)
        for (int hd = 0; hd < HQ + HKV; ++hd)
            for (int c = 0; c < D / 2; ++c) {
                const double a = i * pow(10000.0, -2.0 * c / D);
                double *p = &qkv[i][hd * D];
                const double x1 = p[c], x2 = p[c + D / 2];
                p[c] = round_bf16(x1 * cos(a) - x2 * sin(a));
                p[c + D / 2] = round_bf16(x2 * cos(a) + x1 * sin(a));
            }
    const double scale = 1.0 / sqrt((double)D);
    for (int hq = 0; hq < HQ; ++hq) {
        const int kv = hq / (HQ / HKV);
        const double *kcol = &qkv[0][(HQ + kv) * D], *vcol = &qkv[0][(HQ + HKV + kv) * D];
        for (int i = 0; i < N; ++i) {
            double s[N], m = -INFINITY, l = 0.0;
            for (int j = 0; j <= i; ++j) {
                double dot = 0.0;
                for (int c = 0; c < D; ++c) dot += qkv[i][hq * D + c] * kcol[j * QKV + c];
                s[j] = dot * scale;
                m = fmax(m, s[j]);
            }
            for (int j = 0; j <= i; ++j) l += (s[j] = exp(s[j] - m));
            for (int c = 0; c < D; ++c) {
                double acc = 0.0;
                for (int j = 0; j <= i; ++j) acc += s[j] * vcol[j * QKV + c];
                o[i][hq * D + c] = round_bf16(acc / l);
            }
        }
    }
    for (int i = 0; i < N; ++i)
        for (int j = 0; j < HID; ++j) {
            double s = h[i][j];
            for (int k = 0; k < HID; ++k) s += o[i][k] * from_bf16(wo[k * HID + j]);
            out[i * HID + j] = s;
        }
}

int main(void) {
    EXIT_IF_NO_DEVICE();
    unsigned lcg = 12345u;
    unsigned short *x = random_bf16(&lcg, N * HID, 0.0, 1.0), *res = random_bf16(&lcg, N * HID, 0.0, 1.0);
    unsigned short *wn = random_bf16(&lcg, HID, 0.0, 0.5), *wqkv = random_bf16(&lcg, HID * QKV, 0.0, 0.15);
    unsigned short *wo = random_bf16(&lcg, HID * HID, 0.0, 0.15);
    double *ref = malloc(sizeof *ref * N * HID);
    float *out = malloc(sizeof *out * N * HID);
    if (!x || !res || !wn || !wqkv || !wo || !ref || !out) return 1;
    for (int j = 0; j < HID; ++j) wn[j] = to_bf16(1.0 + from_bf16(wn[j])); /* weights near 1 */

    unsigned short *dx = to_device(x, 2 * N * HID), *dres = to_device(res, 2 * N * HID);
    unsigned short *dwn = to_device(wn, 2 * HID), *dwqkv = to_device(wqkv, 2 * HID * QKV);
    unsigned short *dwo = to_device(wo, 2 * HID * HID);
    unsigned short *dh = to_device(NULL, 2 * N * HID), *dy = to_device(NULL, 2 * N * HID);
    unsigned short *dqkv = to_device(NULL, 2 * N * QKV), *dout_attn = to_device(NULL, 2 * N * HID);
    float *dout = to_device(NULL, 4 * N * HID);
    if (!dx || !dres || !dwn || !dwqkv || !dwo || !dh || !dy || !dqkv || !dout_attn || !dout) return 1;

    /* h = x + residual (kept for the second residual add), y = rmsnorm(h) * w_norm. */
    const ts_norm_desc norm = {.rows = N, .cols = HID, .dtype = TS_DTYPE_BF16, .out_dtype = TS_DTYPE_BF16,
                               .param_dtype = TS_DTYPE_BF16, .x = dx, .x_stride = HID, .residual = dres,
                               .residual_stride = HID, .residual_out = dh, .residual_out_stride = HID,
                               .weight = dwn, .out = dy, .out_stride = HID, .eps = 1e-5f};
    CHECK(ts_rmsnorm(&norm, NULL));
    /* qkv = y Wqkv: a row of qkv is the token's HQ query heads, then HKV key heads, then HKV values. */
    CHECK(ts_gemm(TS_NO_TRANS, TS_NO_TRANS, N, QKV, HID, 1.0f, dy, TS_DTYPE_BF16, HID, dwqkv, TS_DTYPE_BF16, QKV,
                  0.0f, dqkv, TS_DTYPE_BF16, QKV, NULL));
    /* RoPE on the query and key heads, in place: (batch, seq, head) strides into the qkv rows. */
    const long long qk_strides[3] = {(long long)N * QKV, QKV, D};
    const ts_rotary_desc rope = {.batch = 1, .seq = N, .heads_q = HQ, .heads_k = HKV, .head_dim = D,
                                 .dtype = TS_DTYPE_BF16, .layout = TS_ROTARY_BNHD,
                                 .convention = TS_ROTARY_ROTATE_HALF, .q = dqkv, .q_out = dqkv,
                                 .q_strides = qk_strides, .k = dqkv + HQ * D, .k_out = dqkv + HQ * D,
                                 .k_strides = qk_strides, .theta_base = 10000.0f};
    CHECK(ts_rotary(&rope, NULL));
    /* Causal grouped-query attention reading q, k and v in place: (batch, head, row) strides. */
    const ts_attention_shape shape = {.batch = 1, .heads_q = HQ, .heads_kv = HKV, .seq_q = N, .seq_kv = N,
                                      .head_dim = D};
    const long long in_strides[3] = {(long long)N * QKV, D, QKV}, o_strides[3] = {(long long)N * HID, D, HID};
    CHECK(ts_attention_forward(&shape, TS_DTYPE_BF16, dqkv, in_strides, dqkv + HQ * D, in_strides,
                               dqkv + (HQ + HKV) * D, in_strides, dout_attn, o_strides, NULL,
                               1.0f / sqrtf((float)D), 1, NULL));
    /* out = h + o Wo: the residual stream goes into C first, and beta = 1 adds the product to it. */
    float *h32 = malloc(sizeof *h32 * N * HID);
    unsigned short *hb = malloc(sizeof *hb * N * HID);
    if (!h32 || !hb) return 1;
    CHECK(ts_memcpy(hb, dh, 2 * N * HID, TS_MEMCPY_DEVICE_TO_HOST));
    for (int i = 0; i < N * HID; ++i) h32[i] = (float)from_bf16(hb[i]);
    CHECK(ts_memcpy(dout, h32, 4 * N * HID, TS_MEMCPY_HOST_TO_DEVICE));
    CHECK(ts_gemm(TS_NO_TRANS, TS_NO_TRANS, N, HID, HID, 1.0f, dout_attn, TS_DTYPE_BF16, HID, dwo, TS_DTYPE_BF16,
                  HID, 1.0f, dout, TS_DTYPE_F32, HID, NULL));
    CHECK(ts_device_synchronize());
    CHECK(ts_memcpy(out, dout, 4 * N * HID, TS_MEMCPY_DEVICE_TO_HOST));

    reference(x, res, wn, wqkv, wo, ref);
    double err2 = 0.0, ref2 = 0.0, worst = 0.0;
    for (int i = 0; i < N * HID; ++i) {
        const double e = out[i] - ref[i];
        err2 += e * e;
        ref2 += ref[i] * ref[i];
        worst = fmax(worst, fabs(e));
    }
    const double rel = sqrt(err2 / ref2);
    printf("decoder block, %d tokens, %d query / %d key-value heads of %d: relative error %.3g (largest %.3g)\n", N,
           HQ, HKV, D, rel, worst);

    void *bufs[] = {dx, dres, dwn, dwqkv, dwo, dh, dy, dqkv, dout_attn, dout};
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; ++i) CHECK(ts_free(bufs[i]));
    free(x), free(res), free(wn), free(wqkv), free(wo), free(ref), free(out), free(h32), free(hb);
    /* bf16 storage between the steps: agreement to about one bf16 rounding of the outputs. */
    return rel < 1e-2 ? 0 : 1;
}
