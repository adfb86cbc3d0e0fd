/* Side effects a warp makes once: kernels are written per warp, and every lane of a GPU warp runs
 * every statement, so a value the warp computed (a row's loss, a block's count) is written by one
 * lane. A plain store of the same value by every lane is only wasteful, but an atomic from every lane
 * adds 32 (CUDA) or 64 (HIP) times. The host runs a warp as one lane, where a missing guard would
 * pass every test, so it checks: ts_atomic_add_i32 outside a TS_ONE_LANE region fails the block and
 * the launch returns TS_ERROR_UNGUARDED_ATOMIC.
 *   TS_ONE_LANE { ... }                 the statement (or block) runs in one lane of the warp, lane 0;
 *                                       every lane must reach it, and it holds no warp-wide call
 *                                       (ts_warp_id, shuffles: scripts/warp-collective-lint.py); a
 *                                       break or continue leaves the region (a one-pass loop)
 *   ts_store_one_f32(ptr, x), ts_store_one_i32(ptr, x)
 *                                       *ptr = x, stored by one lane
 *   ts_atomic_add_one_i32(ptr, x)       adds x to *ptr once for the warp and returns the old value in
 *                                       every lane (warp-wide: every lane calls it, never inside
 *                                       TS_ONE_LANE)
 * The backends' primitives behind them: TS_ONE_LANE (backends/<name>/lane_ops.h), ts_atomic_add_i32
 * (backends/<name>/backend.h), and ts_lane_atomic_add_i32 for lane-level code that means every lane
 * to add its own value. */
#ifndef TESSERA_OPS_ONE_LANE_H
#define TESSERA_OPS_ONE_LANE_H

#include "backends/lane_ops.h"

TS_DEVICE void ts_store_one_f32(float *ptr, float x) {
    TS_ONE_LANE *ptr = x;
}

TS_DEVICE void ts_store_one_i32(int *ptr, int x) {
    TS_ONE_LANE *ptr = x;
}

TS_DEVICE int ts_atomic_add_one_i32(int *ptr, int x) {
    int old = 0;
    TS_ONE_LANE old = ts_atomic_add_i32(ptr, x);
    return (int)ts_shfl_u32((unsigned)old, 0);
}

#endif
