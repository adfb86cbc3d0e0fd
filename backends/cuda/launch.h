/* Kernel launch for the CUDA backend. TS_LAUNCH expands to ts_cuda_launch, compiled into the
 * kernel's own translation unit (a launch needs the kernel's address, which only that unit has);
 * the error mapping lives once in backends/cuda/runtime.c. */
#ifndef TESSERA_BACKENDS_CUDA_LAUNCH_H
#define TESSERA_BACKENDS_CUDA_LAUNCH_H

#include <cuda_runtime.h>

#include <tessera/tessera.h>

#include "backends/common.h"

#ifdef __cplusplus
extern "C" {
#endif
ts_status ts_cuda_map_error(cudaError_t err);
#ifdef __cplusplus
}
#endif

/* Launch-time limits of this backend, checked before the runtime sees the launch so that a bad
 * configuration gets a specific status rather than cudaErrorInvalidConfiguration. */
#define TS_CUDA_MAX_DYNAMIC_SHARED (227u * 1024u)
#define TS_CUDA_DEFAULT_SHARED_LIMIT (48u * 1024u)
/* The portable cluster size limit of the CUDA programming guide. */
#define TS_CUDA_MAX_CLUSTER 8

/* The launch configuration of `warps`-warp blocks with `shared_bytes` of dynamic shared memory (opted
 * in above the default limit) in clusters of `cluster` blocks along x, and with `early` as a
 * programmatic dependent launch (it may start before the stream's previous kernel has finished;
 * backends/backend.h, ts_grid_wait_prior); attr[2] must outlive config. */
static inline ts_status ts_cuda_launch_config(const void *kernel, ts_grid grid, int warps, size_t shared_bytes,
                                              ts_stream stream, int cluster, int early, cudaLaunchConfig_t *config,
                                              cudaLaunchAttribute *attr) {
    if (shared_bytes > TS_CUDA_MAX_DYNAMIC_SHARED) return TS_ERROR_RESOURCES;
    if (shared_bytes > TS_CUDA_DEFAULT_SHARED_LIMIT) {
        cudaError_t err = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                               (int)shared_bytes);
        if (err != cudaSuccess) return ts_cuda_map_error(err);
    }
    *config = cudaLaunchConfig_t{};
    config->gridDim = dim3(grid.x, grid.y, grid.z);
    config->blockDim = dim3((unsigned)warps * 32u, 1, 1);
    config->dynamicSmemBytes = shared_bytes;
    config->stream = (cudaStream_t)stream;
    /* attr[0] the cluster's shape (always filled: the cluster capacity query wants it even for
     * clusters of one), attr[1] the early launch; only those asked for are passed. */
    attr[0] = cudaLaunchAttribute{};
    attr[0].id = cudaLaunchAttributeClusterDimension;
    attr[0].val.clusterDim.x = (unsigned)cluster;
    attr[0].val.clusterDim.y = 1;
    attr[0].val.clusterDim.z = 1;
    attr[1] = cudaLaunchAttribute{};
    attr[1].id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attr[1].val.programmaticStreamSerializationAllowed = 1;
    config->attrs = cluster > 1 ? attr : attr + 1;
    config->numAttrs = (cluster > 1 ? 1 : 0) + (early ? 1 : 0);
    return TS_SUCCESS;
}

/* cluster: blocks per thread-block cluster along x (backends/cluster.h); 1 launches plain blocks.
 * early: a programmatic dependent launch (TS_LAUNCH_EARLY). */
static inline ts_status ts_cuda_launch(const void *kernel, ts_grid grid, int warps, int max_warps,
                                       size_t shared_bytes, ts_stream stream, void *params, int cluster, int early) {
    if (warps < 1 || warps > max_warps || warps > 32) return TS_ERROR_RESOURCES;
    if (grid.x < 1 || grid.y < 1 || grid.z < 1) return TS_ERROR_INVALID_SIZE;
    if (grid.y > 65535 || grid.z > 65535 || grid.x > 2147483647u) return TS_ERROR_SIZE_OVERFLOW;
    if (cluster < 1 || cluster > TS_CUDA_MAX_CLUSTER) return TS_ERROR_UNSUPPORTED;
    if (grid.x % (unsigned)cluster != 0) return TS_ERROR_INVALID_VALUE;
    cudaLaunchConfig_t config;
    cudaLaunchAttribute attr[2];
    const ts_status st =
        ts_cuda_launch_config(kernel, grid, warps, shared_bytes, stream, cluster, early, &config, attr);
    if (st != TS_SUCCESS) return st;
    void *args[1] = {params};
    cudaError_t err = cudaLaunchKernelExC(&config, kernel, args);
    if (err == cudaSuccess) err = cudaPeekAtLastError();
    if (err != cudaSuccess) {
        (void)cudaGetLastError(); /* clear a sticky-free launch error so later calls start clean */
        return err == cudaErrorInvalidConfiguration || err == cudaErrorLaunchOutOfResources ||
                       err == cudaErrorInvalidClusterSize
                   ? TS_ERROR_RESOURCES
                   : ts_cuda_map_error(err);
    }
    return TS_SUCCESS;
}

#endif
