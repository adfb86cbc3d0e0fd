/* The backend-free part of the row-wise kernels' launch plan (templates/rowwise.h): the slice
 * length, the plan a family's launcher reads, and the conditions of the whole instance
 * (rowwise_instances.h). Plain C with no backend header, so that the tests can check the
 * conditions on every backend. */
#ifndef TESSERA_TEMPLATES_ROWWISE_PLAN_H
#define TESSERA_TEMPLATES_ROWWISE_PLAN_H

#include <stddef.h>
#include <stdint.h>

#include <tessera/tessera.h>

/* Elements of a row one warp holds: a slice. */
#define TS_ROWWISE_E 1024

static inline int ts_rowwise_dtype_bytes(ts_dtype t) { return t == TS_DTYPE_F32 ? 4 : 2; }

typedef struct ts_rowwise_plan {
    int warps_per_row; /* W */
    int warps;         /* per block: G * W */
    int one_pass;      /* 1: the short instance, a block per row group, no loop; 0: the general one */
    int whole;         /* 1 (with one_pass): the whole instance, where the family allows it (ts_rowwise_plan_whole) */
    unsigned grid;     /* blocks: every row group in one pass, else capped at TS_ROWWISE_BLOCKS_PER_SM per SM */
    size_t shared_bytes;
} ts_rowwise_plan;

/* A matrix the whole instance may take: 16-byte aligned, and so is each row (NULL: absent, no bar). */
static inline int ts_rowwise_aligned16(const void *ptr, ts_dtype dtype, long long stride) {
    return !ptr || ((uintptr_t)ptr | (uintptr_t)(stride * ts_rowwise_dtype_bytes(dtype))) % 16u == 0;
}

/* Where a one-pass plan may run a family's whole instance (rowwise_instances.h): every row group of
 * every block exists and every warp's slice is whole; the family adds that each matrix is
 * ts_rowwise_aligned16, and sets plan->whole. */
static inline int ts_rowwise_plan_whole(long long rows, int cols, const ts_rowwise_plan *plan) {
    return plan->one_pass && cols % TS_ROWWISE_E == 0 && rows % (plan->warps / plan->warps_per_row) == 0;
}

/* Rows the rows instances take (a strip of wide rows, ops/warp_vector.h; the norms' and softmax's
 * rows instances, templates/rowwise_rows.h): rows of whole chunks of every lane (a multiple of
 * 8 elements a lane of `lanes`), so that each chunk of a lane lies in one row, and either with fewer
 * bytes than a 16-bit slice, which such a row alone in a warp would leave short of a slice's loads
 * (several a strip), or 16-bit with between one and two slices' bytes (16-bit rows of 1280, 1536 and
 * 1792 on CUDA, 1536 on HIP), which a plan of a slice a warp spreads over two warps, the second one
 * partly empty (one a strip). Returns the chunks a lane holds of such a row, else 0. */
static inline int ts_rowwise_row_chunks(int cols, int dtype_bytes, int lanes) {
    const long long bytes = (long long)cols * dtype_bytes, slice = 2LL * TS_ROWWISE_E;
    const int f32_512 = dtype_bytes == 4 && bytes == slice;
    if (cols % (8 * lanes) != 0 || !(bytes < slice || f32_512 || (dtype_bytes == 2 && bytes > slice && bytes < 2 * slice)))
        return 0;
    return cols / (8 * lanes);
}

/* The longest row a long-row instance holds at `lanes` lanes: two slices less one chunk of every
 * lane (1792 columns on CUDA, 1536 on HIP). */
#define TS_ROWWISE_LONG_ROW_COLS(lanes) (2 * TS_ROWWISE_E - 8 * (lanes))
/* The longest row a narrow long-row instance holds: a slice and one chunk of every lane (1280
 * columns on CUDA, 1032 on the host; on HIP it is TS_ROWWISE_LONG_ROW_COLS, and there are none). */
#define TS_ROWWISE_LONG_ROW_NARROW_COLS(lanes) (TS_ROWWISE_E + 8 * (lanes))
/* The longest row a middle long-row instance holds: a slice and two chunks of every lane (1536
 * columns on CUDA, 1040 on the host; on HIP more than TS_ROWWISE_LONG_ROW_COLS, and there are none). */
#define TS_ROWWISE_LONG_ROW_MID_COLS(lanes) (TS_ROWWISE_E + 16 * (lanes))

/* 16-bit rows a family's long-row instance takes (templates/rowwise_long_row.h), a row a warp:
 * whole chunks, longer than a slice and at most TS_ROWWISE_LONG_ROW_COLS, which the plan of a slice
 * a warp would spread over two warps, the second partly empty. */
static inline int ts_rowwise_long_row(int cols, int dtype_bytes, int lanes) {
    return dtype_bytes == 2 && cols % 8 == 0 && cols > TS_ROWWISE_E && cols <= TS_ROWWISE_LONG_ROW_COLS(lanes);
}

/* 16-bit rows the rows instances may take as quad rows instead (the split layout's accesses as the
 * unit of a row, ops/warp_vector.h: TS_WV_ROWS_QUADS): fewer bytes than a slice, whole quad rows of
 * `lanes` (a multiple of 4 elements a lane) but not whole chunks: 384, 640 and 896 columns on CUDA,
 * 256 and 768 on HIP. Returns the quad rows of such a row, else 0. */
static inline int ts_rowwise_row_quads(int cols, int dtype_bytes, int lanes) {
    if (dtype_bytes != 2 || cols % (4 * lanes) != 0 || cols % (8 * lanes) == 0 || cols >= TS_ROWWISE_E) return 0;
    return cols / (4 * lanes);
}

#endif
