/* Based linear attention forward (tessera.h: ts_based_forward): causal linear attention with the
 * second-order Taylor feature map phi(x) = [1, x, vec(x x^T) / sqrt 2] of 16-dimensional q and k,
 * chunked: a quadratic form within each chunk of 64 rows, a running state phi(k)^T v across chunks
 * (based_variant.h, on the producer-consumer template; docs/based.md). bf16 only: the state sums
 * products of many keys, which fp16's range would not hold at long sequences. Ragged sequence
 * lengths need no special code: the loads zero-fill past the sequence, which the causal mask and
 * the zero-filled keys keep out of every stored row, and rows past it are not stored. */
#include "kernels/common/checks.h"
#include "kernels/common/strided_layout.h"
#include "kernels/common/device_props.h"
#include "kernels/based/based_common.h"

#define TS_BASED_NAME ts_based_bf16
#include "kernels/based/based_variant.h"

TS_EXTERN_C ts_status ts_based_prepare(const ts_based_shape *shape, ts_dtype dtype, const void *q,
                                       const long long q_strides[3], const void *k, const long long k_strides[3],
                                       const void *v, const long long v_strides[3], void *o,
                                       const long long o_strides[3], float scale, int normalize, int consumers,
                                       int cols, ts_based_params *params_out) {
    if (!shape) return TS_ERROR_NULL_POINTER;
    if (dtype != TS_DTYPE_BF16 && dtype != TS_DTYPE_FP16 && dtype != TS_DTYPE_F32) return TS_ERROR_INVALID_ENUM;
    if (dtype != TS_DTYPE_BF16) return TS_ERROR_UNSUPPORTED;
    const ts_based_shape sh = *shape;
    if (sh.batch <= 0 || sh.heads <= 0 || sh.seq <= 0 || sh.feature_dim <= 0 || sh.head_dim <= 0)
        return TS_ERROR_INVALID_SIZE;
    if (sh.feature_dim != TS_BASED_FEATURE_DIM || sh.head_dim != TS_BASED_HEAD_DIM) return TS_ERROR_UNSUPPORTED;
    if (!(scale > 0.0f) || !isfinite(scale)) return TS_ERROR_INVALID_VALUE;
    if (normalize != 0 && normalize != 1) return TS_ERROR_INVALID_VALUE;

    ts_based_params params;
    memset(&params, 0, sizeof params);
    ts_gl gq, gk, gv;
    ts_status s;
    if ((s = ts_check_strided_bhnd(&gq, q, TS_DTYPE_BF16, sh.batch, sh.heads, sh.seq, sh.feature_dim, q_strides)) != TS_SUCCESS ||
        (s = ts_check_strided_bhnd(&gk, k, TS_DTYPE_BF16, sh.batch, sh.heads, sh.seq, sh.feature_dim, k_strides)) != TS_SUCCESS ||
        (s = ts_check_strided_bhnd(&gv, v, TS_DTYPE_BF16, sh.batch, sh.heads, sh.seq, sh.head_dim, v_strides)) != TS_SUCCESS ||
        (s = ts_check_strided_bhnd(&params.o, o, TS_DTYPE_BF16, sh.batch, sh.heads, sh.seq, sh.head_dim, o_strides)) != TS_SUCCESS)
        return s;
    /* A task's (batch, head, part) is found in 32-bit arithmetic (based_common.h). */
    params.parts = TS_BASED_HEAD_DIM / (consumers * cols);
    params.tasks = (long long)sh.batch * sh.heads * params.parts;
    if (params.tasks >= (1LL << 31)) return TS_ERROR_SIZE_OVERFLOW;
    /* O is written while Q, K and V are read: it shares no byte with them (they may share bytes
     * with one another, as views of one fused projection). */
    const long long ext[3] = {sh.batch, sh.heads, sh.seq};
    const ts_check_layout lq = ts_check_layout_make(q, 2, 3, ext, q_strides, sh.feature_dim);
    const ts_check_layout lk = ts_check_layout_make(k, 2, 3, ext, k_strides, sh.feature_dim);
    const ts_check_layout lv = ts_check_layout_make(v, 2, 3, ext, v_strides, sh.head_dim);
    const ts_check_layout lo = ts_check_layout_make(o, 2, 3, ext, o_strides, sh.head_dim);
    if (!ts_check_apart(&lo, &lq) || !ts_check_apart(&lo, &lk) || !ts_check_apart(&lo, &lv))
        return TS_ERROR_INVALID_VALUE;
    if ((s = ts_async_desc_make(&params.q, &gq, TS_BASED_CHUNK, TS_BASED_FEATURE_DIM, dtype)) != TS_SUCCESS ||
        (s = ts_async_desc_make(&params.k, &gk, TS_BASED_CHUNK, TS_BASED_FEATURE_DIM, dtype)) != TS_SUCCESS ||
        (s = ts_async_desc_make(&params.v, &gv, TS_BASED_CHUNK, cols, dtype)) != TS_SUCCESS)
        return s;
    params.scale = scale;
    params.normalize = normalize;
    params.heads = sh.heads;
    params.chunks = (int)ts_check_tiles(sh.seq, TS_BASED_CHUNK);
    *params_out = params;
    return TS_SUCCESS;
}

TS_EXTERN_C ts_status ts_based_forward(const ts_based_shape *shape, ts_dtype dtype, const void *q,
                                       const long long q_strides[3], const void *k, const long long k_strides[3],
                                       const void *v, const long long v_strides[3], void *o,
                                       const long long o_strides[3], float scale, int normalize, ts_stream stream) {
    ts_based_params params;
    ts_status s = ts_based_prepare(shape, dtype, q, q_strides, k, k_strides, v, v_strides, o, o_strides, scale,
                                   normalize, TS_BASED_CONSUMERS, TS_BASED_COLS, &params);
    if (s != TS_SUCCESS) return s;

    /* A persistent grid: one wave of blocks as the launch planner sizes it. */
    ts_device_props props;
    int grid = 0;
    if ((s = ts_kernel_device_props(&props)) != TS_SUCCESS) return s;
    if ((s = ts_based_bf16_persistent_grid(&props, params.tasks, &grid)) != TS_SUCCESS) return s;
    return ts_based_bf16_launch(&params, grid, stream);
}
