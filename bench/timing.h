/* The timing protocol of tessera-bench, in one place so that every benchmark measures the same
 * way: untimed warm-up runs, then at least TS_BENCH_MIN_REPS timed runs, each between a pair of
 * device events on the benchmark's stream, reported as median, min and max in milliseconds.
 * Optionally the L2 is flushed before every timed run (outside the timed region) so that inputs
 * left in the cache by the previous run do not flatter the result (by reading twice its size,
 * which leaves it clean; timing.c says why), and a subject and its
 * baseline can be timed interleaved, one run of each in turn, so that clock and thermal drift hit
 * both alike. */
#ifndef TESSERA_BENCH_TIMING_H
#define TESSERA_BENCH_TIMING_H

#include <stddef.h>

#include <tessera/tessera.h>

#include "baseline.h"

#define TS_BENCH_MIN_REPS 20

/* One run of the thing being timed, enqueued on the benchmark's stream. rep counts every call of
 * one timing, warm-ups included, from 0, so a benchmark can rotate through several input sets
 * (rep % sets) and never time the same inputs twice in a row. */
typedef ts_status (*bench_run_fn)(void *ctx, int rep);

typedef struct bench_timing_config {
    int warmup;   /* untimed runs first (>= 0) */
    int reps;     /* timed runs; fewer than TS_BENCH_MIN_REPS are raised to it */
    int flush_l2; /* nonzero: flush the L2 (2x its size read) before every timed run */
} bench_timing_config;

typedef struct bench_stats {
    double median_ms;
    double min_ms;
    double max_ms;
    int reps;
} bench_stats;

typedef struct bench_timer {
    ts_stream stream;
    int warmup;
    int reps;
    int flush_l2;
    ts_event *start; /* 2 * reps events each, enough for an interleaved pair */
    ts_event *stop;
    float *samples;
    void *flush_buffer;
    size_t flush_bytes;
    int flush_count;
    bench_baseline *flush_reader; /* the vendor library that reads the flush buffer; NULL: memset */
} bench_timer;

/* Creates the events (and the flush buffer, when asked) for timings on stream. On failure
 * everything created so far is released. */
ts_status bench_timer_init(bench_timer *timer, const bench_timing_config *config,
                           const ts_device_props *props, ts_stream stream);
void bench_timer_destroy(bench_timer *timer);

/* Times run(ctx, rep) under the protocol. */
ts_status bench_time(bench_timer *timer, bench_run_fn run, void *ctx, bench_stats *stats);

/* Times a subject and a baseline interleaved: each takes its warm-ups, then every round times one
 * run of each, the order swapped every round. */
ts_status bench_time_pair(bench_timer *timer, bench_run_fn subject, void *subject_ctx,
                          bench_run_fn baseline, void *baseline_ctx, bench_stats *subject_stats,
                          bench_stats *baseline_stats);

/* Overwrites a buffer of twice the device's L2 on the timer's stream, evicting whatever the last
 * run left there. bench_time calls it when the config asks; a benchmark may call it itself. */
ts_status bench_flush_l2(bench_timer *timer);

/* A rough time of one run for sizing a workload (median of `runs` runs after one warm-up). Not
 * the protocol: never report it as a result. */
ts_status bench_estimate_ms(ts_stream stream, bench_run_fn run, void *ctx, int runs, double *ms);

#endif
