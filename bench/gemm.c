/* `tessera-bench gemm`: ts_gemm_ex (with the workspace of split-K and stream-K) against the
 * vendor library (cuBLAS in a CUDA build), timed in the
 * same process and interleaved, with the timing protocol of timing.c (warm-up, >= 20 timed runs,
 * median, L2 flushed before every run). Shapes: 4096^3 and 8192^3, and the projections of large
 * language models, M = 8192 and M in {16, 64, 256, 1024} with (N, K) in {(4096, 4096),
 * (14336, 4096), (4096, 14336), (128256, 4096)}; bf16 in, bf16 out, NN. Inputs are random normal
 * values. Each row also reports the largest difference between Tessera's and the baseline's C
 * over a sample of rows, relative to the largest |C|, so a fast wrong kernel cannot pass, and the
 * plan that ran (ts_gemm_explain). On the
 * host backend the sizes are small and there is no baseline. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "baseline.h"
#include "compare.h"
#include "gemm_workspace.h"
#include "random.h"
#include "bench.h"
#include "timing.h"

typedef struct gemm_run {
    ts_trans ta, tb;
    int m, n, k;
    long long lda, ldb, ldc;
    void *a, *b, *c, *c_base;
    void *workspace;
    size_t workspace_bytes;
    bench_baseline *baseline;
    ts_stream stream;
} gemm_run;

static ts_status gemm_run_tessera(void *ctx, int rep) {
    const gemm_run *g = ctx;
    (void)rep;
    return ts_gemm_ex(g->ta, g->tb, g->m, g->n, g->k, 1.0f, g->a, TS_DTYPE_BF16, g->lda, g->b, TS_DTYPE_BF16, g->ldb,
                      0.0f, g->c, TS_DTYPE_BF16, g->ldc, g->workspace, g->workspace_bytes, g->stream);
}

static ts_status gemm_run_baseline(void *ctx, int rep) {
    const gemm_run *g = ctx;
    (void)rep;
    return bench_baseline_gemm(g->baseline, g->ta, g->tb, g->m, g->n, g->k, 1.0f, g->a, TS_DTYPE_BF16, g->lda, g->b,
                               TS_DTYPE_BF16, g->ldb, 0.0f, g->c_base, TS_DTYPE_BF16, g->ldc);
}

typedef struct gemm_shape {
    int m, n, k;
} gemm_shape;

static ts_status gemm_one(bench_context *ctx, bench_timer *timer, bench_baseline *baseline, const char *baseline_name,
                          bench_gemm_workspace ws, gemm_shape s, unsigned long long seed) {
    gemm_run g;
    memset(&g, 0, sizeof g);
    g.workspace = ws.ptr;
    g.workspace_bytes = ws.bytes;
    g.ta = TS_NO_TRANS;
    g.tb = TS_NO_TRANS;
    g.m = s.m;
    g.n = s.n;
    g.k = s.k;
    g.lda = s.k;
    g.ldb = s.n;
    g.ldc = s.n;
    g.baseline = baseline;
    g.stream = ctx->stream;
    const size_t na = (size_t)s.m * s.k, nb = (size_t)s.k * s.n, nc = (size_t)s.m * s.n;
    ts_status st = ts_malloc(&g.a, na * 2);
    if (st == TS_SUCCESS) st = ts_malloc(&g.b, nb * 2);
    if (st == TS_SUCCESS) st = ts_malloc(&g.c, nc * 2);
    if (st == TS_SUCCESS && baseline) st = ts_malloc(&g.c_base, nc * 2);
    if (st == TS_SUCCESS) st = bench_fill_bf16_normal(g.a, na, seed);
    if (st == TS_SUCCESS) st = bench_fill_bf16_normal(g.b, nb, seed * 31 + 7);
    bench_stats ours, base;
    if (st == TS_SUCCESS)
        st = baseline ? bench_time_pair(timer, gemm_run_tessera, &g, gemm_run_baseline, &g, &ours, &base)
                      : bench_time(timer, gemm_run_tessera, &g, &ours);
    double rel = NAN;
    if (st == TS_SUCCESS && baseline) {
        st = ts_stream_synchronize(ctx->stream);
        if (st == TS_SUCCESS) st = bench_compare_bf16_rows(g.c, g.c_base, g.m, g.n, g.ldc, 64, &rel);
    }
    if (st == TS_SUCCESS) {
        const double flops = 2.0 * s.m * (double)s.n * s.k;
        bench_result r;
        bench_result_init(&r, "gemm", "TFLOP/s", flops / (ours.median_ms * 1e9));
        r.value_min = flops / (ours.max_ms * 1e9);
        r.value_max = flops / (ours.min_ms * 1e9);
        bench_param_int(&r, "M", s.m);
        bench_param_int(&r, "N", s.n);
        bench_param_int(&r, "K", s.k);
        bench_param_text(&r, "layout", "NN");
        bench_param_text(&r, "dtype", "bf16");
        char plan[256];
        if (ts_gemm_explain(g.ta, g.tb, s.m, s.n, s.k, plan, sizeof plan) == TS_SUCCESS)
            bench_param_text(&r, "plan", plan);
        bench_param_real(&r, "ms", ours.median_ms);
        if (baseline) {
            r.baseline = baseline_name;
            r.baseline_value = flops / (base.median_ms * 1e9);
            bench_param_real(&r, "baseline_ms", base.median_ms);
            bench_param_real(&r, "max_rel_diff", rel);
        }
        bench_report_row(ctx->report, &r);
    }
    (void)ts_free(g.a);
    (void)ts_free(g.b);
    (void)ts_free(g.c);
    (void)ts_free(g.c_base);
    return st;
}

ts_status bench_gemm(bench_context *ctx) {
    const int host = ctx->backend == TS_BACKEND_HOST;
    static const gemm_shape gpu_square[] = {{4096, 4096, 4096}, {8192, 8192, 8192}};
    static const int llm_nk[4][2] = {{4096, 4096}, {14336, 4096}, {4096, 14336}, {128256, 4096}};
    static const int llm_m[] = {8192, 16, 64, 256, 1024};
    static const gemm_shape host_shapes[] = {{128, 128, 128}, {200, 136, 72}};

    bench_baseline *baseline = NULL;
    const char *baseline_name = NULL;
    if (bench_baseline_create(&baseline, &baseline_name, ctx->stream) != TS_SUCCESS) baseline = NULL;

    bench_timing_config config = bench_context_timing(ctx, 5);
    bench_timer timer;
    bench_gemm_workspace ws;
    ts_status st = bench_gemm_workspace_create(&ws);
    if (st == TS_SUCCESS) st = bench_timer_init(&timer, &config, &ctx->props, ctx->stream);
    if (st != TS_SUCCESS) {
        bench_gemm_workspace_destroy(&ws);
        bench_baseline_destroy(baseline);
        return st;
    }
    bench_report_heading(ctx->report, "gemm: C = A B, bf16 in and out, fp32 accumulation, row-major NN");
    bench_report_note(ctx->report, "TFLOP/s = 2MNK / median time of %d runs (L2 flushed before each); baseline %s, interleaved",
                      config.reps, baseline_name ? baseline_name : "none");
    unsigned long long seed = 0x5eed0001ull;
    if (ctx->options.shape[0] > 0) {
        const gemm_shape s = {ctx->options.shape[0], ctx->options.shape[1], ctx->options.shape[2]};
        st = gemm_one(ctx, &timer, baseline, baseline_name, ws, s, seed);
    } else if (host) {
        for (size_t i = 0; i < sizeof host_shapes / sizeof host_shapes[0] && st == TS_SUCCESS; ++i)
            st = gemm_one(ctx, &timer, baseline, baseline_name, ws, host_shapes[i], seed++);
    } else {
        /* TESSERA_BENCH_QUICK=1: the square shapes only, for comparing builds quickly. */
        const char *quick = getenv("TESSERA_BENCH_QUICK");
        const int llm_rows = quick && quick[0] == '1' ? 0 : 5;
        for (size_t i = 0; i < 2 && st == TS_SUCCESS; ++i) st = gemm_one(ctx, &timer, baseline, baseline_name, ws, gpu_square[i], seed++);
        for (int mi = 0; mi < llm_rows && st == TS_SUCCESS; ++mi)
            for (int j = 0; j < 4 && st == TS_SUCCESS; ++j) {
                const gemm_shape s = {llm_m[mi], llm_nk[j][0], llm_nk[j][1]};
                st = gemm_one(ctx, &timer, baseline, baseline_name, ws, s, seed++);
            }
    }
    bench_timer_destroy(&timer);
    bench_baseline_destroy(baseline);
    bench_gemm_workspace_destroy(&ws);
    return st;
}
