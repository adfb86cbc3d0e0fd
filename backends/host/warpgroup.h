/* Warpgroup-scope matrix multiply on the host backend: each warp (one thread) computes its 16 rows
 * of the 64-row product in fp32, reading the operands out of the shared tiles through ts_st_offset
 * and writing its ts_rt_f32_16xN accumulator through the fragment-layout functions, so the ops run
 * the same shapes, layouts and swizzles as on the GPU; the _rs form reads A out of the warp's own
 * register tile instead. The asynchronous protocol (fence, commit,
 * wait) and setmaxnreg have nothing to do here. */
#ifndef TESSERA_BACKENDS_HOST_WARPGROUP_H
#define TESSERA_BACKENDS_HOST_WARPGROUP_H

#include "backends/host/backend.h"
#include "backends/host/lane_ops.h"
#include "tiles/dtypes.h"
#include "tiles/register_tile.h"
#include "tiles/shared_tile.h"

TS_DEVICE void ts_wg_fence(void) {}
TS_DEVICE void ts_wg_commit(void) {}
#define ts_wg_wait(n) ((void)(n))
TS_DEVICE void ts_wg_acc_fence_raw(float *d, int count) { (void)d, (void)count; }
TS_DEVICE void ts_wg_a_fence_raw(unsigned *a, int count) { (void)a, (void)count; }

/* Element (r, c) of a shared tile of 16-bit elements, as a float. */
TS_DEVICE float ts_host_wg_elem(const void *t, ts_st_desc sd, int r, int c) {
    const unsigned short bits = ((const unsigned short *)t)[ts_st_index(sd, r, c)];
    return sd.dtype == TS_DTYPE_FP16 ? ts_unpack_fp16(bits) : ts_unpack_bf16(bits);
}

/* A(m, k) lives at (m, k) of a 64 x K tile, or at (k, m) of its K x 64 transpose; B(k, n) at (k, n)
 * of a K x N tile, or at (n, k) of its N x K transpose (k_major). */
TS_DEVICE void ts_wg_mma_raw(float *d, int n, const void *a, ts_st_desc ad, int a_kmajor,
                             const void *b, ts_st_desc bd, int b_kmajor, int k, int accumulate,
                             int sync) {
    (void)sync;
    const int row0 = 16 * ts_warp_in_group();
    for (int s = 0; s < n / 16; ++s) {
        for (int i = 0; i < TS_HOST_RT_SUB_ELEMS; ++i) {
            const int r = row0 + ts_host_rt_row(TS_LAYOUT_ROW, 4, 0, i);
            const int c = 16 * s + ts_host_rt_col(TS_LAYOUT_ROW, 4, 0, i);
            float acc = accumulate ? d[s * TS_HOST_RT_SUB_ELEMS + i] : 0.0f;
            for (int kk = 0; kk < k; ++kk) {
                const float x = a_kmajor ? ts_host_wg_elem(a, ad, r, kk) : ts_host_wg_elem(a, ad, kk, r);
                const float y = b_kmajor ? ts_host_wg_elem(b, bd, c, kk) : ts_host_wg_elem(b, bd, kk, c);
                acc += x * y;
            }
            d[s * TS_HOST_RT_SUB_ELEMS + i] = acc;
        }
    }
}

/* The same with A from the warp's own registers: a is its 16 x k row-layout tile of 16-bit elements
 * (element (r, kk) found through the layout functions, in the words of tiles/register_tile.h), B
 * as above; dtype is B's, which the op checked to be A's. */
TS_DEVICE void ts_wg_mma_rs_raw(float *d, int n, unsigned *a, int k, const void *b, ts_st_desc bd,
                                int b_kmajor, int accumulate, int sync) {
    (void)sync;
    const int f16 = bd.dtype == TS_DTYPE_FP16;
    for (int s = 0; s < n / 16; ++s) {
        for (int i = 0; i < TS_HOST_RT_SUB_ELEMS; ++i) {
            const int r = ts_host_rt_row(TS_LAYOUT_ROW, 4, 0, i);
            const int c = 16 * s + ts_host_rt_col(TS_LAYOUT_ROW, 4, 0, i);
            float acc = accumulate ? d[s * TS_HOST_RT_SUB_ELEMS + i] : 0.0f;
            for (int kk = 0; kk < k; ++kk) {
                const int e = (kk / 16) * TS_HOST_RT_SUB_ELEMS + ts_host_rt_elem_of(TS_LAYOUT_ROW, 2, r, kk % 16);
                const unsigned short bits = ts_rt16_get(a, e);
                const float x = f16 ? ts_unpack_fp16(bits) : ts_unpack_bf16(bits);
                const float y = b_kmajor ? ts_host_wg_elem(b, bd, c, kk) : ts_host_wg_elem(b, bd, kk, c);
                acc += x * y;
            }
            d[s * TS_HOST_RT_SUB_ELEMS + i] = acc;
        }
    }
}

#define ts_set_max_regs_inc_raw(n) ((void)(n))
#define ts_set_max_regs_dec_raw(n) ((void)(n))

#endif
