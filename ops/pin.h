/* Pins: ops that keep the compiler from moving work past a point, by a store that needs it. They
 * order nothing in the memory model; nothing reads what they store.
 *   ts_rv_pin(slot, vec)   lane 0 of the warp stores to slot (a float of shared memory the warp
 *                          has to itself) the sum of the registers of vec it holds, so that every
 *                          element of vec the lane computes must exist before the store. ptxas
 *                          keeps shared-memory stores ahead of a later wait for a warpgroup
 *                          product, and with the store the work that computes vec: attention's
 *                          softmax stays beside its P V product instead of after the wait for it
 *                          (kernels/attention/attention_variant.h; scripts/attention-overlap-gate.py
 *                          checks the SASS). */
#ifndef TESSERA_OPS_PIN_H
#define TESSERA_OPS_PIN_H

#include "backends/backend.h"
#include "ops/maps.h"

TS_DEVICE void ts_rv_pin_impl(float *slot, const float *v, int n) {
    float all = 0.0f;
    TS_UNROLL
    for (int i = 0; i < n; ++i) all += v[i];
    if (ts_lane_id() == 0) *(volatile float *)slot = all;
}
#define ts_rv_pin(slot, vec) ts_rv_pin_impl((slot), TS_RV_CDATA(vec), TS_RV_N(vec))

#endif
