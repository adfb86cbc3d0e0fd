/* Tile copies between global memory and shared tiles for CDNA, which has no tensor memory
 * accelerator: the calling wave copies the tile itself, 8 bytes per lane per step (the unit the
 * HIP shared layout's XOR swizzle keeps whole), with the same bounds rules as TMA: elements
 * outside the matrix load as zeros and are skipped on store. A load then completes the whole
 * tile's bytes on the barrier, as TMA counts zero-filled bytes, so a kernel announces the same
 * byte count on every backend. The descriptor is just the global layout and the tile shape. */
#ifndef TESSERA_BACKENDS_HIP_TMA_H
#define TESSERA_BACKENDS_HIP_TMA_H

#include <string.h>

#include "backends/hip/backend.h"
#include "backends/lane_ops.h"
#include "tiles/global_layout.h"
#include "tiles/shared_tile.h"

typedef struct ts_async_desc {
    ts_gl gl;
    int tile_rows, tile_cols, dtype, reserved;
} ts_async_desc;

TS_DEVICE void ts_hip_async_check(const ts_async_desc *d, ts_st_desc sd) {
    if (d->tile_rows != sd.rows || d->tile_cols != sd.cols || d->dtype != sd.dtype) __builtin_trap();
}

/* Byte address of global element (b, h, r, c), or NULL when it lies outside the matrix. */
TS_DEVICE const unsigned char *ts_hip_async_src(const ts_gl *g, int bytes, long long b, long long h,
                                                long long r, long long c) {
    if (b < 0 || b >= g->batch || h < 0 || h >= g->heads || r < 0 || r >= g->rows || c < 0 ||
        c >= g->cols)
        return NULL;
    return (const unsigned char *)g->ptr + ts_gl_offset(g, b, h, r, c) * bytes;
}

TS_DEVICE void ts_async_load_unchecked_raw(void *st, ts_st_desc sd, const ts_async_desc *d, int b, int h,
                                           int tile_row, int tile_col, ts_tbar *bar) {
    const ts_gl *g = &d->gl;
    const int bytes = TS_DTYPE_BYTES(sd.dtype);
    const int per = 8 / bytes;
    const int units_per_row = sd.cols / per;
    const long long r0 = (long long)tile_row * sd.rows, c0 = (long long)tile_col * sd.cols;
    for (int u = ts_lane_id(); u < sd.rows * units_per_row; u += TS_WARP_LANES) {
        const int r = u / units_per_row, c = (u % units_per_row) * per;
        unsigned long long v = 0;
        const unsigned char *first = ts_hip_async_src(g, bytes, b, h, r0 + r, c0 + c);
        if (first && ts_hip_async_src(g, bytes, b, h, r0 + r, c0 + c + per - 1)) {
            v = *(const unsigned long long *)first;
        } else {
            for (int j = 0; j < per; ++j) {
                const unsigned char *e = ts_hip_async_src(g, bytes, b, h, r0 + r, c0 + c + j);
                if (e) memcpy((unsigned char *)&v + j * bytes, e, (size_t)bytes);
            }
        }
        *(unsigned long long *)((unsigned char *)st + (long long)ts_st_index(sd, r, c) * bytes) = v;
    }
    ts_tbar_complete_bytes(bar, (unsigned)(sd.rows * sd.cols * bytes));
}

TS_DEVICE void ts_async_store_unchecked_raw(const ts_async_desc *d, const void *st, ts_st_desc sd, int b, int h,
                                            int tile_row, int tile_col) {
    const ts_gl *g = &d->gl;
    const int bytes = TS_DTYPE_BYTES(sd.dtype);
    const int per = 8 / bytes;
    const int units_per_row = sd.cols / per;
    const long long r0 = (long long)tile_row * sd.rows, c0 = (long long)tile_col * sd.cols;
    for (int u = ts_lane_id(); u < sd.rows * units_per_row; u += TS_WARP_LANES) {
        const int r = u / units_per_row, c = (u % units_per_row) * per;
        const unsigned long long v =
            *(const unsigned long long *)((const unsigned char *)st + (long long)ts_st_index(sd, r, c) * bytes);
        unsigned char *first = (unsigned char *)ts_hip_async_src(g, bytes, b, h, r0 + r, c0 + c);
        if (first && ts_hip_async_src(g, bytes, b, h, r0 + r, c0 + c + per - 1)) {
            *(unsigned long long *)first = v;
        } else {
            for (int j = 0; j < per; ++j) {
                unsigned char *e = (unsigned char *)ts_hip_async_src(g, bytes, b, h, r0 + r, c0 + c + j);
                if (e) memcpy(e, (const unsigned char *)&v + j * bytes, (size_t)bytes);
            }
        }
    }
}
/* The add form of the store (fp32 tiles): each lane adds its elements with device-wide atomics. */
TS_DEVICE void ts_async_store_add_unchecked_raw(const ts_async_desc *d, const void *st, ts_st_desc sd, int b, int h,
                                                int tile_row, int tile_col) {
    const long long r0 = (long long)tile_row * sd.rows, c0 = (long long)tile_col * sd.cols;
    if (sd.dtype != TS_DTYPE_F32) {
        ts_fail_launch(TS_ERROR_INVALID_VALUE);
        return;
    }
    for (int u = ts_lane_id(); u < sd.rows * sd.cols; u += TS_WARP_LANES) {
        const int r = u / sd.cols, c = u % sd.cols;
        float *dst = (float *)(void *)ts_hip_async_src(&d->gl, 4, b, h, r0 + r, c0 + c);
        if (dst) ts_lane_atomic_add_f32(dst, ((const float *)st)[ts_st_index(sd, r, c)]);
    }
}
#define ts_async_check_raw ts_hip_async_check

/* The wave's stores are ordinary and done when the store returns; shared memory has no second
 * proxy to fence for. */
TS_DEVICE void ts_async_store_commit(void) {}
TS_DEVICE void ts_async_store_wait_read(void) {}
TS_DEVICE void ts_async_store_wait_read_but_last(void) {}
TS_DEVICE void ts_async_store_wait(void) {}
TS_DEVICE void ts_async_fence_shared(void) {}

#endif
