/* `tessera-bench based`: ts_based_forward (Based linear attention, feature dimension 16, head
 * dimension 64) on random normal bf16 inputs, the timing protocol of timing.c, normalized and not.
 * Shapes: H 16 and N from 2048 to 65536 at 128K tokens (B = 131072 / N): a head runs its sequence
 * on one block, so B x H is the parallelism, and the longest sequences leave SMs idle
 * (docs/based.md). Throughput is reported as TFLOP/s of the chunked algorithm's products,
 * B H N (2 x 64 x (16 + 64) + 4 x 273 x 64) (the chunk's scores and their product with V; phi(q)
 * times the state and the state's update, 273 features by 64 columns), and as tokens a second.
 * The PyTorch references and softmax attention at the same N are timed by
 * bench/compare_torch_based.py in one process. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "random.h"
#include "timing.h"

typedef struct based_run {
    ts_based_shape shape;
    long long qs[3], vs[3];
    void *q, *k, *v, *o;
    int normalize;
    ts_stream stream;
} based_run;

static ts_status based_run_tessera(void *ctx, int rep) {
    const based_run *a = ctx;
    (void)rep;
    return ts_based_forward(&a->shape, TS_DTYPE_BF16, a->q, a->qs, a->k, a->qs, a->v, a->vs, a->o, a->vs, 0.25f,
                            a->normalize, a->stream);
}

/* FLOPs a token of a head costs in the chunked algorithm (chunks of 64). */
static double based_flops_per_token(void) { return 2.0 * 64 * (16 + 64) + 4.0 * 273 * 64; }

static ts_status based_one(bench_context *ctx, bench_timer *timer, int b, int h, int n, int normalize) {
    based_run a;
    memset(&a, 0, sizeof a);
    a.shape = (ts_based_shape){b, h, n, 16, 64};
    a.qs[0] = (long long)h * n * 16, a.qs[1] = (long long)n * 16, a.qs[2] = 16;
    a.vs[0] = (long long)h * n * 64, a.vs[1] = (long long)n * 64, a.vs[2] = 64;
    a.normalize = normalize;
    a.stream = ctx->stream;
    const size_t cq = (size_t)b * h * n * 16, cv = (size_t)b * h * n * 64;
    ts_status st = ts_malloc(&a.q, cq * 2);
    if (st == TS_SUCCESS) st = ts_malloc(&a.k, cq * 2);
    if (st == TS_SUCCESS) st = ts_malloc(&a.v, cv * 2);
    if (st == TS_SUCCESS) st = ts_malloc(&a.o, cv * 2);
    if (st == TS_SUCCESS) st = bench_fill_bf16_normal(a.q, cq, 11u + (unsigned)n);
    if (st == TS_SUCCESS) st = bench_fill_bf16_normal(a.k, cq, 23u + (unsigned)n);
    if (st == TS_SUCCESS) st = bench_fill_bf16_normal(a.v, cv, 37u + (unsigned)n);
    bench_stats stats;
    if (st == TS_SUCCESS) st = bench_time(timer, based_run_tessera, &a, &stats);
    if (st == TS_SUCCESS) {
        const double tokens = (double)b * n, flops = tokens * h * based_flops_per_token();
        bench_result r;
        bench_result_init(&r, "based", "TFLOP/s", flops / (stats.median_ms * 1e9));
        r.value_min = flops / (stats.max_ms * 1e9);
        r.value_max = flops / (stats.min_ms * 1e9);
        bench_param_int(&r, "B", b);
        bench_param_int(&r, "H", h);
        bench_param_int(&r, "N", n);
        bench_param_int(&r, "normalize", normalize);
        bench_param_text(&r, "dtype", "bf16");
        bench_param_real(&r, "ms", stats.median_ms);
        bench_param_real(&r, "Mtokens_per_s", tokens / (stats.median_ms * 1e3));
        bench_report_row(ctx->report, &r);
    }
    (void)ts_free(a.q);
    (void)ts_free(a.k);
    (void)ts_free(a.v);
    (void)ts_free(a.o);
    return st;
}

ts_status bench_based(bench_context *ctx) {
    const int host = ctx->backend == TS_BACKEND_HOST;
    bench_timing_config config = bench_context_timing(ctx, 3);
    bench_timer timer;
    ts_status st = bench_timer_init(&timer, &config, &ctx->props, ctx->stream);
    if (st != TS_SUCCESS) return st;
    bench_report_heading(ctx->report, "Based linear attention: bf16, q and k of 16 features, v of 64, causal");
    bench_report_note(ctx->report, "TFLOP/s = B H N (2 64 (16 + 64) + 4 273 64) / median of %d runs; baselines: "
                                   "bench/compare_torch_based.py", config.reps);
    if (host) {
        for (int normalize = 0; normalize < 2 && st == TS_SUCCESS; ++normalize)
            st = based_one(ctx, &timer, 1, 2, 200, normalize);
    } else {
        /* TESSERA_BENCH_QUICK=1: N = 8192 only. */
        const char *quick = getenv("TESSERA_BENCH_QUICK");
        const int q = quick && quick[0] == '1';
        static const int ns[6] = {2048, 4096, 8192, 16384, 32768, 65536};
        for (int i = q ? 2 : 0; i < (q ? 3 : 6) && st == TS_SUCCESS; ++i)
            for (int normalize = 0; normalize < 2 && st == TS_SUCCESS; ++normalize)
                st = based_one(ctx, &timer, 131072 / ns[i], 16, ns[i], normalize);
    }
    bench_timer_destroy(&timer);
    return st;
}
