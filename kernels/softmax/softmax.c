/* Row softmax with scale and causal mask (tessera.h, docs/memory-bound.md): the parameters, the
 * argument checks and the kernels, built on the row-wise template (templates/rowwise.h) from
 * softmax_variant.h (a slice a warp) and softmax_rows_variant.h (several rows a warp), per input dtype
 * (templates/rowwise_family.h); and for rows longer than a block holds in registers, or any row where
 * the limits say so (softmax_stream.h), the stream instances (softmax_stream_variant.h), a row a
 * block gone over twice, staged in shared memory where the backend has a bulk copy. Launch numbers:
 * tuning.h. */
#include <math.h>
#include <string.h>

#include "backends/backend.h"
#include "kernels/common/checks.h"
#include "kernels/common/device_props.h"
#include "kernels/softmax/softmax_stream.h"
#include "kernels/softmax/tuning.h"
#include "ops/warp_stream.h"
#include "ops/warp_vector.h"
#include "templates/rowwise.h"

typedef struct ts_softmax_params {
    const void *x;
    void *out;
    long long rows, x_stride, out_stride, causal_rows, causal_offset;
    int cols, causal, out_dtype, warps_per_row;
    float scale_log2; /* scale * log2(e): exponents in base 2 */
    int stage_bytes;  /* the stream instances' row in shared memory (staged; 0 otherwise) */
} ts_softmax_params;

/* The causal mask: row r sees columns 0 .. (r mod causal_rows) + causal_offset (a query sees the
 * keys up to its own position plus the offset); this is its first masked column. */
TS_DEVICE long long ts_softmax_masked_from(const ts_softmax_params *p, long long row) {
    return row % p->causal_rows + p->causal_offset + 1;
}

#define TS_ROWWISE_FAMILY ts_softmax
#define TS_ROWWISE_FAMILY_VARIANT "kernels/softmax/softmax_variant.h"
#define TS_ROWWISE_FAMILY_SHORT_BLOCKS TS_SOFTMAX_SHORT_MIN_BLOCKS
#define TS_ROWWISE_FAMILY_F32_SHORT_BLOCKS TS_SOFTMAX_SHORT_MIN_BLOCKS
#define TS_ROWWISE_FAMILY_F32_WHOLE_BLOCKS TS_SOFTMAX_SHORT_MIN_BLOCKS
#define TS_ROWWISE_FAMILY_LONG_ROW_BLOCKS TS_SOFTMAX_LONG_ROW_BLOCKS
#define TS_ROWWISE_FAMILY_LONG_ROW_NARROW_BLOCKS TS_SOFTMAX_LONG_ROW_NARROW_BLOCKS
#define TS_ROWWISE_FAMILY_LONG_ROW_MID_BLOCKS TS_SOFTMAX_LONG_ROW_MID_BLOCKS
#define TS_ROWWISE_FAMILY_ROWS_VARIANT "kernels/softmax/softmax_rows_variant.h"
#define TS_ROWWISE_FAMILY_ROWS_BLOCKS TS_SOFTMAX_ROWS_BLOCKS
#define TS_ROWWISE_FAMILY_ROWS768_BLOCKS TS_SOFTMAX_ROWS768_BLOCKS
#define TS_ROWWISE_FAMILY_ROWS1280_BLOCKS TS_SOFTMAX_ROWS1280_BLOCKS
#define TS_ROWWISE_FAMILY_ROWS1536_BLOCKS TS_SOFTMAX_ROWS1536_BLOCKS
#define TS_ROWWISE_FAMILY_ROWS1792_BLOCKS TS_SOFTMAX_ROWS1792_BLOCKS
#define TS_ROWWISE_FAMILY_ROWS_QUAD_BLOCKS TS_SOFTMAX_ROWS_QUAD_BLOCKS
#define TS_ROWWISE_FAMILY_ROWS_F32_BLOCKS TS_SOFTMAX_ROWS_BLOCKS
#define TS_ROWWISE_FAMILY_ROWS_F32_512_BLOCKS TS_SOFTMAX_ROWS_BLOCKS
#include "templates/rowwise_family.h"

/* The staged instances take blocks of up to twice as many warps, one an SM: the same registers a
 * thread (64 on CUDA). */
#define TS_SOFTMAX_STAGED_MOST_WARPS (2 * TS_SOFTMAX_STREAM_WARPS)
/* The stream instances' shared memory after the stage: the copy's barrier, then the block's slots. */
#define TS_SOFTMAX_STREAM_TBAR_BYTES ((sizeof(ts_tbar) + 15) / 16 * 16)
#define TS_SOFTMAX_STREAM_SHARED_BYTES(stage_bytes)                                                \
    ((size_t)(stage_bytes) + TS_SOFTMAX_STREAM_TBAR_BYTES + 2 * TS_SOFTMAX_STAGED_MOST_WARPS * sizeof(float))
#define TS_SOFTMAX_STREAM_STAGED 0
#define TS_SOFTMAX_STREAM_KIND stream
#define TS_SOFTMAX_STREAM_BOUND_WARPS TS_SOFTMAX_STREAM_WARPS
#define TS_SOFTMAX_STREAM_BOUND_BLOCKS 2
#include "kernels/softmax/softmax_stream_instances.h"
#if TS_SOFTMAX_STAGED
#define TS_SOFTMAX_STREAM_STAGED 1
#define TS_SOFTMAX_STREAM_KIND staged
#define TS_SOFTMAX_STREAM_BOUND_WARPS TS_SOFTMAX_STAGED_MOST_WARPS
#define TS_SOFTMAX_STREAM_BOUND_BLOCKS 1
#include "kernels/softmax/softmax_stream_instances.h"

/* The bytes of whole strips of a stage at blocks_per_sm staged blocks an SM. */
static long long ts_softmax_stage_room(int blocks_per_sm, ts_dtype dtype) {
    const long long strip = (long long)TS_ROWWISE_E * ts_rowwise_dtype_bytes(dtype);
    const long long room = (long long)((TS_MAX_SHARED_BYTES + 1024u) / (unsigned)blocks_per_sm - 1024u) -
                           (long long)TS_SOFTMAX_STREAM_SHARED_BYTES(0);
    return room > 0 ? room / strip * strip : 0;
}
#endif

/* The stream limits of ts_softmax: rows longer than a block's registers hold stream; a row whose
 * stage fits two blocks an SM is staged whole, a longer one in part (its first columns, as many whole
 * strips as the blocks' shared memory holds, read in the stage, the rest from global memory twice),
 * one block an SM of the most warps where one block's stage cannot hold it, else two (measured:
 * docs/memory-bound.md, "Where the tuning numbers come from"). */
TS_EXTERN_C ts_softmax_stream_limits ts_softmax_stream_defaults(void) {
    ts_softmax_stream_limits l;
    l.min_cols = TS_ROWWISE_BACKEND_MAX_COLS + 1;
    l.staged = TS_SOFTMAX_STAGED;
    l.staged_max_bytes = (TS_MAX_SHARED_BYTES + 1024u) / 2u - 1024u;
    l.partial_blocks = 0;
    return l;
}

/* A stream instance's launch for rows of any length, staged wholly or in part as the limits allow. A
 * wholly staged row runs as many blocks an SM as their stages fit, up to TS_SOFTMAX_STREAM_BLOCKS_PER_SM,
 * of half the warps where more than two fit; a row staged in part one block of
 * TS_SOFTMAX_STAGED_MOST_WARPS (whose stage holds the most of it) or two of TS_SOFTMAX_STREAM_WARPS;
 * an unstaged row two of TS_SOFTMAX_STREAM_WARPS. */
static ts_status ts_softmax_stream(ts_softmax_params *p, ts_dtype dtype, const ts_softmax_stream_limits *limits,
                                   ts_stream stream) {
    typedef ts_rowwise_launch_fn launcher;
    static const launcher streamed[3] = {ts_softmax_bf16_stream_launch, ts_softmax_fp16_stream_launch,
                                         ts_softmax_f32_stream_launch};
    launcher launch = streamed[ts_rowwise_dtype_index(dtype)];
    int blocks_per_sm = 2, warps = TS_SOFTMAX_STREAM_WARPS;
    const long long stage = ((long long)p->cols * ts_rowwise_dtype_bytes(dtype) + 15) / 16 * 16;
    p->stage_bytes = 0;
#if TS_SOFTMAX_STAGED
    static const launcher staged[3] = {ts_softmax_bf16_staged_launch, ts_softmax_fp16_staged_launch,
                                       ts_softmax_f32_staged_launch};
    if (limits->staged && TS_SOFTMAX_STREAM_SHARED_BYTES(stage) <= limits->staged_max_bytes) {
        p->stage_bytes = (int)stage;
        launch = staged[ts_rowwise_dtype_index(dtype)];
        const long long fit = (TS_MAX_SHARED_BYTES + 1024u) / (TS_SOFTMAX_STREAM_SHARED_BYTES(stage) + 1024u);
        blocks_per_sm = fit < TS_SOFTMAX_STREAM_BLOCKS_PER_SM ? (int)fit : TS_SOFTMAX_STREAM_BLOCKS_PER_SM;
        if (blocks_per_sm > 2) warps /= 2;
    } else if (limits->staged) {
        const int blocks = limits->partial_blocks > 0              ? limits->partial_blocks
                           : stage > ts_softmax_stage_room(1, dtype) ? 1
                                                                     : 2;
        const long long room = ts_softmax_stage_room(blocks, dtype);
        if (room > 0) {
            p->stage_bytes = (int)room;
            launch = staged[ts_rowwise_dtype_index(dtype)];
            blocks_per_sm = blocks;
            warps = blocks == 1 ? TS_SOFTMAX_STAGED_MOST_WARPS : blocks > 2 ? warps / 2 : warps;
        }
    }
#else
    (void)stage;
    (void)limits;
#endif
    ts_rowwise_plan plan;
    memset(&plan, 0, sizeof plan);
    plan.warps = warps;
    plan.warps_per_row = warps;
    plan.shared_bytes = TS_SOFTMAX_STREAM_SHARED_BYTES(p->stage_bytes);
    const ts_status s = ts_kernel_capped_grid(p->rows, blocks_per_sm, &plan.grid);
    if (s != TS_SUCCESS) return s;
    return launch(p, &plan, stream);
}

static ts_status ts_softmax_run(const ts_softmax_desc *desc, const ts_softmax_stream_limits *limits, ts_stream stream) {
    if (!desc) return TS_ERROR_NULL_POINTER;
    const ts_softmax_desc d = *desc;
    if (!ts_rowwise_dtype_valid(d.dtype) || !ts_rowwise_dtype_valid(d.out_dtype)) return TS_ERROR_INVALID_ENUM;
    if (d.rows <= 0 || d.cols <= 0) return TS_ERROR_INVALID_SIZE;
    /* Rows of up to 2^30 columns keep the kernels' 32-bit column arithmetic clear of INT_MAX. */
    if (d.cols > (1 << 30)) return TS_ERROR_SIZE_OVERFLOW;
    if (!(d.scale > 0.0f) || !isfinite(d.scale) || !isfinite(d.scale * 1.4426950408889634f))
        return TS_ERROR_INVALID_VALUE;
    if (d.causal != 0 && d.causal != 1) return TS_ERROR_INVALID_VALUE;
    if (d.causal && d.causal_rows <= 0) return TS_ERROR_INVALID_VALUE;
    ts_status s;
    if ((s = ts_rowwise_check_matrix(d.x, d.dtype, d.rows, d.cols, d.x_stride)) != TS_SUCCESS) return s;
    if ((s = ts_rowwise_check_matrix(d.out, d.out_dtype, d.rows, d.cols, d.out_stride)) != TS_SUCCESS) return s;
    /* out shares no byte with x, unless it is x exactly (the same pointer, dtype and stride). */
    const ts_check_layout lx = ts_check_matrix_layout(d.x, ts_rowwise_dtype_bytes(d.dtype), d.rows, d.cols, d.x_stride);
    const ts_check_layout lo =
        ts_check_matrix_layout(d.out, ts_rowwise_dtype_bytes(d.out_dtype), d.rows, d.cols, d.out_stride);
    if (ts_check_disjoint_or_same(&lo, &lx, d.out == d.x && d.out_dtype == d.dtype && d.out_stride == d.x_stride))
        return TS_ERROR_INVALID_VALUE;
    /* Any causal_rows and causal_offset, brought into range without changing the mask, so that its
     * arithmetic stays small: causal_rows past the rows numbers each row as its own query, as
     * causal_rows = rows does; an offset at or past the last column masks nothing, as cols does;
     * one below -causal_rows masks every column, as -causal_rows - 1 does. */
    const long long causal_rows = !d.causal ? 1 : d.causal_rows < d.rows ? d.causal_rows : d.rows;
    const long long causal_offset = !d.causal                           ? 0
                                    : d.causal_offset > d.cols           ? d.cols
                                    : d.causal_offset < -causal_rows - 1 ? -causal_rows - 1
                                                                          : d.causal_offset;

    ts_softmax_params p;
    memset(&p, 0, sizeof p);
    p.x = d.x;
    p.out = d.out;
    p.rows = d.rows;
    p.x_stride = d.x_stride;
    p.out_stride = d.out_stride;
    p.causal_rows = causal_rows;
    p.causal_offset = causal_offset;
    p.cols = d.cols;
    p.causal = d.causal;
    p.out_dtype = (int)d.out_dtype;
    p.scale_log2 = d.scale * 1.4426950408889634f;
    if (d.cols >= limits->min_cols || d.cols > TS_ROWWISE_BACKEND_MAX_COLS) return ts_softmax_stream(&p, d.dtype, limits, stream);
    const ts_rowwise_call call = {
        .rows = d.rows,
        .cols = d.cols,
        .dtype_bytes = ts_rowwise_dtype_bytes(d.dtype),
        .uniform = d.out_dtype == d.dtype,
        .aligned = ts_rowwise_aligned16(d.x, d.dtype, d.x_stride) && ts_rowwise_aligned16(d.out, d.out_dtype, d.out_stride),
    };
    ts_rowwise_route r;
    if ((s = ts_rowwise_route_call(&call, &ts_softmax_launchers[ts_rowwise_dtype_index(d.dtype)], ts_kernel_sm_count,
                                   &r)) != TS_SUCCESS)
        return s;
    p.warps_per_row = r.plan.warps_per_row;
    return r.launch(&p, &r.plan, stream);
}

TS_EXTERN_C ts_status ts_softmax(const ts_softmax_desc *desc, ts_stream stream) {
    const ts_softmax_stream_limits limits = ts_softmax_stream_defaults();
    return ts_softmax_run(desc, &limits, stream);
}

TS_EXTERN_C ts_status ts_softmax_with_stream_limits(const ts_softmax_desc *desc, const ts_softmax_stream_limits *limits,
                                                    ts_stream stream) {
    if (!limits) return TS_ERROR_NULL_POINTER;
    return ts_softmax_run(desc, limits, stream);
}
