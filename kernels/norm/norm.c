/* LayerNorm and RMSNorm with the optional fused residual add (tessera.h, docs/memory-bound.md): the
 * argument checks and the kernels, built on the row-wise template (templates/rowwise.h) from
 * norm_variant.h (a slice a warp) and norm_rows_variant.h (several rows a warp), per input dtype:
 * the template's instances (templates/rowwise_family.h), the whole instance once more for one-slice
 * 16-bit rows with a residual in one-warp blocks (the whole-row instance: the statistics first, then
 * the weight and the bias held, as torch.compile's kernel orders them), and that one once more for
 * RMSNorm with a weight and no bias fixed at compile time (the RMSNorm rows' instance, the pre-norm
 * transformer's). Launch numbers: tuning.h. */
#include "kernels/common/checks.h"
#include "kernels/common/device_props.h"
#include "kernels/norm/norm_common.h"
#include "kernels/norm/tuning.h"
#include "templates/rowwise.h"

#define TS_NORM_RMS_ROW 0
#define TS_ROWWISE_FAMILY ts_norm
#define TS_ROWWISE_FAMILY_VARIANT "kernels/norm/norm_variant.h"
#define TS_ROWWISE_FAMILY_SHORT_BLOCKS TS_NORM_SHORT_MIN_BLOCKS
#define TS_ROWWISE_FAMILY_F32_SHORT_BLOCKS TS_NORM_F32_SHORT_MIN_BLOCKS
#define TS_ROWWISE_FAMILY_F32_WHOLE_BLOCKS TS_NORM_F32_WHOLE_MIN_BLOCKS
#define TS_ROWWISE_FAMILY_WHOLE_ROW_BLOCKS TS_NORM_WHOLE_ROW_BLOCKS
#define TS_ROWWISE_FAMILY_LONG_ROW_BLOCKS TS_NORM_LONG_ROW_BLOCKS
#define TS_ROWWISE_FAMILY_LONG_ROW_NARROW_BLOCKS TS_NORM_LONG_ROW_NARROW_BLOCKS
#define TS_ROWWISE_FAMILY_LONG_ROW_MID_BLOCKS TS_NORM_LONG_ROW_MID_BLOCKS
#define TS_ROWWISE_FAMILY_ROWS_VARIANT "kernels/norm/norm_rows_variant.h"
#define TS_ROWWISE_FAMILY_ROWS_BLOCKS TS_NORM_ROWS_BLOCKS
#define TS_ROWWISE_FAMILY_ROWS768_BLOCKS TS_NORM_ROWS768_BLOCKS
#define TS_ROWWISE_FAMILY_ROWS1280_BLOCKS TS_NORM_ROWS1280_BLOCKS
#define TS_ROWWISE_FAMILY_ROWS1536_BLOCKS TS_NORM_ROWS1536_BLOCKS
#define TS_ROWWISE_FAMILY_ROWS1792_BLOCKS TS_NORM_ROWS1792_BLOCKS
#define TS_ROWWISE_FAMILY_ROWS_QUAD_BLOCKS TS_NORM_ROWS_QUAD_BLOCKS
#define TS_ROWWISE_FAMILY_ROWS_F32_BLOCKS TS_NORM_F32_ROWS_BLOCKS
#define TS_ROWWISE_FAMILY_ROWS_F32_512_BLOCKS TS_NORM_F32_ROWS512_BLOCKS
#include "templates/rowwise_family.h"

/* The RMSNorm rows' instances, 16-bit dtypes (templates/rowwise_one_warp_row.h). */
#undef TS_NORM_RMS_ROW
#define TS_NORM_RMS_ROW 1
#define TS_ROWWISE_INSTANCE_VARIANT TS_ROWWISE_FAMILY_VARIANT
#define TS_ROWWISE_ONE_WARP_ROW_BLOCKS TS_NORM_WHOLE_ROW_BLOCKS
#define TS_ROWWISE_ONE_WARP_ROW_NAME ts_norm_bf16_rms_row
#define TS_ROWWISE_DTYPE TS_DTYPE_BF16
#include "templates/rowwise_one_warp_row.h"
#undef TS_ROWWISE_ONE_WARP_ROW_NAME
#undef TS_ROWWISE_DTYPE
#define TS_ROWWISE_ONE_WARP_ROW_NAME ts_norm_fp16_rms_row
#define TS_ROWWISE_DTYPE TS_DTYPE_FP16
#include "templates/rowwise_one_warp_row.h"
#undef TS_ROWWISE_ONE_WARP_ROW_NAME
#undef TS_ROWWISE_DTYPE
#undef TS_ROWWISE_ONE_WARP_ROW_BLOCKS
#undef TS_ROWWISE_INSTANCE_VARIANT
#undef TS_NORM_RMS_ROW

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
    /* The fast instances have one dtype path: the input's (norm_variant.h). */
    const int uniform = d.out_dtype == d.dtype && (!(d.weight || d.bias) || d.param_dtype == d.dtype);
    const ts_rowwise_call call = {
        .rows = d.rows,
        .cols = d.cols,
        .dtype_bytes = ts_rowwise_dtype_bytes(d.dtype),
        .uniform = uniform,
        .aligned = ts_rowwise_aligned16(d.x, d.dtype, d.x_stride) && ts_rowwise_aligned16(d.out, d.out_dtype, d.out_stride) &&
                   ts_rowwise_aligned16(d.residual, d.dtype, d.residual_stride) &&
                   ts_rowwise_aligned16(d.residual_out, d.dtype, d.residual_out_stride) &&
                   ts_rowwise_aligned16(d.weight, d.param_dtype, 0) && ts_rowwise_aligned16(d.bias, d.param_dtype, 0),
    };
    ts_rowwise_route r;
    if ((s = ts_rowwise_route_call(&call, &ts_norm_launchers[ts_rowwise_dtype_index(d.dtype)], ts_kernel_sm_count, &r)) !=
        TS_SUCCESS)
        return s;
    p.warps_per_row = r.plan.warps_per_row;
    /* One-slice 16-bit rows with a residual: the whole-row instance, or the RMSNorm rows' one. */
    if (r.kind == TS_ROWWISE_ROUTE_WHOLE && r.plan.warps == 1 && d.residual && d.dtype != TS_DTYPE_F32) {
        const int bf16 = d.dtype == TS_DTYPE_BF16;
        r.launch = rms && d.weight && !d.bias ? (bf16 ? ts_norm_bf16_rms_row_launch : ts_norm_fp16_rms_row_launch)
                                              : (bf16 ? ts_norm_bf16_whole_row_launch : ts_norm_fp16_whole_row_launch);
    }
    return r.launch(&p, &r.plan, stream);
}

TS_EXTERN_C ts_status ts_layernorm(const ts_norm_desc *desc, ts_stream stream) { return ts_norm_run(desc, 0, stream); }

TS_EXTERN_C ts_status ts_rmsnorm(const ts_norm_desc *desc, ts_stream stream) { return ts_norm_run(desc, 1, stream); }
