/* `tessera-bench attention-backward`: ts_attention_backward_ex on random normal bf16 inputs (O and
 * the log-sum-exp from one ts_attention_forward call first, so that the probabilities are the real
 * ones), the timing protocol of timing.c, at the points of attention_sweep.h, with flags 0 and with
 * TS_ATTENTION_DETERMINISTIC (params.dq "default": ts_attention_backward's choice, the atomic form
 * at D = 128 without the causal mask and the deterministic form elsewhere; then "deterministic"). FLOPs are the convention of
 * FlashAttention's papers: the backward's five products, 2.5 times the forward's two,
 * 10 B H N^2 D, halved under the causal mask; the deterministic dQ kernel's recomputation of S and
 * dP (two more products, docs/attention-backward.md) is not counted. The vendor baselines (PyTorch
 * SDPA's backward on cuDNN and flash) are timed by bench/compare_torch_backward.py in the same
 * process. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "attention_sweep.h"
#include "bench.h"
#include "random.h"
#include "timing.h"

typedef struct attn_bwd_run {
    ts_attention_shape shape;
    long long strides[3];
    void *q, *k, *v, *o, *d_o, *dq, *dk, *dv, *ws;
    size_t ws_bytes;
    float *lse;
    int causal;
    unsigned flags;
    ts_stream stream;
} attn_bwd_run;

static ts_status attn_bwd_run_tessera(void *ctx, int rep) {
    const attn_bwd_run *a = ctx;
    const long long *s = a->strides;
    (void)rep;
    return ts_attention_backward_ex(&a->shape, TS_DTYPE_BF16, a->q, s, a->k, s, a->v, s, a->o, s, a->d_o, s, a->lse,
                                    a->dq, s, a->dk, s, a->dv, s, 1.0f / sqrtf((float)a->shape.head_dim), a->causal,
                                    a->flags, a->ws, a->ws_bytes, a->stream);
}

static ts_status attn_bwd_one(bench_context *ctx, bench_timer *timer, int b, int h, int n, int d, int causal) {
    attn_bwd_run a;
    memset(&a, 0, sizeof a);
    a.shape = (ts_attention_shape){b, h, h, n, n, d};
    a.strides[0] = (long long)h * n * d;
    a.strides[1] = (long long)n * d;
    a.strides[2] = d;
    a.causal = causal;
    a.stream = ctx->stream;
    const size_t count = (size_t)b * h * n * d;
    void **bufs[8] = {&a.q, &a.k, &a.v, &a.o, &a.d_o, &a.dq, &a.dk, &a.dv};
    ts_status st = ts_attention_backward_workspace_size(&a.shape, &a.ws_bytes);
    for (int i = 0; i < 8 && st == TS_SUCCESS; ++i) st = ts_malloc(bufs[i], count * 2);
    if (st == TS_SUCCESS) st = ts_malloc((void **)&a.lse, (size_t)b * h * n * sizeof(float));
    if (st == TS_SUCCESS) st = ts_malloc(&a.ws, a.ws_bytes);
    if (st == TS_SUCCESS) st = bench_fill_bf16_normal(a.q, count, 11u + (unsigned)n);
    if (st == TS_SUCCESS) st = bench_fill_bf16_normal(a.k, count, 23u + (unsigned)n);
    if (st == TS_SUCCESS) st = bench_fill_bf16_normal(a.v, count, 37u + (unsigned)n);
    if (st == TS_SUCCESS) st = bench_fill_bf16_normal(a.d_o, count, 41u + (unsigned)n);
    if (st == TS_SUCCESS)
        st = ts_attention_forward(&a.shape, TS_DTYPE_BF16, a.q, a.strides, a.k, a.strides, a.v, a.strides, a.o,
                                  a.strides, a.lse, 1.0f / sqrtf((float)d), causal, a.stream);
    const double flops = 10.0 * b * h * (double)n * n * d * (causal ? 0.5 : 1.0);
    static const char *const forms[2] = {"default", "deterministic"};
    for (int f = 0; f < 2 && st == TS_SUCCESS; ++f) {
        bench_stats stats;
        a.flags = f ? TS_ATTENTION_DETERMINISTIC : 0u;
        st = bench_time(timer, attn_bwd_run_tessera, &a, &stats);
        if (st == TS_SUCCESS) bench_attention_row(ctx, "attention-backward", flops, &stats, b, h, n, d, causal, forms[f]);
    }
    for (int i = 0; i < 8; ++i) (void)ts_free(*bufs[i]);
    (void)ts_free(a.lse);
    (void)ts_free(a.ws);
    return st;
}

ts_status bench_attention_backward(bench_context *ctx) {
    bench_timing_config config = bench_context_timing(ctx, 3);
    bench_timer timer;
    ts_status st = bench_timer_init(&timer, &config, &ctx->props, ctx->stream);
    if (st != TS_SUCCESS) return st;
    bench_report_heading(ctx->report, "attention backward: bf16, dQ dK dV, (B, H, N, D)");
    bench_report_note(ctx->report,
                      "TFLOP/s = 10 B H N^2 D (2.5x the forward's, halved when causal) / median of %d runs; "
                      "baselines: bench/compare_torch_backward.py",
                      config.reps);
    st = bench_attention_sweep(ctx, &timer, attn_bwd_one);
    bench_timer_destroy(&timer);
    return st;
}
