/* The parameters of the LayerNorm / RMSNorm kernels (kernels/norm/norm_variant.h), filled by the
 * launcher in norm.c from a checked ts_norm_desc. */
#ifndef TESSERA_KERNELS_NORM_COMMON_H
#define TESSERA_KERNELS_NORM_COMMON_H

#include <math.h>

#include "backends/backend.h"
#include "ops/warp_vector_packed.h"

typedef struct ts_norm_params {
    const void *x, *residual, *weight, *bias;
    void *out, *residual_out;
    long long rows, x_stride, residual_stride, out_stride, residual_out_stride;
    int cols, rms, out_dtype, param_dtype, warps_per_row;
    float eps, inv_cols;
} ts_norm_params;

/* 1 / sqrt(x) for the one-warp-row and rows instances: the GPU's reciprocal square root (within 2
 * ulp), a dozen instructions and a branch fewer than a correctly rounded square root and division;
 * the host backend divides. */
TS_DEVICE float ts_norm_rsqrt(float x) {
#if defined(TESSERA_BACKEND_HOST)
    return 1.0f / sqrtf(x);
#else
    return rsqrtf(x);
#endif
}

#endif
