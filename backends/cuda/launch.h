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

static inline ts_status ts_cuda_launch(const void *kernel, ts_grid grid, int warps, int max_warps,
                                       size_t shared_bytes, ts_stream stream, void *params) {
    if (warps < 1 || warps > max_warps || warps > 32) return TS_ERROR_RESOURCES;
    if (grid.x < 1 || grid.y < 1 || grid.z < 1) return TS_ERROR_INVALID_SIZE;
    if (grid.y > 65535 || grid.z > 65535 || grid.x > 2147483647u) return TS_ERROR_SIZE_OVERFLOW;
    /* Room to align the base of dynamic shared memory (ts_shared_base). */
    if (shared_bytes > 0) shared_bytes += TS_SHARED_ALIGN;
    if (shared_bytes > TS_CUDA_MAX_DYNAMIC_SHARED) return TS_ERROR_RESOURCES;
    if (shared_bytes > TS_CUDA_DEFAULT_SHARED_LIMIT) {
        cudaError_t err = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                               (int)shared_bytes);
        if (err != cudaSuccess) return ts_cuda_map_error(err);
    }
    void *args[1] = {params};
    dim3 g(grid.x, grid.y, grid.z);
    dim3 b((unsigned)warps * 32u, 1, 1);
    cudaError_t err = cudaLaunchKernel(kernel, g, b, args, shared_bytes, (cudaStream_t)stream);
    if (err == cudaSuccess) err = cudaPeekAtLastError();
    if (err != cudaSuccess) {
        (void)cudaGetLastError(); /* clear a sticky-free launch error so later calls start clean */
        return err == cudaErrorInvalidConfiguration || err == cudaErrorLaunchOutOfResources
                   ? TS_ERROR_RESOURCES
                   : ts_cuda_map_error(err);
    }
    return TS_SUCCESS;
}

#endif
