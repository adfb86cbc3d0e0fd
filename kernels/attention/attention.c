/* Attention forward: O = softmax(scale * Q K^T [+ causal mask]) V, with the log-sum-exp of each
 * row (tessera.h). One kernel per head dimension (64, 128) and dtype (bf16, fp16), and at D = 128
 * a second one for non-causal calls over long sequences where the architecture has one
 * (tuning.h), instantiated from attention_variant.h on the producer-consumer template. Ragged
 * sequence lengths need no special code: the key/value loads zero-fill past the sequence, the
 * scores of keys past it are masked to -inf, and rows past the queries are not stored. */
#include "kernels/common/checks.h"
#include "kernels/common/strided_layout.h"
#include "kernels/common/device_props.h"
#include "kernels/attention/attention_common.h"

#define TS_ATTN_NAME ts_attn_bf16_d64
#define TS_ATTN_D 64
#define TS_ATTN_DT bf16
#include "kernels/attention/attention_variant.h"

#define TS_ATTN_NAME ts_attn_bf16_d128
#define TS_ATTN_D 128
#define TS_ATTN_DT bf16
#include "kernels/attention/attention_variant.h"

#define TS_ATTN_NAME ts_attn_fp16_d64
#define TS_ATTN_D 64
#define TS_ATTN_DT fp16
#include "kernels/attention/attention_variant.h"

#define TS_ATTN_NAME ts_attn_fp16_d128
#define TS_ATTN_D 128
#define TS_ATTN_DT fp16
#include "kernels/attention/attention_variant.h"

/* The D = 128 kernels of non-causal calls over at least TS_ATTN_LONG_KEYS keys, with
 * TS_ATTN_BN_D128_LONG keys a stage; without them such calls take the D = 128 kernels. */
#if TS_ATTN_LONG_KERNEL
#define TS_ATTN_NAME ts_attn_bf16_d128_long
#define TS_ATTN_D 128
#define TS_ATTN_DT bf16
#define TS_ATTN_KEYS TS_ATTN_BN_D128_LONG
#include "kernels/attention/attention_variant.h"

#define TS_ATTN_NAME ts_attn_fp16_d128_long
#define TS_ATTN_D 128
#define TS_ATTN_DT fp16
#define TS_ATTN_KEYS TS_ATTN_BN_D128_LONG
#include "kernels/attention/attention_variant.h"
#else
#define ts_attn_bf16_d128_long_launch ts_attn_bf16_d128_launch
#define ts_attn_fp16_d128_long_launch ts_attn_fp16_d128_launch
#define ts_attn_bf16_d128_long_persistent_grid ts_attn_bf16_d128_persistent_grid
#endif

typedef ts_status (*ts_attn_launcher)(const ts_attn_params *, int, ts_stream);

TS_EXTERN_C ts_status ts_attn_prepare(const ts_attention_shape *shape, ts_dtype dtype, const void *q,
                                      const long long q_strides[3], const void *k, const long long k_strides[3],
                                      const void *v, const long long v_strides[3], void *o,
                                      const long long o_strides[3], float *lse, float scale, int causal,
                                      ts_attn_params *params, int *long_keys) {
    if (!shape) return TS_ERROR_NULL_POINTER;
    if (dtype != TS_DTYPE_BF16 && dtype != TS_DTYPE_FP16 && dtype != TS_DTYPE_F32) return TS_ERROR_INVALID_ENUM;
    if (dtype == TS_DTYPE_F32) return TS_ERROR_UNSUPPORTED;
    const ts_attention_shape sh = *shape;
    if (sh.batch <= 0 || sh.heads_q <= 0 || sh.heads_kv <= 0 || sh.seq_q <= 0 || sh.seq_kv <= 0 || sh.head_dim <= 0)
        return TS_ERROR_INVALID_SIZE;
    if (sh.head_dim != 64 && sh.head_dim != 128) return TS_ERROR_UNSUPPORTED;
    if (sh.heads_q % sh.heads_kv != 0) return TS_ERROR_INVALID_VALUE;
    /* Scores are kept in base 2, scaled by scale * log2(e), which must be finite too. */
    if (!(scale > 0.0f) || !isfinite(scale) || !isfinite(scale * 1.4426950408889634f)) return TS_ERROR_INVALID_VALUE;
    if (causal != 0 && causal != 1) return TS_ERROR_INVALID_VALUE;
    if (lse && ((uintptr_t)lse & 3u)) return TS_ERROR_MISALIGNED;

    memset(params, 0, sizeof *params);
    ts_gl gq, gk, gv;
    ts_status s;
    if ((s = ts_check_strided_bhnd(&gq, q, dtype, sh.batch, sh.heads_q, sh.seq_q, sh.head_dim, q_strides)) != TS_SUCCESS ||
        (s = ts_check_strided_bhnd(&gk, k, dtype, sh.batch, sh.heads_kv, sh.seq_kv, sh.head_dim, k_strides)) != TS_SUCCESS ||
        (s = ts_check_strided_bhnd(&gv, v, dtype, sh.batch, sh.heads_kv, sh.seq_kv, sh.head_dim, v_strides)) != TS_SUCCESS ||
        (s = ts_check_strided_bhnd(&params->o, o, dtype, sh.batch, sh.heads_q, sh.seq_q, sh.head_dim, o_strides)) != TS_SUCCESS)
        return s;
    /* The task order's arithmetic is 32-bit (task_order.h): 2^30 tasks of 64 query rows or more
     * would be a query tensor of at least 2^36 rows. */
    const int bm = TS_ATTN_BM_OF(sh.head_dim);
    const long long q_tiles = ts_check_tiles(sh.seq_q, bm);
    params->heads = (long long)sh.batch * sh.heads_q;
    if (params->heads * q_tiles >= (1LL << 30)) return TS_ERROR_SIZE_OVERFLOW;
    params->q_tiles = (int)q_tiles;
    params->tasks = params->heads * params->q_tiles;
    /* O and the log-sum-exp are written while Q, K and V are read: none shares a byte with another
     * (Q, K and V may, as views of one fused projection). */
    const long long q_ext[3] = {sh.batch, sh.heads_q, sh.seq_q}, kv_ext[3] = {sh.batch, sh.heads_kv, sh.seq_kv};
    const long long lse_ext[1] = {params->heads * sh.seq_q}, lse_stride[1] = {1};
    const ts_check_layout lq = ts_check_layout_make(q, 2, 3, q_ext, q_strides, sh.head_dim);
    const ts_check_layout lk = ts_check_layout_make(k, 2, 3, kv_ext, k_strides, sh.head_dim);
    const ts_check_layout lv = ts_check_layout_make(v, 2, 3, kv_ext, v_strides, sh.head_dim);
    const ts_check_layout lo = ts_check_layout_make(o, 2, 3, q_ext, o_strides, sh.head_dim);
    const ts_check_layout ll = ts_check_layout_make(lse, 4, 1, lse_ext, lse_stride, 1);
    if (!ts_check_apart(&lo, &lq) || !ts_check_apart(&lo, &lk) || !ts_check_apart(&lo, &lv) ||
        (lse && (!ts_check_apart(&ll, &lq) || !ts_check_apart(&ll, &lk) || !ts_check_apart(&ll, &lv) ||
                 !ts_check_apart(&ll, &lo))))
        return TS_ERROR_INVALID_VALUE;
    if ((s = ts_async_desc_make(&params->q, &gq, 64, sh.head_dim, dtype)) != TS_SUCCESS) return s;
    *long_keys = TS_ATTN_LONG_KERNEL && sh.head_dim == 128 && !causal && sh.seq_kv >= TS_ATTN_LONG_KEYS;
    const int bn = TS_ATTN_BN_OF(sh.head_dim, *long_keys);
    if ((s = ts_async_desc_make(&params->k, &gk, bn, sh.head_dim, dtype)) != TS_SUCCESS) return s;
    if ((s = ts_async_desc_make(&params->v, &gv, bn, sh.head_dim, dtype)) != TS_SUCCESS) return s;
    params->lse = lse;
    params->scale_log2 = scale * 1.4426950408889634f;
    params->causal = causal;
    /* Under the causal mask a ragged query tile goes first, where it costs least (attention_common.h). */
    params->q_shift = causal ? (int)(((long long)params->q_tiles * bm - sh.seq_q) / 64 * 64) : 0;
    params->heads_q = sh.heads_q;
    params->group = sh.heads_q / sh.heads_kv;
    params->seq_q = sh.seq_q;
    params->seq_kv = sh.seq_kv;
    params->kv_tiles = (int)ts_check_tiles(sh.seq_kv, bn);
    params->by_heads_q = ts_fast_div_make((unsigned)sh.heads_q);
    params->by_group = ts_fast_div_make((unsigned)params->group);
    return TS_SUCCESS;
}

TS_EXTERN_C void ts_attn_plan_grid(ts_attn_params *params, int grid) {
    const int group_heads = ts_attn_group_heads(params->heads, params->q_tiles, grid);
    params->order = ts_attn_order_make((unsigned)params->heads, (unsigned)params->q_tiles, (unsigned)group_heads,
                                       (unsigned)grid);
}

TS_EXTERN_C ts_status ts_attention_forward(const ts_attention_shape *shape, ts_dtype dtype, const void *q,
                                           const long long q_strides[3], const void *k,
                                           const long long k_strides[3], const void *v,
                                           const long long v_strides[3], void *o, const long long o_strides[3],
                                           float *lse, float scale, int causal, ts_stream stream) {
    ts_attn_params params;
    int long_keys = 0;
    ts_status s = ts_attn_prepare(shape, dtype, q, q_strides, k, k_strides, v, v_strides, o, o_strides, lse, scale,
                                  causal, &params, &long_keys);
    if (s != TS_SUCCESS) return s;
    const int d = shape->head_dim;

    /* A persistent grid: one wave of blocks as the launch planner sizes it. */
    ts_device_props props;
    int grid = 0;
    if ((s = ts_kernel_device_props(&props)) != TS_SUCCESS) return s;
    /* (the fp16 kernels' grids are the bf16 ones': the same block, registers and shared memory) */
    if ((s = (d == 64      ? ts_attn_bf16_d64_persistent_grid
              : long_keys ? ts_attn_bf16_d128_long_persistent_grid
                          : ts_attn_bf16_d128_persistent_grid)(&props, params.tasks, &grid)) != TS_SUCCESS)
        return s;
    ts_attn_plan_grid(&params, grid);
    static const ts_attn_launcher launchers[2][3] = {
        {ts_attn_bf16_d64_launch, ts_attn_bf16_d128_launch, ts_attn_bf16_d128_long_launch},
        {ts_attn_fp16_d64_launch, ts_attn_fp16_d128_launch, ts_attn_fp16_d128_long_launch},
    };
    return launchers[dtype == TS_DTYPE_FP16][d == 64 ? 0 : long_keys ? 2 : 1](&params, grid, stream);
}
