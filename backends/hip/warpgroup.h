/* Warpgroup-scope matrix multiply on CDNA (gfx90a, gfx942): AMD has no warpgroup instruction, so
 * each of the group's four waves computes its own 16 rows of the 64-row product with MFMA
 * 16x16x16 (bf16: v_mfma_f32_16x16x16_bf16, the "_1k" builtin; fp16: v_mfma_f32_16x16x16_f16),
 * one per k16 step and 16-column block. Operand fragments come straight out of the shared tiles
 * through ts_st_offset: lane l takes row (A) or column (B) l % 16 and the four k values
 * 4 * (l / 16) .. +3, one 8-byte LDS read when K runs along the tile's rows of memory, four 2-byte
 * reads when it runs across them. The f32 result lands in the HIP row layout of an fp32 tile
 * (backends/hip/fragment_layout.h): lane l holds column l % 16, rows 4 * (l / 16) + i, which is
 * MFMA's accumulator layout, so the ts_rt_f32_16xN tile is the accumulator in place.
 *
 * The _rs form takes A from the wave's 16-bit row-layout register tile, which is already MFMA's A
 * operand (lane l: row l % 16, k values 4 * (l / 16) .. +3), so only B is read from LDS.
 *
 * MFMA is synchronous: the fence / commit / wait protocol and setmaxnreg do nothing here. */
#ifndef TESSERA_BACKENDS_HIP_WARPGROUP_H
#define TESSERA_BACKENDS_HIP_WARPGROUP_H

#include "backends/hip/backend.h"
#include "backends/hip/fragment_layout.h"
#include "tiles/dtypes.h"
#include "tiles/shared_tile.h"

TS_DEVICE void ts_wg_fence(void) {}
TS_DEVICE void ts_wg_commit(void) {}
#define ts_wg_wait(n) ((void)(n))
TS_DEVICE void ts_wg_acc_fence_raw(float *d, int count) { (void)d, (void)count; }
TS_DEVICE void ts_wg_a_fence_raw(unsigned *a, int count) { (void)a, (void)count; }

typedef short ts_hip_short4 __attribute__((ext_vector_type(4)));
typedef _Float16 ts_hip_half4 __attribute__((ext_vector_type(4)));
typedef float ts_hip_float4 __attribute__((ext_vector_type(4)));

/* The widest accumulator: 16 x 256. */
#define TS_HIP_WG_MAX_N 256

/* Four consecutive k values of one operand row or column, as MFMA's 16-bit operand register pair.
 * Along the tile's columns (k_along_cols) the four sit in one 8-byte unit of the HIP layout,
 * whose XOR swizzle moves whole units. */
TS_DEVICE ts_hip_short4 ts_hip_wg_frag(const void *t, ts_st_desc sd, int k_along_cols, int mn, int k) {
    const unsigned short *e = (const unsigned short *)t;
    ts_hip_short4 v;
    if (k_along_cols) {
        v = *(const ts_hip_short4 *)(e + ts_st_index(sd, mn, k));
    } else {
        v.x = (short)e[ts_st_index(sd, k + 0, mn)];
        v.y = (short)e[ts_st_index(sd, k + 1, mn)];
        v.z = (short)e[ts_st_index(sd, k + 2, mn)];
        v.w = (short)e[ts_st_index(sd, k + 3, mn)];
    }
    return v;
}

/* The wave's n/16 accumulator fragments from d (or zero), and back. */
TS_DEVICE void ts_hip_wg_acc_load(ts_hip_float4 *acc, const float *d, int n, int accumulate) {
    TS_UNROLL
    for (int s = 0; s < n / 16; ++s) {
        if (accumulate) {
            acc[s].x = d[4 * s + 0];
            acc[s].y = d[4 * s + 1];
            acc[s].z = d[4 * s + 2];
            acc[s].w = d[4 * s + 3];
        } else {
            acc[s] = (ts_hip_float4){0.0f, 0.0f, 0.0f, 0.0f};
        }
    }
}

TS_DEVICE void ts_hip_wg_acc_store(float *d, const ts_hip_float4 *acc, int n) {
    TS_UNROLL
    for (int s = 0; s < n / 16; ++s) {
        d[4 * s + 0] = acc[s].x;
        d[4 * s + 1] = acc[s].y;
        d[4 * s + 2] = acc[s].z;
        d[4 * s + 3] = acc[s].w;
    }
}

/* One k16 step: A fragment fa (this lane's row and its four k values from k) against each of the
 * n/16 B fragments, read from LDS. */
TS_DEVICE void ts_hip_wg_mfma_step(ts_hip_float4 *acc, ts_hip_short4 fa, const void *b, ts_st_desc bd, int b_kmajor,
                                   int k, int n, int f16) {
    const int lane = ts_lane_id();
    TS_UNROLL
    for (int s = 0; s < n / 16; ++s) {
        const ts_hip_short4 fb = ts_hip_wg_frag(b, bd, b_kmajor, 16 * s + (lane & 15), k);
        if (f16)
            acc[s] = __builtin_amdgcn_mfma_f32_16x16x16f16(__builtin_bit_cast(ts_hip_half4, fa),
                                                           __builtin_bit_cast(ts_hip_half4, fb), acc[s], 0, 0, 0);
        else
            acc[s] = __builtin_amdgcn_mfma_f32_16x16x16bf16_1k(fa, fb, acc[s], 0, 0, 0);
    }
}

/* d (the wave's n/16 subtiles of 4 floats) += or = A * B; the operand conventions are those of
 * backends/cuda/warpgroup.h: a_kmajor means a is 64 x K, else K x 64; b_kmajor means
 * b is N x K (B^T), else K x N. */
TS_DEVICE void ts_wg_mma_raw(float *d, int n, const void *a, ts_st_desc ad, int a_kmajor,
                             const void *b, ts_st_desc bd, int b_kmajor, int k, int accumulate,
                             int sync) {
    (void)sync;
    const int lane = ts_lane_id();
    const int m = 16 * ts_warp_in_group() + (lane & 15);
    const int kq = 4 * (lane >> 4);
    const int f16 = ad.dtype == TS_DTYPE_FP16;
    ts_hip_float4 acc[TS_HIP_WG_MAX_N / 16];
    ts_hip_wg_acc_load(acc, d, n, accumulate);
    /* k outermost and not unrolled: the A fragment is read once per step, and the compiler does
     * not hoist every step's B fragments into registers at once (wide tiles would spill). */
#pragma unroll 1
    for (int kk = 0; kk < k; kk += 16) {
        const ts_hip_short4 fa = ts_hip_wg_frag(a, ad, a_kmajor, m, kk + kq);
        ts_hip_wg_mfma_step(acc, fa, b, bd, b_kmajor, kk + kq, n, f16);
    }
    ts_hip_wg_acc_store(d, acc, n);
}

/* The same with A from registers: a is the wave's 16 x k row-layout tile of 16-bit elements, whose
 * lane l already holds row l % 16 and, per k16 step, the four k values 4 * (l / 16) .. +3 as two
 * words (ts_hip_wg_a_word): MFMA's A operand as it stands, so only B comes out of LDS, as in
 * ts_wg_mma_raw. As there, the k loop is not unrolled: unrolled, the compiler computes every
 * step's B addresses up front and wide products spill (16 x 256 over K = 128 used 1 KiB of
 * scratch). A register array cannot be indexed by the loop counter without going to scratch, so
 * the tile's words are copied once and shifted down by one step's two words per step: step s
 * always reads words 0 and 1, every index a constant. */
#define TS_HIP_WG_MAX_A_WORDS 32 /* a 16 x 256 tile: 16 k steps of 2 words */

TS_DEVICE void ts_wg_mma_rs_raw(float *d, int n, unsigned *a, int k, const void *b, ts_st_desc bd,
                                int b_kmajor, int accumulate, int sync) {
    (void)sync;
    const int lane = ts_lane_id();
    const int kq = 4 * (lane >> 4);
    const int f16 = bd.dtype == TS_DTYPE_FP16;
    const int words = 2 * (k / 16);
    unsigned w[TS_HIP_WG_MAX_A_WORDS];
    TS_UNROLL
    for (int j = 0; j < words; ++j) w[j] = a[j];
    ts_hip_float4 acc[TS_HIP_WG_MAX_N / 16];
    ts_hip_wg_acc_load(acc, d, n, accumulate);
#pragma unroll 1
    for (int kk = 0; kk < k; kk += 16) {
        const unsigned lo = w[ts_hip_wg_a_word(0, 0)], hi = w[ts_hip_wg_a_word(0, 1)];
        ts_hip_short4 fa;
        fa.x = (short)(lo & 0xffffu);
        fa.y = (short)(lo >> 16);
        fa.z = (short)(hi & 0xffffu);
        fa.w = (short)(hi >> 16);
        ts_hip_wg_mfma_step(acc, fa, b, bd, b_kmajor, kk + kq, n, f16);
        TS_UNROLL
        for (int j = 0; j + 2 < words; ++j) w[j] = w[j + 2];
    }
    ts_hip_wg_acc_store(d, acc, n);
}

#define ts_set_max_regs_inc_raw(n) ((void)(n))
#define ts_set_max_regs_dec_raw(n) ((void)(n))

#endif
