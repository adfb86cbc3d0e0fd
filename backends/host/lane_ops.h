/* Lane-level operations the tile ops are built on, for the host backend: a warp has one lane, so
 * shuffles return their own value; conversions round to nearest even (fp16 through GCC's
 * _Float16). */
#ifndef TESSERA_BACKENDS_HOST_LANE_OPS_H
#define TESSERA_BACKENDS_HOST_LANE_OPS_H

#include <math.h>
#include <string.h>

#include "backends/half_bits.h"
#include "backends/host/backend.h"

TS_DEVICE float ts_shfl_xor_f32(float v, int lane_mask) { return (void)lane_mask, v; }
TS_DEVICE float ts_shfl_f32(float v, int src_lane) { return (void)src_lane, v; }
TS_DEVICE unsigned ts_shfl_u32(unsigned v, int src_lane) { return (void)src_lane, v; }
TS_DEVICE unsigned ts_shfl_xor_u32(unsigned v, int lane_mask) { return (void)lane_mask, v; }

/* 2^x for the softmax kernels (the GPU backends' approximate form; exact here). */
TS_DEVICE float ts_exp2_approx(float x) { return exp2f(x); }

TS_SOFT_HALF_LANE_OPS

/* ---- for ops/math.h, ops/one_lane.h and the checks of ops/memory.h ---------------------------- */

/* 1 / sqrt(x), rounded once by each of the two operations. */
TS_DEVICE float ts_rsqrt_f32(float x) { return 1.0f / sqrtf(x); }

/* TS_ONE_LANE { ... }: the statement runs in one lane of the warp (every lane reaches it; on the
 * host the warp's one lane runs it). The host counts the open regions in the warp's context, so that
 * ts_atomic_add_i32 (backends/host/backend.h) can tell a guarded atomic from one every lane of a GPU
 * warp would repeat. A one-pass loop on every backend, so a break or continue inside leaves the
 * region the same way everywhere; the cleanup closes the region however it is left. */
TS_DEVICE int ts_host_one_lane_open(void) {
    ts_host_current->one_lane_depth += 1;
    return 1;
}
TS_DEVICE void ts_host_one_lane_close(int *open) {
    (void)open;
    ts_host_current->one_lane_depth -= 1;
}
#define TS_ONE_LANE                                                                                \
    for (int ts_one_lane_open_ __attribute__((cleanup(ts_host_one_lane_close))) = ts_host_one_lane_open(); \
         ts_one_lane_open_; ts_one_lane_open_ = 0)

/* An atomic add each lane makes with its own value, for lane-level code (ops' implementations,
 * the contract tests): the host never asks for a one-lane region here. */
TS_DEVICE int ts_lane_atomic_add_i32(int *ptr, int value) { return __atomic_fetch_add(ptr, value, __ATOMIC_RELAXED); }

/* Adds to an fp32 word, relaxed: a compare-and-swap loop on the word's bits (no atomic float add in
 * C11 on a plain float); the blocks of a launch run on several threads. */
TS_DEVICE void ts_lane_atomic_add_f32(float *ptr, float value) {
    unsigned *word = (unsigned *)(void *)ptr;
    unsigned old = __atomic_load_n(word, __ATOMIC_RELAXED), sum;
    do {
        float f;
        memcpy(&f, &old, sizeof f);
        f += value;
        memcpy(&sum, &f, sizeof sum);
    } while (!__atomic_compare_exchange_n(word, &old, sum, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED));
}

/* Ends the warp's block with `status`, which the launch returns: how the host reports a contract
 * violation that a GPU has no channel for (a global layout of an unknown dtype). */
TS_DEVICE void ts_fail_launch(ts_status status) { ts_host_fail(status); }

#endif
