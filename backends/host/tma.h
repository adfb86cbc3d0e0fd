/* Tile copies between global memory and shared tiles on the host backend, with TMA's rules so that
 * a kernel's copy protocol is exercised in CI: elements outside the matrix load as zeros and are
 * skipped on store, and a load completes the whole tile's bytes on the barrier (TMA counts
 * zero-filled bytes). The warp thread copies element by element into the swizzled layout. The
 * descriptor is the global layout and the tile shape; a tile of another shape or dtype is a
 * contract violation that ends the launch with TS_ERROR_INVALID_VALUE. */
#ifndef TESSERA_BACKENDS_HOST_TMA_H
#define TESSERA_BACKENDS_HOST_TMA_H

#include <string.h>

#include "backends/host/backend.h"
#include "backends/lane_ops.h"
#include "tiles/global_layout.h"
#include "tiles/shared_tile.h"

typedef struct ts_async_desc {
    ts_gl gl;
    int tile_rows, tile_cols, dtype, reserved;
} ts_async_desc;

TS_DEVICE void ts_host_async_check(const ts_async_desc *d, ts_st_desc sd) {
    if (d->tile_rows != sd.rows || d->tile_cols != sd.cols || d->dtype != sd.dtype)
        ts_host_fail(TS_ERROR_INVALID_VALUE);
}

/* Address of global element (b, h, r, c), or NULL when it lies outside the matrix. */
TS_DEVICE unsigned char *ts_host_async_elem(const ts_gl *g, int bytes, long long b, long long h,
                                            long long r, long long c) {
    if (b < 0 || b >= g->batch || h < 0 || h >= g->heads || r < 0 || r >= g->rows || c < 0 ||
        c >= g->cols)
        return NULL;
    return (unsigned char *)g->ptr + ts_gl_offset(g, b, h, r, c) * bytes;
}

TS_DEVICE void ts_async_load_unchecked_raw(void *st, ts_st_desc sd, const ts_async_desc *d, int b, int h,
                                           int tile_row, int tile_col, ts_tbar *bar) {
    const int bytes = TS_DTYPE_BYTES(sd.dtype);
    const long long r0 = (long long)tile_row * sd.rows, c0 = (long long)tile_col * sd.cols;
    for (int r = 0; r < sd.rows; ++r)
        for (int c = 0; c < sd.cols; ++c) {
            unsigned char *dst = (unsigned char *)st + (long long)ts_st_index(sd, r, c) * bytes;
            const unsigned char *src = ts_host_async_elem(&d->gl, bytes, b, h, r0 + r, c0 + c);
            if (src)
                memcpy(dst, src, (size_t)bytes);
            else
                memset(dst, 0, (size_t)bytes);
        }
    ts_tbar_complete_bytes(bar, (unsigned)(sd.rows * sd.cols * bytes));
}

/* The cluster's form (backends/cluster.h), as Hopper's multicast: every block of the cluster calls
 * it for the same tile, block r copies the tile's column chunks r, r + size, ... (chunks of the
 * GPU's swizzle width: 128 bytes of a row where the row holds whole ones, else the row) into every
 * block's tile at st's place and completes those bytes on every block's barrier at bar's place.
 * Each block's barrier so receives the whole tile, in parts from several blocks, and a block of
 * a rank past the chunks copies nothing (Hopper's 128-byte rows are one chunk). */
TS_DEVICE void ts_host_async_load_cluster(void *st, ts_st_desc sd, const ts_async_desc *d, int b, int h,
                                          int tile_row, int tile_col, ts_tbar *bar) {
    const int bytes = TS_DTYPE_BYTES(sd.dtype), row_bytes = sd.cols * bytes;
    const int chunk_cols = (row_bytes % 128 == 0 ? 128 : row_bytes) / bytes;
    const int rank = ts_host_current->cluster_rank, size = ts_host_current->cluster_size;
    const long long r0 = (long long)tile_row * sd.rows, c0 = (long long)tile_col * sd.cols;
    for (int to = 0; to < size; ++to) {
        unsigned char *tile = (unsigned char *)ts_host_cluster_map(st, to);
        unsigned landed = 0;
        for (int chunk = rank; chunk < sd.cols / chunk_cols; chunk += size) {
            for (int r = 0; r < sd.rows; ++r)
                for (int c = chunk * chunk_cols; c < (chunk + 1) * chunk_cols; ++c) {
                    unsigned char *dst = tile + (long long)ts_st_index(sd, r, c) * bytes;
                    const unsigned char *src = ts_host_async_elem(&d->gl, bytes, b, h, r0 + r, c0 + c);
                    if (src)
                        memcpy(dst, src, (size_t)bytes);
                    else
                        memset(dst, 0, (size_t)bytes);
                }
            landed += (unsigned)(sd.rows * chunk_cols * bytes);
        }
        if (landed) ts_tbar_complete_bytes((ts_tbar *)ts_host_cluster_map(bar, to), landed);
    }
}
#define ts_async_load_cluster_unchecked_raw ts_host_async_load_cluster

TS_DEVICE void ts_async_store_unchecked_raw(const ts_async_desc *d, const void *st, ts_st_desc sd, int b, int h,
                                            int tile_row, int tile_col) {
    const int bytes = TS_DTYPE_BYTES(sd.dtype);
    const long long r0 = (long long)tile_row * sd.rows, c0 = (long long)tile_col * sd.cols;
    for (int r = 0; r < sd.rows; ++r)
        for (int c = 0; c < sd.cols; ++c) {
            unsigned char *dst = ts_host_async_elem(&d->gl, bytes, b, h, r0 + r, c0 + c);
            if (dst)
                memcpy(dst, (const unsigned char *)st + (long long)ts_st_index(sd, r, c) * bytes,
                       (size_t)bytes);
        }
}
/* The add form of the store (fp32 tiles): each element added into global memory atomically, as
 * TMA's reduce-add does in L2, since the blocks of a launch run on several threads. */
TS_DEVICE void ts_async_store_add_unchecked_raw(const ts_async_desc *d, const void *st, ts_st_desc sd, int b, int h,
                                                int tile_row, int tile_col) {
    if (sd.dtype != TS_DTYPE_F32) {
        ts_fail_launch(TS_ERROR_INVALID_VALUE);
        return;
    }
    const long long r0 = (long long)tile_row * sd.rows, c0 = (long long)tile_col * sd.cols;
    for (int r = 0; r < sd.rows; ++r)
        for (int c = 0; c < sd.cols; ++c) {
            float *dst = (float *)(void *)ts_host_async_elem(&d->gl, 4, b, h, r0 + r, c0 + c);
            if (dst) ts_lane_atomic_add_f32(dst, ((const float *)st)[ts_st_index(sd, r, c)]);
        }
}
#define ts_async_check_raw ts_host_async_check

/* Stores are done when they return; there is no second proxy to fence for. */
TS_DEVICE void ts_async_store_commit(void) {}
TS_DEVICE void ts_async_store_wait_read(void) {}
TS_DEVICE void ts_async_store_wait_read_but_last(void) {}
TS_DEVICE void ts_async_store_wait(void) {}
TS_DEVICE void ts_async_fence_shared(void) { ts_fence_block(); }

#endif
