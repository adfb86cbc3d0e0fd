/* GEMV: decoding's products of at most 8 rows, C = alpha * A op(B) + beta * C with the weights B
 * read once, at the memory's rate, in 16-byte loads (kernels/gemv/gemv.h; docs/gemm.md "Decode:
 * GEMV"). ts_gemm hands these products here (kernels/gemm/gemm.c): a tensor-core tile 16 or more
 * rows tall would spend most of its multiplies and its shared-memory traffic on rows that do not
 * exist. Each operand dtype, weight layout and bucket of M is its own kernel (gemv_variant.h), so
 * that dtype and M are compile-time and the accumulators stay in registers. */
#include <string.h>

#include "kernels/common/checks.h"
#include "kernels/common/device_props.h"
#include "kernels/gemv/gemv_common.h"

#define TS_GEMV_DT bf16
#define TS_GEMV_DTYPE TS_DTYPE_BF16
#include "kernels/gemv/gemv_instances.h"
#undef TS_GEMV_DT
#undef TS_GEMV_DTYPE

#define TS_GEMV_DT fp16
#define TS_GEMV_DTYPE TS_DTYPE_FP16
#include "kernels/gemv/gemv_instances.h"
#undef TS_GEMV_DT
#undef TS_GEMV_DTYPE

/* [dtype: bf16, fp16][layout: weights N x K, K x N][bucket of M: 1, 2, 4, 8] */
static const ts_gemv_launcher ts_gemv_launchers[2][2][TS_GEMV_BUCKETS] = {
    {{ts_gemv_bf16_nt_m1_launch, ts_gemv_bf16_nt_m2_launch, ts_gemv_bf16_nt_m4_launch, ts_gemv_bf16_nt_m8_launch},
     {ts_gemv_bf16_nn_m1_launch, ts_gemv_bf16_nn_m2_launch, ts_gemv_bf16_nn_m4_launch, ts_gemv_bf16_nn_m8_launch}},
    {{ts_gemv_fp16_nt_m1_launch, ts_gemv_fp16_nt_m2_launch, ts_gemv_fp16_nt_m4_launch, ts_gemv_fp16_nt_m8_launch},
     {ts_gemv_fp16_nn_m1_launch, ts_gemv_fp16_nn_m2_launch, ts_gemv_fp16_nn_m4_launch, ts_gemv_fp16_nn_m8_launch}},
};

static int ts_gemv_dtype_valid(ts_dtype t) {
    return t == TS_DTYPE_F32 || t == TS_DTYPE_BF16 || t == TS_DTYPE_FP16;
}

/* The band of the cols form: the widest of the tuning's that still gives TS_GEMV_NN_BAND_FILL
 * blocks an SM, down to one lane (8 columns): few columns (N = 1024) would otherwise leave most
 * SMs without a block, and one SM cannot draw its share of the memory's rate alone. */
static ts_status ts_gemv_band_lanes(int n, int *lanes) {
    ts_device_props props;
    const ts_status s = ts_kernel_device_props(&props);
    if (s != TS_SUCCESS) return s;
    int l = TS_GEMV_NN_BAND_LANES;
    const long long want = (long long)TS_GEMV_NN_BAND_FILL * props.sm_count;
    while (l > 1 && ((long long)n + 8 * l - 1) / (8 * l) < want) l /= 2;
    *lanes = l;
    return TS_SUCCESS;
}

TS_EXTERN_C ts_status ts_gemv_run(ts_trans trans_b, int m, int n, int k, float alpha, const void *a, ts_dtype ab_type,
                                  long long lda, const void *b, long long ldb, float beta, void *c, ts_dtype c_type,
                                  long long ldc, ts_stream stream) {
    if (!a || !b || !c) return TS_ERROR_NULL_POINTER;
    if (trans_b != TS_NO_TRANS && trans_b != TS_TRANS) return TS_ERROR_INVALID_ENUM;
    if (!ts_gemv_dtype_valid(ab_type) || !ts_gemv_dtype_valid(c_type)) return TS_ERROR_INVALID_ENUM;
    if (m <= 0 || n <= 0 || k <= 0) return TS_ERROR_INVALID_SIZE;
    if (m > TS_GEMV_MAX_M || ab_type == TS_DTYPE_F32) return TS_ERROR_UNSUPPORTED;
    const long long b_rows = trans_b ? n : k, b_cols = trans_b ? k : n;
    if (lda < k || ldb < b_cols || ldc < n) return TS_ERROR_INVALID_VALUE;
    if (lda > (1LL << 40) || ldb > (1LL << 40) || ldc > (1LL << 40) || (m - 1) * lda + k > (1LL << 46) ||
        (b_rows - 1) * ldb + b_cols > (1LL << 46) || (m - 1) * ldc + n > (1LL << 46))
        return TS_ERROR_SIZE_OVERFLOW;
    const size_t c_bytes = c_type == TS_DTYPE_F32 ? 4 : 2;
    if (((uintptr_t)a | (uintptr_t)b) % 2 || (uintptr_t)c % c_bytes) return TS_ERROR_MISALIGNED;

    ts_gemv_params p;
    memset(&p, 0, sizeof p);
    p.a = a;
    p.b = b;
    p.c = c;
    p.lda = lda;
    p.ldb = ldb;
    p.ldc = ldc;
    p.m = m;
    p.n = n;
    p.k = k;
    p.c_dtype = (int)c_type;
    p.alpha = alpha;
    p.beta = beta;
    p.vec = ((uintptr_t)a | (uintptr_t)b) % 16 == 0 && lda % 8 == 0 && ldb % 8 == 0;
    p.band_lanes = 1;
    ts_status s;
    if (!trans_b && (s = ts_gemv_band_lanes(n, &p.band_lanes)) != TS_SUCCESS) return s;
    int bucket = 0;
    while (TS_GEMV_BUCKET_M(bucket) < m) ++bucket;
    return ts_gemv_launchers[ab_type == TS_DTYPE_FP16][trans_b == TS_NO_TRANS][bucket](&p, stream);
}
