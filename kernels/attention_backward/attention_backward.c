/* Attention backward: dQ, dK and dV from Q, K, V, O, dO and the forward's log-sum-exp
 * (tessera.h). Kernels on one stream: the preprocessing pass (attention_backward_preprocess.c)
 * writes each query row's D = rowsum(dO * O) and base-2 log-sum-exp to the workspace; the dK/dV
 * kernel (dkdv_variant.h), one instance per head dimension and dtype, recomputes the probabilities
 * from them. dQ takes one of two forms (docs/attention-backward.md): the atomic form, where the
 * dK/dV kernel adds each stage's dS K into fp32 sums in the workspace and a last pass converts
 * them (the default at D = 128 without the causal mask), or the deterministic form (everywhere
 * else, and with TS_ATTENTION_DETERMINISTIC), where the dQ kernel (dq_variant.h) computes each row
 * block's dQ in a fixed order, so results are the same bits run to run. Ragged lengths need no
 * special code: the loads zero-fill past the sequences, the padded query rows have probability 0,
 * keys past N_kv have zero K and V (and are masked in the dQ kernel), and rows past the sequences
 * are not stored. */
#include "kernels/common/checks.h"
#include "kernels/common/strided_layout.h"
#include "kernels/common/device_props.h"
#include "kernels/attention_backward/attention_backward_common.h"

#define TS_ATTN_BWD_PREFIX ts_attn_bwd_
#define TS_ATTN_BWD_KIND_DT bf16
#include "kernels/attention_backward/attention_backward_instances.h"
#undef TS_ATTN_BWD_KIND_DT
#define TS_ATTN_BWD_KIND_DT fp16
#include "kernels/attention_backward/attention_backward_instances.h"
#undef TS_ATTN_BWD_KIND_DT

typedef ts_status (*ts_attn_bwd_dkdv_launcher)(const ts_attn_bwd_dkdv_params *, int, ts_stream);
typedef ts_status (*ts_attn_bwd_dq_launcher)(const ts_attn_bwd_dq_params *, int, ts_stream);
typedef ts_status (*ts_attn_bwd_grid_fn)(const ts_device_props *, long long, int *);

/* The shape's own checks, shared by the workspace query and the call: sizes, head dimension,
 * grouping, and the task and row counts the kernels index in 32 bits. rows_pad: N_q rounded up to
 * TS_ATTN_BWD_ROW_PAD. */
static ts_status ts_attn_bwd_shape(const ts_attention_shape *shape, long long *rows_pad) {
    if (!shape) return TS_ERROR_NULL_POINTER;
    const ts_attention_shape sh = *shape;
    if (sh.batch <= 0 || sh.heads_q <= 0 || sh.heads_kv <= 0 || sh.seq_q <= 0 || sh.seq_kv <= 0 || sh.head_dim <= 0)
        return TS_ERROR_INVALID_SIZE;
    if (sh.head_dim != 64 && sh.head_dim != 128) return TS_ERROR_UNSUPPORTED;
    if (sh.heads_q % sh.heads_kv != 0) return TS_ERROR_INVALID_VALUE;
    /* Every kernel's task (and the preprocessing pass's block) count stays below 2^30: padded
     * query rows in blocks of 64 bound them all but the dK/dV kernel's, which counts key blocks. */
    const long long heads = (long long)sh.batch * sh.heads_q;
    const long long row_blocks = ts_check_tiles(sh.seq_q, TS_ATTN_BWD_ROW_PAD);
    const long long kv_tasks = (long long)sh.batch * sh.heads_kv * ts_check_tiles(sh.seq_kv, 64);
    if (heads * row_blocks >= (1LL << 30) || kv_tasks >= (1LL << 30)) return TS_ERROR_SIZE_OVERFLOW;
    *rows_pad = row_blocks * TS_ATTN_BWD_ROW_PAD;
    return TS_SUCCESS;
}

/* The workspace of one form: lse2 and D, a float each per padded query row; in the atomic form
 * then the rows' fp32 dQ sums, D floats each. */
static size_t ts_attn_bwd_workspace_of(const ts_attention_shape *shape, long long rows_pad, int dq_atomic) {
    const long long rows = (long long)shape->batch * shape->heads_q * rows_pad;
    return (size_t)(4LL * rows * (2 + (dq_atomic ? shape->head_dim : 0)));
}

TS_EXTERN_C ts_status ts_attention_backward_workspace_size(const ts_attention_shape *shape, size_t *bytes) {
    long long rows_pad = 0;
    if (!shape || !bytes) return TS_ERROR_NULL_POINTER;
    const ts_status s = ts_attn_bwd_shape(shape, &rows_pad);
    if (s != TS_SUCCESS) return s;
    *bytes = ts_attn_bwd_workspace_of(shape, rows_pad, TS_ATTN_BWD_DQ_ATOMIC_OF(shape->head_dim));
    return TS_SUCCESS;
}

TS_EXTERN_C ts_status ts_attn_bwd_prepare(const ts_attention_shape *shape, ts_dtype dtype, const void *q,
                                          const long long q_strides[3], const void *k, const long long k_strides[3],
                                          const void *v, const long long v_strides[3], const void *o,
                                          const long long o_strides[3], const void *d_o, const long long do_strides[3],
                                          const float *lse, void *dq, const long long dq_strides[3], void *dk,
                                          const long long dk_strides[3], void *dv, const long long dv_strides[3],
                                          float scale, int causal, unsigned flags, void *workspace,
                                          size_t workspace_bytes, const ts_attn_bwd_tiles tiles[2],
                                          ts_attn_bwd_pre_params *pre_out, ts_attn_bwd_dkdv_params *kv_out,
                                          ts_attn_bwd_dq_params *q_out) {
    if (!shape || !lse || !workspace) return TS_ERROR_NULL_POINTER;
    if (dtype != TS_DTYPE_BF16 && dtype != TS_DTYPE_FP16 && dtype != TS_DTYPE_F32) return TS_ERROR_INVALID_ENUM;
    long long rows_pad = 0;
    ts_status s = ts_attn_bwd_shape(shape, &rows_pad);
    if (s != TS_SUCCESS) return s;
    if (dtype == TS_DTYPE_F32) return TS_ERROR_UNSUPPORTED;
    const ts_attention_shape sh = *shape;
    /* The atomic form where it has an instance and measured faster: D = 128 without the causal mask
     * (under the mask its adds of dQ miss L2; docs/attention-backward.md). Elsewhere, and with
     * TS_ATTENTION_DETERMINISTIC, the deterministic form. */
    const int dq_atomic = !(flags & TS_ATTENTION_DETERMINISTIC) && !causal && TS_ATTN_BWD_DQ_ATOMIC_OF(sh.head_dim);
    /* Scores are kept in base 2, scaled by scale * log2(e), which must be finite too. */
    if (!(scale > 0.0f) || !isfinite(scale) || !isfinite(scale * 1.4426950408889634f)) return TS_ERROR_INVALID_VALUE;
    if (causal != 0 && causal != 1) return TS_ERROR_INVALID_VALUE;
    if ((uintptr_t)lse & 3u) return TS_ERROR_MISALIGNED;

    ts_gl gq, gk, gv, go, gdo, gdq, gdk, gdv;
    const long long d = sh.head_dim;
    if ((s = ts_check_strided_bhnd(&gq, q, dtype, sh.batch, sh.heads_q, sh.seq_q, d, q_strides)) != TS_SUCCESS ||
        (s = ts_check_strided_bhnd(&gk, k, dtype, sh.batch, sh.heads_kv, sh.seq_kv, d, k_strides)) != TS_SUCCESS ||
        (s = ts_check_strided_bhnd(&gv, v, dtype, sh.batch, sh.heads_kv, sh.seq_kv, d, v_strides)) != TS_SUCCESS ||
        (s = ts_check_strided_bhnd(&go, o, dtype, sh.batch, sh.heads_q, sh.seq_q, d, o_strides)) != TS_SUCCESS ||
        (s = ts_check_strided_bhnd(&gdo, d_o, dtype, sh.batch, sh.heads_q, sh.seq_q, d, do_strides)) != TS_SUCCESS ||
        (s = ts_check_strided_bhnd(&gdq, dq, dtype, sh.batch, sh.heads_q, sh.seq_q, d, dq_strides)) != TS_SUCCESS ||
        (s = ts_check_strided_bhnd(&gdk, dk, dtype, sh.batch, sh.heads_kv, sh.seq_kv, d, dk_strides)) != TS_SUCCESS ||
        (s = ts_check_strided_bhnd(&gdv, dv, dtype, sh.batch, sh.heads_kv, sh.seq_kv, d, dv_strides)) != TS_SUCCESS)
        return s;
    const size_t need = ts_attn_bwd_workspace_of(shape, rows_pad, dq_atomic);
    if (workspace_bytes < need) return TS_ERROR_INVALID_SIZE;
    if ((uintptr_t)workspace & 15u) return TS_ERROR_MISALIGNED;

    /* dQ, dK, dV and the workspace are written while the rest is read: none shares a byte with
     * another tensor of the call (the inputs may overlap one another). */
    const long long q_ext[3] = {sh.batch, sh.heads_q, sh.seq_q}, kv_ext[3] = {sh.batch, sh.heads_kv, sh.seq_kv};
    const long long lse_ext[1] = {(long long)sh.batch * sh.heads_q * sh.seq_q}, one[1] = {1};
    const long long ws_ext[1] = {(long long)need};
    const ts_check_layout in[6] = {
        ts_check_layout_make(q, 2, 3, q_ext, q_strides, d),   ts_check_layout_make(k, 2, 3, kv_ext, k_strides, d),
        ts_check_layout_make(v, 2, 3, kv_ext, v_strides, d),  ts_check_layout_make(o, 2, 3, q_ext, o_strides, d),
        ts_check_layout_make(d_o, 2, 3, q_ext, do_strides, d), ts_check_layout_make(lse, 4, 1, lse_ext, one, 1),
    };
    const ts_check_layout out[4] = {
        ts_check_layout_make(dq, 2, 3, q_ext, dq_strides, d),
        ts_check_layout_make(dk, 2, 3, kv_ext, dk_strides, d),
        ts_check_layout_make(dv, 2, 3, kv_ext, dv_strides, d),
        ts_check_layout_make(workspace, 1, 1, ws_ext, one, 1),
    };
    for (int i = 0; i < 4; ++i) {
        for (int j = 0; j < 6; ++j)
            if (!ts_check_apart(&out[i], &in[j])) return TS_ERROR_INVALID_VALUE;
        for (int j = i + 1; j < 4; ++j)
            if (!ts_check_apart(&out[i], &out[j])) return TS_ERROR_INVALID_VALUE;
    }
    /* An unknown flag, after every other argument's checks and before anything asks the device. */
    if (flags & ~TS_ATTENTION_DETERMINISTIC) return TS_ERROR_INVALID_VALUE;

    const int wide = sh.head_dim == 128;
    const int bq = tiles[wide].bq, bk = tiles[wide].bk, block = tiles[wide].block;
    float *lse2 = (float *)workspace, *delta = lse2 + (long long)sh.batch * sh.heads_q * rows_pad;
    float *dq_sums = delta + (long long)sh.batch * sh.heads_q * rows_pad;
    const ts_gl dq_acc = ts_gl_make(dq_atomic ? dq_sums : NULL, TS_DTYPE_F32, sh.batch, sh.heads_q, rows_pad, sh.head_dim);

    ts_attn_bwd_pre_params pre;
    memset(&pre, 0, sizeof pre);
    pre.o = go;
    pre.d_o = gdo;
    pre.dq_acc = dq_acc;
    pre.dq = gdq;
    pre.scale = scale;
    pre.lse = lse;
    pre.lse2 = lse2;
    pre.delta = delta;
    pre.heads_q = sh.heads_q;
    pre.head_dim = sh.head_dim;
    pre.row_blocks = (int)(rows_pad / TS_ATTN_BWD_ROW_PAD);
    pre.seq_q = sh.seq_q;
    pre.nq_pad = rows_pad;
    pre.blocks = (long long)sh.batch * sh.heads_q * pre.row_blocks;

    ts_attn_bwd_dkdv_params kv;
    memset(&kv, 0, sizeof kv);
    if ((s = ts_async_desc_make(&kv.q, &gq, bq, sh.head_dim, dtype)) != TS_SUCCESS ||
        (s = ts_async_desc_make(&kv.d_o, &gdo, bq, sh.head_dim, dtype)) != TS_SUCCESS ||
        (s = ts_async_desc_make(&kv.k, &gk, 64, sh.head_dim, dtype)) != TS_SUCCESS ||
        (s = ts_async_desc_make(&kv.v, &gv, 64, sh.head_dim, dtype)) != TS_SUCCESS ||
        (dq_atomic && (s = ts_async_desc_make(&kv.dq_add, &dq_acc, 16, 64, TS_DTYPE_F32)) != TS_SUCCESS))
        return s;
    kv.dk = gdk;
    kv.dv = gdv;
    kv.lse2 = lse2;
    kv.delta = delta;
    kv.scale_log2 = scale * 1.4426950408889634f;
    kv.scale = scale;
    kv.causal = causal;
    kv.heads_q = sh.heads_q;
    kv.heads_kv = sh.heads_kv;
    kv.group = sh.heads_q / sh.heads_kv;
    kv.q_tiles = (int)ts_check_tiles(sh.seq_q, bq);
    kv.kv_tiles = (int)ts_check_tiles(sh.seq_kv, block);
    kv.seq_q = sh.seq_q;
    kv.seq_kv = sh.seq_kv;
    kv.nq_pad = rows_pad;
    kv.tasks = (long long)sh.batch * sh.heads_kv * kv.kv_tiles;

    ts_attn_bwd_dq_params qp;
    memset(&qp, 0, sizeof qp);
    if ((s = ts_async_desc_make(&qp.k, &gk, bk, sh.head_dim, dtype)) != TS_SUCCESS ||
        (s = ts_async_desc_make(&qp.v, &gv, bk, sh.head_dim, dtype)) != TS_SUCCESS ||
        (s = ts_async_desc_make(&qp.q, &gq, 64, sh.head_dim, dtype)) != TS_SUCCESS ||
        (s = ts_async_desc_make(&qp.d_o, &gdo, 64, sh.head_dim, dtype)) != TS_SUCCESS)
        return s;
    qp.dq = gdq;
    qp.lse2 = lse2;
    qp.delta = delta;
    qp.scale_log2 = kv.scale_log2;
    qp.scale = scale;
    qp.causal = causal;
    qp.heads_q = sh.heads_q;
    qp.group = kv.group;
    qp.q_tiles = (int)ts_check_tiles(sh.seq_q, block);
    qp.kv_tiles = (int)ts_check_tiles(sh.seq_kv, bk);
    qp.seq_q = sh.seq_q;
    qp.seq_kv = sh.seq_kv;
    qp.nq_pad = rows_pad;
    qp.tasks = (long long)sh.batch * sh.heads_q * qp.q_tiles;

    *pre_out = pre;
    *kv_out = kv;
    *q_out = qp;
    return TS_SUCCESS;
}

TS_EXTERN_C ts_status ts_attention_backward_ex(const ts_attention_shape *shape, ts_dtype dtype, const void *q,
                                               const long long q_strides[3], const void *k,
                                               const long long k_strides[3], const void *v,
                                               const long long v_strides[3], const void *o,
                                               const long long o_strides[3], const void *d_o,
                                               const long long do_strides[3], const float *lse, void *dq,
                                               const long long dq_strides[3], void *dk, const long long dk_strides[3],
                                               void *dv, const long long dv_strides[3], float scale, int causal,
                                               unsigned flags, void *workspace, size_t workspace_bytes,
                                               ts_stream stream) {
    static const ts_attn_bwd_tiles tiles[2] = {
        {TS_ATTN_BWD_BLOCK_OF(64), TS_ATTN_BWD_BQ_OF(64), TS_ATTN_BWD_BK_OF(64)},
        {TS_ATTN_BWD_BLOCK_OF(128), TS_ATTN_BWD_BQ_OF(128), TS_ATTN_BWD_BK_OF(128)},
    };
    ts_attn_bwd_pre_params pre;
    ts_attn_bwd_dkdv_params kv;
    ts_attn_bwd_dq_params qp;
    ts_status s = ts_attn_bwd_prepare(shape, dtype, q, q_strides, k, k_strides, v, v_strides, o, o_strides, d_o,
                                      do_strides, lse, dq, dq_strides, dk, dk_strides, dv, dv_strides, scale, causal,
                                      flags, workspace, workspace_bytes, tiles, &pre, &kv, &qp);
    if (s != TS_SUCCESS) return s;
    const int dq_atomic = pre.dq_acc.ptr != NULL, wide = shape->head_dim == 128;
    /* [atomic form][fp16][D = 128]; the atomic form has instances at D = 128 only, and an
     * architecture without it none (prepare never picks it where there is none). */
#if TS_ATTN_BWD_DQ_ATOMIC
#define TS_ATTN_BWD_WITH_DQ(name) name
#else
#define TS_ATTN_BWD_WITH_DQ(name) NULL
#endif
    static const ts_attn_bwd_dkdv_launcher dkdv[2][2][2] = {
        {{ts_attn_bwd_dkdv_bf16_d64_launch, ts_attn_bwd_dkdv_bf16_d128_launch},
         {ts_attn_bwd_dkdv_fp16_d64_launch, ts_attn_bwd_dkdv_fp16_d128_launch}},
        {{NULL, TS_ATTN_BWD_WITH_DQ(ts_attn_bwd_dkdv_dq_bf16_d128_launch)},
         {NULL, TS_ATTN_BWD_WITH_DQ(ts_attn_bwd_dkdv_dq_fp16_d128_launch)}},
    };
    static const ts_attn_bwd_dq_launcher dqs[2][2] = {
        {ts_attn_bwd_dq_bf16_d64_launch, ts_attn_bwd_dq_bf16_d128_launch},
        {ts_attn_bwd_dq_fp16_d64_launch, ts_attn_bwd_dq_fp16_d128_launch},
    };
    /* (the fp16 kernels' grids are the bf16 ones': the same block, registers and shared memory) */
    static const ts_attn_bwd_grid_fn grids[3][2] = {
        {ts_attn_bwd_dkdv_bf16_d64_persistent_grid, ts_attn_bwd_dkdv_bf16_d128_persistent_grid},
        {NULL, TS_ATTN_BWD_WITH_DQ(ts_attn_bwd_dkdv_dq_bf16_d128_persistent_grid)},
        {ts_attn_bwd_dq_bf16_d64_persistent_grid, ts_attn_bwd_dq_bf16_d128_persistent_grid},
    };
#undef TS_ATTN_BWD_WITH_DQ
    const int fp16 = dtype == TS_DTYPE_FP16;
    ts_device_props props;
    int kv_grid = 0, q_grid = 0;
    if ((s = ts_kernel_device_props(&props)) != TS_SUCCESS ||
        (s = grids[dq_atomic][wide](&props, kv.tasks, &kv_grid)) != TS_SUCCESS ||
        (!dq_atomic && (s = grids[2][wide](&props, qp.tasks, &q_grid)) != TS_SUCCESS))
        return s;
    if ((s = ts_attn_bwd_preprocess_launch(&pre, stream)) != TS_SUCCESS) return s;
    if ((s = dkdv[dq_atomic][fp16][wide](&kv, kv_grid, stream)) != TS_SUCCESS) return s;
    return dq_atomic ? ts_attn_bwd_dq_convert_launch(&pre, stream) : dqs[fp16][wide](&qp, q_grid, stream);
}

TS_EXTERN_C ts_status ts_attention_backward(const ts_attention_shape *shape, ts_dtype dtype, const void *q,
                                            const long long q_strides[3], const void *k,
                                            const long long k_strides[3], const void *v,
                                            const long long v_strides[3], const void *o,
                                            const long long o_strides[3], const void *d_o,
                                            const long long do_strides[3], const float *lse, void *dq,
                                            const long long dq_strides[3], void *dk, const long long dk_strides[3],
                                            void *dv, const long long dv_strides[3], float scale, int causal,
                                            void *workspace, size_t workspace_bytes, ts_stream stream) {
    return ts_attention_backward_ex(shape, dtype, q, q_strides, k, k_strides, v, v_strides, o, o_strides, d_o,
                                    do_strides, lse, dq, dq_strides, dk, dk_strides, dv, dv_strides, scale, causal, 0u,
                                    workspace, workspace_bytes, stream);
}
