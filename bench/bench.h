/* What every benchmark of tessera-bench receives and returns: the options from the command line,
 * the device it runs on, the stream and the report to write rows to. main.c owns the list of
 * benchmarks; each one lives in its own file and is declared here. */
#ifndef TESSERA_BENCH_BENCH_H
#define TESSERA_BENCH_BENCH_H

#include <tessera/tessera.h>

#include "report.h"
#include "timing.h"

/* Options a benchmark may read. A value of -1 means "not given": each benchmark picks its own
 * default, since a sensible size differs between a GPU and the host backend. */
typedef struct bench_options {
    int json;
    int device;
    int iters;
    int reps;
    int warmup;
    int shape[3];   /* --shape MxNxK for the benches that take a problem shape; 0 when not given */
} bench_options;

typedef struct bench_context {
    bench_options options;
    int device;
    ts_device_props props;
    ts_backend backend;
    const char *backend_name;
    ts_stream stream;
    bench_report *report;
} bench_context;

/* The timing protocol as the command line asks: --warmup and --reps where given, else gpu_warmup
 * warm-up runs (one on the host backend) and TS_BENCH_MIN_REPS timed runs; the L2 flushed before
 * every timed run on a GPU. */
static inline bench_timing_config bench_context_timing(const bench_context *ctx, int gpu_warmup) {
    const int host = ctx->backend == TS_BACKEND_HOST;
    bench_timing_config config = {
        .warmup = ctx->options.warmup >= 0 ? ctx->options.warmup : (host ? 1 : gpu_warmup),
        .reps = ctx->options.reps > 0 ? ctx->options.reps : TS_BENCH_MIN_REPS,
        .flush_l2 = !host,
    };
    return config;
}

/* A benchmark returns TS_SUCCESS or the first status that stopped it; it has already written the
 * rows it measured. */
typedef ts_status (*bench_fn)(bench_context *ctx);

typedef struct bench_entry {
    const char *name;
    const char *summary;
    bench_fn run;
} bench_entry;

ts_status bench_puzzles(bench_context *ctx);
ts_status bench_gemm(bench_context *ctx);
ts_status bench_attention(bench_context *ctx);
ts_status bench_attention_decode(bench_context *ctx);
ts_status bench_based(bench_context *ctx);
ts_status bench_gemm_decode(bench_context *ctx);
ts_status bench_attention_backward(bench_context *ctx);

#endif
