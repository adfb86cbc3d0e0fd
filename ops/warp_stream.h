/* Operations for a row streamed through a block, longer than its registers hold (the softmax's
 * stream instances, kernels/softmax/softmax_stream_variant.h). Such a row has a body, the columns from
 * its first 16-byte boundary, that warps read in strips (warp vectors, ops/warp_vector.h), and an edge,
 * the few columns outside the body: edge index j is column j below `head` (the head, fewer than 16
 * bytes) and column body + j past it (the tail), and one warp takes them, an element a lane.
 *   ts_stream_strip_online(m, s, v, k)
 *       folds strip v into the lane's running maximum m and sum s of 2^((x - m) k) (float lvalues: the
 *       online softmax, s rescaled whenever m grows), with no exchange between lanes; v is left
 *       holding 2^((x - m) k) for the new m. Elements set to -inf add 0; while every element seen is
 *       -inf, m stays -inf and s 0. 2^x by the backend's one instruction (ts_wv_exp2_approx).
 *   ts_stream_edge_online(lane, m, s, x, dtype, head, body, edge, live, k)
 *       the same for the lane's edge elements of row x (bytes of dtype) at columns below `live`, 2^x
 *       by exp2f
 *   ts_stream_edge_store_softmax(lane, y, out_dtype, x, dtype, head, body, edge, live, max, k, inv)
 *       stores the lane's edge elements of softmax row y: 2^((x - max) k) * inv at columns below
 *       `live`, 0 at the others
 * lane is the ts_stream_lane of the calling lane, taken once at the kernel's start
 * (ts_stream_lane_get): where the lane was read at each call inside a kernel's row loop, the HIP
 * build's stream kernels took 20 more VGPRs. Every lane of the warp calls the ops; the lanes' (m, s)
 * combine into the row's with ts_wv_warp_combine: the maximum M of the m, the sum of s 2^((m - M) k).
 * Macros over lvalues, as the warp-vector ops: they compile to the code written out in place. */
#ifndef TESSERA_OPS_WARP_STREAM_H
#define TESSERA_OPS_WARP_STREAM_H

#include <math.h>

#include "backends/backend.h"
#include "ops/warp_vector.h"

#define ts_stream_strip_online(m, s, v, k)                                                         \
    do {                                                                                           \
        const float ts_grown_ = fmaxf((m), ts_wv_lane_max(v));                                     \
        if (ts_grown_ != -INFINITY) {                                                              \
            ts_wv_sub_scalar(v, v, ts_grown_);                                                     \
            ts_wv_mul_scalar(v, v, (k));                                                           \
            ts_wv_exp2_approx(v, v);                                                               \
            (s) = (s)*exp2f(((m)-ts_grown_) * (k)) + ts_wv_lane_sum(v); /* m = -inf: s is 0, times 0 */ \
            (m) = ts_grown_;                                                                       \
        }                                                                                          \
    } while (0)

/* A lane of the warp, for the ops that deal a row's edge out to the lanes. */
typedef struct ts_stream_lane {
    int index;
} ts_stream_lane;
TS_DEVICE ts_stream_lane ts_stream_lane_get(void) {
    ts_stream_lane l;
    l.index = ts_lane_id();
    return l;
}

/* The column of edge index j. */
#define TS_STREAM_EDGE_COL(j, head, body) ((j) < (head) ? (j) : (body) + (j))

#define ts_stream_edge_online(lane, m, s, x, dtype, head, body, edge, live, k)                      \
    do {                                                                                            \
        for (int ts_j_ = (lane).index; ts_j_ < (edge); ts_j_ += TS_WARP_LANES) {                    \
            const int ts_col_ = TS_STREAM_EDGE_COL(ts_j_, head, body);                              \
            if (ts_col_ >= (live)) continue;                                                        \
            const float ts_v_ = ts_wv_get((x), (dtype), ts_col_), ts_grown_ = fmaxf((m), ts_v_);    \
            if (ts_grown_ == -INFINITY) continue;                                                   \
            (s) = (s)*exp2f(((m)-ts_grown_) * (k)) + exp2f((ts_v_ - ts_grown_) * (k));             \
            (m) = ts_grown_;                                                                        \
        }                                                                                           \
    } while (0)

#define ts_stream_edge_store_softmax(lane, y, out_dtype, x, dtype, head, body, edge, live, max, k, inv) \
    do {                                                                                            \
        for (int ts_j_ = (lane).index; ts_j_ < (edge); ts_j_ += TS_WARP_LANES) {                    \
            const int ts_col_ = TS_STREAM_EDGE_COL(ts_j_, head, body);                              \
            const float ts_v_ = ts_wv_get((x), (dtype), ts_col_);                                   \
            ts_wv_set((y), (out_dtype), ts_col_,                                                    \
                      ts_col_ < (live) ? exp2f((ts_v_ - (max)) * (k)) * (inv) : 0.0f);             \
        }                                                                                           \
    } while (0)

#endif
