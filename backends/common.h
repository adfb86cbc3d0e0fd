/* Types and constants every backend's macro layer shares: the launch grid, barrier and alignment
 * limits, and the qualifier of fragment-layout functions. Kept apart from the backends so that a
 * launcher reads the same on all three. */
#ifndef TESSERA_BACKENDS_COMMON_H
#define TESSERA_BACKENDS_COMMON_H

/* A compile-time check usable inside functions and macros in C11 and C++ alike. */
#ifdef __cplusplus
#define TS_STATIC_ASSERT(cond, msg) static_assert(cond, msg)
#else
#define TS_STATIC_ASSERT(cond, msg) _Static_assert(cond, msg)
#endif

/* Every backend's TS_KERNEL opens with this: a block of more warps than the backend can run (32 on
 * CUDA and host, 16 on HIP's wave64) fails to compile, naming the limit, rather than at launch. */
#define TS_CHECK_KERNEL_WARPS(name, max_warps)                                                     \
    TS_STATIC_ASSERT((max_warps) >= 1 && (max_warps) <= TS_MAX_WARPS_PER_BLOCK,                    \
                     #name ": max_warps must be 1 .. TS_MAX_WARPS_PER_BLOCK of this backend")

typedef struct ts_grid {
    unsigned x, y, z;
} ts_grid;

static inline ts_grid ts_grid_1d(unsigned x) {
    ts_grid g;
    g.x = x;
    g.y = 1;
    g.z = 1;
    return g;
}

static inline ts_grid ts_grid_3d(unsigned x, unsigned y, unsigned z) {
    ts_grid g;
    g.x = x;
    g.y = y;
    g.z = z;
    return g;
}

/* Named barriers a block may use: ids 0 .. TS_NAMED_BARRIERS-1 (CUDA maps id to hardware 1+id;
 * hardware barrier 0 is the block barrier). */
#define TS_NAMED_BARRIERS 15

/* Dynamic shared memory starts at this alignment on every backend (the Hopper 128-byte swizzle
 * needs 1024). */
#define TS_SHARED_ALIGN 1024

/* Register-tile layouts (backends/<name>/fragment_layout.h): row is the layout of an A operand
 * and of the accumulator where the hardware allows, col that of a B operand. */
#define TS_LAYOUT_ROW 1
#define TS_LAYOUT_COL 2

/* Fragment-layout functions are plain C that host-side tests call too, so their qualifier depends
 * on the compiler, not on the backend being built. */
#if defined(__CUDACC__) || defined(__HIP__)
#define TS_LAYOUT_FN static __host__ __device__ __forceinline__
#else
#define TS_LAYOUT_FN static inline
#endif

/* Token pasting after both sides are macro-expanded: kernel, launcher and tile type names made
 * from a variant's prefix and a size macro. */
#define TS_CAT2(a, b) a##b
#define TS_CAT(a, b) TS_CAT2(a, b)

/* Loops over a register tile's elements must unroll fully so the tile stays in registers. */
#if defined(__CUDACC__) || defined(__HIP__)
#define TS_UNROLL _Pragma("unroll")
#else
#define TS_UNROLL
#endif

/* A loop kept rolled: a cold path (edges, misaligned data) whose unrolled copies would set the
 * register count of the whole kernel. Its body must index registers by constants only. */
#if defined(__CUDACC__) || defined(__HIP__)
#define TS_NO_UNROLL _Pragma("unroll 1")
#else
#define TS_NO_UNROLL
#endif

#endif
