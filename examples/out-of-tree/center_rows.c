/* A kernel written outside Tessera's tree against the installed tile language: each row of an fp32
 * matrix minus its mean, times a scale. A warp owns a strip of 16 rows: it sums the strip's 16 x 64
 * tiles into one value per row, then loads the tiles again, subtracts the mean and scales. Loads
 * zero-fill past the matrix's edges (the sums stay exact) and stores skip them, so any shape works.
 * The same file compiles for the CPU, Hopper and CDNA (tessera_add_kernels in CMakeLists.txt). */
#include "backends/backend.h"
#include "ops/maps.h"
#include "ops/memory.h"
#include "ops/reductions.h"

#include "center_rows.h"

#define CENTER_ROWS_WARPS 4

typedef struct center_rows_params {
    ts_gl x, y;
    int strips, col_tiles;
    float inv_cols, scale;
} center_rows_params;

TS_KERNEL(center_rows_kernel, CENTER_ROWS_WARPS, center_rows_params, p) {
    const int strip = ts_block_x() * CENTER_ROWS_WARPS + ts_warp_id();
    if (strip >= p->strips) return; /* the whole warp leaves together */
    ts_rt_f32_16x64 tile;
    ts_rowvec_f32_16 sum, mean;
    ts_rv_zero(&sum);
    for (int t = 0; t < p->col_tiles; ++t) {
        ts_load_g2r(&tile, &p->x, 0, 0, strip, t);
        ts_row_sum_acc(&sum, &tile, &sum);
    }
    ts_rv_mul_scalar(&mean, &sum, p->inv_cols);
    for (int t = 0; t < p->col_tiles; ++t) {
        ts_load_g2r(&tile, &p->x, 0, 0, strip, t);
        ts_sub_row(&tile, &tile, &mean);
        ts_mul_scalar(&tile, &tile, p->scale);
        ts_store_r2g(&p->y, &tile, 0, 0, strip, t);
    }
}

TS_EXTERN_C ts_status center_rows_f32(float *y, const float *x, int rows, int cols, float scale,
                                      ts_stream stream) {
    if (!y || !x) return TS_ERROR_NULL_POINTER;
    if (rows < 1 || cols < 1) return TS_ERROR_INVALID_SIZE;
    const long long strips = (rows + 15LL) / 16;
    const long long blocks = (strips + CENTER_ROWS_WARPS - 1) / CENTER_ROWS_WARPS;
    if (blocks > 2147483647LL) return TS_ERROR_SIZE_OVERFLOW;
    center_rows_params params;
    params.x = ts_gl_matrix((void *)x, TS_DTYPE_F32, rows, cols, cols);
    params.y = ts_gl_matrix(y, TS_DTYPE_F32, rows, cols, cols);
    params.strips = (int)strips;
    params.col_tiles = (cols + 63) / 64;
    params.inv_cols = 1.0f / (float)cols;
    params.scale = scale;
    return TS_LAUNCH(center_rows_kernel, ts_grid_1d((unsigned)blocks), CENTER_ROWS_WARPS, 0, stream,
                     params);
}
