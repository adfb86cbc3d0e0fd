/* Thread-block clusters on Hopper (the contract is in backends/cluster.h): cluster special
 * registers, the cluster barrier, mbarrier arrivals on another block's barrier through its
 * shared::cluster address (mapa), and launches with the cluster-dimension attribute (ts_cuda_launch, backends/cuda/launch.h). */
#ifndef TESSERA_BACKENDS_CUDA_CLUSTER_H
#define TESSERA_BACKENDS_CUDA_CLUSTER_H

#include "backends/cuda/backend.h"

#define TS_CLUSTER_CAPACITY_CACHED 1
#define TS_CLUSTER_MAX TS_CUDA_MAX_CLUSTER

TS_DEVICE int ts_cluster_rank(void) {
    uint32_t r;
    asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
    return (int)r;
}

TS_DEVICE int ts_cluster_size(void) {
    uint32_t n;
    asm volatile("mov.u32 %0, %%cluster_nctarank;" : "=r"(n));
    return (int)n;
}

TS_DEVICE void ts_cluster_sync(void) {
    asm volatile("barrier.cluster.arrive.release;\n\tbarrier.cluster.wait.acquire;" ::: "memory");
}

/* The warp arrives once on the barrier at bar's place in each of blocks 0 .. n - 1 of its cluster:
 * lane c signals block c, all in one instruction (a cluster of one: ts_tbar_arrive). Released at
 * block scope, as ts_tbar_arrive: a cluster-scope release compiles to a GPU-wide memory barrier
 * before every arrival (MEMBAR.ALL.GPU in SASS), which made the clustered GEMM 1.7x slower on the
 * H200. Block scope suffices for the use the template makes of it: the arriving warps read the
 * stage through wgmma, whose reads are complete once ts_wg_wait returns, and the peer overwrites
 * it through TMA. */
TS_DEVICE void ts_tbar_arrive_cluster_all(ts_tbar *bar, int n) {
    if (n == 1) {
        ts_tbar_arrive(bar);
        return;
    }
    __syncwarp();
    if (ts_lane_id() < n) {
        uint32_t remote;
        asm volatile("mapa.shared::cluster.u32 %0, %1, %2;"
                     : "=r"(remote)
                     : "r"(ts_cuda_smem_addr(bar)), "r"((uint32_t)ts_lane_id()));
        asm volatile("mbarrier.arrive.release.cta.shared::cluster.b64 _, [%0];" ::"r"(remote) : "memory");
    }
}

/* The generic address of p's place in block `rank`'s shared memory (mapa on a generic address). */
TS_DEVICE void *ts_cluster_map(const void *p, int rank) {
    uint64_t r;
    asm volatile("mapa.u64 %0, %1, %2;" : "=l"(r) : "l"((uint64_t)(uintptr_t)p), "r"((uint32_t)rank));
    return (void *)(uintptr_t)r;
}

/* How many clusters of `cluster` blocks of this kernel the device holds at once: a cluster's blocks
 * must share one GPC, so on the H200 (132 SMs) fewer than 66 clusters of two may fit when each
 * block fills an SM. Persistent kernels size their grid by it. */
static inline ts_status ts_cuda_cluster_capacity(const void *kernel, int warps, size_t shared_bytes, int cluster,
                                                 int *clusters) {
    cudaLaunchConfig_t config;
    cudaLaunchAttribute attr[2];
    const ts_status st = ts_cuda_launch_config(kernel, ts_grid_1d((unsigned)cluster), warps, shared_bytes, NULL,
                                               cluster, 0, &config, attr);
    if (st != TS_SUCCESS) return st;
    config.attrs = attr; /* the query wants the cluster's shape even for clusters of one */
    config.numAttrs = 1;
    int n = 0;
    cudaError_t err = cudaOccupancyMaxActiveClusters(&n, kernel, &config);
    if (err != cudaSuccess) {
        (void)cudaGetLastError();
        return ts_cuda_map_error(err);
    }
    *clusters = n;
    return TS_SUCCESS;
}
#define TS_CLUSTER_CAPACITY(name, warps, shared_bytes, cluster, clusters)                          \
    ts_cuda_cluster_capacity((const void *)(name), (warps), (shared_bytes), (cluster), (clusters))

#define TS_LAUNCH_CLUSTER_IMPL(name, grid, warps, shared_bytes, stream, params, cluster, early)    \
    ts_cuda_launch((const void *)(name), (grid), (warps), name##_max_warps, (shared_bytes),       \
                   (stream), (void *)&(params), (cluster), (early))
#define TS_LAUNCH_CLUSTER(name, grid, warps, shared_bytes, stream, params, cluster)                \
    TS_LAUNCH_CLUSTER_IMPL(name, grid, warps, shared_bytes, stream, params, cluster, 0)
#define TS_LAUNCH_CLUSTER_EARLY(name, grid, warps, shared_bytes, stream, params, cluster)          \
    TS_LAUNCH_CLUSTER_IMPL(name, grid, warps, shared_bytes, stream, params, cluster, 1)

#endif
