/* Warpgroup-scope matrix multiply, destination first. A warpgroup is four consecutive warps
 * starting at a warp index divisible by 4 (ts_warpgroup_id()); together they compute a 64 x N
 * product in which warp w of the group (ts_warp_in_group()) owns rows 16w .. 16w+15 as its
 * ts_rt_f32_16xN accumulator tile (row layout), N a multiple of 16 in 16..256. Both operands are
 * shared tiles of bf16 or fp16 (the same dtype), in the backend's layout, K a multiple of 16:
 *
 *   ts_wg_mma_AB(d, a, b)     d += A * B      a: 64 x K,  b: K x N
 *   ts_wg_mma_ABt(d, a, bt)   d += A * B      a: 64 x K,  bt: N x K  (B transposed in memory)
 *   ts_wg_mma_AtB(d, at, b)   d += A * B      at: K x 64 (A transposed in memory), b: K x N
 *   ts_wg_mma_AtBt(d, at, bt) d += A * B
 *   ts_wg_mm_*                the same with d = A * B (d's old contents are ignored)
 *
 * Every warp of the warpgroup makes the same call with the same tiles, and the tiles' contents
 * must be visible to it: landed on a transaction barrier (ts_async_load, ts_tbar_wait), or, when
 * written with ordinary stores, published with ts_async_fence_shared() by the writers and a
 * barrier. These calls are complete on return.
 *
 * To overlap the tensor cores with other work, the _async forms (ts_wg_mma_AB_async, ...,
 * ts_wg_mm_AtBt_async) only issue the multiply; the kernel owns the protocol:
 *
 *   ts_wg_acc_fence(&acc);   pins earlier ordinary writes of acc before the fence
 *   ts_wg_fence();           orders register accesses before the multiplies that follow
 *   ts_wg_mma_AB_async(&acc, a, b); ...
 *   ts_wg_commit();          closes the multiplies issued so far into one group
 *   ... work that touches neither acc nor the operand tiles ...
 *   ts_wg_wait(0);           at most n (a constant) groups still running; here none
 *   ts_wg_acc_fence(&acc);   keeps every read of acc after the wait
 *
 * A from registers ("RS"): the A operand may instead be each warp's own 16 rows of it, held in a
 * 16-bit row-layout register tile (ts_rt_bf16_16xK or ts_rt_fp16_16xK, the dtype of B), so that a
 * product computed in registers (attention's P) feeds the next multiply without a trip through
 * shared memory or a barrier between the warps:
 *
 *   ts_wg_mma_AB_rs(d, a, b)   d += A * B      a: each warp's 16 x K rows,  b: K x N
 *   ts_wg_mma_ABt_rs(d, a, bt) d += A * B      bt: N x K  (B transposed in memory)
 *   ts_wg_mm_AB_rs, ts_wg_mm_ABt_rs            d = A * B
 *   ..._async                                  issue only, under the protocol above
 *
 * Every warp of the warpgroup makes the call, each with its own a (the rows 16w .. 16w+15 of A,
 * w = ts_warp_in_group()). Under the _async forms the tensor cores read a's registers after the
 * call returns: a must not be written until ts_wg_wait has retired the group, and
 *
 *   ts_wg_a_fence(&a);       before ts_wg_fence(): a's computation stays ahead of the fence;
 *                            after ts_wg_wait(): later writes of a stay behind the wait.
 *
 * A shared tile pointer a kernel carries from one stage to the next in its own state (attention's
 * last V tile) is the same in every lane, but the compiler may keep it in per-lane registers and
 * rebuild the multiply's operand addresses there before every instruction:
 *
 *   ts_wg_operand(p)         p as lane 0 holds it (a const void *, cast back to the tile type),
 *                            which the compiler knows to be the same in every lane
 *
 * On Hopper this is wgmma.mma_async with shared-memory descriptors (one instruction per k16 step;
 * the _rs forms are its register-A variant); on CDNA each wave runs MFMA 16x16x16 on its rows and
 * the protocol calls do nothing; on the host each warp thread loops. */
#ifndef TESSERA_OPS_WARPGROUP_H
#define TESSERA_OPS_WARPGROUP_H

#include <stdint.h>

#include "backends/lane_ops.h"
#include "backends/warpgroup.h"
#include "tiles/dtypes.h"
#include "tiles/register_tile.h"
#include "tiles/shared_tile.h"

/* Lane 0's copy of p, through two 32-bit shuffles. In the sm_90a build it lets ptxas keep
 * attention's V descriptors in uniform registers (one add per HGMMA) instead of building them in
 * vector registers and moving each to a uniform one (R2UR) before every HGMMA. */
TS_DEVICE const void *ts_wg_operand(const void *p) {
    const unsigned long long u = (unsigned long long)(uintptr_t)p;
    const unsigned lo = ts_shfl_u32((unsigned)u, 0), hi = ts_shfl_u32((unsigned)(u >> 32), 0);
    return (const void *)(uintptr_t)(((unsigned long long)hi << 32) | lo);
}

/* The tile shapes of one form, checked at compile time: A's M side is 64, both K sides agree, B's N
 * side is the accumulator's width. */
#define TS_WG_K_OF(t, kmajor) ((kmajor) ? TS_ST_COLS(t) : TS_ST_ROWS(t))
#define TS_WG_MN_OF(t, kmajor) ((kmajor) ? TS_ST_ROWS(t) : TS_ST_COLS(t))
#define TS_WG_CHECK(d, a, b, a_kmajor, b_kmajor)                                                   \
    TS_STATIC_ASSERT(TS_RT_ROWS(d) == 16 && TS_RT_DTYPE(d) == TS_DTYPE_F32 &&                      \
                         TS_RT_LAYOUT(d) == TS_LAYOUT_ROW,                                         \
                     "a warpgroup accumulator is each warp's ts_rt_f32_16xN (row layout)");        \
    TS_STATIC_ASSERT(TS_RT_COLS(d) >= 16 && TS_RT_COLS(d) <= 256,                                  \
                     "warpgroup multiplies are 16 to 256 columns wide");                           \
    TS_STATIC_ASSERT(TS_ST_DTYPE(a) == TS_ST_DTYPE(b) &&                                           \
                         (TS_ST_DTYPE(a) == TS_DTYPE_BF16 || TS_ST_DTYPE(a) == TS_DTYPE_FP16),     \
                     "warpgroup operands are both bf16 or both fp16");                             \
    TS_STATIC_ASSERT(TS_WG_MN_OF(a, a_kmajor) == 64, "the A operand has 64 rows (M)");             \
    TS_STATIC_ASSERT(TS_WG_K_OF(a, a_kmajor) == TS_WG_K_OF(b, b_kmajor),                           \
                     "the operands' K dimensions differ");                                         \
    TS_STATIC_ASSERT(TS_WG_MN_OF(b, b_kmajor) == TS_RT_COLS(d),                                    \
                     "the B operand's N differs from the accumulator's columns")

#define TS_WG_MMA(d, a, b, a_kmajor, b_kmajor, accumulate, sync)                                   \
    do {                                                                                           \
        TS_WG_CHECK(d, a, b, a_kmajor, b_kmajor);                                                  \
        ts_wg_mma_raw((float *)TS_RT_DATA(d), TS_RT_COLS(d), TS_ST_CDATA(a), TS_ST_DESC(a),       \
                      (a_kmajor), TS_ST_CDATA(b), TS_ST_DESC(b), (b_kmajor),                       \
                      TS_WG_K_OF(a, a_kmajor), (accumulate), (sync));                              \
    } while (0)

#define ts_wg_mma_AB(d, a, b) TS_WG_MMA(d, a, b, 1, 0, 1, 1)
#define ts_wg_mma_ABt(d, a, b) TS_WG_MMA(d, a, b, 1, 1, 1, 1)
#define ts_wg_mma_AtB(d, a, b) TS_WG_MMA(d, a, b, 0, 0, 1, 1)
#define ts_wg_mma_AtBt(d, a, b) TS_WG_MMA(d, a, b, 0, 1, 1, 1)
#define ts_wg_mm_AB(d, a, b) TS_WG_MMA(d, a, b, 1, 0, 0, 1)
#define ts_wg_mm_ABt(d, a, b) TS_WG_MMA(d, a, b, 1, 1, 0, 1)
#define ts_wg_mm_AtB(d, a, b) TS_WG_MMA(d, a, b, 0, 0, 0, 1)
#define ts_wg_mm_AtBt(d, a, b) TS_WG_MMA(d, a, b, 0, 1, 0, 1)

#define ts_wg_mma_AB_async(d, a, b) TS_WG_MMA(d, a, b, 1, 0, 1, 0)
#define ts_wg_mma_ABt_async(d, a, b) TS_WG_MMA(d, a, b, 1, 1, 1, 0)
#define ts_wg_mma_AtB_async(d, a, b) TS_WG_MMA(d, a, b, 0, 0, 1, 0)
#define ts_wg_mma_AtBt_async(d, a, b) TS_WG_MMA(d, a, b, 0, 1, 1, 0)
#define ts_wg_mm_AB_async(d, a, b) TS_WG_MMA(d, a, b, 1, 0, 0, 0)
#define ts_wg_mm_ABt_async(d, a, b) TS_WG_MMA(d, a, b, 1, 1, 0, 0)
#define ts_wg_mm_AtB_async(d, a, b) TS_WG_MMA(d, a, b, 0, 0, 0, 0)
#define ts_wg_mm_AtBt_async(d, a, b) TS_WG_MMA(d, a, b, 0, 1, 0, 0)

/* A from registers: a is the warp's 16 x K row-layout tile of the operands' 16-bit dtype, K its
 * columns; b as in the shared forms (K x N, or N x K when b_kmajor). */
#define TS_WG_RS_CHECK(d, a, b, b_kmajor)                                                          \
    TS_STATIC_ASSERT(TS_RT_ROWS(d) == 16 && TS_RT_DTYPE(d) == TS_DTYPE_F32 &&                      \
                         TS_RT_LAYOUT(d) == TS_LAYOUT_ROW,                                         \
                     "a warpgroup accumulator is each warp's ts_rt_f32_16xN (row layout)");        \
    TS_STATIC_ASSERT(TS_RT_COLS(d) >= 16 && TS_RT_COLS(d) <= 256,                                  \
                     "warpgroup multiplies are 16 to 256 columns wide");                           \
    TS_STATIC_ASSERT(TS_RT_ROWS(a) == 16 && TS_RT_LAYOUT(a) == TS_LAYOUT_ROW,                      \
                     "a register A operand is each warp's 16 x K row-layout tile");                \
    TS_STATIC_ASSERT(TS_RT_DTYPE(a) == TS_ST_DTYPE(b) &&                                           \
                         (TS_ST_DTYPE(b) == TS_DTYPE_BF16 || TS_ST_DTYPE(b) == TS_DTYPE_FP16),     \
                     "warpgroup operands are both bf16 or both fp16");                             \
    TS_STATIC_ASSERT(TS_RT_COLS(a) == TS_WG_K_OF(b, b_kmajor), "the operands' K dimensions differ"); \
    TS_STATIC_ASSERT(TS_WG_MN_OF(b, b_kmajor) == TS_RT_COLS(d),                                    \
                     "the B operand's N differs from the accumulator's columns")

#define TS_WG_MMA_RS(d, a, b, b_kmajor, accumulate, sync)                                          \
    do {                                                                                           \
        TS_WG_RS_CHECK(d, a, b, b_kmajor);                                                         \
        ts_wg_mma_rs_raw((float *)TS_RT_DATA(d), TS_RT_COLS(d), (unsigned *)TS_RT_DATA(a),        \
                         TS_RT_COLS(a), TS_ST_CDATA(b), TS_ST_DESC(b), (b_kmajor), (accumulate),   \
                         (sync));                                                                  \
    } while (0)

#define ts_wg_mma_AB_rs(d, a, b) TS_WG_MMA_RS(d, a, b, 0, 1, 1)
#define ts_wg_mma_ABt_rs(d, a, b) TS_WG_MMA_RS(d, a, b, 1, 1, 1)
#define ts_wg_mm_AB_rs(d, a, b) TS_WG_MMA_RS(d, a, b, 0, 0, 1)
#define ts_wg_mm_ABt_rs(d, a, b) TS_WG_MMA_RS(d, a, b, 1, 0, 1)

#define ts_wg_mma_AB_rs_async(d, a, b) TS_WG_MMA_RS(d, a, b, 0, 1, 0)
#define ts_wg_mma_ABt_rs_async(d, a, b) TS_WG_MMA_RS(d, a, b, 1, 1, 0)
#define ts_wg_mm_AB_rs_async(d, a, b) TS_WG_MMA_RS(d, a, b, 0, 0, 0)
#define ts_wg_mm_ABt_rs_async(d, a, b) TS_WG_MMA_RS(d, a, b, 1, 0, 0)

/* See the protocol above; a is a 16-bit register tile used as a register A operand. */
#define ts_wg_a_fence(a)                                                                           \
    ts_wg_a_fence_raw((unsigned *)TS_RT_DATA(a), (int)(sizeof((a)->v) / sizeof(unsigned)))

/* See the protocol above; d is a ts_rt_f32_16xN accumulator. */
#define ts_wg_acc_fence(d)                                                                         \
    ts_wg_acc_fence_raw((float *)TS_RT_DATA(d), (int)(sizeof((d)->v) / sizeof(float)))

#endif
