/* `tessera-bench attention-decode`: one decode step of ts_attention_decode over a paged bf16 cache
 * (pages of 64 tokens, shuffled through the cache as a serving engine's allocator leaves them),
 * GQA 8 (64 query heads over 8 key-value heads), D 64 and 128, 1 and 4 query rows (causal), every
 * sequence of the batch at the row's context. A decode step is bound by reading K and V: each row
 * reports TB/s of K and V read and, as its baseline, a device-to-device copy of the same bytes
 * timed interleaved with it, so that the ratio is the fraction of this run's copy bandwidth, the
 * step's read limit. The contexts run from 1k to 128k keys at batches 1 and 8 (B x context at most
 * 512k tokens). The PyTorch SDPA baseline on the same dense problem: bench/compare_torch_decode.py. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "random.h"
#include "timing.h"

#define DECODE_PAGE 64

typedef struct decode_run {
    ts_attention_decode_desc desc;
    void *q, *k, *v, *o, *ws;
    int *table, *seq;
    size_t ws_bytes;
    ts_stream stream;
} decode_run;

static ts_status decode_run_one(void *ctx, int rep) {
    const decode_run *r = ctx;
    (void)rep;
    return ts_attention_decode(&r->desc, TS_DTYPE_BF16, r->q, r->k, r->v, r->table, r->seq, r->o, NULL, r->ws,
                               r->ws_bytes, r->stream);
}

typedef struct decode_copy {
    void *dst, *src;
    size_t bytes;
    ts_stream stream;
} decode_copy;

static ts_status decode_copy_one(void *ctx, int rep) {
    const decode_copy *c = ctx;
    (void)rep;
    return ts_memcpy_async(c->dst, c->src, c->bytes, TS_MEMCPY_DEVICE_TO_DEVICE, c->stream);
}

static ts_status decode_one(bench_context *ctx, bench_timer *timer, int b, int hq, int hkv, int context, int nq,
                            int d) {
    decode_run r;
    memset(&r, 0, sizeof r);
    const int pages_per_seq = (context + DECODE_PAGE - 1) / DECODE_PAGE, pages = b * pages_per_seq;
    r.desc = (ts_attention_decode_desc){b, hq, hkv, nq, d, DECODE_PAGE, pages, pages_per_seq, 1.0f / sqrtf((float)d),
                                        nq > 1};
    r.stream = ctx->stream;
    const size_t nq_elems = (size_t)b * hq * nq * d, cache = (size_t)pages * hkv * DECODE_PAGE * d;
    int *table = malloc(sizeof(int) * (size_t)pages), *seq = malloc(sizeof(int) * (size_t)b);
    if (!table || !seq) {
        free(table);
        free(seq);
        return TS_ERROR_OUT_OF_MEMORY;
    }
    /* Pages in a fixed shuffled order (a linear congruential walk over a power of two). */
    unsigned long long x = 12345u;
    for (int i = 0; i < pages; ++i) table[i] = i;
    for (int i = pages - 1; i > 0; --i) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        const int j = (int)((x >> 33) % (unsigned long long)(i + 1)), t = table[i];
        table[i] = table[j];
        table[j] = t;
    }
    for (int i = 0; i < b; ++i) seq[i] = context;
    /* K and V read: every sequence's keys and values of the 8 heads (the pages' unused slots aside). */
    const double bytes = 2.0 * b * (double)context * hkv * d * 2.0;
    decode_copy copy = {NULL, NULL, (size_t)(bytes / 2.0) / 16 * 16, ctx->stream};
    ts_status st = ts_attention_decode_workspace_size(&r.desc, &r.ws_bytes);
    if (st == TS_SUCCESS) st = ts_malloc(&r.q, nq_elems * 2);
    if (st == TS_SUCCESS) st = ts_malloc(&r.o, nq_elems * 2);
    if (st == TS_SUCCESS) st = ts_malloc(&r.k, cache * 2);
    if (st == TS_SUCCESS) st = ts_malloc(&r.v, cache * 2);
    if (st == TS_SUCCESS) st = ts_malloc(&r.ws, r.ws_bytes);
    if (st == TS_SUCCESS) st = ts_malloc((void **)&r.table, sizeof(int) * (size_t)pages);
    if (st == TS_SUCCESS) st = ts_malloc((void **)&r.seq, sizeof(int) * (size_t)b);
    if (st == TS_SUCCESS) st = ts_malloc(&copy.dst, copy.bytes);
    if (st == TS_SUCCESS) st = ts_malloc(&copy.src, copy.bytes);
    if (st == TS_SUCCESS) st = ts_memset(copy.src, 0, copy.bytes);
    if (st == TS_SUCCESS) st = bench_fill_bf16_normal(r.q, nq_elems, 3u + (unsigned)context);
    if (st == TS_SUCCESS) st = bench_fill_bf16_normal(r.k, cache, 5u + (unsigned)context);
    if (st == TS_SUCCESS) st = bench_fill_bf16_normal(r.v, cache, 7u + (unsigned)context);
    if (st == TS_SUCCESS) st = ts_memcpy(r.table, table, sizeof(int) * (size_t)pages, TS_MEMCPY_HOST_TO_DEVICE);
    if (st == TS_SUCCESS) st = ts_memcpy(r.seq, seq, sizeof(int) * (size_t)b, TS_MEMCPY_HOST_TO_DEVICE);
    bench_stats stats, copy_stats;
    if (st == TS_SUCCESS)
        st = bench_time_pair(timer, decode_run_one, &r, decode_copy_one, &copy, &stats, &copy_stats);
    if (st == TS_SUCCESS) {
        bench_result row;
        bench_result_init(&row, "attention-decode", "TB/s", bytes / (stats.median_ms * 1e9));
        row.value_min = bytes / (stats.max_ms * 1e9);
        row.value_max = bytes / (stats.min_ms * 1e9);
        row.baseline = "device copy";
        row.baseline_value = 2.0 * (double)copy.bytes / (copy_stats.median_ms * 1e9);
        bench_param_int(&row, "B", b);
        bench_param_int(&row, "Hq", hq);
        bench_param_int(&row, "Hkv", hkv);
        bench_param_int(&row, "ctx", context);
        bench_param_int(&row, "Nq", nq);
        bench_param_int(&row, "D", d);
        bench_param_int(&row, "page", DECODE_PAGE);
        bench_param_text(&row, "dtype", "bf16");
        bench_param_real(&row, "ms", stats.median_ms);
        bench_param_real(&row, "us", stats.median_ms * 1e3);
        bench_report_row(ctx->report, &row);
    }
    (void)ts_free(r.q), (void)ts_free(r.o), (void)ts_free(r.k), (void)ts_free(r.v), (void)ts_free(r.ws);
    (void)ts_free(r.table), (void)ts_free(r.seq), (void)ts_free(copy.dst), (void)ts_free(copy.src);
    free(table);
    free(seq);
    return st;
}

ts_status bench_attention_decode(bench_context *ctx) {
    const int host = ctx->backend == TS_BACKEND_HOST;
    bench_timing_config config = bench_context_timing(ctx, 5);
    bench_timer timer;
    ts_status st = bench_timer_init(&timer, &config, &ctx->props, ctx->stream);
    if (st != TS_SUCCESS) return st;
    bench_report_heading(ctx->report, "decode attention: bf16 paged cache (pages of 64), GQA 8, one decode step");
    bench_report_note(ctx->report, "TB/s = bytes of K and V read / median of %d runs; baseline: a device copy of the "
                                   "same bytes, interleaved (ratio = fraction of the copy rate, the read limit); "
                                   "PyTorch SDPA: bench/compare_torch_decode.py", config.reps);
    if (host) {
        for (int nq = 1; nq <= 4 && st == TS_SUCCESS; nq += 3) st = decode_one(ctx, &timer, 1, 16, 2, 512, nq, 64);
    } else {
        /* TESSERA_BENCH_QUICK=1: 32k keys only, for comparing builds quickly. */
        const char *quick = getenv("TESSERA_BENCH_QUICK");
        const int q = quick && quick[0] == '1';
        static const int contexts[6] = {1024, 4096, 16384, 32768, 65536, 131072};
        for (int d = 64; d <= 128 && st == TS_SUCCESS; d += 64)
            for (int nq = 1; nq <= 4 && st == TS_SUCCESS; nq += 3)
                for (int b = 1; b <= 8 && st == TS_SUCCESS; b += 7)
                    for (int i = q ? 3 : 0; i < (q ? 4 : 6) && st == TS_SUCCESS; ++i)
                        if ((long long)b * contexts[i] <= 524288)
                            st = decode_one(ctx, &timer, b, 64, 8, contexts[i], nq, d);
    }
    bench_timer_destroy(&timer);
    return st;
}
