/* Products of few rows (M <= 256, as in decoding) computed transposed: C^T = op(B)^T op(A)^T.
 * gemm.c's block tile is 128 rows of C by 256 columns, whose multiplies take as long whatever M
 * is, so a product of 16 rows would spend seven eighths of them on rows that do not exist.
 * Transposed, N runs down the tile's 128 rows and M across its columns, TS_GEMM_SKINNY of them:
 * 16 (M <= 16, gemm_skinny16.c), 64 (gemm_skinny64.c) or 128 (gemm_skinny128.c), several tiles
 * across M where M is wider than the tile (the plan, gemm_plan.h, picks the width). The kernels are
 * the split instances of gemm_variant.h at that width (this header is their source and launcher,
 * included by each width's source). Where the tiles are too few for the SMs, the plan cuts each
 * tile's K range into pieces: on a backend with thread-block clusters, and for at most TS_CLUSTER_MAX
 * pieces, the pieces of a tile are the blocks of one cluster, which add their partial tiles
 * through each other's shared memory and store C transposed themselves (gemm_variant.h,
 * add_in_cluster); otherwise, with a workspace or the library's scratch (gemm_common.h,
 * ts_gemm_take_split), the reduction kernel (gemm_skinny_reduce.h) adds the partial tiles. Without a
 * split the tiles are whole (a split schedule of one piece a tile) and the kernel's epilogue
 * stores them to C transposed (TS_GEMM_C_TRANSPOSED). Measurements: docs/gemm.md. */
#include "kernels/common/device_props.h"
#include "kernels/gemm/gemm_skinny.h"

#define TS_GEMM_KIND TS_CAT(_skinny, TS_GEMM_SKINNY)
#define TS_GEMM_SPLIT_K 1
#include "kernels/gemm/gemm_instances.h"
#undef TS_GEMM_KIND
#undef TS_GEMM_SPLIT_K

/* This width's kernel of each dtype and transpose form, by the gemm_instances.h names. */
#define TS_GEMM_SKINNY_KERNEL_FN(form, name)                                                       \
    TS_CAT(TS_CAT(TS_CAT(ts_gemm_, form), TS_CAT(_skinny, TS_GEMM_SKINNY)), TS_CAT(_, name))

TS_EXTERN_C ts_status TS_GEMM_SKINNY_FN(wave)(const ts_device_props *props, int *wave) {
    return TS_GEMM_SKINNY_KERNEL_FN(bf16_nn, persistent_grid)(props, 1LL << 40, wave);
}

TS_EXTERN_C ts_status TS_GEMM_SKINNY_FN(cluster_capacity)(int pieces, int *clusters) {
    return TS_GEMM_SKINNY_KERNEL_FN(bf16_nn, cluster_capacity)(pieces, clusters);
}

TS_EXTERN_C ts_status TS_GEMM_SKINNY_FN(run)(const ts_gemm_plan *plan, const ts_device_props *props, ts_trans trans_a,
                                         ts_trans trans_b, int m, int n, int k, float alpha, const void *a, ts_dtype ab_type, long long lda,
                                         const void *b, long long ldb, float beta, void *c, ts_dtype c_type,
                                         long long ldc, ts_gemm_workspace *ws, ts_stream stream) {
    /* (A plan that does not fit this kernel is the library's own error.) */
    if (plan->kernel != TS_GEMM_KERNEL_SKINNY || plan->width != TS_GEMM_SKINNY || m > TS_GEMM_SKINNY_MAX_M)
        return TS_ERROR_RUNTIME;
    /* op(B)^T is N x K: B as stored when op(B) = B^T, else B^T; op(A)^T likewise. */
    const ts_trans ta = trans_b ? TS_NO_TRANS : TS_TRANS, tb = trans_a ? TS_NO_TRANS : TS_TRANS;
    ts_gemm_params params;
    ts_status s = ts_gemm_make_params(&params, ta, tb, n, m, k, alpha, b, ab_type, ldb, a, lda, beta, c, c_type, ldc);
    if (s != TS_SUCCESS) return s;
    if (params.sched.tasks != plan->split.units || params.k_iters != plan->split.k_iters) return TS_ERROR_RUNTIME;
    int grid = 0, split = 0;
    /* The pieces of a tile in one cluster, added through distributed shared memory inside the
     * kernel; else through the workspace (or whole tiles) and the reduction kernel. */
    const int pieces = plan->cluster_pieces;
    if (pieces) {
        params.split = plan->split;
        params.cluster_pieces = pieces;
    } else {
        split = ts_gemm_take_split(&params, ws, &plan->split, plan->wave, stream);
        s = TS_GEMM_SKINNY_KERNEL_FN(bf16_nn, persistent_grid)(props, ts_split_tasks(&params.split), &grid);
        if (s != TS_SUCCESS) return s;
    }

    typedef ts_status (*cluster_launcher)(const ts_gemm_params *, int, int, ts_stream);
    static const ts_gemm_launcher launchers[2][2][2] = {
        {{TS_GEMM_SKINNY_KERNEL_FN(bf16_nn, launch), TS_GEMM_SKINNY_KERNEL_FN(bf16_nt, launch)},
         {TS_GEMM_SKINNY_KERNEL_FN(bf16_tn, launch), TS_GEMM_SKINNY_KERNEL_FN(bf16_tt, launch)}},
        {{TS_GEMM_SKINNY_KERNEL_FN(fp16_nn, launch), TS_GEMM_SKINNY_KERNEL_FN(fp16_nt, launch)},
         {TS_GEMM_SKINNY_KERNEL_FN(fp16_tn, launch), TS_GEMM_SKINNY_KERNEL_FN(fp16_tt, launch)}},
    };
    static const cluster_launcher cluster_launchers[2][2][2] = {
        {{TS_GEMM_SKINNY_KERNEL_FN(bf16_nn, launch_clusters), TS_GEMM_SKINNY_KERNEL_FN(bf16_nt, launch_clusters)},
         {TS_GEMM_SKINNY_KERNEL_FN(bf16_tn, launch_clusters), TS_GEMM_SKINNY_KERNEL_FN(bf16_tt, launch_clusters)}},
        {{TS_GEMM_SKINNY_KERNEL_FN(fp16_nn, launch_clusters), TS_GEMM_SKINNY_KERNEL_FN(fp16_nt, launch_clusters)},
         {TS_GEMM_SKINNY_KERNEL_FN(fp16_tn, launch_clusters), TS_GEMM_SKINNY_KERNEL_FN(fp16_tt, launch_clusters)}},
    };
    const int f = ab_type == TS_DTYPE_FP16;
    if (pieces)
        s = cluster_launchers[f][ta][tb](&params, (int)ts_split_tasks(&params.split), pieces, stream);
    else
        s = launchers[f][ta][tb](&params, grid, stream);
    if (s != TS_SUCCESS) return s;
    return split ? TS_GEMM_SKINNY_FN(reduce_run)(&params, stream) : TS_SUCCESS;
}
