/* The parameters of the LayerNorm / RMSNorm kernels (kernels/norm/norm_variant.h), filled by the
 * launcher in norm.c from a checked ts_norm_desc. */
#ifndef TESSERA_KERNELS_NORM_COMMON_H
#define TESSERA_KERNELS_NORM_COMMON_H

#include <math.h>

#include "backends/backend.h"
#include "ops/warp_vector.h"

/* 1 (an A/B option): a LayerNorm row spread over several warps has its mean and variance from one
 * exchange between the warps (each warp's mean and squared deviations about it, combined as Chan
 * et al.), one block barrier a row as RMSNorm has, instead of two (the mean, then the squared
 * deviations about it). 0: two exchanges. Not yet measured; with it nvcc spills 248 bytes in the
 * bf16 and fp16 short-row kernels (80 registers for three 8-warp blocks an SM), 28 without. */
#ifndef TS_NORM_ONE_EXCHANGE
#define TS_NORM_ONE_EXCHANGE 0
#endif

typedef struct ts_norm_params {
    const void *x, *residual, *weight, *bias;
    void *out, *residual_out;
    long long rows, x_stride, residual_stride, out_stride, residual_out_stride;
    int cols, rms, out_dtype, param_dtype, warps_per_row;
    float eps, inv_cols;
} ts_norm_params;

#endif
