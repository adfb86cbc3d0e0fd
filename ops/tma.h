/* Asynchronous tile copies between global memory and shared tiles, completing on a transaction
 * barrier; the same kernel source runs on every backend:
 *
 *   host, before the launch:
 *     ts_async_desc_make(&params.a, &gl, TILE_ROWS, TILE_COLS, dtype)   one per operand
 *   kernel (one warp issues; ts_async_desc lives in the kernel's parameter struct):
 *     ts_tbar_expect_bytes(bar, TS_ASYNC_BYTES(st) [+ other tiles of the phase]);
 *     ts_async_load(st, &params->a, b, h, tile_row, tile_col, bar);
 *     ... every consumer: ts_tbar_wait(bar, phase_parity);
 *
 *     writers of st with ordinary stores: ts_async_fence_shared(); then a barrier; then one warp:
 *     ts_async_store(&params->c, st, b, h, tile_row, tile_col);
 *     ts_async_store_commit();
 *     ts_async_store_wait_read();   st may be overwritten;  ts_async_store_wait(): written to global
 *     (ts_async_store_add: the same, adding an fp32 tile into global memory)
 *
 * Coordinates are in tile units of the shared tile's shape, which must be the descriptor's.
 * Elements outside the matrix load as zeros and are never stored. A load always lands the full
 * tile, TS_ASYNC_BYTES(st), on the barrier, at ragged edges too (TMA counts the zero-filled
 * bytes), so the bytes a kernel announces do not depend on where the tile sits.
 *
 * Hopper: TMA (cp.async.bulk.tensor), one copy per 128-byte column chunk of the tile. CDNA and the
 * host: the calling warp copies with the same bounds rules, then completes the bytes. */
#ifndef TESSERA_OPS_TMA_H
#define TESSERA_OPS_TMA_H

#include "backends/tma.h"
#include "tiles/global_layout.h"
#include "tiles/shared_tile.h"

/* The bytes one ts_async_load of st completes on its barrier. */
#define TS_ASYNC_BYTES(st) ((unsigned)TS_ST_DATA_BYTES(st))

#define ts_async_load(st, desc, b, h, tile_row, tile_col, bar)                                     \
    ts_async_load_raw(TS_ST_DATA(st), TS_ST_DESC(st), (desc), (b), (h), (tile_row), (tile_col),  \
                      (bar))

/* Every block of a thread-block cluster (backends/cluster.h) calls this for the same tile: each
 * issues a share of it and multicasts, so the tile crosses from L2 once, and each block's st and
 * bar receive the whole tile as from ts_async_load. A cluster of one block: ts_async_load. Every
 * block's bar must be initialised and visible to the others first (ts_cluster_sync), and each
 * block must announce TS_ASYNC_BYTES(st) on its own bar. */
#define ts_async_load_cluster(st, desc, b, h, tile_row, tile_col, bar)                             \
    ts_async_load_cluster_raw(TS_ST_DATA(st), TS_ST_DESC(st), (desc), (b), (h), (tile_row),      \
                              (tile_col), (bar))

#define ts_async_store(desc, st, b, h, tile_row, tile_col)                                         \
    ts_async_store_raw((desc), TS_ST_CDATA(st), TS_ST_DESC(st), (b), (h), (tile_row), (tile_col))

/* The same protocol, adding an fp32 tile into global memory instead of overwriting it: each
 * element's add is atomic (TMA's reduce-add on Hopper), so tiles of several warps or blocks may
 * overlap; the order of their adds, and so the sums' last bits, is the hardware's. */
#define ts_async_store_add(desc, st, b, h, tile_row, tile_col)                                     \
    do {                                                                                           \
        TS_STATIC_ASSERT(TS_ST_DTYPE(st) == TS_DTYPE_F32, "ts_async_store_add adds fp32 tiles");    \
        ts_async_store_add_raw((desc), TS_ST_CDATA(st), TS_ST_DESC(st), (b), (h), (tile_row), (tile_col)); \
    } while (0)
#define ts_async_store_add_unchecked(desc, st, b, h, tile_row, tile_col)                           \
    do {                                                                                           \
        TS_STATIC_ASSERT(TS_ST_DTYPE(st) == TS_DTYPE_F32, "ts_async_store_add adds fp32 tiles");    \
        ts_async_store_add_unchecked_raw((desc), TS_ST_CDATA(st), TS_ST_DESC(st), (b), (h), (tile_row), \
                                         (tile_col));                                              \
    } while (0)

/* Every copy first checks that the tile is the descriptor's shape and dtype, and traps if not.
 * ts_async_check does only that; the _unchecked copies go without it, after a ts_async_check of
 * the same descriptor and tile: for copies on a latency-critical path (the GEMM producer checks a
 * task's first stage only: on the H200, 4096^3 went from 0.995x to 0.998x of cuBLAS without the
 * per-stage checks; measure it per kernel: the same change made attention's producer 5-7% slower
 * at D = 64, not yet understood), or where no trap may be reached (on Hopper, one trap reachable where more
 * registers were live than the launch's count, 168 at 384 threads, made ptxas allocate the whole
 * kernel within that count rather than the consumers' setmaxnreg budget, and the GEMM's deferred
 * store, results held through the main loop, spilled 400-1000 bytes). */
#define ts_async_check(desc, st) ts_async_check_raw((desc), TS_ST_DESC(st))
#define ts_async_store_unchecked(desc, st, b, h, tile_row, tile_col)                               \
    ts_async_store_unchecked_raw((desc), TS_ST_CDATA(st), TS_ST_DESC(st), (b), (h), (tile_row), (tile_col))
#define ts_async_load_unchecked(st, desc, b, h, tile_row, tile_col, bar)                           \
    ts_async_load_unchecked_raw(TS_ST_DATA(st), TS_ST_DESC(st), (desc), (b), (h), (tile_row), (tile_col), (bar))
#define ts_async_load_cluster_unchecked(st, desc, b, h, tile_row, tile_col, bar)                   \
    ts_async_load_cluster_unchecked_raw(TS_ST_DATA(st), TS_ST_DESC(st), (desc), (b), (h), (tile_row), (tile_col), (bar))

/* ts_async_store_commit(), ts_async_store_wait_read(), ts_async_store_wait_read_but_last() (all
 * but the most recent group have read their tiles: for two tiles used in turn),
 * ts_async_store_wait() and ts_async_fence_shared() come from the backend as they are. */

#endif
