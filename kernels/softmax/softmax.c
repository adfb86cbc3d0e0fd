/* Row softmax with scale and causal mask (tessera.h, docs/memory-bound.md): the parameters, the
 * argument checks, the launch plan (kernels/common/rowwise.h) and three kernels per input dtype
 * (rows of up to 8192 columns at high occupancy, the same for whole, aligned slices, and longer
 * ones), instantiated from softmax_variant.h through kernels/common/rowwise_instances.h; and rows of
 * 256 to 896 columns several to a warp and of 1280 to 1792 one a warp (softmax_rows_variant.h,
 * kernels/common/rowwise_rows.h); and rows of any length past those, streamed through a block
 * twice (softmax_stream_variant.h). */
#include <math.h>
#include <string.h>

#include "backends/backend.h"
#include "kernels/common/checks.h"
#include "kernels/common/rowwise.h"
#include "kernels/common/rowwise_rows.h"
#include "ops/warp_vector.h"

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

/* Blocks per SM the short-row instances are built for: 64 registers at four, no spills. */
#ifndef TS_SOFTMAX_SHORT_MIN_BLOCKS
#define TS_SOFTMAX_SHORT_MIN_BLOCKS 4
#endif

#define TS_ROWWISE_INSTANCE_VARIANT "kernels/softmax/softmax_variant.h"
#define TS_ROWWISE_INSTANCE_WHOLE 1
#define TS_ROWWISE_INSTANCE_SHORT_BLOCKS TS_SOFTMAX_SHORT_MIN_BLOCKS
#define TS_ROWWISE_INSTANCE_NAME ts_softmax_bf16
#define TS_ROWWISE_INSTANCE_DTYPE TS_DTYPE_BF16
#include "kernels/common/rowwise_instances.h"
#define TS_ROWWISE_INSTANCE_NAME ts_softmax_fp16
#define TS_ROWWISE_INSTANCE_DTYPE TS_DTYPE_FP16
#include "kernels/common/rowwise_instances.h"
#define TS_ROWWISE_INSTANCE_NAME ts_softmax_f32
#define TS_ROWWISE_INSTANCE_DTYPE TS_DTYPE_F32
#include "kernels/common/rowwise_instances.h"

/* 1 (default): 16-bit rows longer than a slice and at most two slices less a chunk of every lane,
 * whole chunks (kernels/common/rowwise_plan.h: ts_rowwise_long_row; 1032 to 1792 columns on CUDA)
 * that the rows instances do not take, with the output in the input's dtype and 16-byte aligned
 * matrices, run a row a one-warp block (ts_softmax_*_long_row, kernels/common/rowwise_long_row.h)
 * at TS_SOFTMAX_LONG_ROW_BLOCKS blocks an SM; 0: over two warps, on the short instance. On the H200
 * (bench/results/nvidia-h200-2026-12-04-long-rows-on.txt, at 28 blocks) bf16 57344x1152 2.28 -> 3.11
 * TB/s, 40960x1600 2.96 -> 3.92, 39424x1664 3.06 -> 4.03, fp16 40960x1600 2.96 -> 4.00. At 32
 * blocks an SM (64 registers, no spills; the reciprocal's slow path, for sums of extreme exponent,
 * keeps one register on the stack, 8 bytes) against 28 (72 registers): bf16 40960x1600 3.91 -> 4.05,
 * 39424x1664 4.02 -> 4.16, 37632x1784 4.11 -> 4.19, fp16 40960x1600 4.00 -> 4.09
 * (bench/results/nvidia-h200-2026-12-04-long-rows-blocks.txt); at 24 (80 registers) about 1% below 28. */
#ifndef TS_SOFTMAX_USE_LONG_ROW
#define TS_SOFTMAX_USE_LONG_ROW 1
#endif
#ifndef TS_SOFTMAX_LONG_ROW_BLOCKS
#define TS_SOFTMAX_LONG_ROW_BLOCKS 32
#endif
/* 1 (default): of those rows, the ones of at most a slice and one chunk of every lane (1032 to 1272
 * columns on CUDA; rowwise_plan.h: TS_ROWWISE_LONG_ROW_NARROW_COLS) run on narrow long-row
 * instances, whose slice is that long, TS_SOFTMAX_LONG_ROW_NARROW_BLOCKS blocks an SM (56
 * registers, no spills); 0: on the long-row instances. On the H200
 * (bench/results/nvidia-h200-2026-12-04-long-rows-narrow.txt) bf16 57344x1152 3.10 -> 3.92 TB/s,
 * 55296x1216 3.24 -> 4.05, fp16 57344x1152 3.17 -> 4.00. */
#ifndef TS_SOFTMAX_USE_LONG_ROW_NARROW
#define TS_SOFTMAX_USE_LONG_ROW_NARROW 1
#endif
#ifndef TS_SOFTMAX_LONG_ROW_NARROW_BLOCKS
#define TS_SOFTMAX_LONG_ROW_NARROW_BLOCKS 32
#endif
/* 1 (default): of the longer ones, those of at most a slice and two chunks of every lane (1288 to
 * 1528 columns on CUDA; rowwise_plan.h: TS_ROWWISE_LONG_ROW_MID_COLS) run on middle long-row
 * instances, whose slice is that long, TS_SOFTMAX_LONG_ROW_MID_BLOCKS blocks an SM (66 registers, no
 * spills); 0: on the long-row instances. On the H200 (bench/results/nvidia-h200-2026-12-04-long-rows-mid.txt)
 * bf16 49920x1344 3.48 -> 3.87 TB/s, 47616x1408 3.61 -> 3.99, 43904x1528 3.79 -> 4.12, fp16
 * 47616x1408 3.67 -> 4.05. */
#ifndef TS_SOFTMAX_USE_LONG_ROW_MID
#define TS_SOFTMAX_USE_LONG_ROW_MID 1
#endif
#ifndef TS_SOFTMAX_LONG_ROW_MID_BLOCKS
#define TS_SOFTMAX_LONG_ROW_MID_BLOCKS 28
#endif
#define TS_ROWWISE_LONG_ROW_BLOCKS TS_SOFTMAX_LONG_ROW_BLOCKS
#define TS_ROWWISE_LONG_ROW_LIMIT TS_ROWWISE_LONG_ROW_COLS(TS_WARP_LANES)
#define TS_ROWWISE_LONG_ROW_BF16_NAME ts_softmax_bf16_long_row
#define TS_ROWWISE_LONG_ROW_FP16_NAME ts_softmax_fp16_long_row
#include "kernels/common/rowwise_long_row_instances.h"
#if TS_ROWWISE_HAS_LONG_ROW_NARROW
/* The narrow long-row instances (TS_SOFTMAX_USE_LONG_ROW_NARROW). */
#define TS_ROWWISE_LONG_ROW_BLOCKS TS_SOFTMAX_LONG_ROW_NARROW_BLOCKS
#define TS_ROWWISE_LONG_ROW_LIMIT TS_ROWWISE_LONG_ROW_NARROW_COLS(TS_WARP_LANES)
#define TS_ROWWISE_LONG_ROW_BF16_NAME ts_softmax_bf16_long_row_narrow
#define TS_ROWWISE_LONG_ROW_FP16_NAME ts_softmax_fp16_long_row_narrow
#include "kernels/common/rowwise_long_row_instances.h"
#endif
#if TS_ROWWISE_HAS_LONG_ROW_MID
/* The middle long-row instances (TS_SOFTMAX_USE_LONG_ROW_MID). */
#define TS_ROWWISE_LONG_ROW_BLOCKS TS_SOFTMAX_LONG_ROW_MID_BLOCKS
#define TS_ROWWISE_LONG_ROW_LIMIT TS_ROWWISE_LONG_ROW_MID_COLS(TS_WARP_LANES)
#define TS_ROWWISE_LONG_ROW_BF16_NAME ts_softmax_bf16_long_row_mid
#define TS_ROWWISE_LONG_ROW_FP16_NAME ts_softmax_fp16_long_row_mid
#include "kernels/common/rowwise_long_row_instances.h"
#endif
#undef TS_ROWWISE_INSTANCE_VARIANT
#undef TS_ROWWISE_INSTANCE_SHORT_BLOCKS
#undef TS_ROWWISE_INSTANCE_WHOLE

/* 1 (default): rows of 256, 512 or 768 columns (whole chunks of every lane with fewer bytes than a
 * 16-bit slice, kernels/common/rowwise_plan.h: ts_rowwise_row_chunks; fp32: 256 and 512), 16-byte
 * aligned, with the output in the input's dtype, run several to a warp on instances of their own,
 * ts_softmax_*_rows256 / 512 / 768 (softmax_rows_variant.h), in one-warp blocks built for
 * TS_SOFTMAX_ROWS_BLOCKS blocks an SM, and 16-bit rows of 1280, 1536 and 1792 one a warp
 * (ts_softmax_*_rows1536, ...);
 * 0: they take the short instance, for A/B runs. Measured on the H200 in the PyTorch driver
 * (bench/results/nvidia-h200-2026-12-02-rows-a-warp.txt): bf16 131072 x 512 2.07 -> 4.23 TB/s
 * (0.53x -> 1.08x torch.compile), 262144 x 256 1.10 -> 4.21 (0.27x -> 1.04x), 65536 x 768 2.90 ->
 * 4.15 (0.73x -> 1.04x); bf16 40960 x 1536 2.92 -> 4.36 (...-2026-12-03-rows-1536-f32-512.txt);
 * 51200 x 1280 2.51 -> 4.32, 36864 x 1792 3.25 -> 4.31 (...-2026-12-03-rows-1280-1792.txt). */
#ifndef TS_SOFTMAX_USE_ROWS
#define TS_SOFTMAX_USE_ROWS 1
#endif
#ifndef TS_SOFTMAX_ROWS_BLOCKS
#define TS_SOFTMAX_ROWS_BLOCKS 32
#endif
/* Rows of 768, two a strip, hold six chunks a lane: 24 blocks an SM (at 32, 64 registers, they
 * spilled 24 bytes). */
#ifndef TS_SOFTMAX_ROWS768_BLOCKS
#define TS_SOFTMAX_ROWS768_BLOCKS 24
#endif
/* Rows of 1280, 1536 and 1792, one a strip (1280 and 1792 CUDA only): 64, 70 and 77 registers. */
#ifndef TS_SOFTMAX_ROWS1280_BLOCKS
#define TS_SOFTMAX_ROWS1280_BLOCKS TS_SOFTMAX_ROWS768_BLOCKS
#endif
#ifndef TS_SOFTMAX_ROWS1536_BLOCKS
#define TS_SOFTMAX_ROWS1536_BLOCKS TS_SOFTMAX_ROWS768_BLOCKS
#endif
#ifndef TS_SOFTMAX_ROWS1792_BLOCKS
#define TS_SOFTMAX_ROWS1792_BLOCKS TS_SOFTMAX_ROWS768_BLOCKS
#endif
/* 1 (default): 16-bit rows of whole quad rows that are not whole chunks of every lane
 * (kernels/common/rowwise_plan.h: ts_rowwise_row_quads: 384, 640 and 896 columns on CUDA, 256 and 768
 * on HIP) run several to a warp on the rows instances as quad rows in the split layout, as the norms'
 * do (norm.c, TS_NORM_USE_QUAD_ROWS), at TS_SOFTMAX_ROWS_QUAD_BLOCKS blocks an SM (20: at 24, 80
 * registers, rows of 896 spilled 88 bytes). On the H200, bf16 163840x384 / 98304x640 / 73728x896:
 * 1.59 / 2.49 / 3.23 -> 4.19 / 4.19 / 4.12 TB/s, 0.52-0.89x -> 1.13-1.37x torch.compile
 * (bench/results/nvidia-h200-2026-12-03-softmax-quad-rows.txt). 0: a row a warp, on the short instance. */
#ifndef TS_SOFTMAX_USE_QUAD_ROWS
#define TS_SOFTMAX_USE_QUAD_ROWS 1
#endif
#ifndef TS_SOFTMAX_ROWS_QUAD_BLOCKS
#define TS_SOFTMAX_ROWS_QUAD_BLOCKS 20
#endif

/* The rows instances (kernels/common/rowwise_rows_instances.h), as the norms'. fp32 rows of 256
 * measured 2.08 -> 3.93 TB/s on the H200 (bench/results/nvidia-h200-2026-12-02-rows-a-warp.txt; 4.25
 * in the split layout, ...-2026-12-03-f32-split-layout.txt); fp32 rows of 512, which a rows instance
 * in the contiguous layout had left 3% slower, 3.93 -> 4.28 in the split layout
 * (...-2026-12-03-rows-1536-f32-512.txt). */
#define TS_ROWWISE_ROWS_VARIANT "kernels/softmax/softmax_rows_variant.h"
#define TS_ROWWISE_ROWS_PARAMS ts_softmax_params
#define TS_ROWWISE_ROWS_QUAD_ROWS TS_SOFTMAX_USE_QUAD_ROWS
#define TS_ROWWISE_ROWS_QUAD_BLOCKS TS_SOFTMAX_ROWS_QUAD_BLOCKS
#define TS_ROWWISE_ROWS_BLOCKS TS_SOFTMAX_ROWS_BLOCKS
#define TS_ROWWISE_ROWS768_BLOCKS TS_SOFTMAX_ROWS768_BLOCKS
#define TS_ROWWISE_ROWS1280_BLOCKS TS_SOFTMAX_ROWS1280_BLOCKS
#define TS_ROWWISE_ROWS1536_BLOCKS TS_SOFTMAX_ROWS1536_BLOCKS
#define TS_ROWWISE_ROWS1792_BLOCKS TS_SOFTMAX_ROWS1792_BLOCKS
#define TS_ROWWISE_ROWS_16BIT 1
#define TS_ROWWISE_DTYPE TS_DTYPE_BF16
#define TS_ROWWISE_ROWS_PREFIX ts_softmax_bf16_rows
#include "kernels/common/rowwise_rows_instances.h"
#undef TS_ROWWISE_ROWS_PREFIX
#undef TS_ROWWISE_DTYPE
#define TS_ROWWISE_DTYPE TS_DTYPE_FP16
#define TS_ROWWISE_ROWS_PREFIX ts_softmax_fp16_rows
#include "kernels/common/rowwise_rows_instances.h"
#undef TS_ROWWISE_ROWS_PREFIX
#undef TS_ROWWISE_DTYPE
#undef TS_ROWWISE_ROWS_16BIT
#define TS_ROWWISE_ROWS_16BIT 0
#define TS_ROWWISE_ROWS_F32_512_BLOCKS TS_SOFTMAX_ROWS_BLOCKS
#define TS_ROWWISE_DTYPE TS_DTYPE_F32
#define TS_ROWWISE_ROWS_PREFIX ts_softmax_f32_rows
#include "kernels/common/rowwise_rows_instances.h"
#undef TS_ROWWISE_ROWS_PREFIX
#undef TS_ROWWISE_DTYPE
#undef TS_ROWWISE_ROWS_F32_512_BLOCKS
#undef TS_ROWWISE_ROWS_16BIT
#undef TS_ROWWISE_ROWS768_BLOCKS
#undef TS_ROWWISE_ROWS1280_BLOCKS
#undef TS_ROWWISE_ROWS1536_BLOCKS
#undef TS_ROWWISE_ROWS1792_BLOCKS
#undef TS_ROWWISE_ROWS_BLOCKS
#undef TS_ROWWISE_ROWS_PARAMS
#undef TS_ROWWISE_ROWS_QUAD_ROWS
#undef TS_ROWWISE_ROWS_QUAD_BLOCKS
#undef TS_ROWWISE_ROWS_VARIANT

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
#ifndef TS_SOFTMAX_USE_STAGED
#define TS_SOFTMAX_USE_STAGED (TS_WARP_LANES != 64)
#endif
#ifndef TS_SOFTMAX_STAGED_MAX_BYTES
#define TS_SOFTMAX_STAGED_MAX_BYTES ((TS_MAX_SHARED_BYTES + 1024u) / 2u - 1024u)
#endif
/* 1 (default where staged): rows whose body does not fit TS_SOFTMAX_STAGED_MAX_BYTES are staged in
 * part, their first columns (as many whole strips as the blocks' shared memory holds) copied into it and
 * read there twice, the rest read from global memory twice, in the first pass while the copy lands; 0:
 * such rows are not staged. Rows that one block's stage would hold run two blocks an SM (of
 * TS_SOFTMAX_STREAM_WARPS); longer ones one block of TS_SOFTMAX_ONE_BLOCK_WARPS (the most, 32), whose
 * stage holds the most of the row. TS_SOFTMAX_PARTIAL_BLOCKS_PER_SM > 0 sets the blocks an SM instead.
 * On the H200 (bench/results/nvidia-h200-2026-12-04-softmax-partial.txt, 2048 rows, TB/s): bf16
 * 65536-110000 columns 3.24-2.92 at two blocks against 2.66-2.81 at one (wholly staged, a block waits
 * for its whole copy), 128256 and 151936 columns 3.16 and 3.12 at one against 2.96 and 2.91 at two;
 * fp32 65536 3.52 at one against 3.16 at two. */
#ifndef TS_SOFTMAX_USE_PARTIAL_STAGE
#define TS_SOFTMAX_USE_PARTIAL_STAGE 1
#endif
#ifndef TS_SOFTMAX_PARTIAL_BLOCKS_PER_SM
#define TS_SOFTMAX_PARTIAL_BLOCKS_PER_SM 0
#endif
#ifndef TS_SOFTMAX_ONE_BLOCK_WARPS
#define TS_SOFTMAX_ONE_BLOCK_WARPS TS_SOFTMAX_STAGED_MOST_WARPS
#endif
/* Blocks of at most TS_SOFTMAX_STREAM_WARPS warps, built for two an SM (64 registers a thread on
 * CUDA, no spills; 8 waves on HIP, 66-71 VGPRs a lane). A launch runs two blocks an SM of that many
 * warps, or wholly staged as many as their shared memory fits, up to TS_SOFTMAX_STREAM_BLOCKS_PER_SM,
 * of half as many warps where more than two fit (staged in part: above). On the H200
 * (bench/results/nvidia-h200-2026-12-04-softmax-stream.txt, bf16, TB/s): staged 4096x32000 (three
 * fit) 3.27 at 8 warps x 3 against 2.91 at 16 x 2, 4096x50304 (two fit) 3.00 at 8 x 2 against 3.11
 * at 16 x 2; not staged 2048x128256 2.74 at 8 x 4 against 2.80 at 16 x 2; and before the
 * approximate 2^x (below), 32 x 1 lost up to 18%: a block's barrier between its passes idles the SM. */
#ifndef TS_SOFTMAX_STREAM_WARPS
#define TS_SOFTMAX_STREAM_WARPS (TS_WARP_LANES == 64 ? TS_ROWWISE_MAX_WARPS : 16)
#endif
#ifndef TS_SOFTMAX_STREAM_BLOCKS_PER_SM
#define TS_SOFTMAX_STREAM_BLOCKS_PER_SM (TS_WARP_LANES == 64 ? 2 : 4)
#endif
/* 1 (default): the stream instances' elements take the backend's one-instruction 2^x
 * (ts_wv_exp2_approx: on CUDA one MUFU.EX2, relative error about 2^-22, against exp2f's range check
 * and two multiplies around it); 0: exp2f. */
#ifndef TS_SOFTMAX_STREAM_EXP2_APPROX
#define TS_SOFTMAX_STREAM_EXP2_APPROX 1
#endif
#if TS_SOFTMAX_STREAM_EXP2_APPROX
#define TS_SOFTMAX_STREAM_EXP2 ts_wv_exp2_approx
#else
#define TS_SOFTMAX_STREAM_EXP2 ts_wv_exp2
#endif
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
#if TS_SOFTMAX_USE_STAGED
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
    typedef ts_status (*launcher)(const ts_softmax_params *, const ts_rowwise_plan *, ts_stream);
    static const launcher streamed[3] = {ts_softmax_bf16_stream_launch, ts_softmax_fp16_stream_launch,
                                         ts_softmax_f32_stream_launch};
    launcher launch = streamed[ts_rowwise_dtype_index(dtype)];
    int blocks_per_sm = 2, warps = TS_SOFTMAX_STREAM_WARPS;
    const long long stage = ((long long)p->cols * ts_rowwise_dtype_bytes(dtype) + 15) / 16 * 16;
    p->stage_bytes = 0;
#if TS_SOFTMAX_USE_STAGED
    static const launcher staged[3] = {ts_softmax_bf16_staged_launch, ts_softmax_fp16_staged_launch,
                                       ts_softmax_f32_staged_launch};
    if (TS_SOFTMAX_STREAM_SHARED_BYTES(stage) <= TS_SOFTMAX_STAGED_MAX_BYTES) {
        p->stage_bytes = (int)stage;
        launch = staged[ts_rowwise_dtype_index(dtype)];
        const long long fit = (TS_MAX_SHARED_BYTES + 1024u) / (TS_SOFTMAX_STREAM_SHARED_BYTES(stage) + 1024u);
        blocks_per_sm = fit < TS_SOFTMAX_STREAM_BLOCKS_PER_SM ? (int)fit : TS_SOFTMAX_STREAM_BLOCKS_PER_SM;
        if (blocks_per_sm > 2) warps /= 2;
    } else if (TS_SOFTMAX_USE_PARTIAL_STAGE) {
        const int blocks = TS_SOFTMAX_PARTIAL_BLOCKS_PER_SM > 0    ? TS_SOFTMAX_PARTIAL_BLOCKS_PER_SM
                           : stage > ts_softmax_stage_room(1, dtype) ? 1
                                                                     : 2;
        const long long room = ts_softmax_stage_room(blocks, dtype);
        if (room > 0) {
            p->stage_bytes = (int)room;
            launch = staged[ts_rowwise_dtype_index(dtype)];
            blocks_per_sm = blocks;
            warps = blocks == 1 ? TS_SOFTMAX_ONE_BLOCK_WARPS : blocks > 2 ? warps / 2 : warps;
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

/* The rows instance's launcher for a dtype and a row length (ts_rowwise_rows_fit took it), or NULL. */
static ts_status (*ts_softmax_rows_launcher(ts_dtype dtype, int cols))(const ts_softmax_params *, ts_stream) {
    return dtype == TS_DTYPE_BF16   ? ts_softmax_bf16_rows_launcher(cols)
           : dtype == TS_DTYPE_FP16 ? ts_softmax_fp16_rows_launcher(cols)
                                    : ts_softmax_f32_rows_launcher(cols);
}

TS_EXTERN_C ts_status ts_softmax(const ts_softmax_desc *desc, ts_stream stream) {
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
    if (d.cols >= TS_SOFTMAX_STREAM_MIN_COLS || d.cols > TS_ROWWISE_BACKEND_MAX_COLS)
        return ts_softmax_stream(&p, d.dtype, stream);
    /* The short instance takes one pass where the output dtype is the input's (softmax_variant.h):
     * on the H200 (bench/results/nvidia-h200-2026-12-01-softmax-rope-ab.txt) bf16 16384x4096 went
     * from 3.84-3.86 to 4.02-4.03 TB/s and 65536x1024 from 4.06-4.07 to 4.11-4.14 against its
     * looping over a capped grid of 8-warp blocks (causal: +4-5%). */
    /* Short rows, several a warp (softmax_rows_variant.h). */
    const int aligned =
        ts_rowwise_aligned16(d.x, d.dtype, d.x_stride) && ts_rowwise_aligned16(d.out, d.out_dtype, d.out_stride);
    if (TS_SOFTMAX_USE_ROWS &&
        ts_rowwise_rows_fit(d.rows, d.cols, ts_rowwise_dtype_bytes(d.dtype), TS_SOFTMAX_USE_QUAD_ROWS) &&
        d.out_dtype == d.dtype && aligned) {
        ts_status (*rows_launcher)(const ts_softmax_params *, ts_stream) = ts_softmax_rows_launcher(d.dtype, d.cols);
        if (rows_launcher) return rows_launcher(&p, stream);
    }
    ts_rowwise_plan long_row;
    if (TS_SOFTMAX_USE_LONG_ROW && d.out_dtype == d.dtype && aligned &&
        ts_rowwise_long_row_plan(d.rows, d.cols, ts_rowwise_dtype_bytes(d.dtype), &long_row)) {
        p.warps_per_row = long_row.warps_per_row;
        ts_status (*long_row_launcher)(const ts_softmax_params *, const ts_rowwise_plan *, ts_stream) =
            d.dtype == TS_DTYPE_BF16 ? ts_softmax_bf16_long_row_launch : ts_softmax_fp16_long_row_launch;
        switch (ts_rowwise_long_row_pick(d.cols, TS_SOFTMAX_USE_LONG_ROW_NARROW, TS_SOFTMAX_USE_LONG_ROW_MID)) {
#if TS_ROWWISE_HAS_LONG_ROW_NARROW
        case TS_ROWWISE_LONG_ROW_INSTANCE_NARROW:
            long_row_launcher = d.dtype == TS_DTYPE_BF16 ? ts_softmax_bf16_long_row_narrow_launch
                                                         : ts_softmax_fp16_long_row_narrow_launch;
            break;
#endif
#if TS_ROWWISE_HAS_LONG_ROW_MID
        case TS_ROWWISE_LONG_ROW_INSTANCE_MID:
            long_row_launcher = d.dtype == TS_DTYPE_BF16 ? ts_softmax_bf16_long_row_mid_launch
                                                         : ts_softmax_fp16_long_row_mid_launch;
            break;
#endif
        default:
            break;
        }
        return long_row_launcher(&p, &long_row, stream);
    }
    ts_rowwise_plan plan;
    if ((s = ts_rowwise_make_plan(d.rows, d.cols, d.out_dtype == d.dtype, &plan)) != TS_SUCCESS) return s;
    p.warps_per_row = plan.warps_per_row;
    /* Whole, aligned rows take the whole instance: no element-by-element paths (softmax_variant.h). */
    plan.whole = TS_ROWWISE_USE_WHOLE && ts_rowwise_plan_whole(d.rows, d.cols, &plan) && aligned;
    typedef ts_status (*launcher)(const ts_softmax_params *, const ts_rowwise_plan *, ts_stream);
    static const launcher launchers[3][3] = {
        {ts_softmax_bf16_launch, ts_softmax_bf16_short_launch, ts_softmax_bf16_whole_launch},
        {ts_softmax_fp16_launch, ts_softmax_fp16_short_launch, ts_softmax_fp16_whole_launch},
        {ts_softmax_f32_launch, ts_softmax_f32_short_launch, ts_softmax_f32_whole_launch}};
    return launchers[ts_rowwise_dtype_index(d.dtype)][plan.one_pass + plan.whole](&p, &plan, stream);
}
