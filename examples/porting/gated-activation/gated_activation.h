/* The launcher of gated_activation.c, for the program that calls it (plain C on every backend). */
#ifndef GATED_ACTIVATION_H
#define GATED_ACTIVATION_H

#include <tessera/tessera.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The activation of the gated half: SiLU (SwiGLU), GELU's tanh approximation (GEGLU, ggml's
 * GGML_GLU_OP_GEGLU) or its exact erf form (GGML_GLU_OP_GEGLU_ERF). */
typedef enum glu_activation { GLU_SWIGLU = 0, GLU_GEGLU = 1, GLU_GEGLU_ERF = 2 } glu_activation;

/* out[r][c] = act(x[r][c] + bx[c]) * (g[r][c] + bg[c]) for r < rows, c < cols, in fp32, every tensor
 * of `dtype` (bf16, fp16, fp32) in device memory; x, g and out row-major with rows *_stride elements
 * apart. The biases bx and bg are vectors of cols elements, each optional (NULL: 0). out may be x or
 * g with the same stride (in place) and shares no byte with another input otherwise. x and g may lie
 * in one tensor (ggml's fused gate and up projection: g = x + cols, both strides 2 * cols). 16-byte
 * accesses need 16-byte aligned pointers and strides that are a multiple of 16 bytes; anything else
 * is correct but goes element by element.
 * Statuses: TS_ERROR_NULL_POINTER (x, g or out), TS_ERROR_INVALID_ENUM (dtype, act),
 * TS_ERROR_INVALID_SIZE (rows or cols below 1), TS_ERROR_INVALID_VALUE (a stride below cols),
 * TS_ERROR_MISALIGNED (a pointer not aligned to its element), TS_ERROR_SIZE_OVERFLOW, or the
 * launch's. */
ts_status gated_activation(void *out, long long out_stride, const void *x, long long x_stride, const void *g,
                           long long g_stride, const void *bx, const void *bg, ts_dtype dtype, glu_activation act,
                           long long rows, int cols, ts_stream stream);

#ifdef __cplusplus
}
#endif

#endif
