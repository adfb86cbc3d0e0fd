/* The host macro layer: the contract of backends/README.md for a CPU, compiled as C11 by gcc. A
 * warp is one OS thread (TS_WARP_LANES is 1) and a block is a set of such threads sharing one
 * shared-memory arena; ids come from a thread-local context and the barriers really block (they
 * live in backends/host/runtime.c), so that the synchronization protocol of a kernel is exercised
 * under the sanitizers and in a debugger. */
#ifndef TESSERA_BACKENDS_HOST_BACKEND_H
#define TESSERA_BACKENDS_HOST_BACKEND_H

#include <sched.h>
#include <stdatomic.h>
#include <stddef.h>

#include <tessera/tessera.h>

#include "backends/common.h"
#include "backends/host/runtime_host.h"

/* The architecture this build targets, by name: tuning tables (kernels/<family>/tuning.h) choose
 * their section by it. The host mirrors Hopper's limits (32 warps, 227 KiB of shared memory), so
 * its sections usually repeat sm_90a's numbers and its tests run the instances the GPU runs. */
#define TS_ARCH_HOST 1
#define TS_ARCH_NAME "host"

#define TS_WARP_LANES 1
#define TS_MAX_WARPS_PER_BLOCK TS_HOST_MAX_WARPS
#define TS_DEVICE static inline
#define TS_HOST_DEVICE static inline
#define TS_RESTRICT restrict
#define TS_ALIGNED(n) _Alignas(n)
#define TS_EXTERN_C

/* GPU compilers say nothing about a kernel that is defined but not launched, or a body that
 * ignores its parameters; gcc would, and -Werror would make that an error on host only. */
#if defined(__GNUC__)
#define TS_HOST_MAYBE_UNUSED __attribute__((unused))
#else
#define TS_HOST_MAYBE_UNUSED
#endif

/* The wrapper has the one signature the runtime calls; the typedef lets TS_LAUNCH check that the
 * parameters passed are of the kernel's type. */
#define TS_KERNEL_IMPL(name, max_warps, params_type, params)                                            \
    TS_CHECK_KERNEL_WARPS(name, max_warps);                                                        \
    enum { name##_max_warps = (max_warps) };                                                       \
    typedef params_type name##_params_type;                                                        \
    static void name##_body(const params_type *params TS_HOST_MAYBE_UNUSED);                       \
    static TS_HOST_MAYBE_UNUSED void name(const void *ts_raw_params) {                             \
        name##_body((const params_type *)ts_raw_params);                                           \
    }                                                                                              \
    static void name##_body(const params_type *params TS_HOST_MAYBE_UNUSED)

/* A pointer type mismatch in the conditional is a compile error under -Werror: parameters of
 * another kernel's type do not slip through. */
#define TS_LAUNCH_IMPL(name, grid, warps, shared_bytes, stream, params)                                 \
    ts_host_launch(name, (grid), (warps), name##_max_warps, (shared_bytes), (stream),             \
                   (const void *)(1 ? &(params) : (const name##_params_type *)0),                 \
                   sizeof(params), 1)

/* ---- ids ----------------------------------------------------------------------------------- */

TS_DEVICE int ts_block_x(void) { return ts_host_current->block_x; }
TS_DEVICE int ts_block_y(void) { return ts_host_current->block_y; }
TS_DEVICE int ts_block_z(void) { return ts_host_current->block_z; }
TS_DEVICE int ts_grid_x(void) { return ts_host_current->grid_x; }
TS_DEVICE int ts_grid_y(void) { return ts_host_current->grid_y; }
TS_DEVICE int ts_grid_z(void) { return ts_host_current->grid_z; }
TS_DEVICE int ts_num_warps(void) { return ts_host_current->num_warps; }
TS_DEVICE int ts_warp_id(void) { return ts_host_current->warp_id; }
TS_DEVICE int ts_warpgroup_id(void) { return ts_host_current->warp_id >> 2; }
TS_DEVICE int ts_warp_in_group(void) { return ts_host_current->warp_id & 3; }
TS_DEVICE int ts_lane_id(void) { return 0; }

/* ---- synchronization ----------------------------------------------------------------------- */

TS_DEVICE void ts_sync_block(void) { ts_host_sync_block(); }
/* A warp is one thread, so its lanes are always converged; only the compiler must not move
 * shared-memory accesses across the call. */
TS_DEVICE void ts_sync_warp(void) { atomic_signal_fence(memory_order_seq_cst); }
TS_DEVICE void ts_sync_named(int id, int warps) { ts_host_sync_named(id, warps); }
TS_DEVICE void ts_arrive_named(int id, int warps) { ts_host_arrive_named(id, warps); }
TS_DEVICE void ts_fence_block(void) { atomic_thread_fence(memory_order_seq_cst); }
/* Relaxed, as CUDA's atomicAdd; the target is a plain int, which gcc's builtin accepts and C11's
 * atomic_fetch_add would not. A warp here is one lane, so an atomic that every lane of a GPU warp
 * would repeat (32 or 64 adds where one was meant) looks right on the host: outside a TS_ONE_LANE
 * region (backends/host/lane_ops.h) the block fails with TS_ERROR_UNGUARDED_ATOMIC instead. Lane-level
 * code that means every lane to add uses ts_lane_atomic_add_i32. */
TS_DEVICE int ts_atomic_add_i32(int *ptr, int value) {
    if (ts_host_current && ts_host_current->one_lane_depth <= 0) ts_host_fail(TS_ERROR_UNGUARDED_ATOMIC);
    return __atomic_fetch_add(ptr, value, __ATOMIC_RELAXED);
}
TS_DEVICE void ts_flag_store_release(int *flag, int value) {
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    __atomic_store_n(flag, value, __ATOMIC_RELEASE);
}
TS_DEVICE int ts_flag_load_acquire(const int *flag) { return __atomic_load_n(flag, __ATOMIC_ACQUIRE); }
/* Warps are threads: a spinning one lets the others run. */
TS_DEVICE void ts_spin_pause(void) { (void)sched_yield(); }

/* ---- the transaction barrier --------------------------------------------------------------- */

TS_DEVICE void ts_tbar_init(ts_tbar *bar, int arrivals) { ts_host_tbar_init(bar, arrivals); }
TS_DEVICE void ts_tbar_arrive(ts_tbar *bar) { ts_host_tbar_arrive(bar); }
TS_DEVICE void ts_tbar_expect_bytes(ts_tbar *bar, unsigned bytes) {
    ts_host_tbar_expect_bytes(bar, bytes);
}
TS_DEVICE void ts_tbar_complete_bytes(ts_tbar *bar, unsigned bytes) {
    ts_host_tbar_complete_bytes(bar, bytes);
}
TS_DEVICE void ts_tbar_wait(ts_tbar *bar, int parity) { ts_host_tbar_wait(bar, parity); }
TS_DEVICE int ts_tbar_test(ts_tbar *bar, int parity) { return ts_host_tbar_test(bar, parity); }

/* ---- shared memory and asynchronous copies --------------------------------------------------- */

TS_DEVICE unsigned char *ts_shared_base(void) { return ts_host_current->shared; }

TS_DEVICE void ts_copy_async_g2s(void *dst, const void *src, unsigned bytes, ts_tbar *bar) {
    ts_host_copy_async_g2s(dst, src, bytes, bar);
}

/* The most dynamic shared memory a block may ask for, for kernels that size their pipelines. */
#define TS_MAX_SHARED_BYTES TS_HOST_MAX_SHARED_BYTES

/* The public forms expand their arguments first, so a kernel's name may itself be a macro (as in
 * kernels instantiated from an include-template). */
#define TS_KERNEL(name, max_warps, params_type, params) TS_KERNEL_IMPL(name, max_warps, params_type, params)
/* The residency hint is CUDA's register cap; here the block size alone bounds the kernel. */
#define TS_KERNEL_RESIDENT(name, max_warps, min_blocks, params_type, params)                       \
    TS_KERNEL_IMPL(name, max_warps, params_type, params)
#define TS_LAUNCH(name, grid, warps, shared_bytes, stream, params)                                 \
    TS_LAUNCH_IMPL(name, grid, warps, shared_bytes, stream, params)

#endif
