/* Tile copies between global memory and shared tiles through the Hopper tensor memory accelerator
 * (TMA). The descriptor holds a tensor map made on the host (backends/cuda/tma_host.c) whose box is
 * one column chunk of the tile, tile rows x sw bytes with the chunk's swizzle, so TMA writes each
 * chunk exactly where ts_cuda_st_offset puts it; a tile takes one copy per chunk, issued by one
 * lane of the calling warp. Out-of-bounds elements load as zeros and are skipped on store; the
 * hardware counts a zero-filled element as a landed byte, so a load always completes
 * TS_ST_DATA_BYTES of the tile on the barrier, at a ragged edge too.
 *
 * The tensor map must be read by TMA where the host put it: inside the kernel's parameters (a
 * __grid_constant__ struct, as TS_KERNEL passes it), never a local copy. */
#ifndef TESSERA_BACKENDS_CUDA_TMA_H
#define TESSERA_BACKENDS_CUDA_TMA_H

#include "backends/cuda/backend.h"
#include "backends/cuda/shared_layout.h"
#include "tiles/global_layout.h"
#include "tiles/shared_tile.h"

/* CUtensorMap without including the driver header in kernel code: 128 opaque bytes, 64-aligned. */
typedef struct TS_ALIGNED(64) ts_cuda_tensor_map {
    unsigned long long opaque[16];
} ts_cuda_tensor_map;

/* The tensor map, the global layout it was made from, and the tile it moves. */
typedef struct TS_ALIGNED(64) ts_async_desc {
    ts_cuda_tensor_map map;
    ts_gl gl;
    int tile_rows, tile_cols, dtype, chunk_cols;
} ts_async_desc;

/* A tile of another shape or dtype than the map's box would land garbled: that traps. Every lane
 * of the issuing warp checks (the descriptor lives in the kernel parameters, so the branch is
 * uniform): a trap on a path that only lane 0 takes counts as divergent, and ptxas then serializes
 * every warpgroup multiply of a kernel whose consumers issue a copy (C7520). */
TS_DEVICE void ts_cuda_tma_check(const ts_async_desc *d, ts_st_desc sd) {
    if (d->tile_rows != sd.rows || d->tile_cols != sd.cols || d->dtype != sd.dtype) __trap();
}

/* Issues column chunks first, first + step, ... of tile (tile_row, tile_col) of matrix (b, h) into
 * st, completing on bar; with a nonzero cta_mask each chunk is multicast to those blocks of the
 * cluster (same shared-memory offsets, each block's barrier at bar's offset). Lane 0 only. */
TS_DEVICE void ts_tma_load_chunks(void *st, ts_st_desc sd, const ts_async_desc *d, int b, int h, int tile_row,
                                  int tile_col, ts_tbar *bar, int first, int step, unsigned short cta_mask) {
    const int bytes = TS_DTYPE_BYTES(sd.dtype);
    const int sw = ts_cuda_st_swizzle_bytes(sd.cols * bytes);
    const int chunk_cols = sw / bytes;
    const unsigned dst = ts_cuda_smem_addr(st), mbar = ts_cuda_smem_addr(bar);
    const unsigned long long map = (unsigned long long)(const void *)&d->map;
    const int row = tile_row * sd.rows;
    for (int c = first; c < sd.cols / chunk_cols; c += step) {
        const unsigned chunk_dst = dst + (unsigned)(c * sd.rows * sw);
        const int col = tile_col * sd.cols + c * chunk_cols;
        if (cta_mask)
            asm volatile("cp.async.bulk.tensor.4d.shared::cluster.global.mbarrier::complete_tx::bytes"
                         ".multicast::cluster [%0], [%1, {%2, %3, %4, %5}], [%6], %7;\n" ::"r"(chunk_dst),
                         "l"(map), "r"(col), "r"(row), "r"(h), "r"(b), "r"(mbar), "h"(cta_mask)
                         : "memory");
        else
            asm volatile("cp.async.bulk.tensor.4d.shared::cluster.global.mbarrier::complete_tx::bytes "
                         "[%0], [%1, {%2, %3, %4, %5}], [%6];\n" ::"r"(chunk_dst),
                         "l"(map), "r"(col), "r"(row), "r"(h), "r"(b), "r"(mbar)
                         : "memory");
    }
}

/* Starts loading tile (tile_row, tile_col) of matrix (b, h) into st; the bytes complete on bar,
 * whose phase the kernel must have announced them to (ts_tbar_expect_bytes, the full tile). */
TS_DEVICE void ts_tma_load_async_unchecked(void *st, ts_st_desc sd, const ts_async_desc *d, int b, int h,
                                           int tile_row, int tile_col, ts_tbar *bar) {
    __syncwarp();
    if (ts_lane_id() == 0) ts_tma_load_chunks(st, sd, d, b, h, tile_row, tile_col, bar, 0, 1, 0);
}

/* The cluster's form of ts_tma_load_async (backends/cluster.h): every block of the cluster calls it
 * for the same tile; block r issues the column chunks r, r + size, ... and multicasts each to every
 * block, at the same shared-memory offsets and completing on each block's barrier at bar's offset.
 * Each block's bar therefore receives the whole tile's bytes, as from ts_tma_load_async. */
TS_DEVICE void ts_tma_load_cluster_async_unchecked(void *st, ts_st_desc sd, const ts_async_desc *d, int b, int h,
                                                   int tile_row, int tile_col, ts_tbar *bar) {
    uint32_t size, rank;
    asm volatile("mov.u32 %0, %%cluster_nctarank;" : "=r"(size));
    asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
    __syncwarp();
    if (ts_lane_id() == 0)
        ts_tma_load_chunks(st, sd, d, b, h, tile_row, tile_col, bar, (int)rank, (int)size,
                           size == 1 ? (unsigned short)0 : (unsigned short)((1u << size) - 1u));
}

/* Starts storing st to tile (tile_row, tile_col) of matrix (b, h), or with add, adding it to the
 * tile (fp32: TMA's reduce-add, atomic per element in L2); elements outside the matrix are not
 * written. st must not change until ts_tma_store_wait_read() (or _wait) returns. */
TS_DEVICE void ts_tma_store_chunks(const ts_async_desc *d, const void *st, ts_st_desc sd, int b, int h, int tile_row,
                                   int tile_col, int add) {
    __syncwarp();
    if (ts_lane_id() == 0) {
        const int bytes = TS_DTYPE_BYTES(sd.dtype);
        const int sw = ts_cuda_st_swizzle_bytes(sd.cols * bytes);
        const int chunk_cols = sw / bytes;
        const unsigned src = ts_cuda_smem_addr(st);
        const unsigned long long map = (unsigned long long)(const void *)&d->map;
        const int row = tile_row * sd.rows;
/* One chunk's copy; the instruction's name is a literal, so each form is its own asm. */
#define TS_TMA_STORE_CHUNK(instruction)                                                            \
    asm volatile(instruction " [%0, {%1, %2, %3, %4}], [%5];\n" ::"l"(map), "r"(tile_col * sd.cols + c * chunk_cols), \
                 "r"(row), "r"(h), "r"(b), "r"(src + (unsigned)(c * sd.rows * sw))                  \
                 : "memory")
        for (int c = 0; c < sd.cols / chunk_cols; ++c) {
            if (add)
                TS_TMA_STORE_CHUNK("cp.reduce.async.bulk.tensor.4d.global.shared::cta.add.tile.bulk_group");
            else
                TS_TMA_STORE_CHUNK("cp.async.bulk.tensor.4d.global.shared::cta.bulk_group");
        }
#undef TS_TMA_STORE_CHUNK
    }
}
TS_DEVICE void ts_tma_store_async_unchecked(const ts_async_desc *d, const void *st, ts_st_desc sd, int b, int h,
                                            int tile_row, int tile_col) {
    ts_tma_store_chunks(d, st, sd, b, h, tile_row, tile_col, 0);
}
TS_DEVICE void ts_tma_store_add_async_unchecked(const ts_async_desc *d, const void *st, ts_st_desc sd, int b, int h,
                                                int tile_row, int tile_col) {
    ts_tma_store_chunks(d, st, sd, b, h, tile_row, tile_col, 1);
}

/* Bulk groups belong to the thread that issued them: lane 0 of the warp that stored. */
TS_DEVICE void ts_tma_store_commit(void) {
    if (ts_lane_id() == 0) asm volatile("cp.async.bulk.commit_group;\n" ::: "memory");
}

/* Waits until the committed stores have read their shared tiles (the tiles may be reused). */
TS_DEVICE void ts_tma_store_wait_read(void) {
    if (ts_lane_id() == 0) asm volatile("cp.async.bulk.wait_group.read 0;\n" ::: "memory");
    __syncwarp();
}

/* The same, for all but the most recent group: its tile stays in use (double buffering). */
TS_DEVICE void ts_tma_store_wait_read_but_last(void) {
    if (ts_lane_id() == 0) asm volatile("cp.async.bulk.wait_group.read 1;\n" ::: "memory");
    __syncwarp();
}

/* Waits until the committed stores are complete in global memory. */
TS_DEVICE void ts_tma_store_wait(void) {
    if (ts_lane_id() == 0) asm volatile("cp.async.bulk.wait_group 0;\n" ::: "memory");
    __syncwarp();
}

/* Shared memory written with ordinary stores is read by TMA and wgmma through the async proxy:
 * each writing thread fences its writes to that proxy before the barrier that precedes the
 * store or the multiply. */
TS_DEVICE void ts_tma_fence_shared(void) { asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory"); }

/* Fetches a tensor map into the copy engine's cache ahead of its first copy, which would otherwise
 * wait for it. */
TS_DEVICE void ts_tma_prefetch_desc(const ts_async_desc *d) {
    asm volatile("prefetch.tensormap [%0];\n" ::"l"((unsigned long long)(const void *)&d->map) : "memory");
}

/* The backend-neutral names ops/tma.h uses. */
#define ts_async_load_unchecked_raw ts_tma_load_async_unchecked
#define ts_async_load_cluster_unchecked_raw ts_tma_load_cluster_async_unchecked
#define ts_async_store_unchecked_raw ts_tma_store_async_unchecked
#define ts_async_store_add_unchecked_raw ts_tma_store_add_async_unchecked
#define ts_async_check_raw ts_cuda_tma_check
#define ts_async_store_commit ts_tma_store_commit
#define ts_async_store_wait_read ts_tma_store_wait_read
#define ts_async_store_wait_read_but_last ts_tma_store_wait_read_but_last
#define ts_async_store_wait ts_tma_store_wait
#define ts_async_fence_shared ts_tma_fence_shared
#define ts_async_prefetch_desc ts_tma_prefetch_desc

#endif
