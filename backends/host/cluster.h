/* Thread-block clusters on the host backend (the contract is in backends/cluster.h): a launch's
 * clusters run their blocks' warp threads together under one lock (backends/host/runtime.c), so a
 * block arrives on another's barriers and reads its shared memory as a Hopper block does, and a
 * cluster kernel's protocol (who releases which stage, which barrier a multicast completes) runs
 * in CI. How many clusters run at once follows the block concurrency. */
#ifndef TESSERA_BACKENDS_HOST_CLUSTER_H
#define TESSERA_BACKENDS_HOST_CLUSTER_H

#include "backends/host/backend.h"

#define TS_CLUSTER_CAPACITY_CACHED 0
#define TS_CLUSTER_MAX TS_HOST_MAX_CLUSTER

TS_DEVICE int ts_cluster_rank(void) { return ts_host_current->cluster_rank; }
TS_DEVICE int ts_cluster_size(void) { return ts_host_current->cluster_size; }
TS_DEVICE void ts_cluster_sync(void) { ts_host_cluster_sync(); }
TS_DEVICE void *ts_cluster_map(const void *p, int rank) { return ts_host_cluster_map(p, rank); }

/* Lane c of the warp signals block c: one arrival on each of blocks 0 .. n - 1; n = 1 is this
 * block's own barrier, as on CUDA, for kernels of clusters of one launched in larger clusters. */
TS_DEVICE void ts_tbar_arrive_cluster_all(ts_tbar *bar, int n) {
    if (n == 1) {
        ts_tbar_arrive(bar);
        return;
    }
    for (int r = 0; r < n; ++r) ts_tbar_arrive((ts_tbar *)ts_cluster_map(bar, r));
}

/* The public form expands its arguments first, so a kernel's name may itself be a macro. */
#define TS_HOST_LAUNCH_CLUSTER_IMPL(name, grid, warps, shared_bytes, stream, params, cluster)      \
    ts_host_launch(name, (grid), (warps), name##_max_warps, (shared_bytes), (stream),             \
                   (const void *)(1 ? &(params) : (const name##_params_type *)0), sizeof(params), (cluster))
#define TS_LAUNCH_CLUSTER(name, grid, warps, shared_bytes, stream, params, cluster)                \
    TS_HOST_LAUNCH_CLUSTER_IMPL(name, grid, warps, shared_bytes, stream, params, cluster)
#define TS_LAUNCH_CLUSTER_EARLY TS_LAUNCH_CLUSTER
/* As many clusters as the block concurrency holds at once (at least one): a persistent grid of
 * that many runs all together. */
#define TS_CLUSTER_CAPACITY(name, warps, shared_bytes, cluster, clusters)                          \
    ((void)(shared_bytes), ts_host_cluster_capacity((cluster), (clusters)))

static inline ts_status ts_host_cluster_capacity(int cluster, int *clusters) {
    if (cluster < 1 || cluster > TS_HOST_MAX_CLUSTER) return TS_ERROR_UNSUPPORTED;
    const int n = ts_host_get_block_concurrency() / cluster;
    *clusters = n > 0 ? n : 1;
    return TS_SUCCESS;
}

#endif
