/* The timing protocol (see timing.h): warm-up, >= 20 timed runs between device events, median,
 * optional L2 flush outside the timed region, interleaved subject and baseline. Events of all
 * runs are recorded first and read once the last has completed, so reading a timer does not
 * stall the stream between runs. */
#include "timing.h"

#include <stdlib.h>
#include <string.h>

/* Used when a device does not report its L2 size: larger than any L2 of the GPUs targeted. */
#define TS_BENCH_FLUSH_FALLBACK_BYTES ((size_t)64 << 20)

/* The L2 flush reads a buffer twice the L2's size (a sum through the vendor library, cuBLAS), which
 * evicts the previous run's inputs and outputs and leaves the cache holding clean lines. A flush
 * that writes (memset) leaves it full of dirty lines instead, which the timed run then has to
 * write back to DRAM: on the H200 up to 60 MB, over a tenth of what a 512 MiB memory-bound kernel
 * moves, charged to the kernel. The memset stays where no vendor library is built (HIP, host) and
 * with TESSERA_BENCH_FLUSH=write, for comparing with results measured that way. */
static ts_status bench_flush_prepare(bench_timer *t, size_t l2_bytes)
{
    t->flush_bytes = l2_bytes > 0 ? 2 * l2_bytes : TS_BENCH_FLUSH_FALLBACK_BYTES;
    ts_status st = ts_malloc(&t->flush_buffer, t->flush_bytes);
    if (st != TS_SUCCESS)
        return st;
    const char *mode = getenv("TESSERA_BENCH_FLUSH");
    const char *name = NULL;
    if (!(mode != NULL && strcmp(mode, "write") == 0) &&
        bench_baseline_create(&t->flush_reader, &name, t->stream) != TS_SUCCESS)
        t->flush_reader = NULL;
    /* Zeros, which the reading flush sums as floats. */
    return ts_memset(t->flush_buffer, 0, t->flush_bytes);
}

static void bench_timer_release(bench_timer *t)
{
    for (int i = 0; i < 2 * t->reps; i++) {
        if (t->start != NULL && t->start[i] != NULL)
            (void)ts_event_destroy(t->start[i]);
        if (t->stop != NULL && t->stop[i] != NULL)
            (void)ts_event_destroy(t->stop[i]);
    }
    free(t->start);
    free(t->stop);
    free(t->samples);
    if (t->flush_buffer != NULL)
        (void)ts_free(t->flush_buffer);
    bench_baseline_destroy(t->flush_reader);
    memset(t, 0, sizeof *t);
}

ts_status bench_timer_init(bench_timer *t, const bench_timing_config *config,
                           const ts_device_props *props, ts_stream stream)
{
    if (t == NULL || config == NULL || props == NULL)
        return TS_ERROR_NULL_POINTER;
    if (config->warmup < 0 || config->reps < 0)
        return TS_ERROR_INVALID_SIZE;
    memset(t, 0, sizeof *t);
    t->stream = stream;
    t->warmup = config->warmup;
    t->reps = config->reps < TS_BENCH_MIN_REPS ? TS_BENCH_MIN_REPS : config->reps;
    t->flush_l2 = config->flush_l2 != 0;

    size_t n = 2 * (size_t)t->reps;
    t->start = calloc(n, sizeof *t->start);
    t->stop = calloc(n, sizeof *t->stop);
    t->samples = calloc(n, sizeof *t->samples);
    if (t->start == NULL || t->stop == NULL || t->samples == NULL) {
        bench_timer_release(t);
        return TS_ERROR_OUT_OF_MEMORY;
    }
    ts_status st = TS_SUCCESS;
    for (size_t i = 0; i < n && st == TS_SUCCESS; i++) {
        st = ts_event_create(&t->start[i]);
        if (st == TS_SUCCESS)
            st = ts_event_create(&t->stop[i]);
    }
    if (st == TS_SUCCESS && t->flush_l2)
        st = bench_flush_prepare(t, props->l2_bytes);
    if (st != TS_SUCCESS)
        bench_timer_release(t);
    return st;
}

void bench_timer_destroy(bench_timer *t)
{
    if (t != NULL)
        bench_timer_release(t);
}

ts_status bench_flush_l2(bench_timer *t)
{
    if (t == NULL)
        return TS_ERROR_NULL_POINTER;
    if (t->flush_buffer == NULL) {
        /* Allocated on first use when the config did not ask for flushing up front. */
        ts_device_props props;
        int device = 0;
        ts_status st = ts_device_get(&device);
        if (st == TS_SUCCESS)
            st = ts_device_get_props(device, &props);
        if (st != TS_SUCCESS)
            return st;
        st = bench_flush_prepare(t, props.l2_bytes);
        if (st != TS_SUCCESS)
            return st;
    }
    if (t->flush_reader != NULL)
        return bench_baseline_read(t->flush_reader, t->flush_buffer, t->flush_bytes - 16,
                                   (char *)t->flush_buffer + t->flush_bytes - 16);
    /* A different byte each time, so no layer can skip a write that changes nothing. */
    t->flush_count++;
    return ts_memset_async(t->flush_buffer, t->flush_count & 0xff, t->flush_bytes, t->stream);
}

/* One timed run into slot i: the flush is enqueued before the start event, so it is not timed. */
static ts_status bench_timed_run(bench_timer *t, int i, bench_run_fn run, void *ctx, int rep)
{
    ts_status st = TS_SUCCESS;
    if (t->flush_l2)
        st = bench_flush_l2(t);
    if (st == TS_SUCCESS)
        st = ts_event_record(t->start[i], t->stream);
    if (st == TS_SUCCESS)
        st = run(ctx, rep);
    if (st == TS_SUCCESS)
        st = ts_event_record(t->stop[i], t->stream);
    return st;
}

static int bench_compare_float(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

/* Reads the events of slots first, first + stride, ... (count of them) into stats. */
static ts_status bench_collect(bench_timer *t, int first, int stride, int count, bench_stats *stats)
{
    for (int k = 0; k < count; k++) {
        int i = first + k * stride;
        ts_status st = ts_event_synchronize(t->stop[i]);
        if (st == TS_SUCCESS)
            st = ts_event_elapsed_ms(&t->samples[k], t->start[i], t->stop[i]);
        if (st != TS_SUCCESS)
            return st;
    }
    qsort(t->samples, (size_t)count, sizeof *t->samples, bench_compare_float);
    stats->reps = count;
    stats->min_ms = t->samples[0];
    stats->max_ms = t->samples[count - 1];
    stats->median_ms = count % 2 ? t->samples[count / 2]
                                 : 0.5 * ((double)t->samples[count / 2 - 1] + t->samples[count / 2]);
    return TS_SUCCESS;
}

ts_status bench_time(bench_timer *t, bench_run_fn run, void *ctx, bench_stats *stats)
{
    if (t == NULL || run == NULL || stats == NULL || t->start == NULL)
        return TS_ERROR_NULL_POINTER;
    int rep = 0;
    ts_status st = TS_SUCCESS;
    for (int i = 0; i < t->warmup && st == TS_SUCCESS; i++)
        st = run(ctx, rep++);
    for (int i = 0; i < t->reps && st == TS_SUCCESS; i++)
        st = bench_timed_run(t, i, run, ctx, rep++);
    if (st == TS_SUCCESS)
        st = bench_collect(t, 0, 1, t->reps, stats);
    return st;
}

ts_status bench_time_pair(bench_timer *t, bench_run_fn subject, void *subject_ctx,
                          bench_run_fn baseline, void *baseline_ctx, bench_stats *subject_stats,
                          bench_stats *baseline_stats)
{
    if (t == NULL || subject == NULL || baseline == NULL || subject_stats == NULL ||
        baseline_stats == NULL || t->start == NULL)
        return TS_ERROR_NULL_POINTER;
    int rep_s = 0, rep_b = 0;
    ts_status st = TS_SUCCESS;
    for (int i = 0; i < t->warmup && st == TS_SUCCESS; i++) {
        st = subject(subject_ctx, rep_s++);
        if (st == TS_SUCCESS)
            st = baseline(baseline_ctx, rep_b++);
    }
    /* Slot 2r holds the subject's run of round r, slot 2r + 1 the baseline's. */
    for (int r = 0; r < t->reps && st == TS_SUCCESS; r++) {
        if (r % 2 == 0) {
            st = bench_timed_run(t, 2 * r, subject, subject_ctx, rep_s++);
            if (st == TS_SUCCESS)
                st = bench_timed_run(t, 2 * r + 1, baseline, baseline_ctx, rep_b++);
        } else {
            st = bench_timed_run(t, 2 * r + 1, baseline, baseline_ctx, rep_b++);
            if (st == TS_SUCCESS)
                st = bench_timed_run(t, 2 * r, subject, subject_ctx, rep_s++);
        }
    }
    if (st == TS_SUCCESS)
        st = bench_collect(t, 0, 2, t->reps, subject_stats);
    if (st == TS_SUCCESS)
        st = bench_collect(t, 1, 2, t->reps, baseline_stats);
    return st;
}

ts_status bench_estimate_ms(ts_stream stream, bench_run_fn run, void *ctx, int runs, double *ms)
{
    if (run == NULL || ms == NULL)
        return TS_ERROR_NULL_POINTER;
    if (runs <= 0 || runs > 64)
        return TS_ERROR_INVALID_SIZE;
    ts_event start = NULL, stop = NULL;
    float samples[64];
    ts_status st = ts_event_create(&start);
    if (st == TS_SUCCESS)
        st = ts_event_create(&stop);
    if (st == TS_SUCCESS)
        st = run(ctx, 0);
    for (int i = 0; i < runs && st == TS_SUCCESS; i++) {
        st = ts_event_record(start, stream);
        if (st == TS_SUCCESS)
            st = run(ctx, i + 1);
        if (st == TS_SUCCESS)
            st = ts_event_record(stop, stream);
        if (st == TS_SUCCESS)
            st = ts_event_synchronize(stop);
        if (st == TS_SUCCESS)
            st = ts_event_elapsed_ms(&samples[i], start, stop);
    }
    if (st == TS_SUCCESS) {
        qsort(samples, (size_t)runs, sizeof samples[0], bench_compare_float);
        *ms = samples[runs / 2];
    }
    if (start != NULL)
        (void)ts_event_destroy(start);
    if (stop != NULL)
        (void)ts_event_destroy(stop);
    return st;
}
