/* The parameters of the LayerNorm / RMSNorm kernels (kernels/norm/norm_variant.h), filled by the
 * launcher in norm.c from a checked ts_norm_desc. */
#ifndef TESSERA_KERNELS_NORM_COMMON_H
#define TESSERA_KERNELS_NORM_COMMON_H

#include <math.h>

#include "backends/backend.h"
#include "kernels/common/rowwise.h"
#include "ops/tma.h"
#include "ops/warp_vector.h"
#include "tiles/shared_alloc.h"

typedef struct ts_norm_params {
    const void *x, *residual, *weight, *bias;
    void *out, *residual_out;
    long long rows, x_stride, residual_stride, out_stride, residual_out_stride;
    int cols, rms, out_dtype, param_dtype, warps_per_row;
    int ring; /* 1: the inputs arrive through the prefetch ring (below) */
    float eps, inv_cols;
} ts_norm_params;

/* The prefetch ring of the 16-bit short-row instances: each warp keeps TS_NORM_RING_SLOTS row slices
 * of x and of the residual in flight ahead of the one it works on, as bulk copies into shared
 * memory completing on a transaction barrier per slot, so that the bytes in flight no longer
 * depend on registers (on the H200 the register-only kernel kept 22 warps per SM with one row each
 * in flight and reached 79% of the DRAM peak, 60% of cycles without an eligible warp). Shared
 * memory: the barriers, then per warp and slot the x and residual slices of TS_ROWWISE_E elements. */
#ifndef TS_NORM_RING_SLOTS
#define TS_NORM_RING_SLOTS 2
#endif
#define TS_NORM_RING_SLICE_BYTES (TS_ROWWISE_E * 2)
#define TS_NORM_RING_BARRIER_BYTES(warps) TS_ALIGN_UP((warps) * TS_NORM_RING_SLOTS * sizeof(ts_tbar), 16)
#define TS_NORM_RING_BYTES(warps)                                                                  \
    (TS_NORM_RING_BARRIER_BYTES(warps) + (warps) * TS_NORM_RING_SLOTS * 2 * TS_NORM_RING_SLICE_BYTES)

#endif
