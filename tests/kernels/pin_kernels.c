/* The kernel of pin_kernels.h. */
#include "backends/backend.h"
#include "ops/memory.h"
#include "ops/pin.h"
#include "tests/kernels/pin_kernels.h"
#include "tiles/shared_alloc.h"

typedef struct ts_test_pin_params {
    const float *in;
    float *out;
    float sentinel;
} ts_test_pin_params;

TS_KERNEL(ts_test_pin_kernel, 2, ts_test_pin_params, p) {
    ts_smem smem = ts_smem_begin();
    float *slots = (float *)ts_smem_take(&smem, 4 * sizeof(float), 16);
    const int warp = ts_warp_id();
    if (warp == 0 && ts_lane_id() == 0)
        for (int i = 0; i < 4; ++i) slots[i] = p->sentinel;
    ts_sync_block();
    ts_rowvec_f32_32 v;
    ts_rv_zero(&v);
    ts_rv_load(&v, p->in + warp * 32, 0, 32);
    ts_rv_pin(slots + 1 + warp, &v);
    ts_sync_block();
    if (warp == 0 && ts_lane_id() == 0)
        for (int i = 0; i < 4; ++i) p->out[i] = slots[i];
}

TS_EXTERN_C ts_status ts_test_pin(const float *in, float *out, float sentinel) {
    ts_test_pin_params params;
    params.in = in;
    params.out = out;
    params.sentinel = sentinel;
    return TS_LAUNCH(ts_test_pin_kernel, ts_grid_1d(1), 2, 4 * sizeof(float), NULL, params);
}
