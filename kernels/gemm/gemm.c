/* GEMM: C = alpha * op(A) * op(B) + beta * C (tessera.h), on the producer-consumer template. Each
 * operand dtype (bf16, fp16) and transpose form (NN, NT, TN, TT) is its own kernel, since tile
 * types are compile-time; gemm_variant.h is the kernel, instantiated eight times below. Tails need
 * no special code: the asynchronous loads zero-fill past the edges of A and B, and the epilogue
 * masks the edges of C. */
#include "kernels/common/checks.h"
#include "kernels/common/device_props.h"
#include "kernels/gemm/gemm_common.h"
#include "kernels/gemv/gemv.h"

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

/* The skinny kernels of each width, by the plan's width index (gemm_plan.h). */
static ts_gemm_skinny_run_fn *const ts_gemm_skinny_runs[TS_GEMM_SKINNY_WIDTHS] = {
    ts_gemm_skinny16_run, ts_gemm_skinny64_run, ts_gemm_skinny128_run};
static ts_gemm_skinny_wave_fn *const ts_gemm_skinny_waves[TS_GEMM_SKINNY_WIDTHS] = {
    ts_gemm_skinny16_wave, ts_gemm_skinny64_wave, ts_gemm_skinny128_wave};
static ts_gemm_skinny_capacity_fn *const ts_gemm_skinny_capacities[TS_GEMM_SKINNY_WIDTHS] = {
    ts_gemm_skinny16_cluster_capacity, ts_gemm_skinny64_cluster_capacity, ts_gemm_skinny128_cluster_capacity};

static int ts_gemm_device_capacity(const ts_gemm_device *device, int w, int pieces) {
    (void)device;
    int clusters = 0;
    return ts_gemm_skinny_capacities[w](pieces, &clusters) == TS_SUCCESS ? clusters : 0;
}

/* (0, whole tiles, where the planner refuses the kernel, which a device that runs it does not.) */
static int ts_gemm_device_skinny_wave(const ts_gemm_device *device, int w) {
    int wave = 0;
    return ts_gemm_skinny_waves[w](&device->props, &wave) == TS_SUCCESS ? wave : 0;
}

TS_EXTERN_C ts_status ts_gemm_device_get(ts_gemm_device *device) {
    memset(device, 0, sizeof *device);
    ts_status s = ts_kernel_device_props(&device->props);
    if (s != TS_SUCCESS) return s;
    if ((s = ts_gemm_bf16_nn_persistent_grid(&device->props, 1LL << 40, &device->large_wave)) != TS_SUCCESS) return s;
    device->skinny_wave = ts_gemm_device_skinny_wave;
    device->cluster_capacity = ts_gemm_device_capacity;
    return TS_SUCCESS;
}

/* The large tiles, split as the plan says where ws holds or can take the partial results. */
static ts_status ts_gemm_large_run(const ts_gemm_plan *plan, const ts_device_props *props, ts_trans trans_a, ts_trans trans_b, int m,
                                   int n, int k, float alpha, const void *a, ts_dtype a_type, long long lda,
                                   const void *b, long long ldb, float beta, void *c, ts_dtype c_type, long long ldc,
                                   ts_gemm_workspace *ws, ts_stream stream) {
    ts_gemm_params params;
    int grid = 0;
    ts_status s = ts_gemm_make_params(&params, trans_a, trans_b, m, n, k, alpha, a, a_type, lda, b, ldb, beta, c,
                                      c_type, ldc);
    if (s != TS_SUCCESS) return s;
    if (params.sched.tasks != plan->split.units || params.k_iters != plan->split.k_iters) return TS_ERROR_RUNTIME;
    const int split = ts_gemm_take_split(&params, ws, &plan->split, plan->wave, stream);
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

    /* The device's numbers for the plan: each kernel's persistent grid, one wave of blocks as the
     * launch planner sizes it (one block per SM, which a block's shared memory fills), in whole
     * clusters. Every variant of a kernel has the same resources. */
    ts_gemm_device device;
    ts_status s = ts_gemm_device_get(&device);
    if (s != TS_SUCCESS) return s;
    const int wave = device.large_wave;
    /* The bytes of workspace a split call uses: a large tile's partial results for each block of
     * the wave (the skinny tiles' are smaller). */
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
    /* Which kernel, and how each tile's K is split (gemm_plan.h). */
    const ts_gemm_plan plan = ts_gemm_plan_make(&device, trans_a, trans_b, m, n, k);
    if (plan.kernel == TS_GEMM_KERNEL_GEMV)
        return ts_gemv_run(trans_b, m, n, k, alpha, a, a_type, lda, b, ldb, beta, c, c_type, ldc, stream);
    /* Without a workspace from the caller, the library's scratch once a split is decided, so that
     * plain ts_gemm splits K as ts_gemm_ex does; where none can be had, whole tiles (C within the
     * same bounds, other roundings). */
    ts_gemm_workspace ws = {workspace, workspace_bytes, workspace == NULL, 0};
    if (plan.kernel == TS_GEMM_KERNEL_SKINNY)
        s = ts_gemm_skinny_runs[plan.width == 16 ? 0 : plan.width == 64 ? 1 : 2](
            &plan, &device.props, trans_a, trans_b, m, n, k, alpha, a, a_type, lda, b, ldb, beta, c, c_type, ldc, &ws, stream);
    else
        s = ts_gemm_large_run(&plan, &device.props, trans_a, trans_b, m, n, k, alpha, a, a_type, lda, b, ldb, beta, c, c_type,
                              ldc, &ws, stream);
    if (ws.taken) {
        const ts_status freed = ts_scratch_free(ws.ptr, stream);
        if (s == TS_SUCCESS) s = freed;
    }
    return s;
}

TS_EXTERN_C ts_status ts_gemm_explain(ts_trans trans_a, ts_trans trans_b, int m, int n, int k, char *buffer,
                                      size_t buffer_size) {
    if (!buffer) return TS_ERROR_NULL_POINTER;
    if ((trans_a != TS_NO_TRANS && trans_a != TS_TRANS) || (trans_b != TS_NO_TRANS && trans_b != TS_TRANS))
        return TS_ERROR_INVALID_ENUM;
    if (m <= 0 || n <= 0 || k <= 0 || buffer_size == 0) return TS_ERROR_INVALID_SIZE;
    ts_gemm_device device;
    const ts_status s = ts_gemm_device_get(&device);
    if (s != TS_SUCCESS) return s;
    const ts_gemm_plan plan = ts_gemm_plan_make(&device, trans_a, trans_b, m, n, k);
    (void)ts_gemm_plan_describe(&plan, buffer, buffer_size);
    return TS_SUCCESS;
}

TS_EXTERN_C ts_status ts_gemm(ts_trans trans_a, ts_trans trans_b, int m, int n, int k, float alpha, const void *a,
                              ts_dtype a_type, long long lda, const void *b, ts_dtype b_type, long long ldb, float beta,
                              void *c, ts_dtype c_type, long long ldc, ts_stream stream) {
    return ts_gemm_ex(trans_a, trans_b, m, n, k, alpha, a, a_type, lda, b, b_type, ldb, beta, c, c_type, ldc, NULL, 0,
                      stream);
}
