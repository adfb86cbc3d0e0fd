/* Rows of a 16-bit tile gathered from global memory in 16-row blocks, each block from an address of
 * its own, through a warp's registers into a shared tile, with 16-byte accesses:
 *   ts_rows_fetch(stage, blocks, row_stride, rows)   start the warp's 16-byte loads of the tile's
 *                                                    rows into a register stage (ts_rowstage_RxC):
 *                                                    row r from blocks[r / 16] + (r % 16) *
 *                                                    row_stride elements; rows at and past `rows`,
 *                                                    and blocks whose address is NULL, give zeros
 *   ts_rows_put(st, stage)                           the stage into a 16-bit shared tile of the same
 *                                                    shape (then ts_sync_warp before it is read)
 * For data laid out in pages that a table maps, a paged key-value cache above all: each 16-row block
 * is contiguous in a page, but the next block may lie in another page. Splitting the copy in two
 * lets a kernel issue the loads of its next tile before it computes on the current one, so that the
 * loads are in flight meanwhile, and keep only one shared tile (kernels/attention_decode/). The
 * stage is the tile's bits, so it serves bf16 and fp16 alike; a 16-byte unit of 8 elements
 * starting at a multiple of 8 columns is contiguous in every backend's swizzled layout. The
 * addresses and the row stride must keep every 16-byte unit 16-byte aligned. */
#ifndef TESSERA_OPS_ROW_COPY_H
#define TESSERA_OPS_ROW_COPY_H

#include "backends/lane_ops.h"
#include "backends/vector_memory.h"
#include "tiles/shared_tile.h"

/* A warp's 16-byte units of an R x C tile of 16-bit elements, unit q of the tile held by lane
 * q % TS_WARP_LANES: a 16-row block is 2C units, which every backend's lane count divides, so a
 * lane's unit k lies in block (k * lanes) / 2C whatever the lane. */
#define TS_ROWSTAGE_DEFINE(R, C)                                                                   \
    typedef struct ts_rowstage_##R##x##C {                                                         \
        ts_v16 u[(R) * (C) / 8 / TS_WARP_LANES];                                                   \
        unsigned char rows_tag[R];                                                                 \
        unsigned char cols_tag[C];                                                                 \
    } ts_rowstage_##R##x##C
TS_ROWSTAGE_DEFINE(16, 64);
TS_ROWSTAGE_DEFINE(16, 128);
TS_ROWSTAGE_DEFINE(32, 64);
TS_ROWSTAGE_DEFINE(32, 128);

#define TS_ROWSTAGE_ROWS(x) ((int)sizeof((x)->rows_tag))
#define TS_ROWSTAGE_COLS(x) ((int)sizeof((x)->cols_tag))
#define TS_ROWSTAGE_UNITS(x) ((int)(sizeof((x)->u) / sizeof((x)->u[0])))

TS_DEVICE void ts_rows_fetch_impl(ts_v16 *u, int units, int cols, const void *const *blocks, long long row_stride,
                                  int rows) {
    const int lane = ts_lane_id(), per_row = cols / 8;
    TS_UNROLL
    for (int k = 0; k < units; ++k) {
        const int q = k * TS_WARP_LANES + lane, r = q / per_row, c = (q - r * per_row) * 8;
        const unsigned char *block = (const unsigned char *)blocks[(k * TS_WARP_LANES) / (2 * cols)];
        ts_v16 z;
        z.w[0] = z.w[1] = z.w[2] = z.w[3] = 0u;
        u[k] = (block && r < rows) ? ts_load16(block + ((long long)(r & 15) * row_stride + c) * 2) : z;
    }
}

TS_DEVICE void ts_rows_put_impl(void *st, ts_st_desc sd, const ts_v16 *u, int units) {
    const int lane = ts_lane_id(), per_row = sd.cols / 8;
    TS_UNROLL
    for (int k = 0; k < units; ++k) {
        const int q = k * TS_WARP_LANES + lane, r = q / per_row, c = (q - r * per_row) * 8;
        ts_store16((unsigned short *)st + ts_st_index(sd, r, c), u[k]);
    }
}

#define ts_rows_fetch(stage, blocks, row_stride, rows)                                             \
    do {                                                                                           \
        TS_STATIC_ASSERT(TS_ROWSTAGE_ROWS(stage) % 16 == 0 &&                                      \
                             (2 * TS_ROWSTAGE_COLS(stage)) % TS_WARP_LANES == 0,                   \
                         #stage ": whole 16-row blocks of whole lanes' units");                    \
        ts_rows_fetch_impl((stage)->u, TS_ROWSTAGE_UNITS(stage), TS_ROWSTAGE_COLS(stage), (blocks), \
                           (row_stride), (rows));                                                  \
    } while (0)

#define ts_rows_put(dst, stage)                                                                    \
    do {                                                                                           \
        TS_STATIC_ASSERT(TS_ST_ROWS(dst) == TS_ROWSTAGE_ROWS(stage) && TS_ST_COLS(dst) == TS_ROWSTAGE_COLS(stage) && \
                             TS_ST_DTYPE(dst) != TS_DTYPE_F32,                                     \
                         #dst " and " #stage ": a 16-bit shared tile of the stage's shape");       \
        ts_rows_put_impl(TS_ST_DATA(dst), TS_ST_DESC(dst), (stage)->u, TS_ROWSTAGE_UNITS(stage));  \
    } while (0)

#endif
