/* LayerNorm and RMSNorm with the optional fused residual add (tessera.h, docs/memory-bound.md):
 * the argument checks, the launch plan and the kernels of each input dtype, instantiated from
 * norm_variant.h: a short one for rows of up to 8192 columns whose output and weight / bias share
 * the input's dtype, at high occupancy, the same for whole, aligned slices (the whole instance),
 * the whole instance once more for one-slice rows with a residual in one-warp blocks (16-bit
 * dtypes: the whole-row instance, below; and RMSNorm's such rows with a weight and no bias once more,
 * with those options fixed: the RMSNorm rows' instance), and a general one for longer rows and mixed dtypes
 * (kernels/common/rowwise.h, rowwise_instances.h); and 16-bit rows of 256, 512 and 768 columns and
 * fp32 rows of 256 and 512 several to a warp, 16-bit rows of 1280, 1536 and 1792 one a warp (norm_rows_variant.h,
 * kernels/common/rowwise_rows.h). */
#include "kernels/common/checks.h"
#include "kernels/common/rowwise.h"
#include "kernels/common/rowwise_rows.h"
#include "kernels/norm/norm_common.h"

/* Blocks per SM the short-row instances are built for: four, at 64 registers, which the packed
 * row and the short instance's specialization (norm_variant.h) meet with no spills. Measured on
 * the H200 against three (80 registers), when the row was held in fp32 and spilled: RMSNorm
 * +3-10%, LayerNorm +5-11% (bench/results/nvidia-h200-2026-11-30-pin-blocks-ab.txt). */
#ifndef TS_NORM_SHORT_MIN_BLOCKS
#define TS_NORM_SHORT_MIN_BLOCKS 4
#endif
/* fp32 rows are not packed (twice the registers of a 16-bit row): their short and whole instances
 * are built for two blocks an SM (102 and 86 registers, no spills; at four the short one spilled 60
 * bytes). Measured on the H200, RMSNorm + residual fp32 in the PyTorch driver
 * (bench/results/nvidia-h200-2026-12-02-norm-softmax-partial-rows.txt): 65536 x 768 3.41 -> 4.14
 * TB/s, 16384 x 2560 3.37 -> 4.13, 65536 x 1024 3.31 -> 3.72, 16384 x 4096 3.34 -> 3.90 (with
 * the partial strips' loads of ops/warp_vector.h); three blocks an SM 4.12 / 4.06 / 3.42 / 3.47. */
#ifndef TS_NORM_F32_SHORT_MIN_BLOCKS
#define TS_NORM_F32_SHORT_MIN_BLOCKS 2
#endif
#ifndef TS_NORM_F32_WHOLE_MIN_BLOCKS
#define TS_NORM_F32_WHOLE_MIN_BLOCKS 2
#endif

/* 1: the 16-bit fast instances load the weight with the row and hold it in registers
 * (norm_variant.h); 0: they read it after the reductions, as the general instance does. */
#ifndef TS_NORM_HOLD_PARAMS
#define TS_NORM_HOLD_PARAMS 1
#endif

/* With the weight held (above), 1: it is loaded after the row's x and residual, as torch.compile's
 * kernel orders its loads, so that the row's requests leave first; 0 (default): before them. The
 * two measured equal on the H200 (bench/results/nvidia-h200-2026-12-01-rope-whole-norm-weight-order-ab.txt). */
#ifndef TS_NORM_WEIGHT_AFTER_ROW
#define TS_NORM_WEIGHT_AFTER_ROW 0
#endif

/* Rows of one slice (up to 1024 columns, whole and aligned) with a residual and a 16-bit dtype run
 * on an instance of their own, ts_norm_*_whole_row (norm_variant.h, TS_ROWWISE_ONE_WARP_ROW), in
 * one-warp blocks built for TS_NORM_WHOLE_ROW_BLOCKS blocks an SM: the statistics first, then the
 * weight and the bias loaded into registers together, both outputs stored last, the reciprocal
 * square root for the scale, and no cross-warp reduction compiled in: the order of torch.compile's
 * kernel for LayerNorm. Holding both parameters needs more than the whole instance's 64 registers
 * (at 80 it spills), which its multi-warp rows should not pay (two blocks an SM would halve their
 * resident 4-warp blocks: -3 to -52%, bench/results/nvidia-h200-2026-12-01-norm-occupancy-cap-ab.txt);
 * hence the instance apart. At 20 blocks an SM it takes 96 registers, no spills (21 warps an SM).
 * Measured on the H200 against the whole instance (bench/results/nvidia-h200-2026-12-02-norm-whole-row-ab.txt):
 * LayerNorm / RMSNorm + residual 65536 x 1024 bf16 +0.7% / +0.5% in tessera-bench, 4.18 -> 4.23-4.24
 * and 4.19 -> 4.21 TB/s in the PyTorch driver; 16 blocks an SM (124 registers) +0.6 / +0.5%; the row
 * held in fp32 instead of packed (80 registers) +0.5 / +0.2%. Rows without a residual stay on the
 * whole instance: with one row in flight a warp, this instance's fewer resident warps do not cover
 * the latency (-10% at 16 blocks an SM, ...-2026-12-02-norm-stats-first-ab.txt). fp32 rows stay
 * there too (not measured on this instance). Two forms closer to torch.compile's RMSNorm kernel (64
 * registers, the weight loaded with the row) measured equal on RMSNorm + residual 65536 x 1024
 * (bench/results/nvidia-h200-2026-12-02-norm-rms-row-ab.txt), so neither is built: the weight loaded
 * before the statistics where there is no bias (+0.3%), and an RMSNorm instance with the weight present
 * and no bias fixed at compile time at 32 blocks an SM (64 registers, no spills in bf16; +0.2% in
 * tessera-bench, +0.05% in the driver), against a spread of +-0.3% between rounds. At 20 blocks an SM
 * with the weight loaded after the statistics, as this instance does, RMSNorm fixed at compile time
 * measured +0.3% and is built (TS_NORM_USE_RMS_ROW, below). */
#ifndef TS_NORM_WHOLE_ROW_BLOCKS
#define TS_NORM_WHOLE_ROW_BLOCKS 20
#endif

/* 1 (default): RMSNorm of one-slice rows with a residual and a weight and no bias (the pre-norm
 * transformer's) runs on an instance of its own, ts_norm_*_rms_row: the one-slice rows' instance with
 * those options fixed at compile time (norm_variant.h: TS_NORM_RMS_ROW), so that none of LayerNorm's
 * or the absent options' code is compiled in (416 SASS instructions against 648, 96 registers), at
 * the same TS_NORM_WHOLE_ROW_BLOCKS blocks an SM. Measured on the H200 in the PyTorch driver
 * (bench/results/nvidia-h200-2026-12-02-norm-rms-rows-instance.txt): RMSNorm + residual 65536 x 1024
 * bf16 +0.3% (4.207 -> 4.221 TB/s, medians of 3 processes), the other points unchanged. 0: those rows
 * take the one-slice rows' instance, for A/B runs. */
#ifndef TS_NORM_USE_RMS_ROW
#define TS_NORM_USE_RMS_ROW 1
#endif

/* 1 (default): 16-bit rows of 256, 512 or 768 columns and fp32 rows of 256 and 512 (whole chunks of
 * every lane with fewer bytes than a 16-bit slice, kernels/common/rowwise_plan.h:
 * ts_rowwise_row_chunks), 16-byte aligned, with the output and the parameters in the input's dtype,
 * run several to a warp on instances of their own, ts_norm_*_rows256 / 512 / 768
 * (norm_rows_variant.h), in one-warp blocks built for TS_NORM_ROWS_BLOCKS blocks an SM, and 16-bit
 * rows of 1280, 1536 and 1792 one a warp (ts_norm_*_rows1536: on the H200, LayerNorm / RMSNorm +
 * residual bf16 40960 x 1536 3.59 / 3.79 -> 4.22 / 4.23 TB/s, bench/results/nvidia-h200-2026-12-03-rows-1536-f32-512.txt;
 * 51200 x 1280 3.09 / 3.29 -> 4.19 / 4.21, 36864 x 1792 3.99 / 4.09 -> 4.19 / 4.17, ...-rows-1280-1792.txt);
 * 0: they take the short instance, for A/B runs. */
#ifndef TS_NORM_USE_ROWS
#define TS_NORM_USE_ROWS 1
#endif
#ifndef TS_NORM_ROWS_BLOCKS
#define TS_NORM_ROWS_BLOCKS TS_NORM_WHOLE_ROW_BLOCKS
#endif
/* Rows of 768, two a strip, hold six chunks a lane of each vector: 16 blocks an SM (128 registers;
 * at 20 they spilled 140-228 bytes). */
#ifndef TS_NORM_ROWS768_BLOCKS
#define TS_NORM_ROWS768_BLOCKS 16
#endif
/* Rows of 1536, one a strip, hold six chunks a lane of the row, the weight and the bias: 12 blocks an
 * SM (167 registers; at 16, 128 registers, they spilled 48-56 bytes). */
#ifndef TS_NORM_ROWS1536_BLOCKS
#define TS_NORM_ROWS1536_BLOCKS 12
#endif
/* Rows of 1280 and 1792, one a strip (CUDA), hold five and seven chunks a lane: 16 blocks an SM
 * (127 registers; at 20 they spilled 212 bytes) and 12 (168; at 16, 404 bytes). */
#ifndef TS_NORM_ROWS1280_BLOCKS
#define TS_NORM_ROWS1280_BLOCKS 16
#endif
#ifndef TS_NORM_ROWS1792_BLOCKS
#define TS_NORM_ROWS1792_BLOCKS 12
#endif
/* fp32 rows of 256, four a strip: the same 32 words a lane as a 16-bit strip of 512-column rows (96
 * registers, no spills). Measured on the H200 against a row a warp, LayerNorm / RMSNorm + residual in the
 * PyTorch driver: 65536 and 262144 rows 2.67-2.89 -> 4.12-4.21 TB/s
 * (bench/results/nvidia-h200-2026-12-03-norm-f32-rows256.txt). */
#ifndef TS_NORM_F32_ROWS_BLOCKS
#define TS_NORM_F32_ROWS_BLOCKS TS_NORM_ROWS_BLOCKS
#endif
/* 1 (default): 16-bit rows of whole quad rows that are not whole chunks of every lane
 * (kernels/common/rowwise_plan.h: ts_rowwise_row_quads: 384, 640 and 896 columns on CUDA, 256 and 768
 * on HIP) run several to a warp on the rows instances, as quad rows in the split layout
 * (ops/warp_vector.h: TS_WV_ROWS_QUADS), at TS_NORM_ROWS_QUAD_BLOCKS blocks an SM (96-128 registers,
 * no spills); 0: a row a warp, on the short instance, for A/B runs. Measured on the H200 in the
 * PyTorch driver, LayerNorm / RMSNorm + residual bf16 (bench/results/nvidia-h200-2026-12-03-quad-rows.txt):
 * 163840 x 384 1.92 / 2.03 -> 4.22 / 4.21 TB/s, 98304 x 640 3.05 / 3.21 -> 4.23 / 4.24, 73728 x 896
 * 3.92 / 4.07 -> 4.22 / 4.23 (0.45-0.96x -> 0.994-0.999x torch.compile). */
#ifndef TS_NORM_USE_QUAD_ROWS
#define TS_NORM_USE_QUAD_ROWS 1
#endif
#ifndef TS_NORM_ROWS_QUAD_BLOCKS
#define TS_NORM_ROWS_QUAD_BLOCKS 16
#endif
/* fp32 rows of 512, two a strip (kernels/common/rowwise_plan.h: TS_ROWWISE_ROWS_F32_512): 12 blocks an
 * SM, 16 spilled 120 bytes. */
#ifndef TS_NORM_F32_ROWS512_BLOCKS
#define TS_NORM_F32_ROWS512_BLOCKS 12
#endif
/* 1 (default): 16-bit rows longer than a slice and at most two slices less a chunk of every lane,
 * whole chunks (kernels/common/rowwise_plan.h: ts_rowwise_long_row; 1032 to 1792 columns on CUDA)
 * that the rows instances do not take, with uniform dtypes and 16-byte aligned matrices, run a row a
 * one-warp block (ts_norm_*_long_row, kernels/common/rowwise_long_row.h), launch bounds of
 * TS_NORM_LONG_ROW_BLOCKS blocks an SM (96 registers in either dtype, so 21 fit; no spills); 0: over
 * two warps, on the short instance, the second warp partly empty. On the H200
 * (bench/results/nvidia-h200-2026-12-04-long-rows-on.txt, at 12 blocks) RMSNorm + residual bf16 57344x1152 2.87 ->
 * 3.55 TB/s, 40960x1600 3.75 -> 4.02, fp16 57344x1152 2.39 -> 3.51, 40960x1600 3.19 -> 4.05. The
 * bf16 kernel reads its row's elements through ts_wvp_elem_at_use: with plain conversions it held
 * them in fp32 besides the packed words (167 registers, 12 blocks) and lost to two warps past about
 * 1500 columns. Holding the weight and bias for the store (as the one-slice rows do) is what the
 * kernel needs: streaming them instead took fp16 40960x1600 from 4.05 to 3.11 TB/s. */
#ifndef TS_NORM_USE_LONG_ROW
#define TS_NORM_USE_LONG_ROW 1
#endif
/* At 12 blocks an SM these kernels took 106 registers (18 fit); at 20, 96 and no spills, which on the
 * H200 (bench/results/nvidia-h200-2026-12-04-long-rows-blocks.txt) took RMSNorm + residual bf16
 * 40960x1600 from 4.02 to 4.16 TB/s (0.999x -> 1.033x torch.compile), 39424x1664 4.10 -> 4.18, fp16
 * 40960x1600 4.04 -> 4.18, LayerNorm + residual bf16 40960x1600 3.84 -> 4.08; at 24 they spill. */
#ifndef TS_NORM_LONG_ROW_BLOCKS
#define TS_NORM_LONG_ROW_BLOCKS 20
#endif
/* 1 (default): of those rows, the ones of at most a slice and one chunk of every lane (1032 to 1272
 * columns on CUDA; rowwise_plan.h: TS_ROWWISE_LONG_ROW_NARROW_COLS) run on narrow long-row
 * instances, whose slice is that long, TS_NORM_LONG_ROW_NARROW_BLOCKS blocks an SM (80 registers,
 * no spills); 0: on the long-row instances, where a third of each lane's registers lie past a row
 * of 1152. On the H200 (bench/results/nvidia-h200-2026-12-04-long-rows-narrow.txt) RMSNorm +
 * residual bf16 57344x1152 3.56 -> 4.20 TB/s (0.93x -> 1.10x torch.compile), 55296x1216 3.60 ->
 * 4.20, fp16 57344x1152 3.53 -> 4.19; LayerNorm + residual bf16 57344x1152 3.39 -> 4.12. */
#ifndef TS_NORM_USE_LONG_ROW_NARROW
#define TS_NORM_USE_LONG_ROW_NARROW 1
#endif
#ifndef TS_NORM_LONG_ROW_NARROW_BLOCKS
#define TS_NORM_LONG_ROW_NARROW_BLOCKS 24
#endif
/* 1 (default): of the longer ones, those of at most a slice and two chunks of every lane (1288 to
 * 1528 columns on CUDA; rowwise_plan.h: TS_ROWWISE_LONG_ROW_MID_COLS) run on middle long-row
 * instances, whose slice is that long, TS_NORM_LONG_ROW_MID_BLOCKS blocks an SM (92-94 registers, no
 * spills; at 24, 8-28 bytes spilled); 0: on the long-row instances. On the H200
 * (bench/results/nvidia-h200-2026-12-04-long-rows-mid.txt) RMSNorm + residual bf16 49920x1344 3.74 -> 4.13 TB/s
 * (0.95x -> 1.05x torch.compile), 47616x1408 3.85 -> 4.17, 43904x1528 3.96 -> 4.16, fp16 47616x1408
 * 3.88 -> 4.18 (0.98x -> 1.06x); LayerNorm + residual bf16 47616x1408 3.59 -> 4.03. */
#ifndef TS_NORM_USE_LONG_ROW_MID
#define TS_NORM_USE_LONG_ROW_MID 1
#endif
#ifndef TS_NORM_LONG_ROW_MID_BLOCKS
#define TS_NORM_LONG_ROW_MID_BLOCKS 20
#endif

#define TS_NORM_RMS_ROW 0
#define TS_ROWWISE_INSTANCE_VARIANT "kernels/norm/norm_variant.h"
#define TS_ROWWISE_INSTANCE_WHOLE 1
#define TS_ROWWISE_INSTANCE_WHOLE_ROW_BLOCKS TS_NORM_WHOLE_ROW_BLOCKS
#define TS_ROWWISE_INSTANCE_SHORT_BLOCKS TS_NORM_SHORT_MIN_BLOCKS
#define TS_ROWWISE_INSTANCE_NAME ts_norm_bf16
#define TS_ROWWISE_INSTANCE_DTYPE TS_DTYPE_BF16
#include "kernels/common/rowwise_instances.h"
#define TS_ROWWISE_INSTANCE_NAME ts_norm_fp16
#define TS_ROWWISE_INSTANCE_DTYPE TS_DTYPE_FP16
#include "kernels/common/rowwise_instances.h"
#undef TS_ROWWISE_INSTANCE_WHOLE_ROW_BLOCKS
#undef TS_ROWWISE_INSTANCE_SHORT_BLOCKS
#define TS_ROWWISE_INSTANCE_SHORT_BLOCKS TS_NORM_F32_SHORT_MIN_BLOCKS
#define TS_ROWWISE_INSTANCE_WHOLE_BLOCKS TS_NORM_F32_WHOLE_MIN_BLOCKS
#define TS_ROWWISE_INSTANCE_NAME ts_norm_f32
#define TS_ROWWISE_INSTANCE_DTYPE TS_DTYPE_F32
#include "kernels/common/rowwise_instances.h"
#undef TS_ROWWISE_INSTANCE_WHOLE_BLOCKS
#undef TS_ROWWISE_INSTANCE_SHORT_BLOCKS
#undef TS_ROWWISE_INSTANCE_WHOLE

/* The long-row instances (TS_NORM_USE_LONG_ROW), 16-bit dtypes (kernels/common/rowwise_long_row.h). */
#define TS_ROWWISE_LONG_ROW_BLOCKS TS_NORM_LONG_ROW_BLOCKS
#define TS_ROWWISE_LONG_ROW_LIMIT TS_ROWWISE_LONG_ROW_COLS(TS_WARP_LANES)
#define TS_ROWWISE_LONG_ROW_BF16_NAME ts_norm_bf16_long_row
#define TS_ROWWISE_LONG_ROW_FP16_NAME ts_norm_fp16_long_row
#include "kernels/common/rowwise_long_row_instances.h"
#if TS_ROWWISE_HAS_LONG_ROW_NARROW
/* The narrow long-row instances (TS_NORM_USE_LONG_ROW_NARROW). */
#define TS_ROWWISE_LONG_ROW_BLOCKS TS_NORM_LONG_ROW_NARROW_BLOCKS
#define TS_ROWWISE_LONG_ROW_LIMIT TS_ROWWISE_LONG_ROW_NARROW_COLS(TS_WARP_LANES)
#define TS_ROWWISE_LONG_ROW_BF16_NAME ts_norm_bf16_long_row_narrow
#define TS_ROWWISE_LONG_ROW_FP16_NAME ts_norm_fp16_long_row_narrow
#include "kernels/common/rowwise_long_row_instances.h"
#endif
#if TS_ROWWISE_HAS_LONG_ROW_MID
/* The middle long-row instances (TS_NORM_USE_LONG_ROW_MID). */
#define TS_ROWWISE_LONG_ROW_BLOCKS TS_NORM_LONG_ROW_MID_BLOCKS
#define TS_ROWWISE_LONG_ROW_LIMIT TS_ROWWISE_LONG_ROW_MID_COLS(TS_WARP_LANES)
#define TS_ROWWISE_LONG_ROW_BF16_NAME ts_norm_bf16_long_row_mid
#define TS_ROWWISE_LONG_ROW_FP16_NAME ts_norm_fp16_long_row_mid
#include "kernels/common/rowwise_long_row_instances.h"
#endif

/* The RMSNorm rows' instances (TS_NORM_USE_RMS_ROW), 16-bit dtypes: one-slice rows' instances
 * (kernels/common/rowwise_one_warp_row.h) with TS_NORM_RMS_ROW. */
#undef TS_NORM_RMS_ROW
#define TS_NORM_RMS_ROW 1
#define TS_ROWWISE_ONE_WARP_ROW_BLOCKS TS_NORM_WHOLE_ROW_BLOCKS
#define TS_ROWWISE_ONE_WARP_ROW_NAME ts_norm_bf16_rms_row
#define TS_ROWWISE_DTYPE TS_DTYPE_BF16
#include "kernels/common/rowwise_one_warp_row.h"
#undef TS_ROWWISE_ONE_WARP_ROW_NAME
#undef TS_ROWWISE_DTYPE
#define TS_ROWWISE_ONE_WARP_ROW_NAME ts_norm_fp16_rms_row
#define TS_ROWWISE_DTYPE TS_DTYPE_FP16
#include "kernels/common/rowwise_one_warp_row.h"
#undef TS_ROWWISE_ONE_WARP_ROW_NAME
#undef TS_ROWWISE_DTYPE
#undef TS_ROWWISE_ONE_WARP_ROW_BLOCKS
#undef TS_ROWWISE_INSTANCE_VARIANT
#undef TS_NORM_RMS_ROW

/* The rows instances (TS_NORM_USE_ROWS, kernels/common/rowwise_rows_instances.h). */
#define TS_ROWWISE_ROWS_VARIANT "kernels/norm/norm_rows_variant.h"
#define TS_ROWWISE_ROWS_PARAMS ts_norm_params
#define TS_ROWWISE_ROWS_QUAD_ROWS TS_NORM_USE_QUAD_ROWS
#define TS_ROWWISE_ROWS_QUAD_BLOCKS TS_NORM_ROWS_QUAD_BLOCKS
#define TS_ROWWISE_ROWS_16BIT 1
#define TS_ROWWISE_ROWS_BLOCKS TS_NORM_ROWS_BLOCKS
#define TS_ROWWISE_ROWS768_BLOCKS TS_NORM_ROWS768_BLOCKS
#define TS_ROWWISE_ROWS1280_BLOCKS TS_NORM_ROWS1280_BLOCKS
#define TS_ROWWISE_ROWS1536_BLOCKS TS_NORM_ROWS1536_BLOCKS
#define TS_ROWWISE_ROWS1792_BLOCKS TS_NORM_ROWS1792_BLOCKS
#define TS_ROWWISE_DTYPE TS_DTYPE_BF16
#define TS_ROWWISE_ROWS_PREFIX ts_norm_bf16_rows
#include "kernels/common/rowwise_rows_instances.h"
#undef TS_ROWWISE_ROWS_PREFIX
#undef TS_ROWWISE_DTYPE
#define TS_ROWWISE_DTYPE TS_DTYPE_FP16
#define TS_ROWWISE_ROWS_PREFIX ts_norm_fp16_rows
#include "kernels/common/rowwise_rows_instances.h"
#undef TS_ROWWISE_ROWS_PREFIX
#undef TS_ROWWISE_DTYPE
#undef TS_ROWWISE_ROWS_BLOCKS
#undef TS_ROWWISE_ROWS_16BIT
/* fp32: rows of 256 and 512, in the split layout (norm_rows_variant.h). */
#define TS_ROWWISE_ROWS_16BIT 0
#define TS_ROWWISE_ROWS_BLOCKS TS_NORM_F32_ROWS_BLOCKS
#define TS_ROWWISE_ROWS_F32_512_BLOCKS TS_NORM_F32_ROWS512_BLOCKS
#define TS_ROWWISE_DTYPE TS_DTYPE_F32
#define TS_ROWWISE_ROWS_PREFIX ts_norm_f32_rows
#include "kernels/common/rowwise_rows_instances.h"
#undef TS_ROWWISE_ROWS_PREFIX
#undef TS_ROWWISE_DTYPE
#undef TS_ROWWISE_ROWS_BLOCKS
#undef TS_ROWWISE_ROWS_F32_512_BLOCKS
#undef TS_ROWWISE_ROWS_16BIT
#undef TS_ROWWISE_ROWS768_BLOCKS
#undef TS_ROWWISE_ROWS1280_BLOCKS
#undef TS_ROWWISE_ROWS1536_BLOCKS
#undef TS_ROWWISE_ROWS1792_BLOCKS
#undef TS_ROWWISE_ROWS_PARAMS
#undef TS_ROWWISE_ROWS_QUAD_ROWS
#undef TS_ROWWISE_ROWS_QUAD_BLOCKS
#undef TS_ROWWISE_ROWS_VARIANT

/* The rows instance's launcher for a dtype and a row length (ts_rowwise_rows_fit took it), or NULL. */
static ts_status (*ts_norm_rows_launcher(ts_dtype dtype, int cols))(const ts_norm_params *, ts_stream) {
    return dtype == TS_DTYPE_BF16   ? ts_norm_bf16_rows_launcher(cols)
           : dtype == TS_DTYPE_FP16 ? ts_norm_fp16_rows_launcher(cols)
                                    : ts_norm_f32_rows_launcher(cols);
}

static ts_status ts_norm_run(const ts_norm_desc *desc, int rms, ts_stream stream) {
    if (!desc) return TS_ERROR_NULL_POINTER;
    const ts_norm_desc d = *desc;
    if (!ts_rowwise_dtype_valid(d.dtype) || !ts_rowwise_dtype_valid(d.out_dtype)) return TS_ERROR_INVALID_ENUM;
    if ((d.weight || d.bias) && !ts_rowwise_dtype_valid(d.param_dtype)) return TS_ERROR_INVALID_ENUM;
    if (d.rows <= 0 || d.cols <= 0) return TS_ERROR_INVALID_SIZE;
    if (d.cols > TS_ROWWISE_BACKEND_MAX_COLS) return TS_ERROR_UNSUPPORTED;
    if (!(d.eps >= 0.0f) || !isfinite(d.eps)) return TS_ERROR_INVALID_VALUE;
    if (d.residual_out && !d.residual) return TS_ERROR_INVALID_VALUE;
    ts_status s;
    if ((s = ts_rowwise_check_matrix(d.x, d.dtype, d.rows, d.cols, d.x_stride)) != TS_SUCCESS) return s;
    if ((s = ts_rowwise_check_matrix(d.out, d.out_dtype, d.rows, d.cols, d.out_stride)) != TS_SUCCESS) return s;
    if (d.residual && (s = ts_rowwise_check_matrix(d.residual, d.dtype, d.rows, d.cols, d.residual_stride)) != TS_SUCCESS)
        return s;
    if (d.residual_out &&
        (s = ts_rowwise_check_matrix(d.residual_out, d.dtype, d.rows, d.cols, d.residual_out_stride)) != TS_SUCCESS)
        return s;
    if (d.weight && (s = ts_rowwise_check_matrix(d.weight, d.param_dtype, 1, d.cols, d.cols)) != TS_SUCCESS) return s;
    if (d.bias && (s = ts_rowwise_check_matrix(d.bias, d.param_dtype, 1, d.cols, d.cols)) != TS_SUCCESS) return s;
    /* The outputs share no byte with any other tensor, but out may be x and residual_out may be
     * residual exactly (the same pointer, dtype and stride). */
    const int xb = ts_rowwise_dtype_bytes(d.dtype), pb = ts_rowwise_dtype_bytes(d.param_dtype);
    const ts_check_layout lx = ts_check_matrix_layout(d.x, xb, d.rows, d.cols, d.x_stride);
    const ts_check_layout lr = ts_check_matrix_layout(d.residual, xb, d.rows, d.cols, d.residual_stride);
    const ts_check_layout lro = ts_check_matrix_layout(d.residual_out, xb, d.rows, d.cols, d.residual_out_stride);
    const ts_check_layout lw = ts_check_matrix_layout(d.weight, pb, 1, d.cols, d.cols);
    const ts_check_layout lb = ts_check_matrix_layout(d.bias, pb, 1, d.cols, d.cols);
    const ts_check_layout lo =
        ts_check_matrix_layout(d.out, ts_rowwise_dtype_bytes(d.out_dtype), d.rows, d.cols, d.out_stride);
    if (ts_check_disjoint_or_same(&lo, &lx, d.out == d.x && d.out_dtype == d.dtype && d.out_stride == d.x_stride) ||
        (d.residual && ts_check_disjoint(&lo, &lr)) || (d.residual_out && ts_check_disjoint(&lo, &lro)) ||
        (d.weight && ts_check_disjoint(&lo, &lw)) || (d.bias && ts_check_disjoint(&lo, &lb)))
        return TS_ERROR_INVALID_VALUE;
    if (d.residual_out &&
        (ts_check_disjoint_or_same(&lro, &lr,
                                   d.residual_out == d.residual && d.residual_out_stride == d.residual_stride) ||
         ts_check_disjoint(&lro, &lx) || (d.weight && ts_check_disjoint(&lro, &lw)) ||
         (d.bias && ts_check_disjoint(&lro, &lb))))
        return TS_ERROR_INVALID_VALUE;

    ts_norm_params p;
    memset(&p, 0, sizeof p);
    p.x = d.x;
    p.residual = d.residual;
    p.weight = d.weight;
    p.bias = d.bias;
    p.out = d.out;
    p.residual_out = d.residual_out;
    p.rows = d.rows;
    p.x_stride = d.x_stride;
    p.residual_stride = d.residual_stride;
    p.out_stride = d.out_stride;
    p.residual_out_stride = d.residual_out_stride;
    p.cols = d.cols;
    p.rms = rms;
    p.out_dtype = (int)d.out_dtype;
    p.param_dtype = (d.weight || d.bias) ? (int)d.param_dtype : (int)TS_DTYPE_F32;
    p.eps = d.eps;
    p.inv_cols = 1.0f / (float)d.cols;
    /* The short instance takes one pass over uniform dtypes (norm_variant.h). */
    const int uniform = d.out_dtype == d.dtype && (!(d.weight || d.bias) || d.param_dtype == d.dtype);
    ts_rowwise_plan plan;
    if ((s = ts_rowwise_make_plan(d.rows, d.cols, uniform, &plan)) != TS_SUCCESS) return s;
    p.warps_per_row = plan.warps_per_row;
    /* Whole, aligned rows take the whole instance: no element-by-element paths (norm_variant.h). */
    const int aligned = ts_rowwise_aligned16(d.x, d.dtype, d.x_stride) &&
                        ts_rowwise_aligned16(d.out, d.out_dtype, d.out_stride) &&
                        ts_rowwise_aligned16(d.residual, d.dtype, d.residual_stride) &&
                        ts_rowwise_aligned16(d.residual_out, d.dtype, d.residual_out_stride) &&
                        ts_rowwise_aligned16(d.weight, d.param_dtype, 0) &&
                        ts_rowwise_aligned16(d.bias, d.param_dtype, 0);
    plan.whole = TS_ROWWISE_USE_WHOLE && ts_rowwise_plan_whole(d.rows, d.cols, &plan) && aligned;
    /* Rows shorter than a slice's bytes, several a warp (whole chunks of every lane, or with
     * TS_NORM_USE_QUAD_ROWS whole quad rows), and 16-bit rows of one to two slices, one a warp
     * (norm_rows_variant.h). */
    if (TS_NORM_USE_ROWS && ts_rowwise_rows_fit(d.rows, d.cols, ts_rowwise_dtype_bytes(d.dtype), TS_NORM_USE_QUAD_ROWS) &&
        uniform && aligned) {
        ts_status (*rows_launcher)(const ts_norm_params *, ts_stream) = ts_norm_rows_launcher(d.dtype, d.cols);
        if (rows_launcher) return rows_launcher(&p, stream);
    }
    ts_rowwise_plan long_row;
    if (TS_NORM_USE_LONG_ROW && uniform && aligned &&
        ts_rowwise_long_row_plan(d.rows, d.cols, ts_rowwise_dtype_bytes(d.dtype), &long_row)) {
        p.warps_per_row = long_row.warps_per_row;
        ts_status (*long_row_launcher)(const ts_norm_params *, const ts_rowwise_plan *, ts_stream) =
            d.dtype == TS_DTYPE_BF16 ? ts_norm_bf16_long_row_launch : ts_norm_fp16_long_row_launch;
        switch (ts_rowwise_long_row_pick(d.cols, TS_NORM_USE_LONG_ROW_NARROW, TS_NORM_USE_LONG_ROW_MID)) {
#if TS_ROWWISE_HAS_LONG_ROW_NARROW
        case TS_ROWWISE_LONG_ROW_INSTANCE_NARROW:
            long_row_launcher =
                d.dtype == TS_DTYPE_BF16 ? ts_norm_bf16_long_row_narrow_launch : ts_norm_fp16_long_row_narrow_launch;
            break;
#endif
#if TS_ROWWISE_HAS_LONG_ROW_MID
        case TS_ROWWISE_LONG_ROW_INSTANCE_MID:
            long_row_launcher =
                d.dtype == TS_DTYPE_BF16 ? ts_norm_bf16_long_row_mid_launch : ts_norm_fp16_long_row_mid_launch;
            break;
#endif
        default:
            break;
        }
        return long_row_launcher(&p, &long_row, stream);
    }
    typedef ts_status (*launcher)(const ts_norm_params *, const ts_rowwise_plan *, ts_stream);
    static const launcher launchers[3][5] = {
        {ts_norm_bf16_launch, ts_norm_bf16_short_launch, ts_norm_bf16_whole_launch, ts_norm_bf16_whole_row_launch,
         ts_norm_bf16_rms_row_launch},
        {ts_norm_fp16_launch, ts_norm_fp16_short_launch, ts_norm_fp16_whole_launch, ts_norm_fp16_whole_row_launch,
         ts_norm_fp16_rms_row_launch},
        {ts_norm_f32_launch, ts_norm_f32_short_launch, ts_norm_f32_whole_launch, NULL, NULL}};
    /* Columns: general, short, whole, the whole instance's one-warp rows with a residual (16-bit),
     * and those of them that are RMSNorm with a weight and no bias. */
    const int one_warp_rows = plan.whole && plan.warps == 1 && d.residual && d.dtype != TS_DTYPE_F32;
    const int rms_rows = one_warp_rows && TS_NORM_USE_RMS_ROW && rms && d.weight && !d.bias;
    const int instance = rms_rows ? 4 : one_warp_rows ? 3 : plan.one_pass + plan.whole;
    return launchers[ts_rowwise_dtype_index(d.dtype)][instance](&p, &plan, stream);
}

TS_EXTERN_C ts_status ts_layernorm(const ts_norm_desc *desc, ts_stream stream) { return ts_norm_run(desc, 0, stream); }

TS_EXTERN_C ts_status ts_rmsnorm(const ts_norm_desc *desc, ts_stream stream) { return ts_norm_run(desc, 1, stream); }
