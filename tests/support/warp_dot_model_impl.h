/* The warp model of warp_dot_model.h for TS_MODEL_LANES lanes (32 or 64), included once by
 * warp_dot_model32.c and warp_dot_model64.c. ops/warp_dot.h is compiled here against the host
 * backend whatever the build's, with TS_WARP_LANES set to the model's lanes, ts_lane_id() the
 * calling thread's lane, and ts_shfl_xor_f32 an exchange among the lanes' threads: every lane
 * posts its value, waits for the others, reads its partner's, and waits again before the next. */
#undef TESSERA_BACKEND_CUDA
#undef TESSERA_BACKEND_HIP
#ifndef TESSERA_BACKEND_HOST
#define TESSERA_BACKEND_HOST 1
#endif

#include <pthread.h>
#include <string.h>

#include "backends/backend.h"
#include "backends/lane_ops.h"
#include "backends/vector_memory.h"
#include "ops/bits.h"
#include "ops/memory.h"
#include "tests/support/warp_dot_model.h"

#define TS_MODEL_FN(name) TS_CAT(TS_CAT(ts_model, TS_MODEL_LANES), TS_CAT(_, name))

static _Thread_local int ts_model_lane;
static pthread_barrier_t ts_model_barrier;
static float ts_model_box[TS_MODEL_LANES];

static float ts_model_shfl_xor(float v, int mask) {
    ts_model_box[ts_model_lane] = v;
    pthread_barrier_wait(&ts_model_barrier);
    const float r = ts_model_box[ts_model_lane ^ mask];
    pthread_barrier_wait(&ts_model_barrier);
    return r;
}

#undef TS_WARP_LANES
#define TS_WARP_LANES TS_MODEL_LANES
#define ts_lane_id() ts_model_lane
#define ts_shfl_xor_f32 ts_model_shfl_xor
#include "ops/warp_dot.h"

/* What one lane runs: the exchange alone on given values (what 0, 1), or the whole dot product of
 * a warp (what 2: rows form, 3: cols form), steps then exchange. */
typedef struct ts_model_job {
    int what, lane;
    float *slots;
    const float *values;
    int count, m, r, band_lanes, dtype, vec;
    const unsigned char *w, *a;
    long long ldw, lda, k, n0, nend;
} ts_model_job;

static void *ts_model_lane_main(void *arg) {
    ts_model_job j = *(const ts_model_job *)arg;
    float v[64] = {0.0f};
    ts_model_lane = j.lane;
    if (j.what == 0) {
        memcpy(v, j.values + (size_t)j.lane * j.count, (size_t)j.count * sizeof(float));
        ts_wdot_reduce_store_impl(j.slots, v, j.count);
    } else if (j.what == 1) {
        memcpy(v, j.values + (size_t)j.lane * j.m * TS_WDOT_CHUNK, (size_t)j.m * TS_WDOT_CHUNK * sizeof(float));
        ts_wdot_cols_reduce_store_impl(j.slots, v, j.m, j.band_lanes);
    } else if (j.what == 2) {
        for (long long k = 0; k < j.k; k += TS_WDOT_ROWS_STEP)
            ts_wdot_rows_step_impl(v, j.r, j.m, j.w, j.ldw, j.r, j.a, j.lda, j.m, j.dtype, k, j.k, j.vec);
        ts_wdot_reduce_store_impl(j.slots, v, j.r * j.m);
    } else {
        for (long long k = 0; k < j.k; k += ts_wdot_cols_step_rows(j.band_lanes))
            ts_wdot_cols_step_impl(v, j.m, j.w, j.ldw, j.a, j.lda, j.m, j.dtype, k, j.k, j.n0, j.nend, j.band_lanes,
                                   j.vec);
        ts_wdot_cols_reduce_store_impl(j.slots, v, j.m, j.band_lanes);
    }
    return NULL;
}

/* Every lane of the model warp runs the job. */
static void ts_model_run(ts_model_job job) {
    pthread_t threads[TS_MODEL_LANES];
    ts_model_job jobs[TS_MODEL_LANES];
    pthread_barrier_init(&ts_model_barrier, NULL, TS_MODEL_LANES);
    for (int l = 0; l < TS_MODEL_LANES; ++l) {
        jobs[l] = job;
        jobs[l].lane = l;
        pthread_create(&threads[l], NULL, ts_model_lane_main, &jobs[l]);
    }
    for (int l = 0; l < TS_MODEL_LANES; ++l) pthread_join(threads[l], NULL);
    pthread_barrier_destroy(&ts_model_barrier);
}

void TS_MODEL_FN(reduce_store)(float *slots, const float *values, int count) {
    ts_model_job j;
    memset(&j, 0, sizeof j);
    j.what = 0;
    j.slots = slots;
    j.values = values;
    j.count = count;
    ts_model_run(j);
}

void TS_MODEL_FN(cols_reduce_store)(float *slots, const float *values, int m, int band_lanes) {
    ts_model_job j;
    memset(&j, 0, sizeof j);
    j.what = 1;
    j.slots = slots;
    j.values = values;
    j.m = m;
    j.band_lanes = band_lanes;
    ts_model_run(j);
}

void TS_MODEL_FN(rows_dot)(float *slots, const void *w, long long ldw, int r, const void *a, long long lda, int m,
                           int dtype, long long k, int vec) {
    ts_model_job j;
    memset(&j, 0, sizeof j);
    j.what = 2;
    j.slots = slots;
    j.w = (const unsigned char *)w;
    j.ldw = ldw;
    j.r = r;
    j.a = (const unsigned char *)a;
    j.lda = lda;
    j.m = m;
    j.dtype = dtype;
    j.k = k;
    j.vec = vec;
    ts_model_run(j);
}

void TS_MODEL_FN(cols_dot)(float *slots, const void *w, long long ldw, const void *a, long long lda, int m, int dtype,
                           long long k, long long n0, long long nend, int band_lanes, int vec) {
    ts_model_job j;
    memset(&j, 0, sizeof j);
    j.what = 3;
    j.slots = slots;
    j.w = (const unsigned char *)w;
    j.ldw = ldw;
    j.a = (const unsigned char *)a;
    j.lda = lda;
    j.m = m;
    j.dtype = dtype;
    j.k = k;
    j.n0 = n0;
    j.nend = nend;
    j.band_lanes = band_lanes;
    j.vec = vec;
    ts_model_run(j);
}
