/* The parameters of the LayerNorm / RMSNorm kernels (kernels/norm/norm_variant.h), filled by the
 * launcher in norm.c from a checked ts_norm_desc. */
#ifndef TESSERA_KERNELS_NORM_COMMON_H
#define TESSERA_KERNELS_NORM_COMMON_H

#include <math.h>

#include "backends/backend.h"
#include "ops/warp_vector.h"

/* 1: the weight and bias a block's rows share are copied once into shared memory, where they fit
 * in TS_NORM_STAGE_MAX_BYTES, and read there for every row; 0: read from global memory for every
 * row, where the rows' streaming loads have pushed them out of L1 (an L2 round trip after each
 * row's reduction). */
#ifndef TS_NORM_STAGE_PARAMS
#define TS_NORM_STAGE_PARAMS 1
#endif
#define TS_NORM_STAGE_MAX_BYTES (32 * 1024)

typedef struct ts_norm_params {
    const void *x, *residual, *weight, *bias;
    void *out, *residual_out;
    long long rows, x_stride, residual_stride, out_stride, residual_out_stride;
    int cols, rms, out_dtype, param_dtype, warps_per_row;
    int stage_params;            /* weight and bias read from shared memory, copied there first */
    int stage_offset, bias_offset; /* bytes: the staged weight from the shared base, bias from it */
    float eps, inv_cols;
} ts_norm_params;

#endif
