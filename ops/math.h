/* The scalar fp32 functions behind the element-wise maps of tiles, register vectors and warp
 * vectors (ops/maps.h, ops/warp_vector.h): the activations and the rest of the common math, one
 * definition for every backend. They use the accurate library functions (expf, tanhf, erff); the
 * one-instruction approximations stay with the ops that name them (ts_wv_exp2_approx,
 * ts_exp2_scale_sub_row). A kernel may call them in its own maps (TS_MAP, ops/maps.h).
 *   ts_sigmoid_f32(x)    1 / (1 + e^-x)
 *   ts_silu_f32(x)       x * sigmoid(x) (swish)
 *   ts_gelu_tanh_f32(x)  0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))) (the tanh approximation)
 *   ts_gelu_erf_f32(x)   0.5 x (1 + erf(x / sqrt(2))) (the exact form)
 *   ts_rsqrt_f32(x)      1 / sqrt(x) (backends/<name>/lane_ops.h: one MUFU.RSQ on CUDA, 2 ulp) */
#ifndef TESSERA_OPS_MATH_H
#define TESSERA_OPS_MATH_H

#include <math.h>

#include "backends/lane_ops.h"

TS_DEVICE float ts_sigmoid_f32(float x) { return 1.0f / (1.0f + expf(-x)); }

/* x / (1 + e^-x): one division instead of a division and a multiply; -0 for very negative x. */
TS_DEVICE float ts_silu_f32(float x) { return x / (1.0f + expf(-x)); }

TS_DEVICE float ts_gelu_tanh_f32(float x) {
    const float k0 = 0.7978845608028654f, k1 = 0.044715f; /* sqrt(2 / pi) */
    return 0.5f * x * (1.0f + tanhf(k0 * fmaf(k1 * x, x * x, x)));
}

TS_DEVICE float ts_gelu_erf_f32(float x) {
    const float inv_sqrt2 = 0.7071067811865476f;
    return 0.5f * x * (1.0f + erff(x * inv_sqrt2));
}

#endif
