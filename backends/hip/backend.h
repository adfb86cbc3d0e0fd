/* The HIP macro layer: every name of backends/README.md for AMD CDNA2 (gfx90a) and CDNA3 (gfx942),
 * compiled by clang as HIP. clang parses this file twice per target, once for the host and once
 * for the device (__HIP_DEVICE_COMPILE__); device-only code sits in __device__ functions, which
 * the host pass parses but never emits, so both passes see the same declarations.
 *
 * AMD has neither named barriers nor mbarriers nor asynchronous bulk copies, so they are built here
 * from LDS words and atomics. A wave executes its 64 lanes in lockstep under an exec mask, so
 * "lane 0 does the atomic, the wave waits for it" needs no more than the wave barrier that keeps
 * the compiler from moving the other lanes' code across it. */
#ifndef TESSERA_BACKENDS_HIP_BACKEND_H
#define TESSERA_BACKENDS_HIP_BACKEND_H

#include <hip/hip_runtime.h>

#include "backends/common.h"
#include "backends/hip/launch.h"

#if defined(__HIP_DEVICE_COMPILE__) && defined(__AMDGCN_WAVEFRONT_SIZE) && \
    __AMDGCN_WAVEFRONT_SIZE != 64
#error "Tessera's HIP backend is written for wave64 targets (gfx90a, gfx942)"
#endif

/* The architecture this build targets, by name: tuning tables (kernels/<family>/tuning.h) choose
 * their section by it. One HIP object holds gfx942 and gfx90a code, and its host pass (launchers,
 * grid sizes) is shared by both, so host-visible tuning is per family, TS_ARCH_CDNA (wave64, 64 KB
 * of LDS on both); the device passes also name their target, for device-only choices. */
#define TS_ARCH_CDNA 1
#if defined(__HIP_DEVICE_COMPILE__)
#if defined(__gfx942__)
#define TS_ARCH_GFX942 1
#define TS_ARCH_NAME "gfx942"
#elif defined(__gfx90a__)
#define TS_ARCH_GFX90A 1
#define TS_ARCH_NAME "gfx90a"
#else
#error "Tessera's HIP backend targets gfx942 (MI300X) and gfx90a (MI200): pass --offload-arch=gfx942 or gfx90a"
#endif
#else
#define TS_ARCH_NAME "cdna"
#endif

/* ---- qualifiers and constants -------------------------------------------------------------- */

/* warpSize is a run-time value on recent ROCm; CDNA is wave64 only. */
#define TS_WARP_LANES 64
#define TS_DEVICE static __device__ __forceinline__
#define TS_HOST_DEVICE static __host__ __device__ __forceinline__
#define TS_RESTRICT __restrict__
#define TS_ALIGNED(n) __attribute__((aligned(n)))
#define TS_EXTERN_C extern "C"
#define TS_MAX_WARPS_PER_BLOCK 16

#define TS_HIP_SCOPE_BLOCK __HIP_MEMORY_SCOPE_WORKGROUP

/* ---- ids ----------------------------------------------------------------------------------- */

TS_DEVICE int ts_block_x(void) { return (int)blockIdx.x; }
TS_DEVICE int ts_block_y(void) { return (int)blockIdx.y; }
TS_DEVICE int ts_block_z(void) { return (int)blockIdx.z; }
TS_DEVICE int ts_grid_x(void) { return (int)gridDim.x; }
TS_DEVICE int ts_grid_y(void) { return (int)gridDim.y; }
TS_DEVICE int ts_grid_z(void) { return (int)gridDim.z; }
TS_DEVICE int ts_num_warps(void) { return (int)(blockDim.x / TS_WARP_LANES); }
TS_DEVICE int ts_lane_id(void) { return (int)(threadIdx.x & (TS_WARP_LANES - 1)); }

/* readfirstlane tells the compiler the value is wave-uniform, so code keyed on the warp id stays
 * in scalar registers and scalar branches. */
TS_DEVICE int ts_warp_id(void) {
    return __builtin_amdgcn_readfirstlane((int)(threadIdx.x / TS_WARP_LANES));
}
TS_DEVICE int ts_warpgroup_id(void) { return ts_warp_id() / 4; }
TS_DEVICE int ts_warp_in_group(void) { return ts_warp_id() % 4; }

/* ---- synchronization ----------------------------------------------------------------------- */

TS_DEVICE void ts_sync_block(void) { __syncthreads(); }

/* The lanes of a wave never diverge in time, but the compiler may still move LDS accesses across
 * a point it does not know to be a barrier: the wave barrier pins the code, the fences the
 * memory order. */
TS_DEVICE void ts_sync_warp(void) {
    __builtin_amdgcn_fence(__ATOMIC_RELEASE, "wavefront");
    __builtin_amdgcn_wave_barrier();
    __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "wavefront");
}

TS_DEVICE void ts_fence_block(void) { __threadfence_block(); }

/* Relaxed and device-wide, as CUDA's atomicAdd; the generic pointer serves global and LDS. */
TS_DEVICE int ts_atomic_add_i32(int *ptr, int value) {
    return __hip_atomic_fetch_add(ptr, value, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
}
/* A flag in global memory between blocks (see the CUDA backend). */
TS_DEVICE void ts_flag_store_release(int *flag, int value) {
    __threadfence();
    __hip_atomic_store(flag, value, __ATOMIC_RELEASE, __HIP_MEMORY_SCOPE_AGENT);
}
TS_DEVICE int ts_flag_load_acquire(const int *flag) {
    return __hip_atomic_load(flag, __ATOMIC_ACQUIRE, __HIP_MEMORY_SCOPE_AGENT);
}
TS_DEVICE void ts_spin_pause(void) { __builtin_amdgcn_s_sleep(1); }

/* Publishes every lane's earlier shared and global writes to the block before lane 0 signals. */
TS_DEVICE void ts_hip_release_block(void) {
    __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
    __builtin_amdgcn_wave_barrier();
}

/* After lane 0 has seen a signal, makes what it acquired visible to every lane's later reads. */
TS_DEVICE void ts_hip_acquire_block(void) {
    __builtin_amdgcn_wave_barrier();
    __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
}

/* Named barrier state: arrivals of the current round and the round number. The last wave to
 * arrive resets the count before it bumps the round, so a wave released by the bump that arrives
 * again at once counts toward the next round. */
typedef struct ts_hip_named_barrier {
    unsigned count;
    unsigned round;
} ts_hip_named_barrier;

/* One array per translation unit, in static LDS below the dynamic region; TS_KERNEL's prologue
 * zeroes it because LDS starts undefined. */
TS_DEVICE ts_hip_named_barrier *ts_hip_named_barriers(void) {
    __shared__ ts_hip_named_barrier ts_hip_named[TS_NAMED_BARRIERS];
    return ts_hip_named;
}

TS_DEVICE void ts_hip_kernel_prologue(void) {
    ts_hip_named_barrier *nb = ts_hip_named_barriers();
    if (threadIdx.x < TS_NAMED_BARRIERS) {
        nb[threadIdx.x].count = 0;
        nb[threadIdx.x].round = 0;
    }
    __syncthreads();
}

/* Counts the wave's arrival without waiting; the last arrival of a round ends it. */
TS_DEVICE void ts_arrive_named(int id, int warps) {
    ts_hip_named_barrier *nb = &ts_hip_named_barriers()[id];
    ts_hip_release_block();
    if (ts_lane_id() == 0) {
        unsigned arrived =
            __hip_atomic_fetch_add(&nb->count, 1u, __ATOMIC_ACQ_REL, TS_HIP_SCOPE_BLOCK) + 1u;
        if (arrived == (unsigned)warps) {
            __hip_atomic_store(&nb->count, 0u, __ATOMIC_RELAXED, TS_HIP_SCOPE_BLOCK);
            __hip_atomic_fetch_add(&nb->round, 1u, __ATOMIC_RELEASE, TS_HIP_SCOPE_BLOCK);
        }
    }
}

TS_DEVICE void ts_sync_named(int id, int warps) {
    ts_hip_named_barrier *nb = &ts_hip_named_barriers()[id];
    ts_hip_release_block();
    if (ts_lane_id() == 0) {
        /* Read the round before arriving: once this wave's arrival is counted, the last one
         * may end the round at any moment. The acq_rel add keeps the read before it. */
        unsigned round = __hip_atomic_load(&nb->round, __ATOMIC_RELAXED, TS_HIP_SCOPE_BLOCK);
        unsigned arrived =
            __hip_atomic_fetch_add(&nb->count, 1u, __ATOMIC_ACQ_REL, TS_HIP_SCOPE_BLOCK) + 1u;
        if (arrived == (unsigned)warps) {
            __hip_atomic_store(&nb->count, 0u, __ATOMIC_RELAXED, TS_HIP_SCOPE_BLOCK);
            __hip_atomic_fetch_add(&nb->round, 1u, __ATOMIC_RELEASE, TS_HIP_SCOPE_BLOCK);
        } else {
            while (__hip_atomic_load(&nb->round, __ATOMIC_ACQUIRE, TS_HIP_SCOPE_BLOCK) == round)
                __builtin_amdgcn_s_sleep(1);
        }
    }
    ts_hip_acquire_block();
}

/* ---- the transaction barrier --------------------------------------------------------------- */

/* state: bytes still to land in the high 32 bits, arrivals still pending in the low 32 bits, so
 * that one 64-bit atomic both arrives and announces bytes, and the phase is complete exactly when
 * the word is 0. Bytes that land before they are announced make the high half negative; since
 * only the high half is ever subtracted from, no borrow reaches the arrivals. phase counts the
 * completed phases; waiters read only its parity. */
typedef struct ts_tbar {
    unsigned long long state;
    unsigned phase;
    int expected;
} ts_tbar;

TS_DEVICE void ts_tbar_init(ts_tbar *bar, int arrivals) {
    if (ts_lane_id() == 0) {
        bar->expected = arrivals;
        __hip_atomic_store(&bar->state, (unsigned long long)(unsigned)arrivals, __ATOMIC_RELAXED,
                           TS_HIP_SCOPE_BLOCK);
        __hip_atomic_store(&bar->phase, 0u, __ATOMIC_RELAXED, TS_HIP_SCOPE_BLOCK);
    }
    ts_hip_release_block();
}

/* Adds delta to the state for the whole wave. The wave that brings the word to 0 completes the
 * phase: it re-arms the word by adding (not storing) the expected arrivals, so an arrival for the
 * next phase that slipped in meanwhile is kept, and only then advances the phase, with release
 * order so that a waiter that sees the new phase also sees the data and the re-armed word. */
TS_DEVICE void ts_hip_tbar_add(ts_tbar *bar, unsigned long long delta) {
    ts_hip_release_block();
    if (ts_lane_id() == 0) {
        unsigned long long old =
            __hip_atomic_fetch_add(&bar->state, delta, __ATOMIC_ACQ_REL, TS_HIP_SCOPE_BLOCK);
        if (old + delta == 0ull) {
            __hip_atomic_fetch_add(&bar->state, (unsigned long long)(unsigned)bar->expected,
                                   __ATOMIC_RELAXED, TS_HIP_SCOPE_BLOCK);
            __hip_atomic_fetch_add(&bar->phase, 1u, __ATOMIC_RELEASE, TS_HIP_SCOPE_BLOCK);
        }
    }
    __builtin_amdgcn_wave_barrier();
}

TS_DEVICE void ts_tbar_arrive(ts_tbar *bar) { ts_hip_tbar_add(bar, ~0ull); }

TS_DEVICE void ts_tbar_expect_bytes(ts_tbar *bar, unsigned bytes) {
    ts_hip_tbar_add(bar, ((unsigned long long)bytes << 32) - 1ull);
}

/* Zero bytes would add 0 and could complete a phase a second time. */
TS_DEVICE void ts_tbar_complete_bytes(ts_tbar *bar, unsigned bytes) {
    if (bytes != 0)
        ts_hip_tbar_add(bar, 0ull - ((unsigned long long)bytes << 32));
}

/* The phase of parity p has completed once the completed-phase count's parity differs from p
 * (as with mbarriers, waiting on the parity before the current phase returns at once). The
 * readfirstlane makes the loop a scalar branch. */
TS_DEVICE int ts_tbar_test(ts_tbar *bar, int parity) {
    unsigned phase = __builtin_amdgcn_readfirstlane(
        __hip_atomic_load(&bar->phase, __ATOMIC_ACQUIRE, TS_HIP_SCOPE_BLOCK));
    return (int)(phase & 1u) != parity;
}

TS_DEVICE void ts_tbar_wait(ts_tbar *bar, int parity) {
    while (!ts_tbar_test(bar, parity))
        __builtin_amdgcn_s_sleep(1);
    ts_hip_acquire_block();
}

/* ---- shared memory and copies -------------------------------------------------------------- */

/* The dynamic region follows the static LDS of the kernel, rounded up to this declaration's
 * alignment: TS_HIP_LDS_RESERVED in launch.h accounts for that. */
TS_DEVICE unsigned char *ts_shared_base(void) {
    extern __shared__ __attribute__((aligned(TS_SHARED_ALIGN))) unsigned char ts_hip_dynamic[];
    return ts_hip_dynamic;
}

typedef unsigned int ts_hip_u32x4 __attribute__((ext_vector_type(4)));

/* The wave copies 16 bytes per lane per step, four steps' loads in flight before their stores,
 * then announces the bytes; the release inside ts_hip_tbar_add waits for the LDS writes. */
TS_DEVICE void ts_copy_async_g2s(void *dst, const void *src, unsigned bytes, ts_tbar *bar) {
    ts_hip_u32x4 *d = (ts_hip_u32x4 *)dst;
    const ts_hip_u32x4 *s = (const ts_hip_u32x4 *)src;
    int n = (int)(bytes / 16u);
    int i = ts_lane_id();
    for (; i + 3 * TS_WARP_LANES < n; i += 4 * TS_WARP_LANES) {
        ts_hip_u32x4 a = s[i];
        ts_hip_u32x4 b = s[i + TS_WARP_LANES];
        ts_hip_u32x4 c = s[i + 2 * TS_WARP_LANES];
        ts_hip_u32x4 e = s[i + 3 * TS_WARP_LANES];
        d[i] = a;
        d[i + TS_WARP_LANES] = b;
        d[i + 2 * TS_WARP_LANES] = c;
        d[i + 3 * TS_WARP_LANES] = e;
    }
    for (; i < n; i += TS_WARP_LANES)
        d[i] = s[i];
    ts_tbar_complete_bytes(bar, bytes);
}

/* ---- kernels and launches ------------------------------------------------------------------ */

/* __launch_bounds__ gets only the block size: its second argument means waves per SIMD on HIP,
 * not blocks per SM. The parameter struct is read in place in the kernarg segment. */
#define TS_KERNEL_IMPL(name, max_warps, params_type, params)                                        \
    TS_CHECK_KERNEL_WARPS(name, max_warps);                                                        \
    enum { name##_max_warps = (max_warps) };                                                   \
    TS_DEVICE void name##_body(const params_type *params);                                     \
    static __global__ void __launch_bounds__((max_warps) * TS_WARP_LANES)                      \
        name(const params_type name##_arg) {                                                   \
        ts_hip_kernel_prologue();                                                              \
        name##_body(&name##_arg);                                                              \
    }                                                                                          \
    TS_DEVICE void name##_body(const params_type *params)

/* AMD needs no opt-in above 48 KB of dynamic LDS: a block may use all of it. */
#define TS_LAUNCH_IMPL(name, grid, warps, shared_bytes, stream, params)                             \
    ts_hip_launch((const void *)(name), (grid), (warps), name##_max_warps,                     \
                  (size_t)(shared_bytes), (stream), (void *)&(params))

/* The most dynamic shared memory a block may ask for, for kernels that size their pipelines. */
#define TS_MAX_SHARED_BYTES TS_HIP_MAX_DYNAMIC_SHARED

/* The public forms expand their arguments first, so a kernel's name may itself be a macro (as in
 * kernels instantiated from an include-template). */
#define TS_KERNEL(name, max_warps, params_type, params) TS_KERNEL_IMPL(name, max_warps, params_type, params)
/* The residency hint is CUDA's register cap; here the block size alone bounds the kernel. */
#define TS_KERNEL_RESIDENT(name, max_warps, min_blocks, params_type, params)                       \
    TS_KERNEL_IMPL(name, max_warps, params_type, params)
#define TS_LAUNCH(name, grid, warps, shared_bytes, stream, params)                                 \
    TS_LAUNCH_IMPL(name, grid, warps, shared_bytes, stream, params)

/* Pipelined kernels run the ping-pong schedule here (templates/producer_consumer.h): CDNA has no
 * copy engine and no register reallocation, so a dedicated producer wave only costs. */
#define TS_PREFERS_PINGPONG 1

#endif
