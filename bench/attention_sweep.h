/* The points and the result row that `tessera-bench attention` and `attention-backward` share:
 * B16 H16 N4096 D128 causal and not, then D64 and D128 at N in {1024, ..., 16384} with H16 and
 * 16K tokens (B = 16384 / N), which keeps one run of the longest under a second or two; one small
 * point each way on the host backend. */
#ifndef TESSERA_BENCH_ATTENTION_SWEEP_H
#define TESSERA_BENCH_ATTENTION_SWEEP_H

#include "bench.h"
#include "timing.h"

/* One point's measurement: writes its row (bench_attention_row) and returns its status. */
typedef ts_status (*bench_attention_point)(bench_context *ctx, bench_timer *timer, int b, int h, int n, int d,
                                           int causal);

/* Every point in turn, stopping at the first failure. TESSERA_BENCH_QUICK=1 sweeps N = 4096 only,
 * for comparing builds quickly. */
ts_status bench_attention_sweep(bench_context *ctx, bench_timer *timer, bench_attention_point point);

/* The row of one point: TFLOP/s of flops over the median run (the range over the slowest and the
 * fastest), B H N D causal, bf16, the form measured (params.dq, where form is not NULL) and the
 * median in ms. */
void bench_attention_row(bench_context *ctx, const char *bench, double flops, const bench_stats *stats, int b, int h,
                         int n, int d, int causal, const char *form);

#endif
