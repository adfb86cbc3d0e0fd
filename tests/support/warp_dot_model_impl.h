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

typedef struct ts_model_job {
    float *slots;
    const float *values;
    int count, m, band_lanes, cols, lane;
} ts_model_job;

static void *ts_model_lane_main(void *arg) {
    const ts_model_job *j = (const ts_model_job *)arg;
    float v[64];
    ts_model_lane = j->lane;
    const int n = j->cols ? j->m * TS_WDOT_CHUNK : j->count;
    memcpy(v, j->values + (size_t)j->lane * n, (size_t)n * sizeof(float));
    if (j->cols)
        ts_wdot_cols_reduce_store_impl(j->slots, v, j->m, j->band_lanes);
    else
        ts_wdot_reduce_store_impl(j->slots, v, j->count);
    return NULL;
}

/* Every lane of the model warp runs the op (cols: the cols form's) on its values. */
static void ts_model_run(float *slots, const float *values, int count, int m, int band_lanes, int cols) {
    pthread_t threads[TS_MODEL_LANES];
    ts_model_job jobs[TS_MODEL_LANES];
    pthread_barrier_init(&ts_model_barrier, NULL, TS_MODEL_LANES);
    for (int l = 0; l < TS_MODEL_LANES; ++l) {
        const ts_model_job j = {slots, values, count, m, band_lanes, cols, l};
        jobs[l] = j;
        pthread_create(&threads[l], NULL, ts_model_lane_main, &jobs[l]);
    }
    for (int l = 0; l < TS_MODEL_LANES; ++l) pthread_join(threads[l], NULL);
    pthread_barrier_destroy(&ts_model_barrier);
}

void TS_MODEL_FN(reduce_store)(float *slots, const float *values, int count) {
    ts_model_run(slots, values, count, 0, 0, 0);
}

void TS_MODEL_FN(cols_reduce_store)(float *slots, const float *values, int m, int band_lanes) {
    ts_model_run(slots, values, 0, m, band_lanes, 1);
}
