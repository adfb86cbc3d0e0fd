/* `tessera-bench layernorm | rmsnorm | rope | softmax`: the fused memory-bound kernels on random
 * normal bf16 inputs under the timing protocol of timing.c (L2 flushed before every run). TB/s
 * counts each input read once and each output written once: for the norms x, residual, weight
 * (and bias for LayerNorm) read and out, residual_out written; for RoPE Q and K read and written
 * plus the fp32 cos/sin table rows of the positions used; for softmax x read and y written. The
 * shapes are the issue's: norms with residual and softmax at 16384x4096 and 65536x1024, RoPE at
 * B8 N4096 H32 D128; plus a few variants. Each row's baseline is a device-to-device copy of the
 * same bytes timed interleaved with it, so the ratio is the fraction of this run's copy bandwidth.
 * PyTorch eager and torch.compile are timed against these by bench/compare_torch_memory.py, in one
 * process. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "memory_bound.h"
#include "random.h"
#include "timing.h"

typedef struct mb_run {
    ts_norm_desc norm;
    ts_softmax_desc softmax;
    ts_rotary_desc rope;
    int kind; /* 0 layernorm, 1 rmsnorm, 2 softmax, 3 rope */
    ts_stream stream;
} mb_run;

static ts_status mb_run_one(void *ctx, int rep) {
    const mb_run *r = ctx;
    (void)rep;
    switch (r->kind) {
    case 0: return ts_layernorm(&r->norm, r->stream);
    case 1: return ts_rmsnorm(&r->norm, r->stream);
    case 2: return ts_softmax(&r->softmax, r->stream);
    default: return ts_rotary(&r->rope, r->stream);
    }
}

static ts_status mb_timer(bench_context *ctx, bench_timer *timer) {
    bench_timing_config config = bench_context_timing(ctx, 5);
    return bench_timer_init(timer, &config, &ctx->props, ctx->stream);
}

/* The baseline of every row: a device-to-device copy of half the row's bytes (so the same bytes
 * are read and written), timed interleaved with the kernel. Its TB/s is the copy bandwidth of
 * this run, on this device, and the ratio is the kernel's fraction of it, the measure. */
typedef struct mb_copy {
    void *dst, *src;
    size_t bytes;
    ts_stream stream;
} mb_copy;

static ts_status mb_copy_one(void *ctx, int rep) {
    const mb_copy *c = ctx;
    (void)rep;
    return ts_memcpy_async(c->dst, c->src, c->bytes, TS_MEMCPY_DEVICE_TO_DEVICE, c->stream);
}

/* Times one kernel run (r) against the copy and fills the row's value, baseline and spread. */
static ts_status mb_measure(bench_context *ctx, bench_timer *timer, mb_run *r, const char *name, double bytes,
                            bench_result *row, double *ms) {
    mb_copy copy = {NULL, NULL, (size_t)(bytes / 2.0) / 16 * 16, ctx->stream};
    ts_status st = ts_malloc(&copy.dst, copy.bytes);
    if (st == TS_SUCCESS) st = ts_malloc(&copy.src, copy.bytes);
    if (st == TS_SUCCESS) st = ts_memset(copy.src, 0, copy.bytes);
    bench_stats stats, copy_stats;
    if (st == TS_SUCCESS) st = bench_time_pair(timer, mb_run_one, r, mb_copy_one, &copy, &stats, &copy_stats);
    if (st == TS_SUCCESS) {
        bench_result_init(row, name, "TB/s", bytes / (stats.median_ms * 1e9));
        row->value_min = bytes / (stats.max_ms * 1e9);
        row->value_max = bytes / (stats.min_ms * 1e9);
        row->baseline = "device copy";
        row->baseline_value = 2.0 * (double)copy.bytes / (copy_stats.median_ms * 1e9);
        *ms = stats.median_ms;
    }
    (void)ts_free(copy.dst), (void)ts_free(copy.src);
    return st;
}

/* One norm shape: x, residual (when asked), weight, bias (layernorm) in bf16. */
static ts_status mb_norm(bench_context *ctx, bench_timer *timer, int rms, long long rows, int cols, int residual) {
    mb_run r;
    memset(&r, 0, sizeof r);
    r.kind = rms;
    r.stream = ctx->stream;
    const size_t n = (size_t)rows * cols;
    void *x = NULL, *res = NULL, *out = NULL, *ro = NULL, *w = NULL, *b = NULL;
    ts_status st = ts_malloc(&x, n * 2);
    if (st == TS_SUCCESS) st = ts_malloc(&out, n * 2);
    if (st == TS_SUCCESS && residual) st = ts_malloc(&res, n * 2);
    if (st == TS_SUCCESS && residual) st = ts_malloc(&ro, n * 2);
    if (st == TS_SUCCESS) st = ts_malloc(&w, (size_t)cols * 2);
    if (st == TS_SUCCESS) st = ts_malloc(&b, (size_t)cols * 2);
    if (st == TS_SUCCESS) st = bench_fill_bf16_normal(x, n, 5u + (unsigned)cols);
    if (st == TS_SUCCESS && residual) st = bench_fill_bf16_normal(res, n, 7u + (unsigned)cols);
    if (st == TS_SUCCESS) st = bench_fill_bf16_normal(w, (size_t)cols, 11u);
    if (st == TS_SUCCESS) st = bench_fill_bf16_normal(b, (size_t)cols, 13u);
    r.norm = (ts_norm_desc){.rows = rows, .cols = cols, .dtype = TS_DTYPE_BF16, .out_dtype = TS_DTYPE_BF16,
                            .param_dtype = TS_DTYPE_BF16, .x = x, .x_stride = cols, .residual = res,
                            .residual_stride = cols, .residual_out = ro, .residual_out_stride = cols,
                            .weight = w, .bias = rms ? NULL : b, .out = out, .out_stride = cols, .eps = 1e-5f};
    bench_result row;
    double ms = 0.0;
    const double bytes = 2.0 * n * (residual ? 4 : 2) + 2.0 * cols * (rms ? 1 : 2);
    if (st == TS_SUCCESS) st = mb_measure(ctx, timer, &r, rms ? "rmsnorm" : "layernorm", bytes, &row, &ms);
    if (st == TS_SUCCESS) {
        bench_param_int(&row, "rows", rows);
        bench_param_int(&row, "cols", cols);
        bench_param_int(&row, "residual", residual);
        bench_param_text(&row, "dtype", "bf16");
        bench_param_real(&row, "ms", ms);
        bench_report_row(ctx->report, &row);
    }
    (void)ts_free(x), (void)ts_free(res), (void)ts_free(out), (void)ts_free(ro), (void)ts_free(w), (void)ts_free(b);
    return st;
}

static ts_status mb_norm_all(bench_context *ctx, int rms) {
    bench_timer timer;
    ts_status st = mb_timer(ctx, &timer);
    if (st != TS_SUCCESS) return st;
    bench_report_heading(ctx->report, rms ? "RMSNorm (+ residual), bf16" : "LayerNorm (+ residual), bf16");
    bench_report_note(ctx->report, "TB/s = bytes of inputs read once and outputs written once / median; baseline: a "
                                   "device copy of the same bytes, interleaved (ratio = fraction of copy bandwidth); "
                                   "PyTorch: bench/compare_torch_memory.py");
    if (ctx->backend == TS_BACKEND_HOST) {
        st = mb_norm(ctx, &timer, rms, 64, 1024, 1);
    } else {
        static const long long shapes[2][2] = {{16384, 4096}, {65536, 1024}};
        for (int res = 1; res >= 0 && st == TS_SUCCESS; --res)
            for (int i = 0; i < 2 && st == TS_SUCCESS; ++i)
                st = mb_norm(ctx, &timer, rms, shapes[i][0], (int)shapes[i][1], res);
    }
    bench_timer_destroy(&timer);
    return st;
}

ts_status bench_layernorm(bench_context *ctx) { return mb_norm_all(ctx, 0); }
ts_status bench_rmsnorm(bench_context *ctx) { return mb_norm_all(ctx, 1); }

static ts_status mb_softmax(bench_context *ctx, bench_timer *timer, long long rows, int cols, int causal) {
    mb_run r;
    memset(&r, 0, sizeof r);
    r.kind = 2;
    r.stream = ctx->stream;
    const size_t n = (size_t)rows * cols;
    void *x = NULL, *out = NULL;
    ts_status st = ts_malloc(&x, n * 2);
    if (st == TS_SUCCESS) st = ts_malloc(&out, n * 2);
    if (st == TS_SUCCESS) st = bench_fill_bf16_normal(x, n, 17u + (unsigned)cols);
    r.softmax = (ts_softmax_desc){.rows = rows, .cols = cols, .dtype = TS_DTYPE_BF16, .out_dtype = TS_DTYPE_BF16,
                                  .x = x, .x_stride = cols, .out = out, .out_stride = cols, .scale = 1.0f,
                                  .causal = causal, .causal_rows = cols, .causal_offset = 0};
    bench_result row;
    double ms = 0.0;
    if (st == TS_SUCCESS) st = mb_measure(ctx, timer, &r, "softmax", 4.0 * n, &row, &ms);
    if (st == TS_SUCCESS) {
        bench_param_int(&row, "rows", rows);
        bench_param_int(&row, "cols", cols);
        bench_param_int(&row, "causal", causal);
        bench_param_text(&row, "dtype", "bf16");
        bench_param_real(&row, "ms", ms);
        bench_report_row(ctx->report, &row);
    }
    (void)ts_free(x), (void)ts_free(out);
    return st;
}

ts_status bench_softmax(bench_context *ctx) {
    bench_timer timer;
    ts_status st = mb_timer(ctx, &timer);
    if (st != TS_SUCCESS) return st;
    bench_report_heading(ctx->report, "row softmax, bf16");
    bench_report_note(ctx->report, "TB/s = (x read + y written) / median; causal rows mask columns past the row "
                                   "(square blocks); baseline: a device copy of the same bytes, interleaved; "
                                   "PyTorch: bench/compare_torch_memory.py");
    if (ctx->backend == TS_BACKEND_HOST) {
        st = mb_softmax(ctx, &timer, 64, 1024, 0);
    } else {
        static const long long shapes[2][2] = {{16384, 4096}, {65536, 1024}};
        for (int causal = 0; causal < 2 && st == TS_SUCCESS; ++causal)
            for (int i = 0; i < 2 && st == TS_SUCCESS; ++i)
                st = mb_softmax(ctx, &timer, shapes[i][0], (int)shapes[i][1], causal);
        /* Rows of logits over a vocabulary (32000: Llama 2, 128256: Llama 3): the stream instance. */
        static const long long vocab[2][2] = {{4096, 32000}, {2048, 128256}};
        for (int i = 0; i < 2 && st == TS_SUCCESS; ++i) st = mb_softmax(ctx, &timer, vocab[i][0], (int)vocab[i][1], 0);
    }
    bench_timer_destroy(&timer);
    return st;
}

static ts_status mb_rope(bench_context *ctx, bench_timer *timer, int b, int n, int h, int d, ts_rotary_layout layout,
                         ts_rotary_convention conv, int table) {
    mb_run r;
    memset(&r, 0, sizeof r);
    r.kind = 3;
    r.stream = ctx->stream;
    const size_t count = (size_t)b * n * h * d, tab = (size_t)n * (d / 2);
    void *q = NULL, *k = NULL, *ct = NULL, *sn = NULL;
    ts_status st = ts_malloc(&q, count * 2);
    if (st == TS_SUCCESS) st = ts_malloc(&k, count * 2);
    if (st == TS_SUCCESS) st = ts_malloc(&ct, tab * 4);
    if (st == TS_SUCCESS) st = ts_malloc(&sn, tab * 4);
    if (st == TS_SUCCESS) st = bench_fill_bf16_normal(q, count, 19u);
    if (st == TS_SUCCESS) st = bench_fill_bf16_normal(k, count, 23u);
    /* Any finite values serve as a table for timing: bf16 normals read as pairs of fp32 words. */
    if (st == TS_SUCCESS) st = bench_fill_bf16_normal(ct, tab * 2, 29u);
    if (st == TS_SUCCESS) st = bench_fill_bf16_normal(sn, tab * 2, 31u);
    r.rope = (ts_rotary_desc){.batch = b, .seq = n, .heads_q = h, .heads_k = h, .head_dim = d, .dtype = TS_DTYPE_BF16,
                              .layout = layout, .convention = conv, .q = q, .q_out = q, .k = k, .k_out = k,
                              .cos_table = table ? ct : NULL, .sin_table = table ? sn : NULL, .table_rows = n,
                              .theta_base = 10000.0f};
    bench_result row;
    double ms = 0.0;
    const double bytes = 2.0 * 2.0 * 2.0 * count + (table ? 8.0 * tab : 0.0);
    if (st == TS_SUCCESS) st = mb_measure(ctx, timer, &r, "rope", bytes, &row, &ms);
    if (st == TS_SUCCESS) {
        bench_param_int(&row, "B", b);
        bench_param_int(&row, "N", n);
        bench_param_int(&row, "H", h);
        bench_param_int(&row, "D", d);
        bench_param_text(&row, "layout", layout == TS_ROTARY_BNHD ? "BNHD" : "BHND");
        bench_param_text(&row, "convention", conv == TS_ROTARY_ROTATE_HALF ? "rotate_half" : "interleaved");
        bench_param_text(&row, "angles", table ? "table" : "computed");
        bench_param_text(&row, "dtype", "bf16");
        bench_param_real(&row, "ms", ms);
        bench_report_row(ctx->report, &row);
    }
    (void)ts_free(q), (void)ts_free(k), (void)ts_free(ct), (void)ts_free(sn);
    return st;
}

ts_status bench_rope(bench_context *ctx) {
    bench_timer timer;
    ts_status st = mb_timer(ctx, &timer);
    if (st != TS_SUCCESS) return st;
    bench_report_heading(ctx->report, "rotary embedding on Q and K, in place, bf16");
    bench_report_note(ctx->report, "TB/s = (Q, K read and written + cos/sin table rows read) / median; baseline: a "
                                   "device copy of the same bytes, interleaved; PyTorch: bench/compare_torch_memory.py");
    const ts_rotary_layout BNHD = TS_ROTARY_BNHD, BHND = TS_ROTARY_BHND;
    const ts_rotary_convention HALF = TS_ROTARY_ROTATE_HALF, INTER = TS_ROTARY_INTERLEAVED;
    if (ctx->backend == TS_BACKEND_HOST) {
        st = mb_rope(ctx, &timer, 1, 64, 4, 128, BNHD, HALF, 1);
    } else {
        st = mb_rope(ctx, &timer, 8, 4096, 32, 128, BNHD, HALF, 1);
        if (st == TS_SUCCESS) st = mb_rope(ctx, &timer, 8, 4096, 32, 128, BHND, HALF, 1);
        if (st == TS_SUCCESS) st = mb_rope(ctx, &timer, 8, 4096, 32, 128, BNHD, INTER, 1);
        if (st == TS_SUCCESS) st = mb_rope(ctx, &timer, 8, 4096, 32, 128, BNHD, HALF, 0);
    }
    bench_timer_destroy(&timer);
    return st;
}
