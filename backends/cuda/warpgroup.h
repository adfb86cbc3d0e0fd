/* Warpgroup-scope matrix multiply on Hopper: wgmma.mma_async m64nNk16 with both operands in
 * shared tiles, addressed in place through matrix descriptors (backends/cuda/wgmma_layout.h), an
 * f32 accumulator that is each warp's ts_rt_f32_16xN tile (warp w of the group owns rows 16w..16w+15),
 * the fence / commit / wait protocol of the asynchronous tensor cores, and setmaxnreg. The _rs form
 * takes A from the warp's 16-bit row-layout register tile instead (wgmma's register-A variant). ops/warpgroup.h
 * and ops/registers.h put tile types on these; kernels never call them directly.
 *
 * wgmma, its fences and setmaxnreg exist only on sm_90a: the other device passes trap. */
#ifndef TESSERA_BACKENDS_CUDA_WARPGROUP_H
#define TESSERA_BACKENDS_CUDA_WARPGROUP_H

#include "backends/cuda/backend.h"
#include "backends/cuda/fragment_layout.h"
#include "backends/cuda/wgmma_generated.h"
#include "backends/cuda/wgmma_layout.h"
#include "tiles/dtypes.h"
#include "tiles/shared_tile.h"

#if defined(__CUDA_ARCH__) && !defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define TS_CUDA_WG_SM90A 0
#else
#define TS_CUDA_WG_SM90A 1
#endif

/* Orders every earlier register access of the warpgroup before the wgmma that follow. */
TS_DEVICE void ts_wg_fence(void) {
#if TS_CUDA_WG_SM90A
    asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
#else
    TS_CUDA_NEED_SM90A();
#endif
}

/* Closes the wgmma issued since the last commit into one group. */
TS_DEVICE void ts_wg_commit(void) {
#if TS_CUDA_WG_SM90A
    asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
#else
    TS_CUDA_NEED_SM90A();
#endif
}

/* Waits until at most n committed groups are still running; n is a compile-time constant. */
#if TS_CUDA_WG_SM90A
#define ts_wg_wait(n) asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(n) : "memory")
#else
#define ts_wg_wait(n) TS_CUDA_NEED_SM90A()
#endif

/* The compiler sees the accumulator defined where the wgmma asm statement stands, not where the
 * tensor cores finish with it. An empty asm that reads and writes every accumulator register pins
 * ordinary accesses on the right side of the fences: before wgmma.fence, after wgmma.wait_group. */
TS_DEVICE void ts_wg_acc_fence_raw(float *d, int count) {
    TS_UNROLL
    for (int i = 0; i < count; ++i) asm volatile("" : "+f"(d[i])::"memory");
}

/* d (the warp's n/2 accumulator floats) += or = A * B over K = k, where A's k-steps come from the
 * shared tile a (shape ad; K along its columns when a_kmajor, else along its rows) and B's from b
 * (K along its columns when b_kmajor, i.e. b holds B^T). One wgmma per k16 step; each operand's
 * descriptor is built once and moved per step by the swizzle-aware offsets of wgmma_layout.h. With
 * sync the call is complete on return (fence, the steps, commit, wait 0); without, it only issues
 * the steps and the caller owns fence, commit and wait. All four warps of the warpgroup make the
 * same call. */
TS_DEVICE void ts_wg_mma_raw(float *d, int n, const void *a, ts_st_desc ad, int a_kmajor,
                             const void *b, ts_st_desc bd, int b_kmajor, int k, int accumulate,
                             int sync) {
    const unsigned a_addr = ts_cuda_smem_addr(a), b_addr = ts_cuda_smem_addr(b);
    const int bytes = TS_DTYPE_BYTES(ad.dtype);
    const int f16 = ad.dtype == TS_DTYPE_FP16;
    if (sync) {
        ts_wg_acc_fence_raw(d, n / 2);
        ts_wg_fence();
    }
    const unsigned long long da0 = ts_cuda_wgmma_desc(a_addr, ad.rows, ad.cols, bytes, a_kmajor, 0);
    const unsigned long long db0 = ts_cuda_wgmma_desc(b_addr, bd.rows, bd.cols, bytes, b_kmajor, 0);
    TS_UNROLL
    for (int s = 0; s < k / 16; ++s) {
        const unsigned long long da = ts_cuda_wgmma_desc_step(da0, ad.rows, ad.cols, bytes, a_kmajor, s);
        const unsigned long long db = ts_cuda_wgmma_desc_step(db0, bd.rows, bd.cols, bytes, b_kmajor, s);
        ts_cuda_wgmma_m64nk16(d, n, da, db, accumulate || s > 0, f16, !a_kmajor, !b_kmajor);
    }
    if (sync) {
        ts_wg_commit();
        ts_wg_wait(0);
        ts_wg_acc_fence_raw(d, n / 2);
    }
}

/* The same pin for the 32-bit words of a 16-bit register tile used as a wgmma A operand: before
 * wgmma.fence it keeps the instructions that compute A (a conversion, say) ahead of the fence, so
 * that no ordinary instruction defines an A register inside the wgmma sequence (ptxas would
 * serialize the multiplies, or worse); after wgmma.wait_group it keeps later writes of the tile
 * from being hoisted above the wait while the tensor cores may still read it. */
TS_DEVICE void ts_wg_a_fence_raw(unsigned *a, int count) {
    TS_UNROLL
    for (int i = 0; i < count; ++i) asm volatile("" : "+r"(a[i])::"memory");
}

/* d (the warp's n/2 accumulator floats) += or = A * B over K = k with A in registers: a is the
 * warp's 16 x k row-layout tile of 16-bit elements as 32-bit words (k/4 of them per lane), whose
 * words 4s .. 4s+3 are k step s's A fragment (ts_cuda_wgmma_a_word); B as in ts_wg_mma_raw. One
 * wgmma per k16 step. The A words must not change until the multiply has completed: with sync the
 * call waits; without, the caller keeps the tile unchanged until its ts_wg_wait. */
TS_DEVICE void ts_wg_mma_rs_raw(float *d, int n, unsigned *a, int k, const void *b, ts_st_desc bd,
                                int b_kmajor, int accumulate, int sync) {
    const unsigned b_addr = ts_cuda_smem_addr(b);
    const int bytes = TS_DTYPE_BYTES(bd.dtype);
    const int f16 = bd.dtype == TS_DTYPE_FP16;
    if (sync) {
        ts_wg_acc_fence_raw(d, n / 2);
        ts_wg_a_fence_raw(a, k / 4);
        ts_wg_fence();
    }
    const unsigned long long db0 = ts_cuda_wgmma_desc(b_addr, bd.rows, bd.cols, bytes, b_kmajor, 0);
    TS_UNROLL
    for (int s = 0; s < k / 16; ++s) {
        const unsigned long long db = ts_cuda_wgmma_desc_step(db0, bd.rows, bd.cols, bytes, b_kmajor, s);
        ts_cuda_wgmma_rs_m64nk16(d, n, a + ts_cuda_wgmma_a_word(s, 0), db, accumulate || s > 0, f16, !b_kmajor);
    }
    if (sync) {
        ts_wg_commit();
        ts_wg_wait(0);
        ts_wg_acc_fence_raw(d, n / 2);
        ts_wg_a_fence_raw(a, k / 4);
    }
}

/* setmaxnreg: the warpgroup's per-thread register budget grows or shrinks to n (a compile-time
 * multiple of 8 in 24..256). It takes effect only in a kernel compiled with a register cap, which
 * TS_KERNEL's __launch_bounds__(threads, 1) gives. */
#if TS_CUDA_WG_SM90A
#define ts_set_max_regs_inc_raw(n) asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(n))
#define ts_set_max_regs_dec_raw(n) asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(n))
#else
#define ts_set_max_regs_inc_raw(n) TS_CUDA_NEED_SM90A()
#define ts_set_max_regs_dec_raw(n) TS_CUDA_NEED_SM90A()
#endif

#endif
