/* Gated activations with biases, ported from ggml-cuda's GLU ops (ggml/src/ggml-cuda/unary.cu:
 * unary_gated_op_kernel, unary_gated_cuda, ggml_cuda_op_unary_gated): out = act(x + bx) * (g + bg),
 * row by row (gated_activation.h). A warp owns a strip of GLU_E columns in GLU_ROWS rows: for each
 * row it loads x and g in 16-byte accesses (warp vectors), adds the biases' strips, maps and
 * stores. One kernel per dtype and activation, both constants of its code. */
#include <limits.h>

#include "backends/backend.h"
#include "ops/warp_vector.h"
#include "templates/rowwise.h" /* ts_rowwise_check_matrix, ts_rowwise_dtype_index */

#include "gated_activation.h"

#define GLU_WARPS 8
#define GLU_BLOCKS_PER_SM 3 /* registers for 3 blocks an SM: 80 a lane on sm_90a, no spills */
#define GLU_E 512           /* columns of a warp's strip */
#define GLU_ROWS 4          /* rows of a warp: short blocks, a short tail of the grid */

typedef struct glu_params {
    const void *x, *g, *bx, *bg;
    void *out;
    long long rows, x_stride, g_stride, out_stride, strips;
    int cols;
} glu_params;

/* Element (r, c) of a matrix of dtype, rows `stride` elements apart. */
#define GLU_AT(base, stride, r, c, dtype) ((unsigned char *)(base) + ((r) * (stride) + (c)) * TS_DTYPE_BYTES(dtype))

TS_DEVICE void glu_rows(const glu_params *p, int dtype, int act) {
    const long long warp = (long long)ts_block_x() * GLU_WARPS + ts_warp_id();
    const long long row0 = warp / p->strips * GLU_ROWS, col0 = warp % p->strips * GLU_E, n = p->cols - col0;
    if (row0 >= p->rows) return;
    ts_wv_f32_512 x, g;
    for (long long r = row0; r < row0 + GLU_ROWS && r < p->rows; ++r) {
        ts_wv_load(&x, GLU_AT(p->x, p->x_stride, r, col0, dtype), dtype, n);
        ts_wv_load(&g, GLU_AT(p->g, p->g_stride, r, col0, dtype), dtype, n);
        if (p->bx) ts_wv_load_add(&x, GLU_AT(p->bx, 0, 0, col0, dtype), dtype, n); /* from L1 after the first row */
        if (p->bg) ts_wv_load_add(&g, GLU_AT(p->bg, 0, 0, col0, dtype), dtype, n);
        if (act == GLU_SWIGLU)
            ts_wv_silu(&x, &x);
        else if (act == GLU_GEGLU)
            ts_wv_gelu_tanh(&x, &x);
        else
            ts_wv_gelu_erf(&x, &x);
        ts_wv_mul(&x, &x, &g);
        ts_wv_store(GLU_AT(p->out, p->out_stride, r, col0, dtype), &x, dtype, n);
    }
}

/* A kernel of one dtype and activation, and its launch. */
typedef ts_status (*glu_launch_fn)(glu_params p, unsigned blocks, ts_stream stream);
#define GLU_KERNEL(name, dtype, act)                                                               \
    TS_KERNEL_RESIDENT(name, GLU_WARPS, GLU_BLOCKS_PER_SM, glu_params, p) { glu_rows(p, dtype, act); } \
    static ts_status name##_launch(glu_params p, unsigned blocks, ts_stream stream) {              \
        return TS_LAUNCH(name, ts_grid_1d(blocks), GLU_WARPS, 0, stream, p);                       \
    }
#define GLU_KERNELS(dt, dtype)                                                                     \
    GLU_KERNEL(swiglu_##dt, dtype, GLU_SWIGLU)                                                     \
    GLU_KERNEL(geglu_##dt, dtype, GLU_GEGLU)                                                       \
    GLU_KERNEL(geglu_erf_##dt, dtype, GLU_GEGLU_ERF)
GLU_KERNELS(bf16, TS_DTYPE_BF16)
GLU_KERNELS(fp16, TS_DTYPE_FP16)
GLU_KERNELS(f32, TS_DTYPE_F32)
static const glu_launch_fn glu_launchers[3][3] = {{swiglu_bf16_launch, geglu_bf16_launch, geglu_erf_bf16_launch},
                                                  {swiglu_fp16_launch, geglu_fp16_launch, geglu_erf_fp16_launch},
                                                  {swiglu_f32_launch, geglu_f32_launch, geglu_erf_f32_launch}};

TS_EXTERN_C ts_status gated_activation(void *out, long long out_stride, const void *x, long long x_stride,
                                       const void *g, long long g_stride, const void *bx, const void *bg,
                                       ts_dtype dtype, glu_activation act, long long rows, int cols, ts_stream stream) {
    if (!ts_rowwise_dtype_valid(dtype) || act < GLU_SWIGLU || act > GLU_GEGLU_ERF) return TS_ERROR_INVALID_ENUM;
    if (rows < 1 || cols < 1) return TS_ERROR_INVALID_SIZE;
    ts_status s;
    if ((s = ts_rowwise_check_matrix(x, dtype, rows, cols, x_stride)) != TS_SUCCESS ||
        (s = ts_rowwise_check_matrix(g, dtype, rows, cols, g_stride)) != TS_SUCCESS ||
        (s = ts_rowwise_check_matrix(out, dtype, rows, cols, out_stride)) != TS_SUCCESS ||
        (bx && (s = ts_rowwise_check_matrix(bx, dtype, 1, cols, cols)) != TS_SUCCESS) ||
        (bg && (s = ts_rowwise_check_matrix(bg, dtype, 1, cols, cols)) != TS_SUCCESS))
        return s;
    const long long strips = (cols + GLU_E - 1) / GLU_E;
    const long long blocks = (strips * ((rows + GLU_ROWS - 1) / GLU_ROWS) + GLU_WARPS - 1) / GLU_WARPS;
    if (blocks > INT_MAX) return TS_ERROR_SIZE_OVERFLOW;
    const glu_params p = {x, g, bx, bg, out, rows, x_stride, g_stride, out_stride, strips, cols};
    return glu_launchers[ts_rowwise_dtype_index(dtype)][act](p, (unsigned)blocks, stream);
}
