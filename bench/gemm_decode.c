/* `tessera-bench gemm-decode`: ts_gemm_ex with a split-K workspace (gemm_workspace.h) at decoding's
 * shapes against the vendor library (cuBLAS in a CUDA build), timed in the same process and
 * interleaved, with the timing protocol of timing.c (warm-up, >= 20 timed runs, median, L2 flushed
 * before every run). The sweep: M in {1, 2, 4, 8, 16, 32, 64, 128, 256} against the projections of
 * Llama-3 8B (N x K = 4096 x 4096, 14336 x 4096, 4096 x 14336, 1024 x 4096: K/V) and 70B
 * (8192 x 8192, 28672 x 8192, 8192 x 28672, 1024 x 8192), the weights stored N x K as nn.Linear
 * keeps them (trans_b = 1), bf16 in and out, random normal inputs. Each point reports TFLOP/s, the
 * TB/s of weights read (N K 2 bytes over the time) and the limit a product of few rows has: the
 * weights' bytes over the DRAM's peak (limit_ms; the fraction of it reached, limit_fraction), with
 * the largest difference from the baseline's C over a sample of rows. The peak is the device's
 * (memory clock x 2 x bus width) unless TESSERA_BENCH_DRAM_TBPS gives one. TESSERA_BENCH_QUICK=1
 * runs M in {1, 8, 32} on the 8B shapes; --shape MxNxK one point. On the host backend the sizes
 * are small and there is no baseline. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "baseline.h"
#include "bench.h"
#include "compare.h"
#include "gemm_workspace.h"
#include "random.h"
#include "timing.h"

typedef struct decode_run {
    int m, n, k;
    long long ldk, ldn; /* leading dimensions: K and N rounded up to 8 (ts_gemm's alignment) */
    void *a, *b, *c, *c_base;
    bench_gemm_workspace ws;
    bench_baseline *baseline;
    ts_stream stream;
} decode_run;

/* C = A B^T: A M x K, B N x K (the weights), C M x N, all row-major (rows padded to 8 elements
 * where --shape asks for other sizes). */
static ts_status decode_run_tessera(void *ctx, int rep) {
    const decode_run *d = ctx;
    (void)rep;
    return ts_gemm_ex(TS_NO_TRANS, TS_TRANS, d->m, d->n, d->k, 1.0f, d->a, TS_DTYPE_BF16, d->ldk, d->b, TS_DTYPE_BF16,
                      d->ldk, 0.0f, d->c, TS_DTYPE_BF16, d->ldn, d->ws.ptr, d->ws.bytes, d->stream);
}

static ts_status decode_run_baseline(void *ctx, int rep) {
    const decode_run *d = ctx;
    (void)rep;
    return bench_baseline_gemm(d->baseline, TS_NO_TRANS, TS_TRANS, d->m, d->n, d->k, 1.0f, d->a, TS_DTYPE_BF16, d->ldk,
                               d->b, TS_DTYPE_BF16, d->ldk, 0.0f, d->c_base, TS_DTYPE_BF16, d->ldn);
}

/* The DRAM's peak in bytes/s: TESSERA_BENCH_DRAM_TBPS, else the device's memory clock (double data
 * rate) times its bus width; 0 where neither is known. */
static double decode_dram_peak(const ts_device_props *p) {
    const char *env = getenv("TESSERA_BENCH_DRAM_TBPS");
    if (env && atof(env) > 0.0) return atof(env) * 1e12;
    if (p->memory_clock_khz > 0 && p->memory_bus_bits > 0)
        return 2.0 * p->memory_clock_khz * 1e3 * (p->memory_bus_bits / 8.0);
    return 0.0;
}

typedef struct decode_shape {
    const char *model;
    int n, k;
} decode_shape;

/* One point: M rows of A against the weights already in d (B), into C. */
static ts_status decode_point(bench_context *ctx, bench_timer *timer, const char *baseline_name, decode_run *d,
                              const char *model, double peak) {
    bench_stats ours, base;
    ts_status st = d->baseline ? bench_time_pair(timer, decode_run_tessera, d, decode_run_baseline, d, &ours, &base)
                               : bench_time(timer, decode_run_tessera, d, &ours);
    double rel = NAN;
    if (st == TS_SUCCESS && d->baseline) {
        st = ts_stream_synchronize(ctx->stream);
        if (st == TS_SUCCESS) st = bench_compare_bf16_rows(d->c, d->c_base, d->m, d->n, d->ldn, 16, &rel);
    }
    if (st != TS_SUCCESS) return st;
    const double flops = 2.0 * d->m * (double)d->n * d->k, weights = 2.0 * (double)d->n * d->k;
    const double limit_ms = peak > 0.0 ? weights / peak * 1e3 : NAN;
    bench_result r;
    bench_result_init(&r, "gemm-decode", "TFLOP/s", flops / (ours.median_ms * 1e9));
    r.value_min = flops / (ours.max_ms * 1e9);
    r.value_max = flops / (ours.min_ms * 1e9);
    bench_param_int(&r, "M", d->m);
    bench_param_int(&r, "N", d->n);
    bench_param_int(&r, "K", d->k);
    bench_param_text(&r, "model", model);
    bench_param_text(&r, "layout", "NT");
    bench_param_int(&r, "workspace", d->ws.bytes > 0);
    char plan[256];
    if (ts_gemm_explain(TS_NO_TRANS, TS_TRANS, d->m, d->n, d->k, plan, sizeof plan) == TS_SUCCESS)
        bench_param_text(&r, "plan", plan);
    bench_param_real(&r, "ms", ours.median_ms);
    bench_param_real(&r, "weights_TBps", weights / (ours.median_ms * 1e9));
    bench_param_real(&r, "limit_ms", limit_ms);
    bench_param_real(&r, "limit_fraction", limit_ms / ours.median_ms);
    if (d->baseline) {
        r.baseline = baseline_name;
        r.baseline_value = flops / (base.median_ms * 1e9);
        bench_param_real(&r, "baseline_ms", base.median_ms);
        bench_param_real(&r, "baseline_weights_TBps", weights / (base.median_ms * 1e9));
        bench_param_real(&r, "max_rel_diff", rel);
    }
    bench_report_row(ctx->report, &r);
    return TS_SUCCESS;
}

/* Every M of ms against one (N, K): the weights, A and C allocated once for the largest M. */
static ts_status decode_shape_sweep(bench_context *ctx, bench_timer *timer, bench_baseline *baseline,
                                    const char *baseline_name, bench_gemm_workspace ws, decode_shape s, const int *ms,
                                    int count, double peak, unsigned long long seed) {
    int max_m = 1;
    for (int i = 0; i < count; ++i) max_m = ms[i] > max_m ? ms[i] : max_m;
    decode_run d;
    memset(&d, 0, sizeof d);
    d.n = s.n;
    d.k = s.k;
    d.ldk = (s.k + 7) / 8 * 8;
    d.ldn = (s.n + 7) / 8 * 8;
    d.baseline = baseline;
    d.ws = ws;
    d.stream = ctx->stream;
    const size_t na = (size_t)max_m * d.ldk, nb = (size_t)s.n * d.ldk, nc = (size_t)max_m * d.ldn;
    ts_status st = ts_malloc(&d.a, na * 2);
    if (st == TS_SUCCESS) st = ts_malloc(&d.b, nb * 2);
    if (st == TS_SUCCESS) st = ts_malloc(&d.c, nc * 2);
    if (st == TS_SUCCESS && baseline) st = ts_malloc(&d.c_base, nc * 2);
    if (st == TS_SUCCESS) st = bench_fill_bf16_normal(d.a, na, seed);
    if (st == TS_SUCCESS) st = bench_fill_bf16_normal(d.b, nb, seed * 31 + 7);
    for (int i = 0; i < count && st == TS_SUCCESS; ++i) {
        d.m = ms[i];
        st = decode_point(ctx, timer, baseline_name, &d, s.model, peak);
    }
    (void)ts_free(d.a);
    (void)ts_free(d.b);
    (void)ts_free(d.c);
    (void)ts_free(d.c_base);
    return st;
}

ts_status bench_gemm_decode(bench_context *ctx) {
    const int host = ctx->backend == TS_BACKEND_HOST;
    static const decode_shape gpu_shapes[] = {
        {"8B", 4096, 4096},  {"8B", 14336, 4096},  {"8B", 4096, 14336},  {"8B", 1024, 4096},
        {"70B", 8192, 8192}, {"70B", 28672, 8192}, {"70B", 8192, 28672}, {"70B", 1024, 8192},
    };
    static const int gpu_m[] = {1, 2, 4, 8, 16, 32, 64, 128, 256};
    static const int quick_m[] = {1, 8, 32};
    static const decode_shape host_shapes[] = {{"host", 256, 512}, {"host", 72, 1000}};
    static const int host_m[] = {1, 5, 16};

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
    const double peak = decode_dram_peak(&ctx->props);
    bench_report_heading(ctx->report, "gemm-decode: C = A W^T, W N x K (nn.Linear's weight), bf16 in and out");
    bench_report_note(ctx->report,
                      "TFLOP/s = 2MNK / median of %d runs (L2 flushed before each); baseline %s, interleaved; "
                      "limit_ms = 2NK bytes / DRAM peak %.2f TB/s",
                      config.reps, baseline_name ? baseline_name : "none", peak / 1e12);
    unsigned long long seed = 0x5eed0d0cull;
    if (ctx->options.shape[0] > 0) {
        const decode_shape s = {"shape", ctx->options.shape[1], ctx->options.shape[2]};
        st = decode_shape_sweep(ctx, &timer, baseline, baseline_name, ws, s, &ctx->options.shape[0], 1, peak, seed);
    } else if (host) {
        for (size_t i = 0; i < sizeof host_shapes / sizeof host_shapes[0] && st == TS_SUCCESS; ++i)
            st = decode_shape_sweep(ctx, &timer, baseline, baseline_name, ws, host_shapes[i], host_m, 3, peak, seed++);
    } else {
        const char *quick_env = getenv("TESSERA_BENCH_QUICK");
        const int quick = quick_env && quick_env[0] == '1';
        const size_t shapes = quick ? 4 : sizeof gpu_shapes / sizeof gpu_shapes[0];
        for (size_t i = 0; i < shapes && st == TS_SUCCESS; ++i)
            st = decode_shape_sweep(ctx, &timer, baseline, baseline_name, ws, gpu_shapes[i], quick ? quick_m : gpu_m,
                                    quick ? 3 : 9, peak, seed++);
    }
    bench_timer_destroy(&timer);
    bench_baseline_destroy(baseline);
    bench_gemm_workspace_destroy(&ws);
    return st;
}
