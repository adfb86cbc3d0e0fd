/* Loads and stores of fp32 tiles between global memory, shared tiles and register tiles, at warp
 * scope, destination first. Bounds are given as the rows and columns still inside the matrix from
 * the tile's origin: elements past them are zero-filled on load and skipped on store, so ragged
 * shapes never touch memory out of bounds. */
#ifndef TESSERA_OPS_MEMORY_H
#define TESSERA_OPS_MEMORY_H

#include "tiles/register_tile.h"
#include "tiles/shared_tile.h"

/* Global -> shared: the warp's lanes stride over the tile row by row, so a warp reads whole rows
 * of global memory at once. */
TS_DEVICE void ts_load_g2s_f32(float *st, int rows, int cols, const float *src, long long ld,
                               int rows_valid, int cols_valid) {
    const int lane = ts_lane_id();
    TS_UNROLL
    for (int idx = lane; idx < rows * cols; idx += TS_WARP_LANES) {
        const int r = idx / cols, c = idx % cols;
        st[idx] = (r < rows_valid && c < cols_valid) ? src[(long long)r * ld + c] : 0.0f;
    }
    ts_sync_warp();
}

/* Shared -> registers: each lane picks its fragment elements out of the row-major tile. */
TS_DEVICE void ts_load_s2r_f32(float *rt, int rows, int cols, const float *st) {
    const int lane = ts_lane_id();
    const int subcols = cols / 16;
    TS_UNROLL
    for (int s = 0; s < (rows / 16) * subcols; ++s) {
        TS_UNROLL
        for (int i = 0; i < TS_RT_SUB_ELEMS; ++i) {
            const int r = (s / subcols) * 16 + ts_rt_layout_row(TS_LAYOUT_ROW, 4, lane, i);
            const int c = (s % subcols) * 16 + ts_rt_layout_col(TS_LAYOUT_ROW, 4, lane, i);
            rt[s * TS_RT_SUB_ELEMS + i] = st[r * cols + c];
        }
    }
}

/* Global -> registers, straight from memory. */
TS_DEVICE void ts_load_g2r_f32(float *rt, int rows, int cols, const float *src, long long ld,
                               int rows_valid, int cols_valid) {
    const int lane = ts_lane_id();
    const int subcols = cols / 16;
    TS_UNROLL
    for (int s = 0; s < (rows / 16) * subcols; ++s) {
        TS_UNROLL
        for (int i = 0; i < TS_RT_SUB_ELEMS; ++i) {
            const int r = (s / subcols) * 16 + ts_rt_layout_row(TS_LAYOUT_ROW, 4, lane, i);
            const int c = (s % subcols) * 16 + ts_rt_layout_col(TS_LAYOUT_ROW, 4, lane, i);
            rt[s * TS_RT_SUB_ELEMS + i] =
                (r < rows_valid && c < cols_valid) ? src[(long long)r * ld + c] : 0.0f;
        }
    }
}

/* Registers -> global, skipping elements past the bounds. */
TS_DEVICE void ts_store_r2g_f32(float *dst, long long ld, const float *rt, int rows, int cols,
                                int rows_valid, int cols_valid) {
    const int lane = ts_lane_id();
    const int subcols = cols / 16;
    TS_UNROLL
    for (int s = 0; s < (rows / 16) * subcols; ++s) {
        TS_UNROLL
        for (int i = 0; i < TS_RT_SUB_ELEMS; ++i) {
            const int r = (s / subcols) * 16 + ts_rt_layout_row(TS_LAYOUT_ROW, 4, lane, i);
            const int c = (s % subcols) * 16 + ts_rt_layout_col(TS_LAYOUT_ROW, 4, lane, i);
            if (r < rows_valid && c < cols_valid) dst[(long long)r * ld + c] = rt[s * TS_RT_SUB_ELEMS + i];
        }
    }
}

#define ts_load_g2s(dst, src, ld, rows_valid, cols_valid)                                          \
    ts_load_g2s_f32(&(dst)->v[0][0], TS_ST_ROWS(dst), TS_ST_COLS(dst), (src), (ld), (rows_valid), \
                    (cols_valid))
#define ts_load_s2r(dst, src)                                                                      \
    ts_load_s2r_f32(TS_RT_DATA(dst), TS_RT_ROWS(dst), TS_RT_COLS(dst), &(src)->v[0][0])
#define ts_load_g2r(dst, src, ld, rows_valid, cols_valid)                                          \
    ts_load_g2r_f32(TS_RT_DATA(dst), TS_RT_ROWS(dst), TS_RT_COLS(dst), (src), (ld), (rows_valid), \
                    (cols_valid))
#define ts_store_r2g(dst, ld, src, rows_valid, cols_valid)                                         \
    ts_store_r2g_f32((dst), (ld), TS_RT_DATA(src), TS_RT_ROWS(src), TS_RT_COLS(src),              \
                     (rows_valid), (cols_valid))

#endif
