/* The HIP backend's runtime functions (backends/runtime.h) and the kernel launch behind TS_LAUNCH,
 * written in C against the C half of the HIP runtime API (hip_runtime_api.h with
 * __HIP_PLATFORM_AMD__), so gcc compiles this file like the rest of core/. Every HIP error is
 * mapped to a ts_status; nothing is printed. */
#include <stdint.h>
#include <string.h>

#include <hip/hip_runtime_api.h>

#include "backends/hip/launch.h"
#include "backends/runtime.h"

/* Per-CU facts of CDNA2 (gfx90a) and CDNA3 (gfx942) that hipDeviceProp_t does not give, or gives
 * in a form the launch planner cannot use (maxThreadsPerMultiProcessor counts work-items of
 * scheduling slots, not resident waves):
 * - a CU has 4 SIMDs; each holds at most 8 waves (the AMDGPU backend's getMaxWavesPerEU for
 *   gfx90a-class targets, and the "Occupancy [waves/SIMD]: 8" of a trivial kernel in its
 *   kernel-resource-usage report), so 32 waves per CU;
 * - resident workgroups per CU: a single-wave workgroup is limited only by the 32 wave slots; a
 *   larger one also takes one of 16 hardware barriers, but 32 / (its waves) <= 16 already, so 32
 *   with the wave limit is exact (the backend's getMaxWorkGroupsPerCU);
 * - each SIMD has 512 VGPRs of 64 lanes (256 architectural + 256 accumulation registers, one
 *   unified file on gfx90a and gfx942), allocated in granules of 8. */
#define TS_HIP_SIMDS_PER_CU 4
#define TS_HIP_WAVES_PER_SIMD 8
#define TS_HIP_MAX_BLOCKS_PER_CU 32
#define TS_HIP_VGPRS_PER_SIMD 512
#define TS_HIP_VGPR_GRANULE 8
#define TS_HIP_MAX_THREADS_PER_BLOCK 1024

static ts_status ts_hip_map_error(hipError_t err) {
    switch (err) {
    case hipSuccess: return TS_SUCCESS;
    case hipErrorOutOfMemory: return TS_ERROR_OUT_OF_MEMORY;
    case hipErrorInvalidDevice: return TS_ERROR_INVALID_DEVICE;
    case hipErrorNoDevice:
    case hipErrorInsufficientDriver: return TS_ERROR_NO_DEVICE;
    case hipErrorNotReady: return TS_ERROR_NOT_READY;
    case hipErrorInvalidValue:
    case hipErrorInvalidDevicePointer:
    case hipErrorInvalidHandle: return TS_ERROR_INVALID_VALUE;
    case hipErrorInvalidConfiguration:
    case hipErrorLaunchOutOfResources: return TS_ERROR_RESOURCES;
    case hipErrorLaunchFailure:
    case hipErrorLaunchTimeOut:
    case hipErrorIllegalAddress:
    case hipErrorInvalidDeviceFunction:
    case hipErrorNoBinaryForGpu:
    case hipErrorAssert: return TS_ERROR_LAUNCH_FAILED;
    default: return TS_ERROR_RUNTIME;
    }
}

/* A failed call may also leave the error as the thread's last error; reading it clears it, so the
 * next unrelated hipGetLastError (ours or the application's) starts clean. */
static ts_status ts_hip_check(hipError_t err) {
    if (err != hipSuccess) {
        hipError_t last = hipGetLastError();
        (void)last;
    }
    return ts_hip_map_error(err);
}

ts_status ts_hip_launch(const void *kernel, ts_grid grid, int warps, int max_warps,
                        size_t shared_bytes, ts_stream stream, void *params) {
    if (warps < 1 || warps > max_warps || warps > TS_HIP_MAX_THREADS_PER_BLOCK / 64)
        return TS_ERROR_RESOURCES;
    if (grid.x < 1 || grid.y < 1 || grid.z < 1) return TS_ERROR_INVALID_SIZE;
    /* The dispatch packet counts work-items, not blocks, in 32 bits per dimension. */
    unsigned threads = (unsigned)warps * 64u;
    if ((uint64_t)grid.x * threads > UINT32_MAX) return TS_ERROR_SIZE_OVERFLOW;
    if (shared_bytes > TS_HIP_MAX_DYNAMIC_SHARED) return TS_ERROR_RESOURCES;
    void *args[1] = {params};
    dim3 g = {grid.x, grid.y, grid.z};
    dim3 b = {threads, 1, 1};
    hipError_t err = hipLaunchKernel(kernel, g, b, args, shared_bytes, (hipStream_t)stream);
    if (err == hipSuccess) return TS_SUCCESS;
    hipError_t last = hipGetLastError();
    (void)last;
    switch (err) {
    case hipErrorOutOfMemory:
    case hipErrorInvalidDevice:
    case hipErrorNoDevice:
    case hipErrorInsufficientDriver:
    case hipErrorInvalidConfiguration:
    case hipErrorLaunchOutOfResources: return ts_hip_map_error(err);
    default: return TS_ERROR_LAUNCH_FAILED;
    }
}

ts_backend ts_backend_id(void) { return TS_BACKEND_HIP; }

ts_status ts_backend_device_count(int *count) {
    int n = 0;
    /* Without a GPU or without the kernel driver this fails (hipErrorNoDevice,
     * hipErrorInsufficientDriver, ...): such a machine has zero devices. */
    hipError_t err = hipGetDeviceCount(&n);
    if (err != hipSuccess) {
        hipError_t last = hipGetLastError();
        (void)last;
        n = 0;
    }
    *count = n < 0 ? 0 : n;
    return TS_SUCCESS;
}

/* Copies a NUL-terminated string, stopping at `stop` (0 for none), truncating to fit. */
static void ts_hip_copy_name(char *dst, size_t size, const char *src, char stop) {
    size_t i = 0;
    for (; i + 1 < size && src[i] != '\0' && src[i] != stop; i++)
        dst[i] = src[i];
    dst[i] = '\0';
}

ts_status ts_backend_device_props(int device, ts_device_props *props) {
    hipDeviceProp_t p;
    memset(&p, 0, sizeof p);
    hipError_t err = hipGetDeviceProperties(&p, device);
    if (err != hipSuccess) return ts_hip_check(err);
    memset(props, 0, sizeof *props);
    ts_hip_copy_name(props->name, sizeof props->name, p.name, '\0');
    /* gcnArchName carries target features after the processor: "gfx942:sramecc+:xnack-". */
    ts_hip_copy_name(props->arch, sizeof props->arch, p.gcnArchName, ':');
    props->backend = TS_BACKEND_HIP;
    props->sm_count = p.multiProcessorCount;
    props->warp_lanes = 64;
    props->partitions_per_sm = TS_HIP_SIMDS_PER_CU;
    props->max_threads_per_block = TS_HIP_MAX_THREADS_PER_BLOCK;
    props->max_warps_per_sm = TS_HIP_SIMDS_PER_CU * TS_HIP_WAVES_PER_SIMD;
    props->max_blocks_per_sm = TS_HIP_MAX_BLOCKS_PER_CU;
    props->regs_per_sm = TS_HIP_SIMDS_PER_CU * TS_HIP_VGPRS_PER_SIMD * 64;
    props->max_regs_per_thread = TS_HIP_VGPRS_PER_SIMD;
    props->reg_alloc_unit = TS_HIP_VGPR_GRANULE;
    /* 64 KiB of LDS per CU, all addressable by one block, less the kilobyte every Tessera
     * kernel keeps below its dynamic region (backends/hip/launch.h). */
    props->shared_mem_per_block = TS_HIP_MAX_DYNAMIC_SHARED;
    props->shared_mem_per_sm = TS_HIP_LDS_PER_CU;
    props->shared_mem_reserved_per_block = TS_HIP_LDS_RESERVED;
    /* On MI300X this is one XCD's L2 (4 MiB), not the 256 MiB Infinity Cache behind it. */
    props->l2_bytes = p.l2CacheSize > 0 ? (size_t)p.l2CacheSize : 0;
    props->global_mem_bytes = p.totalGlobalMem;
    props->clock_khz = p.clockRate;
    props->memory_clock_khz = p.memoryClockRate;
    props->memory_bus_bits = p.memoryBusWidth;
    return TS_SUCCESS;
}

ts_status ts_backend_device_set(int device) { return ts_hip_check(hipSetDevice(device)); }
ts_status ts_backend_device_get(int *device) { return ts_hip_check(hipGetDevice(device)); }
ts_status ts_backend_device_synchronize(void) { return ts_hip_check(hipDeviceSynchronize()); }

ts_status ts_backend_malloc(void **ptr, size_t bytes) {
    void *p = NULL;
    hipError_t err = hipMalloc(&p, bytes);
    *ptr = err == hipSuccess ? p : NULL;
    return ts_hip_check(err);
}

#define TS_GPU(name) hip##name
#define TS_GPU_CHECK(err) ts_hip_check(err)
#include "backends/gpu_runtime_common.h"
