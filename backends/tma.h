/* Selects the asynchronous tile copies of the backend being built (TMA on Hopper, a copying wave on
 * CDNA, the warp thread on the host), and declares the host function that makes their descriptor.
 * Every backend provides ts_async_desc, ts_async_check_raw (traps where a tile is not the
 * descriptor's), ts_async_load_unchecked_raw, ts_async_store_unchecked_raw, ts_async_store_commit,
 * ts_async_store_wait_read, ts_async_store_wait and ts_async_fence_shared, and may provide
 * ts_async_load_cluster_unchecked_raw and ts_async_prefetch_desc (defaults below); the checked
 * copies are defined here once,
 * and ops/tma.h puts tile types on them. */
#ifndef TESSERA_BACKENDS_TMA_H
#define TESSERA_BACKENDS_TMA_H

#include <stdint.h>

#include <tessera/tessera.h>

#include "backends/backend.h"

#if defined(TESSERA_BACKEND_CUDA)
#include "backends/cuda/tma.h"
#elif defined(TESSERA_BACKEND_HIP)
#include "backends/hip/tma.h"
#else
#include "backends/host/tma.h"
#endif

/* Clusters of one block (every backend but CUDA): the cluster load is the plain load. */
#ifndef ts_async_load_cluster_unchecked_raw
#define ts_async_load_cluster_unchecked_raw ts_async_load_unchecked_raw
#endif

/* A descriptor fetched ahead of its first copy (CUDA's tensor maps); elsewhere descriptors are
 * plain structs read where they are used. */
#ifndef ts_async_prefetch_desc
TS_DEVICE void ts_async_prefetch_desc(const ts_async_desc *d) { (void)d; }
#endif

/* The copies with the check of the tile against the descriptor. */
TS_DEVICE void ts_async_load_raw(void *st, ts_st_desc sd, const ts_async_desc *d, int b, int h, int tile_row,
                                 int tile_col, ts_tbar *bar) {
    ts_async_check_raw(d, sd);
    ts_async_load_unchecked_raw(st, sd, d, b, h, tile_row, tile_col, bar);
}
TS_DEVICE void ts_async_load_cluster_raw(void *st, ts_st_desc sd, const ts_async_desc *d, int b, int h,
                                         int tile_row, int tile_col, ts_tbar *bar) {
    ts_async_check_raw(d, sd);
    ts_async_load_cluster_unchecked_raw(st, sd, d, b, h, tile_row, tile_col, bar);
}
TS_DEVICE void ts_async_store_raw(const ts_async_desc *d, const void *st, ts_st_desc sd, int b, int h, int tile_row,
                                  int tile_col) {
    ts_async_check_raw(d, sd);
    ts_async_store_unchecked_raw(d, st, sd, b, h, tile_row, tile_col);
}

TS_DEVICE void ts_async_store_add_raw(const ts_async_desc *d, const void *st, ts_st_desc sd, int b, int h,
                                      int tile_row, int tile_col) {
    ts_async_check_raw(d, sd);
    ts_async_store_add_unchecked_raw(d, st, sd, b, h, tile_row, tile_col);
}

/* Largest tile side a descriptor moves (TMA's box limit), and the bound on coordinates (TMA's are
 * signed 32-bit). */
#define TS_ASYNC_MAX_TILE_ROWS 256
#define TS_ASYNC_MAX_DIM 2147483647LL
/* Byte strides below this (TMA's limit). */
#define TS_ASYNC_MAX_STRIDE_BYTES (1LL << 40)

/* The argument checks every backend makes before it builds a descriptor (host code), so that a
 * kernel source that works on one backend is accepted on all: NULL pointers, dtypes, tile shapes,
 * dimensions, 16-byte alignment of the base and of the strides of every dimension that has more
 * than one index (TMA's rule), overflow. */
static inline ts_status ts_async_desc_check(const ts_async_desc *d, const ts_gl *g, int tile_rows,
                                            int tile_cols, int dtype) {
    if (d == NULL || g == NULL || g->ptr == NULL) return TS_ERROR_NULL_POINTER;
    if (dtype != TS_DTYPE_F32 && dtype != TS_DTYPE_BF16 && dtype != TS_DTYPE_FP16)
        return TS_ERROR_INVALID_ENUM;
    if (g->dtype != dtype) return TS_ERROR_INVALID_VALUE;
    if (tile_rows <= 0 || tile_cols <= 0 || tile_rows % 16 != 0 || tile_cols % 16 != 0 ||
        tile_rows > TS_ASYNC_MAX_TILE_ROWS)
        return TS_ERROR_INVALID_SIZE;
    if (g->batch < 1 || g->heads < 1 || g->rows < 1 || g->cols < 1) return TS_ERROR_INVALID_SIZE;
    if (g->batch > TS_ASYNC_MAX_DIM || g->heads > TS_ASYNC_MAX_DIM || g->rows > TS_ASYNC_MAX_DIM ||
        g->cols > TS_ASYNC_MAX_DIM)
        return TS_ERROR_SIZE_OVERFLOW;
    const long long bytes = TS_DTYPE_BYTES(dtype);
    if ((uintptr_t)g->ptr % 16 != 0) return TS_ERROR_MISALIGNED;
    const long long strides[3] = {g->stride_row, g->stride_head, g->stride_batch};
    const long long extents[3] = {g->rows, g->heads, g->batch};
    for (int i = 0; i < 3; ++i) {
        if (extents[i] == 1) continue;
        if (strides[i] < 1) return TS_ERROR_INVALID_VALUE;
        if (strides[i] >= TS_ASYNC_MAX_STRIDE_BYTES / bytes) return TS_ERROR_SIZE_OVERFLOW;
        if (strides[i] * bytes % 16 != 0) return TS_ERROR_MISALIGNED;
    }
    if (g->rows > 1 && g->stride_row < g->cols) return TS_ERROR_INVALID_VALUE;
    return TS_SUCCESS;
}

#ifdef __cplusplus
extern "C" {
#endif

/* Makes the descriptor that ts_async_load / ts_async_store use to move tiles of tile_rows x
 * tile_cols elements of dtype between g and shared tiles of that shape. Host code, before the
 * launch; the descriptor then travels in the kernel's parameter struct. Statuses:
 * TS_ERROR_NULL_POINTER (d, g or g->ptr), TS_ERROR_INVALID_ENUM (dtype), TS_ERROR_INVALID_VALUE
 * (g's dtype differs, strides overlap or are negative), TS_ERROR_INVALID_SIZE (a dimension below
 * 1, tile sides not multiples of 16 or above 256), TS_ERROR_SIZE_OVERFLOW (dimensions beyond
 * 2^31 - 1, strides beyond 2^40 bytes), TS_ERROR_MISALIGNED (a base or stride not a multiple of
 * 16 bytes); on CUDA also TS_ERROR_NO_DEVICE (no driver) and TS_ERROR_UNSUPPORTED (the driver
 * lacks cuTensorMapEncodeTiled). The arguments are checked before any driver call. */
ts_status ts_async_desc_make(ts_async_desc *d, const ts_gl *g, int tile_rows, int tile_cols,
                             int dtype);

#ifdef __cplusplus
}
#endif

#endif
