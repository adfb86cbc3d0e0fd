/* Kernels that test the stream ops (ops/warp_stream.h); see stream_kernels.h. */
#include "backends/backend.h"
#include "ops/warp_stream.h"
#include "tests/kernels/stream_kernels.h"

/* The lanes' (m, s) combined across the warp, as the softmax's stream kernel does. */
TS_DEVICE void ts_test_stream_combine(float m, float s, float k, float *stats) {
    float max = ts_wv_warp_combine(m, 2);
    stats[0] = max;
    if (max == -INFINITY) max = 0.0f;
    stats[1] = ts_wv_warp_combine(s * exp2f((m - max) * k), 0);
}

typedef struct ts_test_stream_edge_params {
    float *stats, *y;
    const void *x;
    int dtype, cols, head, body, live;
    float k, max, inv;
} ts_test_stream_edge_params;

TS_KERNEL(ts_test_stream_edge_kernel, 1, ts_test_stream_edge_params, p) {
    const ts_stream_lane lane = ts_stream_lane_get();
    float m = -INFINITY, s = 0.0f;
    const int edge = p->cols - p->body;
    ts_stream_edge_online(lane, m, s, (const unsigned char *)p->x, p->dtype, p->head, p->body, edge, p->live, p->k);
    float stats[2];
    ts_test_stream_combine(m, s, p->k, stats);
    p->stats[0] = stats[0];
    p->stats[1] = stats[1];
    ts_stream_edge_store_softmax(lane, (unsigned char *)p->y, TS_DTYPE_F32, (const unsigned char *)p->x, p->dtype,
                                 p->head, p->body, edge, p->live, p->max, p->k, p->inv);
}

TS_EXTERN_C ts_status ts_test_stream_edge(float *stats, float *y, const void *x, int dtype, int cols, int head, int body,
                                          int live, float k, float max, float inv) {
    ts_test_stream_edge_params params;
    params.stats = stats;
    params.y = y;
    params.x = x;
    params.dtype = dtype;
    params.cols = cols;
    params.head = head;
    params.body = body;
    params.live = live;
    params.k = k;
    params.max = max;
    params.inv = inv;
    return TS_LAUNCH(ts_test_stream_edge_kernel, ts_grid_1d(1), 1, 0, NULL, params);
}

typedef struct ts_test_stream_strips_params {
    float *stats, *out, *lane_m;
    const float *x;
    int cut;
    float k;
} ts_test_stream_strips_params;

TS_KERNEL(ts_test_stream_strips_kernel, 1, ts_test_stream_strips_params, p) {
    TS_WV_F32(1024) v;
    float m = -INFINITY, s = 0.0f;
    ts_wv_fill(&v, -INFINITY);
    ts_stream_strip_online(m, s, &v, p->k);
    const int untouched = ts_wv_warp_combine(m == -INFINITY && s == 0.0f ? 1.0f : 0.0f, 0) == (float)TS_WARP_LANES;
    ts_wv_load(&v, p->x, TS_DTYPE_F32, 1024);
    ts_stream_strip_online(m, s, &v, p->k);
    ts_wv_load(&v, p->x + 1024, TS_DTYPE_F32, 1024);
    ts_wv_fill_from(&v, p->cut, -INFINITY);
    ts_stream_strip_online(m, s, &v, p->k);
    ts_wv_store(p->out, &v, TS_DTYPE_F32, 1024);
    p->lane_m[ts_lane_id()] = m;
    float stats[2];
    ts_test_stream_combine(m, s, p->k, stats);
    p->stats[0] = stats[0];
    p->stats[1] = stats[1];
    p->stats[2] = untouched ? 1.0f : 0.0f;
}

TS_EXTERN_C ts_status ts_test_stream_strips(float *stats, float *out, float *lane_m, const float *x, int cut, float k) {
    ts_test_stream_strips_params params;
    params.stats = stats;
    params.out = out;
    params.lane_m = lane_m;
    params.x = x;
    params.cut = cut;
    params.k = k;
    return TS_LAUNCH(ts_test_stream_strips_kernel, ts_grid_1d(1), 1, 0, NULL, params);
}
