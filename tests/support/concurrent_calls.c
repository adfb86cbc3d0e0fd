/* The concurrent calls of tests/test_concurrency.c (Criterion) and tests/concurrent_calls.c (a
 * plain program, for ThreadSanitizer, under which Criterion cannot start): threads released
 * together, each on its own buffers, each result compared with a double-precision reference. A
 * thread never asserts; it counts its failed checks. */
#include "support/concurrent_calls.h"

#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "support/dtype_io.h"
#include "support/test_support.h"

#define THREADS 6

typedef struct {
    int id;
    uint64_t seed;
    pthread_barrier_t *start;
    atomic_int *failures;
    void *shared; /* one allocation every thread tries to free */
    atomic_int *frees;
} worker;

static void fail(worker *w) { atomic_fetch_add(w->failures, 1); }

/* Softmax of a rows x cols fp32 matrix with the thread's own shape, against a double reference. */
static void softmax_check(worker *w, uint64_t *st) {
    const int rows = 3 + w->id, cols = 50 + 37 * w->id;
    const size_t n = (size_t)rows * cols;
    float *x = malloc(n * 4), *y = malloc(n * 4);
    for (size_t i = 0; i < n; ++i) x[i] = (float)ts_test_normal(st);
    void *dx = ts_test_device_copy(x, n * 4), *dy = ts_test_device_copy(NULL, n * 4);
    const ts_softmax_desc d = {.rows = rows, .cols = cols, .dtype = TS_DTYPE_F32, .out_dtype = TS_DTYPE_F32, .x = dx,
                               .x_stride = cols, .out = dy, .out_stride = cols, .scale = 1.0f};
    if (!dx || !dy || ts_softmax(&d, NULL) != TS_SUCCESS || ts_test_copy_back(y, dy, n * 4) != TS_SUCCESS) {
        fail(w);
    } else {
        for (int i = 0; i < rows; ++i) {
            double m = -INFINITY, sum = 0.0;
            for (int j = 0; j < cols; ++j) m = fmax(m, x[i * cols + j]);
            for (int j = 0; j < cols; ++j) sum += exp(x[i * cols + j] - m);
            for (int j = 0; j < cols; ++j) {
                const double want = exp(x[i * cols + j] - m) / sum;
                if (!(fabs(y[i * cols + j] - want) <= 2e-5 * want + 1e-6)) fail(w);
            }
        }
    }
    (void)ts_free(dx), (void)ts_free(dy);
    free(x), free(y);
}

/* RMSNorm with a weight, in place. */
static void rmsnorm_check(worker *w, uint64_t *st) {
    const int rows = 2 + w->id, cols = 300 + 111 * w->id;
    const size_t n = (size_t)rows * cols;
    float *x = malloc(n * 4), *wt = malloc((size_t)cols * 4), *y = malloc(n * 4);
    for (size_t i = 0; i < n; ++i) x[i] = (float)ts_test_normal(st);
    for (int j = 0; j < cols; ++j) wt[j] = (float)(1.0 + 0.5 * ts_test_normal(st));
    void *dx = ts_test_device_copy(x, n * 4), *dw = ts_test_device_copy(wt, (size_t)cols * 4);
    const ts_norm_desc d = {.rows = rows, .cols = cols, .dtype = TS_DTYPE_F32, .out_dtype = TS_DTYPE_F32,
                            .param_dtype = TS_DTYPE_F32, .x = dx, .x_stride = cols, .weight = dw, .out = dx,
                            .out_stride = cols, .eps = 1e-5f};
    if (!dx || !dw || ts_rmsnorm(&d, NULL) != TS_SUCCESS || ts_test_copy_back(y, dx, n * 4) != TS_SUCCESS) {
        fail(w);
    } else {
        for (int i = 0; i < rows; ++i) {
            double ss = 0.0;
            for (int j = 0; j < cols; ++j) ss += (double)x[i * cols + j] * x[i * cols + j];
            const double rstd = 1.0 / sqrt(ss / cols + 1e-5);
            for (int j = 0; j < cols; ++j) {
                const double want = x[i * cols + j] * rstd * wt[j];
                if (!(fabs(y[i * cols + j] - want) <= 2e-5 * (1.0 + fabs(want)))) fail(w);
            }
        }
    }
    (void)ts_free(dx), (void)ts_free(dw);
    free(x), free(wt), free(y);
}

/* A small bf16 GEMM into fp32. */
static void gemm_check(worker *w, uint64_t *st) {
    const int m = 8 + 5 * w->id, n = 24, k = 40;
    unsigned short *a = malloc((size_t)m * k * 2), *b = malloc((size_t)k * n * 2);
    float *c = malloc((size_t)m * n * 4);
    for (int i = 0; i < m * k; ++i) ts_test_put(a, TS_DTYPE_BF16, (size_t)i, ts_test_normal(st));
    for (int i = 0; i < k * n; ++i) ts_test_put(b, TS_DTYPE_BF16, (size_t)i, ts_test_normal(st));
    void *da = ts_test_device_copy(a, (size_t)m * k * 2), *db = ts_test_device_copy(b, (size_t)k * n * 2);
    void *dc = ts_test_device_copy(NULL, (size_t)m * n * 4);
    if (!da || !db || !dc ||
        ts_gemm(TS_NO_TRANS, TS_NO_TRANS, m, n, k, 1.0f, da, TS_DTYPE_BF16, k, db, TS_DTYPE_BF16, n, 0.0f, dc,
                TS_DTYPE_F32, n, NULL) != TS_SUCCESS ||
        ts_test_copy_back(c, dc, (size_t)m * n * 4) != TS_SUCCESS) {
        fail(w);
    } else {
        for (int i = 0; i < m; ++i)
            for (int j = 0; j < n; ++j) {
                double ref = 0.0, mag = 0.0;
                for (int kk = 0; kk < k; ++kk) {
                    const double p = ts_test_get(a, TS_DTYPE_BF16, (size_t)(i * k + kk)) *
                                     ts_test_get(b, TS_DTYPE_BF16, (size_t)(kk * n + j));
                    ref += p, mag += fabs(p);
                }
                if (!(fabs(c[i * n + j] - ref) <= 1e-5 * (mag + 1.0))) fail(w);
            }
    }
    (void)ts_free(da), (void)ts_free(db), (void)ts_free(dc);
    free(a), free(b), free(c);
}

/* C = A + B. */
static void tile_add_check(worker *w, uint64_t *st) {
    const int rows = 17 + w->id, cols = 33;
    const size_t n = (size_t)rows * cols;
    float *a = malloc(n * 4), *b = malloc(n * 4), *c = malloc(n * 4);
    for (size_t i = 0; i < n; ++i) a[i] = (float)ts_test_normal(st), b[i] = (float)ts_test_normal(st);
    float *da = ts_test_device_copy(a, n * 4), *db = ts_test_device_copy(b, n * 4);
    float *dc = ts_test_device_copy(NULL, n * 4);
    if (!da || !db || !dc || ts_tile_add_f32(dc, da, db, rows, cols, cols, cols, cols, NULL) != TS_SUCCESS ||
        ts_test_copy_back(c, dc, n * 4) != TS_SUCCESS) {
        fail(w);
    } else {
        for (size_t i = 0; i < n; ++i)
            if (c[i] != a[i] + b[i]) fail(w);
    }
    (void)ts_free(da), (void)ts_free(db), (void)ts_free(dc);
    free(a), free(b), free(c);
}

/* Streams, events and allocations of the thread's own, made, used and destroyed; a destroyed one
 * refused on the host backend. */
static void handles_check(worker *w) {
    for (int round = 0; round < 20; ++round) {
        ts_stream s = NULL;
        ts_event e0 = NULL, e1 = NULL;
        void *p = NULL;
        float ms = -1.0f;
        if (ts_stream_create(&s) != TS_SUCCESS || ts_event_create(&e0) != TS_SUCCESS ||
            ts_event_create(&e1) != TS_SUCCESS || ts_malloc(&p, 64 + 64 * (size_t)round) != TS_SUCCESS) {
            fail(w);
            return;
        }
        if (ts_event_record(e0, s) != TS_SUCCESS || ts_memset_async(p, w->id, 64, s) != TS_SUCCESS ||
            ts_event_record(e1, s) != TS_SUCCESS || ts_event_synchronize(e1) != TS_SUCCESS ||
            ts_event_elapsed_ms(&ms, e0, e1) != TS_SUCCESS || ms < 0.0f)
            fail(w);
        if (ts_event_destroy(e0) != TS_SUCCESS || ts_event_destroy(e1) != TS_SUCCESS ||
            ts_stream_destroy(s) != TS_SUCCESS || ts_free(p) != TS_SUCCESS)
            fail(w);
        /* On the host backend a second free or destroy is refused. */
        if (!ts_test_on_gpu() &&
            (ts_free(p) != TS_ERROR_INVALID_VALUE || ts_event_destroy(e0) != TS_ERROR_INVALID_VALUE))
            fail(w);
    }
}

static void *first_calls(void *arg) {
    worker *w = (worker *)arg;
    uint64_t st = w->seed;
    (void)pthread_barrier_wait(w->start);
    /* Each thread starts with a different function, so that first calls of every kind meet. */
    for (int i = 0; i < 4; ++i) {
        switch ((w->id + i) % 4) {
        case 0: softmax_check(w, &st); break;
        case 1: rmsnorm_check(w, &st); break;
        case 2: gemm_check(w, &st); break;
        default: tile_add_check(w, &st); break;
        }
    }
    return NULL;
}

static void *with_device_set(void *arg) {
    worker *w = (worker *)arg;
    uint64_t st = w->seed;
    (void)pthread_barrier_wait(w->start);
    for (int i = 0; i < 3; ++i) {
        if (w->id % 2 == 0) {
            if (ts_device_set(0) != TS_SUCCESS) fail(w);
            size_t bytes = 0;
            if (ts_gemm_workspace_size(&bytes) != TS_SUCCESS) fail(w);
        }
        softmax_check(w, &st);
        tile_add_check(w, &st);
    }
    return NULL;
}

static void *with_handles(void *arg) {
    worker *w = (worker *)arg;
    (void)pthread_barrier_wait(w->start);
    const ts_status s = ts_free(w->shared);
    if (s == TS_SUCCESS)
        atomic_fetch_add(w->frees, 1);
    else if (s != TS_ERROR_INVALID_VALUE)
        fail(w);
    /* Every free of it before any new allocation: an allocation could be given its address again,
     * and a late free would then free that one (a stale pointer is undefined, docs/contract.md). */
    (void)pthread_barrier_wait(w->start);
    handles_check(w);
    return NULL;
}

/* Runs body on THREADS threads released together; returns the failed checks (and with shared, -1
 * unless exactly one thread's free of it succeeded), or -1 where a thread could not start. */
static int run_threads(void *(*body)(void *), uint64_t seed, void *shared) {
    pthread_t threads[THREADS];
    worker workers[THREADS];
    pthread_barrier_t start;
    atomic_int failures = 0, frees = 0;
    int started = 0;
    if (pthread_barrier_init(&start, NULL, THREADS) != 0) return -1;
    for (; started < THREADS; ++started) {
        workers[started] = (worker){started, seed + 7919u * (uint64_t)started, &start, &failures, shared, &frees};
        if (pthread_create(&threads[started], NULL, body, &workers[started]) != 0) break;
    }
    /* Threads waiting at the barrier for one that never started would wait for ever: the test
     * process ends with them (a start that fails is a failure of the machine, not of the library). */
    if (started < THREADS) return -1;
    for (int i = 0; i < THREADS; ++i) (void)pthread_join(threads[i], NULL);
    (void)pthread_barrier_destroy(&start);
    if (shared && atomic_load(&frees) != 1) return -1;
    return atomic_load(&failures);
}

int ts_test_concurrent_first_calls(uint64_t seed) { return run_threads(first_calls, seed, NULL); }

int ts_test_concurrent_device_set(uint64_t seed) { return run_threads(with_device_set, seed, NULL); }

int ts_test_concurrent_handles(uint64_t seed) {
    void *shared = NULL;
    if (ts_malloc(&shared, 256) != TS_SUCCESS) return -1;
    /* On CUDA and HIP a second free of one pointer is the runtime's to report: one thread frees it. */
    if (ts_test_on_gpu()) {
        const int failed = run_threads(with_handles, seed, NULL);
        return ts_free(shared) == TS_SUCCESS ? failed : -1;
    }
    return run_threads(with_handles, seed, shared);
}

int ts_test_concurrent_failures_counted(void) {
    atomic_int failures = 0;
    worker w = {0, 1, NULL, &failures, NULL, NULL};
    fail(&w);
    fail(&w);
    return atomic_load(&failures);
}
