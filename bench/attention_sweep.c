/* The attention benches' shared points and result row (attention_sweep.h). */
#include "attention_sweep.h"

#include <stdlib.h>

ts_status bench_attention_sweep(bench_context *ctx, bench_timer *timer, bench_attention_point point) {
    ts_status st = TS_SUCCESS;
    if (ctx->backend == TS_BACKEND_HOST) {
        for (int causal = 0; causal < 2 && st == TS_SUCCESS; ++causal) st = point(ctx, timer, 1, 2, 128, 64, causal);
        return st;
    }
    for (int causal = 0; causal < 2 && st == TS_SUCCESS; ++causal) st = point(ctx, timer, 16, 16, 4096, 128, causal);
    const char *quick = getenv("TESSERA_BENCH_QUICK");
    const int first = quick && quick[0] == '1' ? 2 : 0, last = quick && quick[0] == '1' ? 3 : 5;
    static const int ns[5] = {1024, 2048, 4096, 8192, 16384};
    for (int d = 64; d <= 128 && st == TS_SUCCESS; d += 64)
        for (int i = first; i < last && st == TS_SUCCESS; ++i)
            for (int causal = 0; causal < 2 && st == TS_SUCCESS; ++causal)
                st = point(ctx, timer, 16384 / ns[i], 16, ns[i], d, causal);
    return st;
}

void bench_attention_row(bench_context *ctx, const char *bench, double flops, const bench_stats *stats, int b, int h,
                         int n, int d, int causal, const char *form) {
    bench_result r;
    bench_result_init(&r, bench, "TFLOP/s", flops / (stats->median_ms * 1e9));
    r.value_min = flops / (stats->max_ms * 1e9);
    r.value_max = flops / (stats->min_ms * 1e9);
    bench_param_int(&r, "B", b);
    bench_param_int(&r, "H", h);
    bench_param_int(&r, "N", n);
    bench_param_int(&r, "D", d);
    bench_param_int(&r, "causal", causal);
    bench_param_text(&r, "dtype", "bf16");
    if (form) bench_param_text(&r, "dq", form);
    bench_param_real(&r, "ms", stats->median_ms);
    bench_report_row(ctx->report, &r);
}
