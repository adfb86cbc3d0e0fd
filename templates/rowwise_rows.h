/* The kernel and launcher of a row-wise family's rows instances: rows shorter than a slice, several
 * to a warp, and rows of one to two slices, one a warp (kernels/norm/norm_rows_variant.h,
 * kernels/softmax/softmax_rows_variant.h). A row of 512 columns alone in a warp fills half of each
 * lane's loads, so the warp has half a one-slice row's bytes in flight, and blocks an SM cannot make
 * up for it; here a warp's strip holds TS_ROWWISE_ROWS_PER_STRIP(cols) rows laid end to end as wide
 * rows (ops/warp_vector.h: TS_WV_ROWS_WIDE), each whole chunks of every lane, so that every chunk of a
 * lane lies in one row (rowwise_plan.h: ts_rowwise_row_chunks): 16-bit rows of 256, 512, 768, 1280,
 * 1536 and 1792 columns and fp32 rows of 256 and 512 on CUDA, 16-bit 512 and 1536 and fp32 512 on HIP. One-warp
 * blocks, a strip each. */
#ifndef TESSERA_TEMPLATES_ROWWISE_ROWS_H
#define TESSERA_TEMPLATES_ROWWISE_ROWS_H

#include "templates/rowwise.h"

/* Rows a strip holds: at least a slice's elements, and whole chunks of every lane (rows of quad rows,
 * rowwise_plan.h: ts_rowwise_row_quads, an odd number of them a row, take an even number of rows). */
#define TS_ROWWISE_ROWS_MIN_PER_STRIP(cols) ((TS_ROWWISE_E + (cols)-1) / (cols))
#define TS_ROWWISE_ROWS_PER_STRIP(cols)                                                            \
    (TS_ROWWISE_ROWS_MIN_PER_STRIP(cols) +                                                         \
     (TS_ROWWISE_ROWS_MIN_PER_STRIP(cols) * (cols) % (TS_WV_CHUNK * TS_WARP_LANES) != 0))

/* The form of a rows instance's strip of rows of `cols` columns (ops/warp_vector.h): wide rows where
 * the rows are whole chunks of every lane, else quad rows (ts_rowwise_row_quads); its row size in
 * those units; its layout (quad rows: split; wide rows: templates/rowwise.h's choice for whole
 * strips); and the per-row values a lane holds, one a chunk or one a quad, of a strip of `chunks`
 * chunks a lane. Compile-time constants, which each family's rows variant reads. */
#define TS_ROWWISE_ROWS_ARE_QUADS(cols) ((cols) % (TS_WV_CHUNK * TS_WARP_LANES) != 0)
#define TS_ROWWISE_ROWS_MODE(cols) (TS_ROWWISE_ROWS_ARE_QUADS(cols) ? TS_WV_ROWS_QUADS : TS_WV_ROWS_WIDE)
#define TS_ROWWISE_ROWS_SIZE(cols)                                                                 \
    ((cols) / ((TS_ROWWISE_ROWS_ARE_QUADS(cols) ? TS_WV_QUAD : TS_WV_CHUNK) * TS_WARP_LANES))
#define TS_ROWWISE_ROWS_LAYOUT(dtype, cols)                                                        \
    (TS_ROWWISE_ROWS_ARE_QUADS(cols) ? TS_WV_SPLIT : TS_ROWWISE_LAYOUT_FOR(dtype, 1))
#define TS_ROWWISE_ROWS_PARTS(chunks, cols) ((1 + TS_ROWWISE_ROWS_ARE_QUADS(cols)) * (chunks))

/* Defines kernel `name`, built for `blocks` blocks an SM, over a params_type with a `rows` count,
 * that calls strip(p, first, step) for the strip of rows from `first` (step 1), and its launcher
 * name##_launch(params, stream). The last block's strip may lack rows: it takes its rows one at a
 * time, each repeated over the strip (step 0: a row stride of 0), whose repeats store the same
 * values again; so every strip is whole, with no test per chunk in its loads and stores, and the
 * strip's code is one copy (a second copy for a partial strip, with a run-time count, spilled in the
 * fp16 norm). */
#define TS_ROWWISE_ROWS_KERNEL(name, strip, params_type, blocks, per_strip_rows)                   \
    TS_KERNEL_RESIDENT(name, 1, blocks, params_type, p) {                                          \
        const int per_strip = (per_strip_rows);                                                    \
        const long long first = (long long)ts_block_x() * per_strip, left = p->rows - first;       \
        const int whole = left >= per_strip;                                                       \
        for (long long r = 0; r < (whole ? 1 : left); ++r) strip(p, first + r, whole);             \
    }                                                                                              \
    static ts_status TS_CAT(name, _launch)(const void *params, const ts_rowwise_plan *plan, ts_stream stream) { \
        const params_type p = *(const params_type *)params;                                        \
        (void)plan; /* a strip a one-warp block */                                                 \
        const long long per_strip = (per_strip_rows);                                              \
        return TS_LAUNCH(name, ts_grid_1d((unsigned)((p.rows + per_strip - 1) / per_strip)), 1, 0, stream, p); \
    }

/* Whether `rows` rows of `cols` columns of a dtype of `dtype_bytes` take a rows instance: rows of whole
 * chunks of every lane (ts_rowwise_row_chunks) or, where the family takes them (quad_rows), of whole
 * quad rows (ts_rowwise_row_quads), and a grid that fits. The family's launcher lookup
 * (rowwise_rows_instances.h) then has the instance, or not. */
static inline int ts_rowwise_rows_fit(long long rows, int cols, int dtype_bytes, int quad_rows) {
    const int form = ts_rowwise_row_chunks(cols, dtype_bytes, TS_WARP_LANES) != 0 ||
                     (quad_rows && ts_rowwise_row_quads(cols, dtype_bytes, TS_WARP_LANES) != 0);
    return form && (rows - 1) / TS_ROWWISE_ROWS_PER_STRIP(cols) < INT_MAX;
}

#endif
