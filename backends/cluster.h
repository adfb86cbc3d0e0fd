/* Thread-block clusters: blocks launched together on neighbouring SMs that can signal each other's
 * transaction barriers and receive one copy-engine load into all their shared memories at once
 * (multicast), so that a tile several blocks need crosses from L2 once, and read each other's
 * shared memory. Hopper has them, and the host backend runs them (its blocks of a cluster run
 * together, backends/host/cluster.h) so that CI exercises a cluster kernel's protocol; CDNA runs
 * clusters of one block, where every operation below falls back to its single-block meaning, so a
 * kernel written for clusters runs unchanged there.
 *
 *   TS_CLUSTER_MAX                       the largest cluster the backend launches (1: none)
 *   TS_LAUNCH_CLUSTER(kernel, grid, warps, shared_bytes, stream, params, cluster)
 *                                        a launch in clusters of `cluster` consecutive blocks
 *                                        (grid.x a multiple of it; above TS_CLUSTER_MAX:
 *                                        TS_ERROR_UNSUPPORTED); TS_LAUNCH_CLUSTER_EARLY the same
 *                                        as TS_LAUNCH_EARLY (backends/cuda/backend.h)
 *   TS_CLUSTER_CAPACITY(kernel, warps, shared_bytes, cluster, &clusters)
 *                                        how many such clusters the device holds at once (a
 *                                        cluster's blocks share a GPC on Hopper), for sizing
 *                                        persistent grids; TS_CLUSTER_CAPACITY_CACHED 1 where
 *                                        the answer never changes (a GPU's), 0 where it follows a
 *                                        setting (the host's block concurrency)
 *   ts_cluster_rank(), ts_cluster_size() this block's rank in its cluster, and the cluster's size
 *   ts_cluster_sync()                    every thread of every block of the cluster (a block
 *                                        barrier when the cluster is one block); orders shared
 *                                        memory and barrier initialisation across the cluster
 *   ts_tbar_arrive_cluster_all(bar, n)   the warp's one arrival (like ts_tbar_arrive) on the
 *                                        barrier at bar's place in each of blocks 0 .. n - 1 of
 *                                        the cluster; for n = 1, on the block's own barrier
 *                                        (a kernel written for clusters of one that runs in
 *                                        clusters made at launch releases its own stages)
 *   ts_cluster_map(p, rank)              p, an address in the block's shared memory, as the
 *                                        address of the same place in block `rank`'s (distributed
 *                                        shared memory): plain loads and stores reach it. Ordered
 *                                        with that block's accesses by ts_cluster_sync
 *   ts_async_load_cluster (ops/tma.h)    every block of the cluster loads its share of a tile and
 *                                        multicasts it, so that each block's copy and barrier
 *                                        receive the whole tile
 *
 * A block must not exit while another block of its cluster may still write its shared memory or
 * arrive on its barriers: kernels end with ts_cluster_sync(). */
#ifndef TESSERA_BACKENDS_CLUSTER_H
#define TESSERA_BACKENDS_CLUSTER_H

#include "backends/backend.h"

#if defined(TESSERA_BACKEND_CUDA)
#include "backends/cuda/cluster.h"
#elif defined(TESSERA_BACKEND_HOST)
#include "backends/host/cluster.h"
#else

#define TS_CLUSTER_MAX 1
#define TS_CLUSTER_CAPACITY_CACHED 1

TS_DEVICE int ts_cluster_rank(void) { return 0; }
TS_DEVICE int ts_cluster_size(void) { return 1; }
TS_DEVICE void ts_cluster_sync(void) { ts_sync_block(); }
TS_DEVICE void ts_tbar_arrive_cluster_all(ts_tbar *bar, int n) {
    (void)n;
    ts_tbar_arrive(bar);
}
TS_DEVICE void *ts_cluster_map(const void *p, int rank) {
    (void)rank;
    return (void *)p;
}

#define TS_LAUNCH_CLUSTER(name, grid, warps, shared_bytes, stream, params, cluster)                \
    ((cluster) == 1 ? TS_LAUNCH(name, grid, warps, shared_bytes, stream, params) : TS_ERROR_UNSUPPORTED)
#define TS_LAUNCH_CLUSTER_EARLY(name, grid, warps, shared_bytes, stream, params, cluster)          \
    ((cluster) == 1 ? TS_LAUNCH_EARLY(name, grid, warps, shared_bytes, stream, params) : TS_ERROR_UNSUPPORTED)
/* No cluster placement limits here: as many as are asked for. */
#define TS_CLUSTER_CAPACITY(name, warps, shared_bytes, cluster, clusters)                          \
    ((void)(shared_bytes), *(clusters) = 1 << 30, TS_SUCCESS)

#endif

#endif
