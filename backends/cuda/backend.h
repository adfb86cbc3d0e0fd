/* The CUDA macro layer for Hopper (sm_90a): the contract of backends/README.md in terms of CUDA
 * builtins and PTX. Kernel sources reach it through backends/backend.h when nvcc compiles their
 * generated .cu wrapper. Everything is a macro or a static inline function so that kernel code
 * stays C. */
#ifndef TESSERA_BACKENDS_CUDA_BACKEND_H
#define TESSERA_BACKENDS_CUDA_BACKEND_H

#include <cuda_runtime.h>
#include <stdint.h>

#include <tessera/tessera.h>

#include "backends/common.h"

/* The architecture this build targets, by name: tuning tables (kernels/<family>/tuning.h) choose
 * their section by it, never by capability proxies. Device code exists for sm_90a only: wgmma,
 * TMA and setmaxnreg have no fallback, so any other target is refused here rather than trapping at
 * run time. */
#define TS_ARCH_SM90A 1
#define TS_ARCH_NAME "sm_90a"
#if defined(__CUDA_ARCH__) && (__CUDA_ARCH__ != 900 || !defined(__CUDA_ARCH_FEAT_SM90_ALL))
#error "Tessera's CUDA backend targets sm_90a only: compile with -gencode=arch=compute_90a,code=sm_90a (CMake: CUDA_ARCHITECTURES 90a)"
#endif

#define TS_WARP_LANES 32
#define TS_MAX_WARPS_PER_BLOCK 32
#define TS_DEVICE static __device__ __forceinline__
#define TS_HOST_DEVICE static __host__ __device__ __forceinline__
#define TS_RESTRICT __restrict__
#define TS_ALIGNED(n) __align__(n)
#define TS_EXTERN_C extern "C"

/* sm_90a-only instructions sit behind this guard; the other branch traps, never silently does
 * nothing. */
#if defined(__CUDA_ARCH__) && !defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define TS_CUDA_NEED_SM90A() __trap()
#else
#define TS_CUDA_NEED_SM90A() ((void)0)
#endif

/* Launches a kernel through cudaLaunchKernel, checking the configuration first. Defined in
 * backends/cuda/launch.h so it can be compiled into each kernel's translation unit. */
#include "backends/cuda/launch.h"

#define TS_KERNEL_IMPL(name, max_warps, min_blocks, params_type, params)                                \
    TS_CHECK_KERNEL_WARPS(name, max_warps);                                                        \
    enum { name##_max_warps = (max_warps) };                                                       \
    TS_DEVICE void name##_body(const params_type *params);                                         \
    static __global__ void __launch_bounds__((max_warps) * 32, (min_blocks))                       \
        name(const __grid_constant__ params_type name##_arg) {                                     \
        name##_body(&name##_arg);                                                                  \
    }                                                                                              \
    TS_DEVICE void name##_body(const params_type *params)

#define TS_LAUNCH_IMPL(name, grid, warps, shared_bytes, stream, params)                                 \
    ts_cuda_launch((const void *)(name), (grid), (warps), name##_max_warps, (shared_bytes),       \
                   (stream), (void *)&(params), 1, 0)
#define TS_LAUNCH_EARLY_IMPL(name, grid, warps, shared_bytes, stream, params)                           \
    ts_cuda_launch((const void *)(name), (grid), (warps), name##_max_warps, (shared_bytes),       \
                   (stream), (void *)&(params), 1, 1)

/* ---- ids ----------------------------------------------------------------------------------- */

TS_DEVICE int ts_block_x(void) { return (int)blockIdx.x; }
TS_DEVICE int ts_block_y(void) { return (int)blockIdx.y; }
TS_DEVICE int ts_block_z(void) { return (int)blockIdx.z; }
TS_DEVICE int ts_grid_x(void) { return (int)gridDim.x; }
TS_DEVICE int ts_grid_y(void) { return (int)gridDim.y; }
TS_DEVICE int ts_grid_z(void) { return (int)gridDim.z; }
TS_DEVICE int ts_num_warps(void) { return (int)(blockDim.x >> 5); }
/* Broadcast from lane 0 so the compiler knows the value is warp-uniform. */
TS_DEVICE int ts_warp_id(void) { return __shfl_sync(0xffffffffu, (int)(threadIdx.x >> 5), 0); }
TS_DEVICE int ts_warpgroup_id(void) { return ts_warp_id() >> 2; }
TS_DEVICE int ts_warp_in_group(void) { return ts_warp_id() & 3; }
TS_DEVICE int ts_lane_id(void) { return (int)(threadIdx.x & 31); }

/* ---- synchronization ----------------------------------------------------------------------- */

TS_DEVICE void ts_sync_block(void) { __syncthreads(); }
TS_DEVICE void ts_sync_warp(void) { __syncwarp(); }
TS_DEVICE void ts_fence_block(void) { __threadfence_block(); }

TS_DEVICE int ts_atomic_add_i32(int *ptr, int value) { return atomicAdd(ptr, value); }

/* A flag in global memory between blocks: the store publishes every write the calling thread has
 * made or seen (a device-wide fence first), the load sees them once it reads the value stored. */
TS_DEVICE void ts_flag_store_release(int *flag, int value) {
    __threadfence();
    asm volatile("st.release.gpu.global.s32 [%0], %1;" ::"l"(flag), "r"(value) : "memory");
}
TS_DEVICE int ts_flag_load_acquire(const int *flag) {
    int value;
    asm volatile("ld.acquire.gpu.global.s32 %0, [%1];" : "=r"(value) : "l"(flag) : "memory");
    return value;
}
/* A pause in a spin loop. */
TS_DEVICE void ts_spin_pause(void) { __nanosleep(64); }

TS_DEVICE void ts_sync_named(int id, int warps) {
    asm volatile("bar.sync %0, %1;" ::"r"(id + 1), "r"(warps * 32) : "memory");
}

TS_DEVICE void ts_arrive_named(int id, int warps) {
    asm volatile("bar.arrive %0, %1;" ::"r"(id + 1), "r"(warps * 32) : "memory");
}

TS_DEVICE uint32_t ts_cuda_smem_addr(const void *p) {
    return (uint32_t)__cvta_generic_to_shared(p);
}

/* ---- the transaction barrier: an mbarrier ---------------------------------------------------- */

typedef struct TS_ALIGNED(8) ts_tbar {
    uint64_t word;
} ts_tbar;

TS_DEVICE void ts_tbar_init(ts_tbar *bar, int arrivals) {
    if (ts_lane_id() == 0) {
        asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(ts_cuda_smem_addr(bar)),
                     "r"(arrivals)
                     : "memory");
        /* Make the initialised barrier visible to the async proxy (TMA and bulk copies). */
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    }
    __syncwarp();
}

TS_DEVICE void ts_tbar_arrive(ts_tbar *bar) {
    __syncwarp();
    if (ts_lane_id() == 0) {
        asm volatile("mbarrier.arrive.release.cta.shared::cta.b64 _, [%0];" ::"r"(
                         ts_cuda_smem_addr(bar))
                     : "memory");
    }
}

TS_DEVICE void ts_tbar_expect_bytes(ts_tbar *bar, unsigned bytes) {
    __syncwarp();
    if (ts_lane_id() == 0) {
        asm volatile("mbarrier.arrive.expect_tx.release.cta.shared::cta.b64 _, [%0], %1;" ::"r"(
                         ts_cuda_smem_addr(bar)),
                     "r"(bytes)
                     : "memory");
    }
}

TS_DEVICE void ts_tbar_complete_bytes(ts_tbar *bar, unsigned bytes) {
    /* complete_tx exists only as a relaxed operation, so the release comes from a fence in the
     * completing lane after the warp barrier: the barrier orders every lane's stores before the
     * fence, and fence + relaxed write is a release that the waiters' acquire pairs with. */
    __syncwarp();
    if (ts_lane_id() == 0) {
        asm volatile("fence.acq_rel.cta;" ::: "memory");
        asm volatile("mbarrier.complete_tx.relaxed.cta.shared::cta.b64 [%0], %1;" ::"r"(
                         ts_cuda_smem_addr(bar)),
                     "r"(bytes)
                     : "memory");
    }
}

TS_DEVICE int ts_tbar_test(ts_tbar *bar, int parity) {
    uint32_t done;
    asm volatile(
        "{\n\t.reg .pred p;\n\t"
        "mbarrier.test_wait.parity.acquire.cta.shared::cta.b64 p, [%1], %2;\n\t"
        "selp.u32 %0, 1, 0, p;\n\t}"
        : "=r"(done)
        : "r"(ts_cuda_smem_addr(bar)), "r"((uint32_t)parity)
        : "memory");
    return (int)done;
}

TS_DEVICE void ts_tbar_wait(ts_tbar *bar, int parity) {
    uint32_t done;
    do {
        asm volatile(
            "{\n\t.reg .pred p;\n\t"
            "mbarrier.try_wait.parity.acquire.cta.shared::cta.b64 p, [%1], %2;\n\t"
            "selp.u32 %0, 1, 0, p;\n\t}"
            : "=r"(done)
            : "r"(ts_cuda_smem_addr(bar)), "r"((uint32_t)parity)
            : "memory");
    } while (!done);
}

/* ---- shared memory and asynchronous copies --------------------------------------------------- */

/* The dynamic shared memory is declared TS_SHARED_ALIGN-aligned and taken as it stands: ptxas lays
 * it out at the declared alignment (on sm_90a, where no kernel has static shared memory, at 0x400
 * of the block's window, past the 1 KB the system reserves), so no launch needs slack for it.
 * Rounding a 16-aligned base up at run time instead was slower in attention (docs/tiles.md, "Where
 * the ops' choices come from"): ptxas recomputed the rounding wherever a shared-memory address is
 * built (17 times in the D = 128 attention kernel, between each stage's wait and its first HGMMA;
 * 136 in the GEMM's). */
TS_DEVICE unsigned char *ts_shared_base(void) {
    extern __shared__ __align__(TS_SHARED_ALIGN) unsigned char ts_cuda_dynamic_smem[];
    return ts_cuda_dynamic_smem;
}

TS_DEVICE void ts_copy_async_g2s(void *dst, const void *src, unsigned bytes, ts_tbar *bar) {
    __syncwarp();
    if (ts_lane_id() == 0) {
        asm volatile(
            "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, "
            "[%3];" ::"r"(ts_cuda_smem_addr(dst)),
            "l"(src), "r"(bytes), "r"(ts_cuda_smem_addr(bar))
            : "memory");
    }
}

/* The most dynamic shared memory a block may ask for, for kernels that size their pipelines. */
#define TS_MAX_SHARED_BYTES TS_CUDA_MAX_DYNAMIC_SHARED

/* The public forms expand their arguments first, so a kernel's name may itself be a macro (as in
 * kernels instantiated from an include-template). */
#define TS_KERNEL(name, max_warps, params_type, params) TS_KERNEL_IMPL(name, max_warps, 1, params_type, params)
/* Asks the compiler to keep registers low enough for min_blocks blocks of max_warps warps per SM. */
#define TS_KERNEL_RESIDENT(name, max_warps, min_blocks, params_type, params)                       \
    TS_KERNEL_IMPL(name, max_warps, min_blocks, params_type, params)
#define TS_LAUNCH(name, grid, warps, shared_bytes, stream, params)                                 \
    TS_LAUNCH_IMPL(name, grid, warps, shared_bytes, stream, params)
#define TS_LAUNCH_EARLY(name, grid, warps, shared_bytes, stream, params)                           \
    TS_LAUNCH_EARLY_IMPL(name, grid, warps, shared_bytes, stream, params)

/* Programmatic dependent launch. A kernel launched with TS_LAUNCH_EARLY (TS_LAUNCH_CLUSTER_EARLY)
 * may start while the stream's previous kernel still runs: it must call ts_grid_wait_prior(), which
 * returns once that kernel has finished and its writes are visible, before it reads or writes
 * memory that kernel may touch. ts_grid_launch_next() lets the stream's next kernel, if launched
 * early, start before this one ends. Both are no-ops in a kernel launched the plain way. */
TS_DEVICE void ts_grid_wait_prior(void) { asm volatile("griddepcontrol.wait;\n" ::: "memory"); }
TS_DEVICE void ts_grid_launch_next(void) { asm volatile("griddepcontrol.launch_dependents;\n" ::: "memory"); }

#endif
