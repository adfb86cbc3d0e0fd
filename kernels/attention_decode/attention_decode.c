/* Decode attention over a paged key-value cache (tessera.h, docs/decode.md): the entry points with
 * their argument checks, the split plan, and the four instances (bf16, fp16 x D = 64, 128) of the
 * split and combine kernels of attention_decode_variant.h. */
#include <float.h>
#include <math.h>
#include <string.h>

#include "kernels/attention_decode/attention_decode_common.h"
#include "kernels/attention_decode/decode_plan.h"
#include "kernels/common/checks.h"
#include "kernels/common/device_props.h"
#include "ops/convert.h"
#include "ops/index.h"
#include "ops/maps.h"
#include "ops/memory.h"
#include "ops/mma.h"
#include "ops/reductions.h"
#include "ops/row_copy.h"
#include "tiles/shared_alloc.h"
#include "tiles/shared_vector.h"

/* The weights that merge TS_DECODE_WARPS online-softmax states whose row maxima m[k] (scaled base 2)
 * and sums l[k] (relative to m[k]) lie in shared memory, as both kernels' warps leave them at
 * their ends: w[k] = 2^(m[k] - big) for big = max_k m[k], and den = sum_k w[k] l[k]. A state that
 * saw no key (-inf, 0) weighs 0; a row no state saw keeps big = -inf and den = 0. */
TS_DEVICE void ts_decode_merge_weights(const ts_sv_f32_16 *m, const ts_sv_f32_16 *l,
                                       ts_rowvec_f32_16 w[TS_DECODE_WARPS], ts_rowvec_f32_16 *big,
                                       ts_rowvec_f32_16 *den) {
    ts_rowvec_f32_16 mk, lk, big_safe;
    ts_rv_fill(big, -INFINITY);
    TS_UNROLL
    for (int k = 0; k < TS_DECODE_WARPS; ++k) {
        ts_rv_load_s(&mk, &m[k]);
        ts_rv_max(big, big, &mk);
    }
    ts_rv_max_scalar(&big_safe, big, -FLT_MAX);
    ts_rv_zero(den);
    TS_UNROLL
    for (int k = 0; k < TS_DECODE_WARPS; ++k) {
        ts_rv_load_s(&mk, &m[k]);
        ts_rv_load_s(&lk, &l[k]);
        ts_rv_sub(&w[k], &mk, &big_safe);
        ts_rv_exp2(&w[k], &w[k]);
        ts_rv_fma(den, &w[k], &lk, den);
    }
}

#define TS_DECODE_NAME ts_decode_bf16_d64
#define TS_DECODE_D 64
#define TS_DECODE_DT bf16
#include "kernels/attention_decode/attention_decode_variant.h"

#define TS_DECODE_NAME ts_decode_bf16_d128
#define TS_DECODE_D 128
#define TS_DECODE_DT bf16
#include "kernels/attention_decode/attention_decode_variant.h"

#define TS_DECODE_NAME ts_decode_fp16_d64
#define TS_DECODE_D 64
#define TS_DECODE_DT fp16
#include "kernels/attention_decode/attention_decode_variant.h"

#define TS_DECODE_NAME ts_decode_fp16_d128
#define TS_DECODE_D 128
#define TS_DECODE_DT fp16
#include "kernels/attention_decode/attention_decode_variant.h"

/* Elements a tensor of the call may span, as for attention's tensors (docs/contract.md). */
#define TS_DECODE_MAX_ELEMS (1LL << 46)
/* Rows of a key-value head (query heads of the group x query rows): their indices go through fp32
 * (the causal offsets), exact far past this. */
#define TS_DECODE_MAX_GROUP_ROWS (1LL << 20)

/* The checks of the description alone, in the contract's order (sizes, values, overflow); the
 * pointer and dtype checks come first in ts_attention_decode. units: B x Hkv x row tiles. */
static ts_status ts_decode_check_sizes(const ts_attention_decode_desc *d) {
    if (d->batch <= 0 || d->heads_q <= 0 || d->heads_kv <= 0 || d->queries <= 0 || d->head_dim <= 0 ||
        d->page_size <= 0 || d->num_pages <= 0 || d->max_pages <= 0)
        return TS_ERROR_INVALID_SIZE;
    if (d->head_dim != 64 && d->head_dim != 128) return TS_ERROR_UNSUPPORTED;
    if (d->queries > TS_DECODE_MAX_QUERIES) return TS_ERROR_UNSUPPORTED;
    return TS_SUCCESS;
}

static ts_status ts_decode_check_values(const ts_attention_decode_desc *d) {
    if (d->heads_q % d->heads_kv != 0) return TS_ERROR_INVALID_VALUE;
    if (d->page_size < 16 || d->page_size > 256 || d->page_size % 16 != 0) return TS_ERROR_INVALID_VALUE;
    /* Scores are kept in base 2, scaled by scale * log2(e), which must be finite too. */
    const float scale = d->scale;
    if (!(scale > 0.0f) || !isfinite(scale) || !isfinite(scale * 1.4426950408889634f)) return TS_ERROR_INVALID_VALUE;
    if (d->causal != 0 && d->causal != 1) return TS_ERROR_INVALID_VALUE;
    return TS_SUCCESS;
}

static ts_status ts_decode_check_overflow(const ts_attention_decode_desc *d, long long *units) {
    /* Each product below is of factors already bounded, so none overflows 64 bits. */
    const long long group_rows = (long long)(d->heads_q / d->heads_kv) * d->queries;
    const long long heads = (long long)d->batch * d->heads_q;
    if (heads > TS_DECODE_MAX_ELEMS / d->head_dim / d->queries) return TS_ERROR_SIZE_OVERFLOW;
    const long long page_elems = (long long)d->heads_kv * d->page_size * d->head_dim;
    if (page_elems > TS_DECODE_MAX_ELEMS / d->num_pages) return TS_ERROR_SIZE_OVERFLOW;
    if ((long long)d->batch * d->max_pages > TS_DECODE_MAX_ELEMS) return TS_ERROR_SIZE_OVERFLOW;
    /* Key positions are 32-bit in the kernels, a split's end included. */
    if ((long long)d->max_pages * d->page_size > (1LL << 30)) return TS_ERROR_SIZE_OVERFLOW;
    if (group_rows > TS_DECODE_MAX_GROUP_ROWS) return TS_ERROR_SIZE_OVERFLOW;
    /* A block per (row tile, split), the block index 32-bit: every split count must fit. */
    *units = (long long)d->batch * d->heads_kv;
    if (*units > 2147483647LL / TS_DECODE_MAX_SPLITS) return TS_ERROR_SIZE_OVERFLOW;
    *units *= ts_check_tiles(group_rows, TS_DECODE_ROWS);
    if (*units > 2147483647LL / TS_DECODE_MAX_SPLITS) return TS_ERROR_SIZE_OVERFLOW;
    return TS_SUCCESS;
}

TS_EXTERN_C ts_decode_plan_limits ts_decode_plan_limits_for(int head_dim) {
    ts_decode_plan_limits l = {TS_DECODE_BLOCK_KEYS_OF(head_dim), TS_DECODE_MIN_SPLIT_KEYS, TS_DECODE_MAX_SPLITS};
    return l;
}

TS_EXTERN_C void ts_decode_plan(long long units, long long capacity, int head_dim, int sms, int *splits,
                                int *split_keys) {
    const long long step = TS_DECODE_BLOCK_KEYS_OF(head_dim);
    const long long target = (long long)(sms > 0 ? sms : 1) * TS_DECODE_BLOCKS_PER_SM;
    /* Rounded down: blocks of equal work take whole waves, and a few more than a wave's worth
     * would add a wave of their own. */
    long long n = target / units;
    long long most = (capacity + TS_DECODE_MIN_SPLIT_KEYS - 1) / TS_DECODE_MIN_SPLIT_KEYS;
    if (most > TS_DECODE_MAX_SPLITS) most = TS_DECODE_MAX_SPLITS;
    if (n > most) n = most;
    if (n < 1) n = 1;
    long long keys = (capacity + n - 1) / n;
    keys = (keys + step - 1) / step * step;
    *split_keys = (int)keys;
    *splits = (int)((capacity + keys - 1) / keys);
}

/* The description's checks, then the split plan on the current device and the workspace it needs:
 * each part (row tile x split) 16 x D fp32 outputs and 16 fp32 log2-sums. */
static ts_status ts_decode_plan_desc(const ts_attention_decode_desc *d, long long *units, int *splits, int *split_keys,
                                     size_t *bytes) {
    ts_status s;
    if ((s = ts_decode_check_sizes(d)) != TS_SUCCESS || (s = ts_decode_check_values(d)) != TS_SUCCESS ||
        (s = ts_decode_check_overflow(d, units)) != TS_SUCCESS)
        return s;
    int sms = 0;
    if ((s = ts_kernel_sm_count(&sms)) != TS_SUCCESS) return s;
    ts_decode_plan(*units, (long long)d->max_pages * d->page_size, d->head_dim, sms, splits, split_keys);
    *bytes = (size_t)(*units * *splits) * TS_DECODE_ROWS * ((size_t)d->head_dim + 1) * sizeof(float);
    return TS_SUCCESS;
}

TS_EXTERN_C ts_status ts_attention_decode_workspace_size(const ts_attention_decode_desc *desc, size_t *bytes) {
    if (!desc || !bytes) return TS_ERROR_NULL_POINTER;
    long long units;
    int splits, split_keys;
    return ts_decode_plan_desc(desc, &units, &splits, &split_keys, bytes);
}

typedef ts_status (*ts_decode_launcher)(const ts_decode_params *, ts_stream);

TS_EXTERN_C ts_status ts_attention_decode(const ts_attention_decode_desc *desc, ts_dtype dtype, const void *q,
                                          const void *k_cache, const void *v_cache, const int *block_table,
                                          const int *seq_lens, void *out, float *lse, void *workspace,
                                          size_t workspace_bytes, ts_stream stream) {
    if (!desc || !q || !k_cache || !v_cache || !block_table || !seq_lens || !out || !workspace)
        return TS_ERROR_NULL_POINTER;
    if (dtype != TS_DTYPE_BF16 && dtype != TS_DTYPE_FP16 && dtype != TS_DTYPE_F32) return TS_ERROR_INVALID_ENUM;
    if (dtype == TS_DTYPE_F32) return TS_ERROR_UNSUPPORTED;
    const ts_attention_decode_desc d = *desc;
    ts_status s;
    long long units;
    if ((s = ts_decode_check_sizes(&d)) != TS_SUCCESS || (s = ts_decode_check_values(&d)) != TS_SUCCESS) return s;
    /* 16-byte loads and stores of Q, the pages and O; 4-byte words elsewhere. */
    if ((((uintptr_t)q | (uintptr_t)k_cache | (uintptr_t)v_cache | (uintptr_t)out | (uintptr_t)workspace) & 15u) ||
        (((uintptr_t)block_table | (uintptr_t)seq_lens | (uintptr_t)lse) & 3u))
        return TS_ERROR_MISALIGNED;
    if ((s = ts_decode_check_overflow(&d, &units)) != TS_SUCCESS) return s;
    int splits, split_keys;
    size_t need;
    if ((s = ts_decode_plan_desc(&d, &units, &splits, &split_keys, &need)) != TS_SUCCESS) return s;
    if (workspace_bytes < need) return TS_ERROR_INVALID_SIZE;

    /* The outputs (O, the log-sum-exp, the workspace) share no byte with any other tensor of the
     * call; the inputs may overlap each other. */
    const long long rows = (long long)d.batch * d.heads_q * d.queries;
    const long long cache = (long long)d.num_pages * d.heads_kv * d.page_size * d.head_dim;
    const ts_check_layout lq = ts_check_matrix_layout(q, 2, 1, rows * d.head_dim, rows * d.head_dim);
    const ts_check_layout lo = ts_check_matrix_layout(out, 2, 1, rows * d.head_dim, rows * d.head_dim);
    const ts_check_layout lk = ts_check_matrix_layout(k_cache, 2, 1, cache, cache);
    const ts_check_layout lv = ts_check_matrix_layout(v_cache, 2, 1, cache, cache);
    const ts_check_layout lt = ts_check_matrix_layout(block_table, 4, 1, (long long)d.batch * d.max_pages,
                                                      (long long)d.batch * d.max_pages);
    const ts_check_layout ls = ts_check_matrix_layout(seq_lens, 4, 1, d.batch, d.batch);
    const ts_check_layout ll = ts_check_matrix_layout(lse, 4, 1, rows, rows);
    const ts_check_layout lw = ts_check_matrix_layout(workspace, 1, 1, (long long)need, (long long)need);
    const ts_check_layout *inputs[5] = {&lq, &lk, &lv, &lt, &ls};
    for (int i = 0; i < 5; ++i)
        if (!ts_check_apart(&lo, inputs[i]) || !ts_check_apart(&lw, inputs[i]) ||
            (lse && !ts_check_apart(&ll, inputs[i])))
            return TS_ERROR_INVALID_VALUE;
    if (!ts_check_apart(&lo, &lw) || (lse && (!ts_check_apart(&ll, &lo) || !ts_check_apart(&ll, &lw))))
        return TS_ERROR_INVALID_VALUE;

    const int group = d.heads_q / d.heads_kv, group_rows = group * d.queries;
    const long long bh = (long long)d.batch * d.heads_kv;
    ts_decode_params p;
    memset(&p, 0, sizeof p);
    p.q = ts_gl_make((void *)q, dtype, bh, 1, group_rows, d.head_dim);
    p.out = ts_gl_make(out, dtype, bh, 1, group_rows, d.head_dim);
    p.parts = units * splits;
    p.ws_o = ts_gl_make(workspace, TS_DTYPE_F32, 1, 1, p.parts * TS_DECODE_ROWS, d.head_dim);
    p.ws_lse = (float *)workspace + p.parts * TS_DECODE_ROWS * d.head_dim;
    p.k_cache = (const unsigned short *)k_cache;
    p.v_cache = (const unsigned short *)v_cache;
    p.block_table = block_table;
    p.seq_lens = seq_lens;
    p.lse = lse;
    p.scale_log2 = d.scale * 1.4426950408889634f;
    p.heads_kv = d.heads_kv;
    p.group_rows = group_rows;
    p.queries = d.queries;
    p.causal = d.causal;
    p.page_size = d.page_size;
    p.max_pages = d.max_pages;
    p.num_pages = d.num_pages;
    p.row_tiles = (int)ts_check_tiles(group_rows, TS_DECODE_ROWS);
    p.splits = splits;
    p.split_keys = split_keys;
    p.capacity = d.max_pages * d.page_size;
    p.by_row_tiles = ts_fast_div_make((unsigned)p.row_tiles);
    p.by_splits = ts_fast_div_make((unsigned)splits);
    p.by_heads_kv = ts_fast_div_make((unsigned)d.heads_kv);
    p.by_page = ts_fast_div_make((unsigned)d.page_size);
    static const ts_decode_launcher launchers[2][2] = {
        {ts_decode_bf16_d64_launch, ts_decode_bf16_d128_launch},
        {ts_decode_fp16_d64_launch, ts_decode_fp16_d128_launch},
    };
    return launchers[dtype == TS_DTYPE_FP16][d.head_dim == 128](&p, stream);
}
