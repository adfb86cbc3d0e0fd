/* GEMM: C = alpha * op(A) * op(B) + beta * C (tessera.h), on the producer-consumer template. Each
 * operand dtype (bf16, fp16) and transpose form (NN, NT, TN, TT) is its own kernel, since tile
 * types are compile-time; gemm_variant.h is the kernel, instantiated eight times below. Tails need
 * no special code: the asynchronous loads zero-fill past the edges of A and B, and the epilogue
 * masks the edges of C. */
#include "kernels/common/checks.h"
#include "kernels/common/device_props.h"
#include "kernels/gemm/gemm_common.h"
#include "kernels/gemv/gemv.h"
#include "kernels/gemv/tuning.h"

/* The default kernels (whole tiles) and the split instances (NAME_split: split-K for few tiles,
 * gemm_common.h), whose pieces the reduction kernel then adds. */
#define TS_GEMM_KIND
#define TS_GEMM_SPLIT_K 0
#include "kernels/gemm/gemm_instances.h"
#undef TS_GEMM_KIND
#undef TS_GEMM_SPLIT_K

#define TS_GEMM_KIND _split
#define TS_GEMM_SPLIT_K 1
#include "kernels/gemm/gemm_instances.h"
#undef TS_GEMM_KIND
#undef TS_GEMM_SPLIT_K

static int ts_gemm_dtype_valid(ts_dtype t) {
    return t == TS_DTYPE_F32 || t == TS_DTYPE_BF16 || t == TS_DTYPE_FP16;
}

/* The workspace for the largest persistent grid the GEMM kernels take on a device. */
static ts_status ts_gemm_workspace_need(const ts_device_props *props, size_t *bytes) {
    int grid = 0;
    const ts_status s = ts_gemm_bf16_nn_persistent_grid(props, 1LL << 40, &grid);
    if (s == TS_SUCCESS) *bytes = ts_gemm_workspace_bytes(grid);
    return s;
}

TS_EXTERN_C ts_status ts_gemm_workspace_size(size_t *bytes) {
    if (!bytes) return TS_ERROR_NULL_POINTER;
    ts_device_props props;
    const ts_status s = ts_kernel_device_props(&props);
    return s == TS_SUCCESS ? ts_gemm_workspace_need(&props, bytes) : s;
}

/* The tiled products (all but GEMV's): transposed on the skinny kernels for few rows, else on the
 * 128-row tiles of gemm_variant.h; split-K where the tiles are too few for the SMs and ws holds
 * or can take the partial results. */
static ts_status ts_gemm_tiles(const ts_device_props *props, int wave, ts_trans trans_a, ts_trans trans_b, int m,
                               int n, int k, float alpha, const void *a, ts_dtype a_type, long long lda, const void *b,
                               long long ldb, float beta, void *c, ts_dtype c_type, long long ldc, ts_gemm_workspace *ws,
                               ts_stream stream) {
    /* Products of few rows: transposed, on the skinny kernels (N down their tile rows, M across
     * 16, 64 or 128 columns). Up to TS_GEMM_SKINNY64_MAX_M rows on the 64-wide tiles where the
     * tiles below would be at most an eighth of the wave and the 64-wide ones few enough to split
     * K in four or more pieces; else up to TS_GEMM_SKINNY128_MAX_M rows (one tile across M) on
     * the 128-wide tiles where those, at most a wave, split K in TS_GEMM_SPLIT_MIN_PIECES pieces
     * or fill three quarters of the wave (kernels/gemm/tuning.h): 64 whole tiles on 132 SMs would
     * leave half of them idle, slower than the large tiles' split (docs/gemm.md). */
    int done = 0, grid = 0, split = 0;
    ts_status s = TS_SUCCESS;
    const long long large_tiles = ts_check_tiles(m, TS_GEMM_BM) * ts_check_tiles(n, TS_GEMM_BN);
    const long long weight_tiles = ts_check_tiles(n, TS_GEMM_SKINNY_BM);
    ts_gemm_skinny_run_fn *skinny = NULL;
    if (m <= 16)
        skinny = ts_gemm_skinny16_run;
    else if (m <= 64 ||
             (m <= TS_GEMM_SKINNY64_MAX_M && large_tiles * 8 <= wave && weight_tiles * ts_check_tiles(m, 64) * 4 <= wave))
        skinny = ts_gemm_skinny64_run;
    else if (m <= TS_GEMM_SKINNY128_MAX_M && weight_tiles <= wave &&
             (weight_tiles * TS_GEMM_SPLIT_MIN_PIECES <= wave || weight_tiles * 4 >= wave * 3))
        skinny = ts_gemm_skinny128_run;
    if (skinny) {
        s = skinny(trans_a, trans_b, m, n, k, alpha, a, a_type, lda, b, ldb, beta, c, c_type, ldc, ws, stream, &done);
        if (s != TS_SUCCESS || done) return s;
    }

    ts_gemm_params params;
    if ((s = ts_gemm_make_params(&params, trans_a, trans_b, m, n, k, alpha, a, a_type, lda, b, ldb, beta, c, c_type,
                                 ldc)) != TS_SUCCESS)
        return s;
    /* Pieces of tiles over the wave's clusters: split-K where the tiles leave most clusters idle
     * (each piece leaves its results to the reduction kernel); from two pieces on where every
     * tile's rows are rows of C (TS_GEMM_SPLIT_MIN_PIECES_FULL). */
    split = ts_gemm_split_k(&params, ws, wave,
                            m >= TS_GEMM_BM ? TS_GEMM_SPLIT_MIN_PIECES_FULL : TS_GEMM_SPLIT_MIN_PIECES, stream);
    if ((s = ts_gemm_bf16_nn_persistent_grid(props, ts_split_tasks(&params.split), &grid)) != TS_SUCCESS) return s;

    static const ts_gemm_launcher launchers[2][2][2][2] = {
        {{{ts_gemm_bf16_nn_launch, ts_gemm_bf16_nt_launch}, {ts_gemm_bf16_tn_launch, ts_gemm_bf16_tt_launch}},
         {{ts_gemm_fp16_nn_launch, ts_gemm_fp16_nt_launch}, {ts_gemm_fp16_tn_launch, ts_gemm_fp16_tt_launch}}},
        {{{ts_gemm_bf16_nn_split_launch, ts_gemm_bf16_nt_split_launch},
          {ts_gemm_bf16_tn_split_launch, ts_gemm_bf16_tt_split_launch}},
         {{ts_gemm_fp16_nn_split_launch, ts_gemm_fp16_nt_split_launch},
          {ts_gemm_fp16_tn_split_launch, ts_gemm_fp16_tt_split_launch}}},
    };
    s = launchers[split][a_type == TS_DTYPE_FP16][trans_a][trans_b](&params, grid, stream);
    return s == TS_SUCCESS && split ? ts_gemm_split_reduce_run(&params, stream) : s;
}

TS_EXTERN_C ts_status ts_gemm_ex(ts_trans trans_a, ts_trans trans_b, int m, int n, int k, float alpha,
                                 const void *a, ts_dtype a_type, long long lda, const void *b, ts_dtype b_type,
                                 long long ldb, float beta, void *c, ts_dtype c_type, long long ldc, void *workspace,
                                 size_t workspace_bytes, ts_stream stream) {
    if (!a || !b || !c) return TS_ERROR_NULL_POINTER;
    if ((trans_a != TS_NO_TRANS && trans_a != TS_TRANS) || (trans_b != TS_NO_TRANS && trans_b != TS_TRANS))
        return TS_ERROR_INVALID_ENUM;
    if (!ts_gemm_dtype_valid(a_type) || !ts_gemm_dtype_valid(b_type) || !ts_gemm_dtype_valid(c_type))
        return TS_ERROR_INVALID_ENUM;
    if (m <= 0 || n <= 0 || k <= 0) return TS_ERROR_INVALID_SIZE;
    if (a_type != b_type || a_type == TS_DTYPE_F32) return TS_ERROR_UNSUPPORTED;
    /* The stored shapes: A is M x K or K x M, B is K x N or N x K. */
    const long long a_rows = trans_a ? k : m, a_cols = trans_a ? m : k;
    const long long b_rows = trans_b ? n : k, b_cols = trans_b ? k : n;
    if (lda < a_cols || ldb < b_cols || ldc < n) return TS_ERROR_INVALID_VALUE;
    /* Element offsets must fit the kernels' 64-bit indexing and the copy engine's 32-bit coordinates. */
    if (lda > (1LL << 31) || ldb > (1LL << 31) || ldc > (1LL << 31) ||
        a_rows * lda > (1LL << 46) || b_rows * ldb > (1LL << 46) || (long long)m * ldc > (1LL << 46))
        return TS_ERROR_SIZE_OVERFLOW;
    if (lda % 8 || ldb % 8 || ldc % 8 || (((uintptr_t)a | (uintptr_t)b | (uintptr_t)c) & 15u))
        return TS_ERROR_MISALIGNED;

    /* A persistent grid: one wave of blocks as the launch planner sizes it (one block per SM, which
     * a block's shared memory fills), in whole clusters, no larger than the tasks need. Every
     * variant has the same resources. */
    ts_device_props props;
    int wave = 0;
    ts_status s = ts_kernel_device_props(&props);
    if (s != TS_SUCCESS) return s;
    if ((s = ts_gemm_bf16_nn_persistent_grid(&props, 1LL << 40, &wave)) != TS_SUCCESS) return s;
    /* The bytes of workspace a split call uses: a tile's partial results for each block of the wave. */
    const size_t need = ts_gemm_workspace_bytes(wave);
    if (workspace) {
        if ((uintptr_t)workspace % 16) return TS_ERROR_MISALIGNED;
        if (workspace_bytes < need) return TS_ERROR_INVALID_SIZE;
    }
    /* Overlaps, after every other check: C is written while A and B are read, so it shares no
     * byte with either (A and B may overlap); nor do the bytes of the workspace a call uses. */
    const ts_check_layout la = ts_check_matrix_layout(a, 2, a_rows, a_cols, lda);
    const ts_check_layout lb = ts_check_matrix_layout(b, 2, b_rows, b_cols, ldb);
    const ts_check_layout lc = ts_check_matrix_layout(c, c_type == TS_DTYPE_F32 ? 4 : 2, m, n, ldc);
    const ts_check_layout lw = ts_check_matrix_layout(workspace, 1, 1, (long long)need, (long long)need);
    if (!ts_check_apart(&lc, &la) || !ts_check_apart(&lc, &lb) ||
        (workspace && (!ts_check_apart(&lw, &la) || !ts_check_apart(&lw, &lb) || !ts_check_apart(&lw, &lc))))
        return TS_ERROR_INVALID_VALUE;
    /* Products of at most 8 rows with A as stored (decoding's): GEMV, which reads B once in 16-byte
     * loads and uses each load for every row of A (kernels/gemv/, docs/gemm.md); it takes no
     * workspace. A stored K x M (trans_a) has its M values of a column of K side by side, not a
     * row along K as the GEMV's loads of A want, and stays on the skinny kernels; so do 5 to 8
     * rows against many weight rows N x K, where the skinny kernels, splitting K, are faster, and
     * 3 or 4 rows against large such weights (TS_GEMV_SKINNY_FROM_N, TS_GEMV_SKINNY4_FROM_WEIGHTS,
     * kernels/gemv/tuning.h). */
    const int many_weight_rows = trans_b == TS_TRANS && n >= TS_GEMV_SKINNY_FROM_N;
    const int skinny_rows = many_weight_rows && (m > TS_GEMV_MAX_M / 2 ||
                                                 (m > TS_GEMV_MAX_M / 4 && (long long)n * k >= TS_GEMV_SKINNY4_FROM_WEIGHTS));
    if (m <= TS_GEMV_MAX_M && trans_a == TS_NO_TRANS && !skinny_rows)
        return ts_gemv_run(trans_b, m, n, k, alpha, a, a_type, lda, b, ldb, beta, c, c_type, ldc, stream);
    /* Without a workspace from the caller, the library's scratch once a split is decided, so that
     * plain ts_gemm splits K as ts_gemm_ex does; where none can be had, whole tiles (C within the
     * same bounds, other roundings). */
    ts_gemm_workspace ws = {workspace, workspace_bytes, workspace == NULL, 0};
    s = ts_gemm_tiles(&props, wave, trans_a, trans_b, m, n, k, alpha, a, a_type, lda, b, ldb, beta, c, c_type, ldc,
                      &ws, stream);
    if (ws.taken) {
        const ts_status freed = ts_scratch_free(ws.ptr, stream);
        if (s == TS_SUCCESS) s = freed;
    }
    return s;
}

TS_EXTERN_C ts_status ts_gemm(ts_trans trans_a, ts_trans trans_b, int m, int n, int k, float alpha, const void *a,
                              ts_dtype a_type, long long lda, const void *b, ts_dtype b_type, long long ldb, float beta,
                              void *c, ts_dtype c_type, long long ldc, ts_stream stream) {
    return ts_gemm_ex(trans_a, trans_b, m, n, k, alpha, a, a_type, lda, b, b_type, ldb, beta, c, c_type, ldc, NULL, 0,
                      stream);
}
