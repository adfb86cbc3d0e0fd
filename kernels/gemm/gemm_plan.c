/* ts_gemm_ex's plan (gemm_plan.h): GEMV, the skinny tiles or the large ones, and the split of K. */
#include <stdio.h>
#include <string.h>

#include "backends/cluster.h"
#include "kernels/common/checks.h"
#include "kernels/gemm/gemm_plan.h"
#include "kernels/gemm/tuning.h"
#include "kernels/gemv/gemv.h"
#include "kernels/gemv/tuning.h"

/* Products of at most 8 rows with A as stored (decoding's) go to GEMV, which reads B once in
 * 16-byte loads and uses each load for every row of A (kernels/gemv/, docs/gemm.md). A stored
 * K x M (trans_a) has its M values of a column of K side by side, not a row along K as the GEMV's
 * loads of A want, and stays on the skinny kernels; so do 5 to 8 rows against many weight rows
 * N x K, where the skinny kernels, splitting K, are faster, and 3 or 4 rows against large such
 * weights (TS_GEMV_SKINNY_FROM_N, TS_GEMV_SKINNY4_FROM_WEIGHTS, kernels/gemv/tuning.h). */
static int ts_gemm_plan_gemv(ts_trans trans_a, ts_trans trans_b, int m, int n, int k) {
    const int many_weight_rows = trans_b == TS_TRANS && n >= TS_GEMV_SKINNY_FROM_N;
    const int skinny_rows = many_weight_rows && (m > TS_GEMV_MAX_M / 2 ||
                                                 (m > TS_GEMV_MAX_M / 4 && (long long)n * k >= TS_GEMV_SKINNY4_FROM_WEIGHTS));
    return m <= TS_GEMV_MAX_M && trans_a == TS_NO_TRANS && !skinny_rows;
}

/* Products of few rows run transposed on the skinny kernels (N down their tile rows, M across 16,
 * 64 or 128 columns): the index of the width, or -1 for the large tiles. Up to
 * TS_GEMM_SKINNY64_MAX_M rows on the 64-wide tiles where the large tiles would be at most an
 * eighth of the wave and the 64-wide ones few enough to split K in four or more pieces; else up
 * to TS_GEMM_SKINNY128_MAX_M rows (one tile across M) on the 128-wide tiles where those, at most a
 * wave, split K in TS_GEMM_SPLIT_MIN_PIECES pieces or fill three quarters of the wave: 64 whole
 * tiles on 132 SMs would leave half of them idle, slower than the large tiles' split. */
static int ts_gemm_plan_skinny_width(const ts_gemm_device *d, int m, int n) {
    const int wave = d->large_wave;
    const long long large_tiles = ts_check_tiles(m, TS_GEMM_LARGE_BM) * ts_check_tiles(n, TS_GEMM_LARGE_BN);
    const long long weight_tiles = ts_check_tiles(n, TS_GEMM_SKINNY_BM);
    if (m <= 16) return 0;
    if (m <= 64 ||
        (m <= TS_GEMM_SKINNY64_MAX_M && large_tiles * 8 <= wave && weight_tiles * ts_check_tiles(m, 64) * 4 <= wave))
        return 1;
    if (m <= TS_GEMM_SKINNY128_MAX_M && weight_tiles <= wave &&
        (weight_tiles * TS_GEMM_SPLIT_MIN_PIECES <= wave || weight_tiles * 4 >= wave * 3))
        return 2;
    return -1;
}

TS_EXTERN_C ts_gemm_plan ts_gemm_plan_make(const ts_gemm_device *d, ts_trans trans_a, ts_trans trans_b, int m, int n,
                                           int k) {
    ts_gemm_plan p;
    memset(&p, 0, sizeof p);
    p.split = ts_split_whole(1, 1);
    if (ts_gemm_plan_gemv(trans_a, trans_b, m, n, k)) {
        p.kernel = TS_GEMM_KERNEL_GEMV;
        return p;
    }
    const int w = ts_gemm_plan_skinny_width(d, m, n);
    if (w >= 0) {
        /* C^T: N x M in tiles of TS_GEMM_SKINNY_BM x width, clusters of one. */
        p.kernel = TS_GEMM_KERNEL_SKINNY;
        p.width = ts_gemm_skinny_widths[w];
        const long long units = ts_check_tiles(n, TS_GEMM_SKINNY_BM) * ts_check_tiles(m, p.width);
        const int k_iters = (int)ts_check_tiles(k, TS_GEMM_SKINNY_BK), wave = d->skinny_wave(d, w);
        p.wave = wave;
        /* Split-K in clusters where the backend runs them: a tile's pieces, at most TS_CLUSTER_MAX,
         * are the blocks of one cluster, added through distributed shared memory inside the
         * kernel, where every cluster fits the device at once (fewer pieces where the device holds
         * too few clusters of that many blocks: a cluster's blocks share a GPC); otherwise split-K
         * through the workspace (or whole tiles) and the reduction kernel. */
        ts_split_sched in_clusters =
            ts_split_make(units, k_iters, wave, TS_GEMM_SPLIT_MIN_ITERS, TS_GEMM_CLUSTER_SPLIT_MIN_PIECES);
        if (in_clusters.split > TS_CLUSTER_MAX) in_clusters.split = 1;
        for (; in_clusters.split >= TS_GEMM_CLUSTER_SPLIT_MIN_PIECES && in_clusters.split >= 2; --in_clusters.split)
            if (d->cluster_capacity && d->cluster_capacity(d, w, in_clusters.split) >= in_clusters.units) {
                p.split = in_clusters;
                p.cluster_pieces = in_clusters.split;
                return p;
            }
        p.split = ts_split_make(units, k_iters, wave, TS_GEMM_SPLIT_MIN_ITERS, TS_GEMM_SPLIT_MIN_PIECES);
        return p;
    }
    /* The large tiles: split-K where the tiles leave most clusters idle; from two pieces on where
     * every tile's rows are rows of C (TS_GEMM_SPLIT_MIN_PIECES_FULL). */
    p.kernel = TS_GEMM_KERNEL_LARGE;
    p.wave = d->large_wave;
    int cluster_n = 0;
    const long long units = ts_gemm_large_units(ts_check_tiles(m, TS_GEMM_LARGE_BM),
                                                ts_check_tiles(n, TS_GEMM_LARGE_BN), TS_GEMM_CLUSTER_BLOCKS, &cluster_n);
    p.split = ts_split_make(units, (int)ts_check_tiles(k, TS_GEMM_LARGE_BK), d->large_wave / TS_GEMM_CLUSTER_BLOCKS,
                            TS_GEMM_SPLIT_MIN_ITERS,
                            m >= TS_GEMM_LARGE_BM ? TS_GEMM_SPLIT_MIN_PIECES_FULL : TS_GEMM_SPLIT_MIN_PIECES);
    return p;
}

TS_EXTERN_C int ts_gemm_plan_describe(const ts_gemm_plan *p, char *buffer, size_t buffer_size) {
    if (p->kernel == TS_GEMM_KERNEL_GEMV)
        return snprintf(buffer, buffer_size, "GEMV: B read once, each load used for every row of A");
    char kernel[64];
    if (p->kernel == TS_GEMM_KERNEL_SKINNY)
        snprintf(kernel, sizeof kernel, "C^T on the skinny %d x %d tiles", TS_GEMM_SKINNY_BM, p->width);
    else
        snprintf(kernel, sizeof kernel, "the %d x %d tiles in clusters of %d", TS_GEMM_LARGE_BM, TS_GEMM_LARGE_BN,
                 TS_GEMM_CLUSTER_BLOCKS);
    const int one = p->split.units == 1;
    const char *units = p->kernel == TS_GEMM_KERNEL_LARGE && TS_GEMM_CLUSTER_BLOCKS > 1
                            ? (one ? "cluster's worth of tiles" : "clusters' worth of tiles")
                            : (one ? "tile" : "tiles");
    const char *steps = p->split.k_iters == 1 ? "k step" : "k steps";
    if (p->split.split < 2)
        return snprintf(buffer, buffer_size, "%s: %lld %s, whole (%d %s)", kernel, p->split.units, units,
                        p->split.k_iters, steps);
    return snprintf(buffer, buffer_size, "%s: %lld %s, K in %d pieces (%d %s) added %s", kernel, p->split.units,
                    units, p->split.split, p->split.k_iters, steps,
                    p->cluster_pieces ? "in thread-block clusters" : "by the reduction kernel from the workspace");
}
