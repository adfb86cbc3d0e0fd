/* Row L2 normalization on the row-wise template: the example of docs/row-template.md, built and
 * tested (tests/test_norm.c, row_template) so that the example keeps compiling and computing what it
 * says. Keep the two the same. */
#include <math.h>
#include <string.h>

#include "ops/warp_vector.h"
#include "templates/rowwise.h"

typedef struct row_l2_params {
    const void *x;
    void *out;
    long long rows, x_stride, out_stride;
    int cols, out_dtype, warps_per_row;
    float eps;
} row_l2_params;

#define TS_ROWWISE_FAMILY row_l2
#define TS_ROWWISE_FAMILY_VARIANT "tests/kernels/row_l2_variant.h"
#define TS_ROWWISE_FAMILY_SHORT_BLOCKS 4     /* 16-bit short and whole instances: blocks an SM */
#define TS_ROWWISE_FAMILY_F32_SHORT_BLOCKS 2 /* fp32: twice the registers */
#define TS_ROWWISE_FAMILY_F32_WHOLE_BLOCKS 2
#include "templates/rowwise_family.h" /* 9 kernels and row_l2_launchers[3] */

/* The SM count the plan caps the general instance's grid with (cache it in real code). */
static ts_status row_l2_sm_count(int *sms) {
    int device = 0;
    ts_device_props props;
    ts_status s = ts_device_get(&device);
    if (s == TS_SUCCESS) s = ts_device_get_props(device, &props);
    if (s == TS_SUCCESS) *sms = props.sm_count;
    return s;
}

TS_EXTERN_C ts_status row_l2(const void *x, ts_dtype dtype, long long x_stride, void *out, ts_dtype out_dtype,
                             long long out_stride, long long rows, int cols, float eps, ts_stream stream) {
    if (!ts_rowwise_dtype_valid(dtype) || !ts_rowwise_dtype_valid(out_dtype)) return TS_ERROR_INVALID_ENUM;
    if (rows <= 0 || cols <= 0) return TS_ERROR_INVALID_SIZE;
    if (cols > TS_ROWWISE_BACKEND_MAX_COLS) return TS_ERROR_UNSUPPORTED;
    ts_status s;
    if ((s = ts_rowwise_check_matrix(x, dtype, rows, cols, x_stride)) != TS_SUCCESS) return s;
    if ((s = ts_rowwise_check_matrix(out, out_dtype, rows, cols, out_stride)) != TS_SUCCESS) return s;
    row_l2_params p;
    memset(&p, 0, sizeof p);
    p.x = x;
    p.out = out;
    p.rows = rows;
    p.x_stride = x_stride;
    p.out_stride = out_stride;
    p.cols = cols;
    p.out_dtype = (int)out_dtype;
    p.eps = eps;
    const ts_rowwise_call call = {
        .rows = rows,
        .cols = cols,
        .dtype_bytes = ts_rowwise_dtype_bytes(dtype),
        .uniform = out_dtype == dtype,
        .aligned = ts_rowwise_aligned16(x, dtype, x_stride) && ts_rowwise_aligned16(out, out_dtype, out_stride),
    };
    ts_rowwise_route r;
    if ((s = ts_rowwise_route_call(&call, &row_l2_launchers[ts_rowwise_dtype_index(dtype)], row_l2_sm_count, &r)) !=
        TS_SUCCESS)
        return s;
    p.warps_per_row = r.plan.warps_per_row;
    return r.launch(&p, &r.plan, stream);
}
