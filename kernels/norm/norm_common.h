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

#endif
