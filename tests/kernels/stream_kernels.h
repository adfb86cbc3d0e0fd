/* Launchers of the kernels that test the stream ops (ops/warp_stream.h), one warp each. */
#ifndef TESSERA_TESTS_STREAM_KERNELS_H
#define TESSERA_TESTS_STREAM_KERNELS_H

#include <tessera/tessera.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The edge of a row x of `cols` elements of dtype (TS_DTYPE_...): edge index j at column j < head ?
 * j : body + j, for j < cols - body. Each lane folds its edge elements at columns below `live` into
 * its running maximum m and sum s (ts_stream_edge_online, from m = -inf, s = 0), then the warp
 * combines them: stats[0] = the maximum M of the lanes' m, stats[1] = the sum of s * 2^((m - M') k)
 * with M' = M, or 0 where M = -inf (no element). Then ts_stream_edge_store_softmax writes the edge
 * of y (fp32) with max, k, inv. */
ts_status ts_test_stream_edge(float *stats, float *y, const void *x, int dtype, int cols, int head, int body, int live,
                              float k, float max, float inv);

/* Three fp32 strips of 1024 elements, one warp: a strip of -inf, then x[0 .. 1024), then
 * x[1024 .. 2048) with its elements from `cut` on set to -inf (ts_wv_fill_from), each folded by
 * ts_stream_strip_online into the lanes' (m, s) from (-inf, 0) with scale k; stats[0] and stats[1]
 * as ts_test_stream_edge's, stats[2] = 1 where every lane's (m, s) was still (-inf, 0) after the
 * first strip; out[0 .. 1024) = the third strip as the op leaves it, 2^((x - m) k) for its lane's
 * m, and lane_m[lane] each lane's final m. */
ts_status ts_test_stream_strips(float *stats, float *out, float *lane_m, const float *x, int cut, float k);

#ifdef __cplusplus
}
#endif

#endif
