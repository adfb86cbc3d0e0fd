/* `tessera-bench attention`: ts_attention_forward on random normal bf16 inputs, the timing
 * protocol of timing.c, at the points of attention_sweep.h. FLOPs count both products,
 * 4 B H N^2 D, halved under the causal mask. The vendor baselines (cuDNN and flash through PyTorch's SDPA) are timed by
 * bench/compare_torch.py, which loads libtessera.so in the same process. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "attention_sweep.h"
#include "bench.h"
#include "random.h"
#include "timing.h"

typedef struct attn_run {
    ts_attention_shape shape;
    long long strides[3];
    void *q, *k, *v, *o;
    float *lse;
    int causal;
    ts_stream stream;
} attn_run;

static ts_status attn_run_tessera(void *ctx, int rep) {
    const attn_run *a = ctx;
    (void)rep;
    return ts_attention_forward(&a->shape, TS_DTYPE_BF16, a->q, a->strides, a->k, a->strides, a->v, a->strides, a->o,
                                a->strides, a->lse, 1.0f / sqrtf((float)a->shape.head_dim), a->causal, a->stream);
}

static ts_status attn_one(bench_context *ctx, bench_timer *timer, int b, int h, int n, int d, int causal) {
    attn_run a;
    memset(&a, 0, sizeof a);
    a.shape = (ts_attention_shape){b, h, h, n, n, d};
    a.strides[0] = (long long)h * n * d;
    a.strides[1] = (long long)n * d;
    a.strides[2] = d;
    a.causal = causal;
    a.stream = ctx->stream;
    const size_t count = (size_t)b * h * n * d;
    ts_status st = ts_malloc(&a.q, count * 2);
    if (st == TS_SUCCESS) st = ts_malloc(&a.k, count * 2);
    if (st == TS_SUCCESS) st = ts_malloc(&a.v, count * 2);
    if (st == TS_SUCCESS) st = ts_malloc(&a.o, count * 2);
    if (st == TS_SUCCESS) st = ts_malloc((void **)&a.lse, (size_t)b * h * n * sizeof(float));
    if (st == TS_SUCCESS) st = bench_fill_bf16_normal(a.q, count, 11u + (unsigned)n);
    if (st == TS_SUCCESS) st = bench_fill_bf16_normal(a.k, count, 23u + (unsigned)n);
    if (st == TS_SUCCESS) st = bench_fill_bf16_normal(a.v, count, 37u + (unsigned)n);
    bench_stats stats;
    if (st == TS_SUCCESS) st = bench_time(timer, attn_run_tessera, &a, &stats);
    const double flops = 4.0 * b * h * (double)n * n * d * (causal ? 0.5 : 1.0);
    if (st == TS_SUCCESS) bench_attention_row(ctx, "attention", flops, &stats, b, h, n, d, causal, NULL);
    (void)ts_free(a.q);
    (void)ts_free(a.k);
    (void)ts_free(a.v);
    (void)ts_free(a.o);
    (void)ts_free(a.lse);
    return st;
}

ts_status bench_attention(bench_context *ctx) {
    bench_timing_config config = bench_context_timing(ctx, 3);
    bench_timer timer;
    ts_status st = bench_timer_init(&timer, &config, &ctx->props, ctx->stream);
    if (st != TS_SUCCESS) return st;
    bench_report_heading(ctx->report, "attention forward: bf16, fp32 softmax, (B, H, N, D)");
    bench_report_note(ctx->report, "TFLOP/s = 4 B H N^2 D (halved when causal) / median of %d runs; baselines: "
                                   "bench/compare_torch.py", config.reps);
    st = bench_attention_sweep(ctx, &timer, attn_one);
    bench_timer_destroy(&timer);
    return st;
}
