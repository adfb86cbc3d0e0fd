/* The CUDA backend's runtime functions (backends/runtime.h), written in C against the CUDA runtime
 * API and linked with the static cudart. Each CUDA error is mapped to a ts_status; nothing is
 * printed. */
#include <stdio.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "backends/runtime.h"

ts_status ts_cuda_map_error(cudaError_t err) {
    switch (err) {
    case cudaSuccess: return TS_SUCCESS;
    case cudaErrorMemoryAllocation: return TS_ERROR_OUT_OF_MEMORY;
    case cudaErrorInvalidDevice: return TS_ERROR_INVALID_DEVICE;
    case cudaErrorNoDevice:
    case cudaErrorInsufficientDriver: return TS_ERROR_NO_DEVICE;
    case cudaErrorNotReady: return TS_ERROR_NOT_READY;
    case cudaErrorInvalidValue:
    case cudaErrorInvalidDevicePointer:
    case cudaErrorInvalidResourceHandle: return TS_ERROR_INVALID_VALUE;
    case cudaErrorInvalidConfiguration:
    case cudaErrorLaunchOutOfResources: return TS_ERROR_RESOURCES;
    case cudaErrorLaunchFailure:
    case cudaErrorLaunchTimeout:
    case cudaErrorIllegalAddress:
    case cudaErrorIllegalInstruction:
    case cudaErrorMisalignedAddress:
    case cudaErrorInvalidPc:
    case cudaErrorAssert:
    case cudaErrorNoKernelImageForDevice:
    case cudaErrorInvalidDeviceFunction: return TS_ERROR_LAUNCH_FAILED;
    default: return TS_ERROR_RUNTIME;
    }
}

ts_backend ts_backend_id(void) { return TS_BACKEND_CUDA; }

ts_status ts_backend_device_count(int *count) {
    int n = 0;
    /* Without a driver (a CI machine) this fails: that is a machine with zero devices. */
    if (cudaGetDeviceCount(&n) != cudaSuccess) {
        (void)cudaGetLastError();
        n = 0;
    }
    *count = n;
    return TS_SUCCESS;
}

ts_status ts_backend_device_props(int device, ts_device_props *props) {
    struct cudaDeviceProp p;
    cudaError_t err = cudaGetDeviceProperties(&p, device);
    if (err != cudaSuccess) return ts_cuda_map_error(err);
    memset(props, 0, sizeof *props);
    (void)snprintf(props->name, sizeof props->name, "%s", p.name);
    /* Hopper's arch-specific features (wgmma, setmaxnreg) are what this build targets. */
    if (p.major == 9 && p.minor == 0)
        strcpy(props->arch, "sm_90a");
    else
        (void)snprintf(props->arch, sizeof props->arch, "sm_%d%d", p.major, p.minor);
    props->backend = TS_BACKEND_CUDA;
    props->sm_count = p.multiProcessorCount;
    props->warp_lanes = p.warpSize;
    props->partitions_per_sm = 4;
    props->max_threads_per_block = p.maxThreadsPerBlock;
    props->max_warps_per_sm = p.maxThreadsPerMultiProcessor / p.warpSize;
    props->max_blocks_per_sm = p.maxBlocksPerMultiProcessor;
    props->regs_per_sm = p.regsPerMultiprocessor;
    props->max_regs_per_thread = 255;
    props->reg_alloc_unit = 8;
    props->shared_mem_per_block = p.sharedMemPerBlockOptin;
    props->shared_mem_per_sm = p.sharedMemPerMultiprocessor;
    props->shared_mem_reserved_per_block = p.reservedSharedMemPerBlock;
    props->l2_bytes = (size_t)p.l2CacheSize;
    props->global_mem_bytes = p.totalGlobalMem;
    int value = 0;
    if (cudaDeviceGetAttribute(&value, cudaDevAttrClockRate, device) == cudaSuccess)
        props->clock_khz = value;
    if (cudaDeviceGetAttribute(&value, cudaDevAttrMemoryClockRate, device) == cudaSuccess)
        props->memory_clock_khz = value;
    if (cudaDeviceGetAttribute(&value, cudaDevAttrGlobalMemoryBusWidth, device) == cudaSuccess)
        props->memory_bus_bits = value;
    (void)cudaGetLastError();
    return TS_SUCCESS;
}

ts_status ts_backend_device_set(int device) { return ts_cuda_map_error(cudaSetDevice(device)); }
ts_status ts_backend_device_get(int *device) { return ts_cuda_map_error(cudaGetDevice(device)); }
ts_status ts_backend_device_synchronize(void) { return ts_cuda_map_error(cudaDeviceSynchronize()); }

ts_status ts_backend_malloc(void **ptr, size_t bytes) {
    cudaError_t err = cudaMalloc(ptr, bytes);
    if (err != cudaSuccess) {
        (void)cudaGetLastError();
        *ptr = NULL;
    }
    return ts_cuda_map_error(err);
}

/* A failed call (a free of a pointer cudaMalloc did not return, a destroyed handle) also leaves its
 * error as the thread's last error; reading it clears it, so that the next launch's check does
 * not report it as its own. */
static ts_status ts_cuda_check(cudaError_t err) {
    if (err != cudaSuccess) (void)cudaGetLastError();
    return ts_cuda_map_error(err);
}

#define TS_GPU(name) cuda##name
#define TS_GPU_CHECK(err) ts_cuda_check(err)
#include "backends/gpu_runtime_common.h"
