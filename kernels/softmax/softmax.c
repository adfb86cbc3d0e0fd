/* Row softmax with scale and causal mask (tessera.h, docs/memory-bound.md): the parameters, the
 * argument checks, the launch plan (templates/rowwise.h) and three kernels per input dtype
 * (rows of up to 8192 columns at high occupancy, the same for whole, aligned slices, and longer
 * ones), instantiated from softmax_variant.h through templates/rowwise_instances.h; and rows of
 * 256 to 896 columns several to a warp and of 1280 to 1792 one a warp (softmax_rows_variant.h,
 * templates/rowwise_rows.h); and rows of any length past those, streamed through a block
 * twice (softmax_stream_variant.h). */
#include <math.h>
#include <string.h>

#include "backends/backend.h"
#include "kernels/common/device_props.h"
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

/* Rows of TS_SOFTMAX_STREAM_MIN_COLS columns and more, and every row longer than the instances above
 * take (TS_ROWWISE_BACKEND_MAX_COLS: a row over at most 16 warps' registers, 8 on HIP), run on the
 * stream instances (softmax_stream_variant.h): a row a block, gone over twice. So any row length is
 * taken (the vocabulary-sized rows of a language model's logits). A lower TS_SOFTMAX_STREAM_MIN_COLS
 * sends shorter rows there too (the host CI variant softmax-stream: every softmax test through them). */
#ifndef TS_SOFTMAX_STREAM_MIN_COLS
#define TS_SOFTMAX_STREAM_MIN_COLS (TS_ROWWISE_BACKEND_MAX_COLS + 1)
#endif
/* 1 (default; 0 on HIP, whose ts_copy_async_g2s is a wave's copy loop): rows whose 16-bit or fp32
 * body fits TS_SOFTMAX_STAGED_MAX_BYTES (two blocks an SM: bf16 rows up to about 57000 columns) run
 * staged, the row copied into shared memory once and read there twice; longer ones are staged in part
 * (below). With 0, every row is read from global memory twice, the second time mostly from the L2. */
#ifndef TS_SOFTMAX_STAGED_MAX_BYTES
#define TS_SOFTMAX_STAGED_MAX_BYTES ((TS_MAX_SHARED_BYTES + 1024u) / 2u - 1024u)
#endif
/* 1 (default where staged): rows whose body does not fit TS_SOFTMAX_STAGED_MAX_BYTES are staged in
 * part, their first columns (as many whole strips as the blocks' shared memory holds) copied into it and
 * read there twice, the rest read from global memory twice, in the first pass while the copy lands; 0:
 * such rows are not staged. Rows that one block's stage would hold run two blocks an SM (of
 * TS_SOFTMAX_STREAM_WARPS); longer ones one block of TS_SOFTMAX_STAGED_MOST_WARPS (the most, 32), whose
 * stage holds the most of the row. TS_SOFTMAX_PARTIAL_BLOCKS_PER_SM > 0 sets the blocks an SM instead.
 * On the H200 (bench/results/nvidia-h200-2026-12-04-softmax-partial.txt, 2048 rows, TB/s): bf16
 * 65536-110000 columns 3.24-2.92 at two blocks against 2.66-2.81 at one (wholly staged, a block waits
 * for its whole copy), 128256 and 151936 columns 3.16 and 3.12 at one against 2.96 and 2.91 at two;
 * fp32 65536 3.52 at one against 3.16 at two. */
#ifndef TS_SOFTMAX_PARTIAL_BLOCKS_PER_SM
#define TS_SOFTMAX_PARTIAL_BLOCKS_PER_SM 0
#endif
/* Blocks of at most TS_SOFTMAX_STREAM_WARPS warps, built for two an SM (64 registers a thread on
 * CUDA, no spills; 8 waves on HIP, 66-71 VGPRs a lane). A launch runs two blocks an SM of that many
 * warps, or wholly staged as many as their shared memory fits, up to TS_SOFTMAX_STREAM_BLOCKS_PER_SM,
 * of half as many warps where more than two fit (staged in part: above). On the H200
 * (bench/results/nvidia-h200-2026-12-04-softmax-stream.txt, bf16, TB/s): staged 4096x32000 (three
 * fit) 3.27 at 8 warps x 3 against 2.91 at 16 x 2, 4096x50304 (two fit) 3.00 at 8 x 2 against 3.11
 * at 16 x 2; not staged 2048x128256 2.74 at 8 x 4 against 2.80 at 16 x 2; and before the
 * approximate 2^x (below), 32 x 1 lost up to 18%: a block's barrier between its passes idles the SM. */
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

/* A stream instance's launch (above) for rows of any length: staged, wholly or in part (above). */
static ts_status ts_softmax_stream(ts_softmax_params *p, ts_dtype dtype, ts_stream stream) {
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
    if (TS_SOFTMAX_STREAM_SHARED_BYTES(stage) <= TS_SOFTMAX_STAGED_MAX_BYTES) {
        p->stage_bytes = (int)stage;
        launch = staged[ts_rowwise_dtype_index(dtype)];
        const long long fit = (TS_MAX_SHARED_BYTES + 1024u) / (TS_SOFTMAX_STREAM_SHARED_BYTES(stage) + 1024u);
        blocks_per_sm = fit < TS_SOFTMAX_STREAM_BLOCKS_PER_SM ? (int)fit : TS_SOFTMAX_STREAM_BLOCKS_PER_SM;
        if (blocks_per_sm > 2) warps /= 2;
    } else {
        const int blocks = TS_SOFTMAX_PARTIAL_BLOCKS_PER_SM > 0    ? TS_SOFTMAX_PARTIAL_BLOCKS_PER_SM
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

TS_EXTERN_C ts_status ts_softmax(const ts_softmax_desc *desc, ts_stream stream) {
    if (!desc) return TS_ERROR_NULL_POINTER;
    const ts_softmax_desc d = *desc;
    if (!ts_rowwise_dtype_valid(d.dtype) || !ts_rowwise_dtype_valid(d.out_dtype)) return TS_ERROR_INVALID_ENUM;
    if (d.rows <= 0 || d.cols <= 0) return TS_ERROR_INVALID_SIZE;
    if (!(d.scale > 0.0f) || !isfinite(d.scale) || !isfinite(d.scale * 1.4426950408889634f))
        return TS_ERROR_INVALID_VALUE;
    if (d.causal != 0 && d.causal != 1) return TS_ERROR_INVALID_VALUE;
    if (d.causal && d.causal_rows <= 0) return TS_ERROR_INVALID_VALUE;
    if (d.causal && (d.causal_offset > ((long long)1 << 40) || d.causal_offset < -((long long)1 << 40)))
        return TS_ERROR_SIZE_OVERFLOW;
    ts_status s;
    if ((s = ts_rowwise_check_matrix(d.x, d.dtype, d.rows, d.cols, d.x_stride)) != TS_SUCCESS) return s;
    if ((s = ts_rowwise_check_matrix(d.out, d.out_dtype, d.rows, d.cols, d.out_stride)) != TS_SUCCESS) return s;

    ts_softmax_params p;
    memset(&p, 0, sizeof p);
    p.x = d.x;
    p.out = d.out;
    p.rows = d.rows;
    p.x_stride = d.x_stride;
    p.out_stride = d.out_stride;
    p.causal_rows = d.causal ? d.causal_rows : 1;
    p.causal_offset = d.causal ? d.causal_offset : 0;
    p.cols = d.cols;
    p.causal = d.causal;
    p.out_dtype = (int)d.out_dtype;
    p.scale_log2 = d.scale * 1.4426950408889634f;
    if (d.cols >= TS_SOFTMAX_STREAM_MIN_COLS || d.cols > TS_ROWWISE_BACKEND_MAX_COLS)
        return ts_softmax_stream(&p, d.dtype, stream);
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
