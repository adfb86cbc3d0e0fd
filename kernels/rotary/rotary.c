/* Rotary position embedding on Q and K (tessera.h, docs/memory-bound.md): the parameters, the
 * argument checks, the launch and the kernels, instantiated from rotary_variant.h: a general one per
 * dtype and, for the common case (ts_rope_whole), a whole instance per 16-bit dtype with its
 * token-rows kernel. A warp handles a token (all its heads of Q and K) at a time, or, where each
 * head's tokens lie back to back ((B, H, N, D)), a run of 512 / D tokens in every head (the
 * token-rows kernel); the grid is one warp per token or run, capped at TS_ROPE_BLOCKS_PER_SM blocks
 * an SM, beyond which warps loop. Launch numbers: tuning.h. */
#include <math.h>
#include <string.h>

#include "backends/backend.h"
#include "kernels/common/checks.h"
#include "kernels/common/device_props.h"
#include "kernels/rotary/tuning.h"
#include "ops/rotary.h"

#define TS_ROPE_STRIP 512 /* elements of a warp's strip */

/* Index 0 is Q, 1 is K (heads 0 when K is absent). Strides are in elements. */
typedef struct ts_rope_params {
    float inv_freq[TS_ROPE_MAX_D / 2];
    const void *in[2];
    void *out[2];
    long long stride_b[2], stride_n[2], stride_h[2];
    int heads[2];
    const float *cos, *sin;
    long long tokens, seq, offset;
    int d_shift, interleaved;
} ts_rope_params;

/* In a variant: ptr, promised 16-byte aligned in the whole instance (whose launch checked it;
 * ops/warp_vector.h). */
#define TS_ROPE_ASSUME_ALIGNED(ptr) TS_WV_ASSUME_ALIGNED(TS_ROPE_VARIANT_WHOLE, ptr)

#define TS_ROPE_NAME ts_rope_bf16
#define TS_ROPE_DTYPE TS_DTYPE_BF16
#define TS_ROPE_VARIANT_STRIPS TS_ROPE_STRIPS
#define TS_ROPE_VARIANT_MIN_BLOCKS TS_ROPE_MIN_BLOCKS
#define TS_ROPE_VARIANT_WHOLE 0
#include "kernels/rotary/rotary_variant.h"

#define TS_ROPE_NAME ts_rope_fp16
#define TS_ROPE_DTYPE TS_DTYPE_FP16
#define TS_ROPE_VARIANT_STRIPS TS_ROPE_STRIPS
#define TS_ROPE_VARIANT_MIN_BLOCKS TS_ROPE_MIN_BLOCKS
#define TS_ROPE_VARIANT_WHOLE 0
#include "kernels/rotary/rotary_variant.h"

#define TS_ROPE_NAME ts_rope_f32
#define TS_ROPE_DTYPE TS_DTYPE_F32
#define TS_ROPE_VARIANT_STRIPS TS_ROPE_F32_STRIPS
#define TS_ROPE_VARIANT_MIN_BLOCKS TS_ROPE_F32_MIN_BLOCKS
#define TS_ROPE_VARIANT_WHOLE 0
#include "kernels/rotary/rotary_variant.h"

#define TS_ROPE_NAME ts_rope_bf16_whole
#define TS_ROPE_DTYPE TS_DTYPE_BF16
#define TS_ROPE_VARIANT_STRIPS TS_ROPE_STRIPS
#define TS_ROPE_VARIANT_MIN_BLOCKS TS_ROPE_MIN_BLOCKS
#define TS_ROPE_VARIANT_WHOLE 1
#include "kernels/rotary/rotary_variant.h"

#define TS_ROPE_NAME ts_rope_fp16_whole
#define TS_ROPE_DTYPE TS_DTYPE_FP16
#define TS_ROPE_VARIANT_STRIPS TS_ROPE_STRIPS
#define TS_ROPE_VARIANT_MIN_BLOCKS TS_ROPE_MIN_BLOCKS
#define TS_ROPE_VARIANT_WHOLE 1
#include "kernels/rotary/rotary_variant.h"

/* The {batch, seq, head} strides of one tensor, checked: positive, and no two (batch, token,
 * head) rows of D elements overlap (each dimension's stride covers the extent of the ones inside
 * it, in whatever order they nest). */
static ts_status ts_rope_strides(const long long *given, ts_rotary_layout layout, long long b, long long n,
                                 long long h, long long d, long long out[3]) {
    if (given) {
        out[0] = given[0];
        out[1] = given[1];
        out[2] = given[2];
    } else if (h > ((long long)1 << 58) / n / d) {
        return TS_ERROR_SIZE_OVERFLOW; /* dense strides past the checks' range below */
    } else if (layout == TS_ROTARY_BNHD) {
        out[2] = d;
        out[1] = h * d;
        out[0] = n * h * d;
    } else {
        out[1] = d;
        out[2] = n * d;
        out[0] = h * n * d;
    }
    long long stride[3] = {out[0], out[1], out[2]}, extent[3] = {b, n, h};
    for (int i = 0; i < 3; ++i)
        if (stride[i] <= 0) return TS_ERROR_INVALID_VALUE;
    for (int i = 0; i < 3; ++i) /* sort by stride, innermost first */
        for (int j = 2; j > i; --j)
            if (stride[j] < stride[j - 1]) {
                long long ts = stride[j], te = extent[j];
                stride[j] = stride[j - 1];
                extent[j] = extent[j - 1];
                stride[j - 1] = ts;
                extent[j - 1] = te;
            }
    long long inner = d;
    for (int i = 0; i < 3; ++i) {
        if (extent[i] == 1) continue;
        if (stride[i] < inner) return TS_ERROR_INVALID_VALUE;
        if (stride[i] > ((long long)1 << 58) / extent[i]) return TS_ERROR_SIZE_OVERFLOW;
        inner = stride[i] * extent[i];
    }
    return TS_SUCCESS;
}

/* Whether a checked call meets the whole instance's conditions (rotary_variant.h): 16-bit data,
 * angles from a table, every tensor and its {batch, seq, head} strides 16-byte aligned (the table
 * rows, D/2 floats, then are too), head counts in whole rounds of heads_per_round, and token
 * numbers that fit 32 bits. The token kernel's rounds are TS_ROPE_STRIPS strips of 512 / D heads. */
static int ts_rope_whole_aligned(const ts_rotary_desc *d, const ts_rope_params *p, int heads_per_round) {
    if (d->dtype == TS_DTYPE_F32 || !d->cos_table || ((uintptr_t)d->cos_table | (uintptr_t)d->sin_table) % 16u ||
        p->tokens > 0x7fffffffLL)
        return 0;
    for (int which = 0; which < 2; ++which) {
        if (p->heads[which] == 0) continue;
        if (p->heads[which] % heads_per_round) return 0;
        const uintptr_t bytes = 2;
        if (((uintptr_t)p->in[which] | (uintptr_t)p->out[which] | (uintptr_t)(p->stride_b[which] * bytes) |
             (uintptr_t)(p->stride_n[which] * bytes) | (uintptr_t)(p->stride_h[which] * bytes)) % 16u)
            return 0;
    }
    return 1;
}

static int ts_rope_whole(const ts_rotary_desc *d, const ts_rope_params *p) {
    return ts_rope_whole_aligned(d, p, TS_ROPE_STRIPS * (TS_ROPE_STRIP >> p->d_shift));
}

/* Whether the whole instance's token-rows kernel takes the call (rotary_variant.h): every head's
 * tokens back to back (token stride D, as (B, H, N, D) has), whole strips of 512 / D tokens, heads
 * in rounds of TS_ROPE_STRIPS, and the whole instance's alignment. */
static int ts_rope_token_rows(const ts_rotary_desc *d, const ts_rope_params *p) {
    if (p->seq % (TS_ROPE_STRIP >> p->d_shift)) return 0;
    for (int which = 0; which < 2; ++which)
        if (p->heads[which] && p->stride_n[which] != d->head_dim) return 0;
    return ts_rope_whole_aligned(d, p, TS_ROPE_STRIPS);
}

TS_EXTERN_C ts_status ts_rotary(const ts_rotary_desc *desc, ts_stream stream) {
    if (!desc) return TS_ERROR_NULL_POINTER;
    const ts_rotary_desc d = *desc;
    if (d.dtype != TS_DTYPE_BF16 && d.dtype != TS_DTYPE_FP16 && d.dtype != TS_DTYPE_F32) return TS_ERROR_INVALID_ENUM;
    if (d.layout != TS_ROTARY_BNHD && d.layout != TS_ROTARY_BHND) return TS_ERROR_INVALID_ENUM;
    if (d.convention != TS_ROTARY_ROTATE_HALF && d.convention != TS_ROTARY_INTERLEAVED) return TS_ERROR_INVALID_ENUM;
    if (!d.q || !d.q_out) return TS_ERROR_NULL_POINTER;
    if (d.heads_k > 0 && (!d.k || !d.k_out)) return TS_ERROR_NULL_POINTER;
    if (!d.cos_table != !d.sin_table) return TS_ERROR_NULL_POINTER;
    if (d.batch <= 0 || d.seq <= 0 || d.heads_q <= 0 || d.heads_k < 0 || d.head_dim <= 0) return TS_ERROR_INVALID_SIZE;
    int d_shift = 5;
    while (d_shift <= 8 && (1 << d_shift) != d.head_dim) ++d_shift;
    if (d_shift > 8) return TS_ERROR_UNSUPPORTED;
    if (d.position_offset < 0) return TS_ERROR_INVALID_VALUE;
    if (d.position_offset > ((long long)1 << 24) - d.seq) return TS_ERROR_SIZE_OVERFLOW;
    if (d.cos_table) {
        if (d.table_rows < (long long)d.seq + d.position_offset) return TS_ERROR_INVALID_VALUE;
        if (((uintptr_t)d.cos_table | (uintptr_t)d.sin_table) & 3u) return TS_ERROR_MISALIGNED;
    } else if (!(d.theta_base > 0.0f) || !isfinite(d.theta_base)) {
        return TS_ERROR_INVALID_VALUE;
    }
    const uintptr_t align = d.dtype == TS_DTYPE_F32 ? 4u : 2u;
    if (((uintptr_t)d.q | (uintptr_t)d.q_out) % align) return TS_ERROR_MISALIGNED;
    if (d.heads_k > 0 && ((uintptr_t)d.k | (uintptr_t)d.k_out) % align) return TS_ERROR_MISALIGNED;

    ts_rope_params p;
    memset(&p, 0, sizeof p);
    ts_status s;
    long long st[3];
    if ((s = ts_rope_strides(d.q_strides, d.layout, d.batch, d.seq, d.heads_q, d.head_dim, st)) != TS_SUCCESS) return s;
    p.stride_b[0] = st[0];
    p.stride_n[0] = st[1];
    p.stride_h[0] = st[2];
    if (d.heads_k > 0) {
        if ((s = ts_rope_strides(d.k_strides, d.layout, d.batch, d.seq, d.heads_k, d.head_dim, st)) != TS_SUCCESS)
            return s;
        p.stride_b[1] = st[0];
        p.stride_n[1] = st[1];
        p.stride_h[1] = st[2];
        p.in[1] = d.k;
        p.out[1] = d.k_out;
        p.heads[1] = d.heads_k;
    } else {
        p.in[1] = d.q; /* never read: no heads */
        p.out[1] = d.q_out;
    }
    /* An output shares no byte with another tensor of the call, but may be its input exactly. */
    const int eb = d.dtype == TS_DTYPE_F32 ? 4 : 2;
    const long long ext_q[3] = {d.batch, d.seq, d.heads_q}, ext_k[3] = {d.batch, d.seq, d.heads_k};
    const long long table_ext[1] = {d.seq}, table_stride[1] = {d.head_dim / 2};
    const long long stride_q[3] = {p.stride_b[0], p.stride_n[0], p.stride_h[0]};
    const long long stride_k[3] = {p.stride_b[1], p.stride_n[1], p.stride_h[1]};
    const ts_check_layout lq = ts_check_layout_make(d.q, eb, 3, ext_q, stride_q, d.head_dim);
    const ts_check_layout lqo = ts_check_layout_make(d.q_out, eb, 3, ext_q, stride_q, d.head_dim);
    const ts_check_layout lk = ts_check_layout_make(d.k, eb, 3, ext_k, stride_k, d.head_dim);
    const ts_check_layout lko = ts_check_layout_make(d.k_out, eb, 3, ext_k, stride_k, d.head_dim);
    /* The table rows of positions offset .. offset + seq - 1. */
    const long long table_row0 = d.position_offset * (d.head_dim / 2);
    const ts_check_layout lc = ts_check_layout_make(d.cos_table ? d.cos_table + table_row0 : NULL, 4, 1, table_ext,
                                                    table_stride, d.head_dim / 2);
    const ts_check_layout ls = ts_check_layout_make(d.sin_table ? d.sin_table + table_row0 : NULL, 4, 1, table_ext,
                                                    table_stride, d.head_dim / 2);
    if (ts_check_disjoint_or_same(&lqo, &lq, d.q_out == d.q) ||
        (d.heads_k > 0 && (ts_check_disjoint(&lqo, &lk) || ts_check_disjoint(&lqo, &lko) ||
                           ts_check_disjoint_or_same(&lko, &lk, d.k_out == d.k) || ts_check_disjoint(&lko, &lq))) ||
        (d.cos_table && (ts_check_disjoint(&lqo, &lc) || ts_check_disjoint(&lqo, &ls) ||
                         (d.heads_k > 0 && (ts_check_disjoint(&lko, &lc) || ts_check_disjoint(&lko, &ls))))))
        return TS_ERROR_INVALID_VALUE;
    p.in[0] = d.q;
    p.out[0] = d.q_out;
    p.heads[0] = d.heads_q;
    p.cos = d.cos_table;
    p.sin = d.sin_table;
    p.tokens = (long long)d.batch * d.seq;
    p.seq = d.seq;
    p.offset = d.position_offset;
    p.d_shift = d_shift;
    p.interleaved = d.convention == TS_ROTARY_INTERLEAVED;
    for (int i = 0; i < d.head_dim / 2; ++i)
        p.inv_freq[i] = (float)pow((double)d.theta_base, -2.0 * i / d.head_dim);

    const int rows = ts_rope_token_rows(&d, &p);
    const int whole = ts_rope_whole(&d, &p);
    const long long units = rows ? p.tokens / (TS_ROPE_STRIP >> d_shift) : p.tokens;
    unsigned blocks = 0;
    if ((s = ts_kernel_capped_grid((units + TS_ROPE_WARPS - 1) / TS_ROPE_WARPS, TS_ROPE_BLOCKS_PER_SM, &blocks)) !=
        TS_SUCCESS)
        return s;
    if (rows)
        return (d.dtype == TS_DTYPE_BF16 ? ts_rope_bf16_whole_rows_launch : ts_rope_fp16_whole_rows_launch)(&p, blocks,
                                                                                                          stream);
    if (whole)
        return (d.dtype == TS_DTYPE_BF16 ? ts_rope_bf16_whole_launch : ts_rope_fp16_whole_launch)(&p, blocks, stream);
    switch (d.dtype) {
    case TS_DTYPE_BF16: return ts_rope_bf16_launch(&p, blocks, stream);
    case TS_DTYPE_FP16: return ts_rope_fp16_launch(&p, blocks, stream);
    default: return ts_rope_f32_launch(&p, blocks, stream);
    }
}
