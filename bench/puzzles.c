/* `tessera-bench puzzles`: the two puzzles of the GPU hardware model, measured and set next to
 * the launch planner's prediction.
 *   (a) The same threads (one full block per SM) in blocks of 1024, 512, ... 32 threads: every
 *       configuration gives each SM the same threads, and a block of 256 threads saturates an SM
 *       as well as one of 1024, so the time should not change.
 *   (b) SMs - 1, SMs, SMs + 1, 2 SMs and 2 SMs + 1 blocks of 1024 threads: one block more than
 *       the SMs makes one SM run two blocks one after the other, so the time doubles.
 * The kernel (ts_puzzle_fma) is compute-bound: many independent FMA chains per warp. The
 * prediction assumes every configuration saturates the SM, so time is proportional to the threads
 * the busiest SM must run: predicted = reference * (busiest blocks * threads per block) /
 * (reference's busiest blocks * its threads), the reference being one full block per SM. */
#include "bench.h"
#include "timing.h"

#include <stdio.h>
#include <string.h>

/* The GPU work is sized so that the reference launch takes about this long: long enough that
 * launch overhead and event resolution do not matter, short enough for a quick run. */
#define TS_PUZZLE_TARGET_MS 0.2
#define TS_PUZZLE_CALIBRATION_ITERS 1024
#define TS_PUZZLE_HOST_ITERS 64

typedef struct puzzle_launch {
    float *out;
    long long blocks;
    int threads;
    int iters;
    ts_stream stream;
} puzzle_launch;

static ts_status puzzle_run(void *ctx, int rep)
{
    const puzzle_launch *p = ctx;
    (void)rep; /* no inputs to rotate: the kernel reads nothing */
    /* x = x * a + b with |a| < 1 converges, so no chain reaches infinities or denormals. */
    return ts_puzzle_fma(p->out, p->blocks, p->threads, p->iters, 0.999f, 0.001f, p->stream);
}

typedef struct puzzle_row {
    char part;
    long long blocks;
    int threads;
} puzzle_row;

/* What the reference row measured and planned; every prediction scales from it. */
typedef struct puzzle_reference {
    double ms;
    long long busiest_threads;
} puzzle_reference;

static ts_status puzzle_measure(bench_context *ctx, bench_timer *timer, puzzle_launch *launch,
                                const puzzle_row *row, const puzzle_reference *ref,
                                puzzle_reference *as_ref)
{
    const ts_device_props *props = &ctx->props;
    ts_kernel_resources res;
    ts_launch_plan plan;
    ts_status st = ts_puzzle_fma_resources(row->threads, &res);
    if (st == TS_SUCCESS)
        st = ts_plan_launch(props, &res, row->blocks, &plan);
    if (st != TS_SUCCESS)
        return st;
    char explanation[1024];
    st = ts_plan_explain(props, &res, &plan, explanation, sizeof explanation);
    if (st != TS_SUCCESS)
        return st;

    launch->blocks = row->blocks;
    launch->threads = row->threads;
    bench_stats stats;
    st = bench_time(timer, puzzle_run, launch, &stats);
    if (st != TS_SUCCESS)
        return st;

    long long busiest_threads = plan.busiest_sm_blocks * row->threads;
    if (as_ref != NULL) {
        as_ref->ms = stats.median_ms;
        as_ref->busiest_threads = busiest_threads;
        ref = as_ref;
    }

    bench_result r;
    bench_result_init(&r, "puzzles", "ms", stats.median_ms);
    char part[2] = {row->part, '\0'};
    bench_param_text(&r, "part", part);
    bench_param_int(&r, "blocks", row->blocks);
    bench_param_int(&r, "threads", row->threads);
    bench_param_int(&r, "iters", launch->iters);
    r.value_min = stats.min_ms;
    r.value_max = stats.max_ms;
    r.has_prediction = 1;
    r.predicted_ms = ref->ms * (double)busiest_threads / (double)ref->busiest_threads;
    r.predicted_efficiency = plan.predicted_efficiency;
    r.explanation = explanation;
    bench_report_row(ctx->report, &r);
    return TS_SUCCESS;
}

/* Iterations for which the reference launch takes about TS_PUZZLE_TARGET_MS. Time is linear in
 * the iterations plus a fixed launch cost, so two rough times give the line. */
static ts_status puzzle_calibrate(bench_context *ctx, puzzle_launch *launch, int *iters)
{
    const int n1 = TS_PUZZLE_CALIBRATION_ITERS, n2 = 4 * TS_PUZZLE_CALIBRATION_ITERS;
    double t1 = 0.0, t2 = 0.0;
    launch->iters = n1;
    ts_status st = bench_estimate_ms(ctx->stream, puzzle_run, launch, 5, &t1);
    launch->iters = n2;
    if (st == TS_SUCCESS)
        st = bench_estimate_ms(ctx->stream, puzzle_run, launch, 5, &t2);
    if (st != TS_SUCCESS)
        return st;
    double slope = (t2 - t1) / (n2 - n1);
    double fixed = t1 - slope * n1;
    double scaled;
    if (slope > 0.0 && fixed >= 0.0 && fixed < TS_PUZZLE_TARGET_MS)
        scaled = (TS_PUZZLE_TARGET_MS - fixed) / slope;
    else /* noisy: fall back to proportional */
        scaled = t2 > 0.0 ? n2 * TS_PUZZLE_TARGET_MS / t2 : 1e9;
    long long n = ((long long)scaled + 128) / 256 * 256;
    if (n < 256)
        n = 256;
    if (n > (1 << 22))
        n = 1 << 22;
    *iters = (int)n;
    return TS_SUCCESS;
}

ts_status bench_puzzles(bench_context *ctx)
{
    const ts_device_props *props = &ctx->props;
    const int host = ctx->backend == TS_BACKEND_HOST;
    const long long sms = props->sm_count;
    /* A full block: 1024 threads on a GPU; on the host backend, where a warp is one thread,
     * the most warps a block may have. */
    const int full = props->max_threads_per_block;
    const int lanes = props->warp_lanes;

    puzzle_row rows[16];
    int nrows = 0;
    for (int t = full, k = 0; k < 6 && t >= lanes && t % lanes == 0; t /= 2, k++)
        rows[nrows++] = (puzzle_row){'a', sms * full / t, t};
    const int part_b = nrows;
    const long long grids[] = {sms - 1, sms, sms + 1, 2 * sms, 2 * sms + 1};
    for (size_t i = 0; i < sizeof grids / sizeof grids[0]; i++)
        if (grids[i] > 0)
            rows[nrows++] = (puzzle_row){'b', grids[i], full};

    /* The kernel keeps its chains in one 16x16 fp32 tile per warp, loaded from and stored to
     * the buffer (256 floats per warp, whatever the lanes); size for that or one float per
     * thread, whichever is more. */
    long long floats = 0;
    for (int i = 0; i < nrows; i++) {
        ts_kernel_resources res;
        ts_status rst = ts_puzzle_fma_resources(rows[i].threads, &res);
        if (rst != TS_SUCCESS)
            return rst;
        long long per_block = (long long)res.warps_per_block * 256;
        if (per_block < rows[i].threads)
            per_block = rows[i].threads;
        if (rows[i].blocks * per_block > floats)
            floats = rows[i].blocks * per_block;
    }

    void *out = NULL;
    size_t bytes = (size_t)floats * sizeof(float);
    ts_status st = ts_malloc(&out, bytes);
    if (st != TS_SUCCESS)
        return st;
    /* Zeros are a fine start: the chains move towards b / (1 - a) = 1 and never reach
     * denormals, which would slow the host backend. */
    st = ts_memset(out, 0, bytes);
    puzzle_launch launch = {out, sms, full, 0, ctx->stream};

    int iters = ctx->options.iters;
    if (st == TS_SUCCESS && iters <= 0) {
        if (host)
            iters = TS_PUZZLE_HOST_ITERS;
        else
            st = puzzle_calibrate(ctx, &launch, &iters);
    }
    launch.iters = iters;

    bench_timer timer;
    bench_timing_config config = bench_context_timing(ctx, 5);
    config.flush_l2 = 0; /* the kernel reads no memory */
    int timer_ready = 0;
    if (st == TS_SUCCESS) {
        st = bench_timer_init(&timer, &config, props, ctx->stream);
        timer_ready = st == TS_SUCCESS;
    }

    if (st == TS_SUCCESS) {
        bench_report *rep = ctx->report;
        bench_report_note(rep, "puzzles: %d FMA iterations x 256 chains per warp%s; median of %d "
                               "runs after %d warm-up run%s.",
                          iters,
                          ctx->options.iters > 0 ? " (--iters)"
                          : host                 ? " (small: host backend)"
                                                 : " (calibrated to ~0.2 ms per full wave)",
                          timer.reps, timer.warmup, timer.warmup == 1 ? "" : "s");
        bench_report_note(rep, "prediction: every configuration is taken to saturate an SM, so "
                               "time is proportional to the threads the busiest SM must run "
                               "(reference: %lld blocks of %d threads).",
                          sms, full);
        puzzle_reference ref = {0.0, 1};
        char title[128];
        snprintf(title, sizeof title, "(a) the same %lld threads in blocks of different sizes",
                 sms * full);
        bench_report_heading(rep, title);
        for (int i = 0; i < nrows && st == TS_SUCCESS; i++) {
            if (i == part_b) {
                snprintf(title, sizeof title, "(b) blocks of %d threads around the SM count (%lld)",
                         full, sms);
                bench_report_heading(rep, title);
            }
            st = puzzle_measure(ctx, &timer, &launch, &rows[i], &ref, i == 0 ? &ref : NULL);
        }
    }

    if (timer_ready)
        bench_timer_destroy(&timer);
    ts_status free_st = ts_free(out);
    return st != TS_SUCCESS ? st : free_st;
}
