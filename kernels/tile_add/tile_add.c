/* C = A + B on fp32 matrices, the first kernel through every level of the tile language: each
 * warp takes one 16x16 tile, loads A and B global -> shared (zero-filled past the edges), shared ->
 * registers, adds in registers and stores registers -> global, masked at the edges. */
#include "backends/backend.h"
#include "ops/maps.h"
#include "ops/memory.h"

#define TS_TILE_ADD_WARPS 4

typedef struct ts_tile_add_params {
    float *c;
    const float *a;
    const float *b;
    int rows, cols;
    long long ldc, lda, ldb;
    int tiles_across;
    long long tiles;
} ts_tile_add_params;

TS_KERNEL(ts_tile_add_kernel, TS_TILE_ADD_WARPS, ts_tile_add_params, p) {
    const int warp = ts_warp_id();
    const long long tile = (long long)ts_block_x() * TS_TILE_ADD_WARPS + warp;
    /* Each warp's two shared tiles sit side by side; one warp's slice never overlaps another's. */
    ts_st_f32_16x16 *sa = (ts_st_f32_16x16 *)ts_shared_base() + 2 * warp;
    ts_st_f32_16x16 *sb = sa + 1;
    if (tile < p->tiles) {
        const int row0 = (int)(tile / p->tiles_across) * 16;
        const int col0 = (int)(tile % p->tiles_across) * 16;
        const int rows_left = p->rows - row0, cols_left = p->cols - col0;
        ts_load_g2s(sa, p->a + (long long)row0 * p->lda + col0, p->lda, rows_left, cols_left);
        ts_load_g2s(sb, p->b + (long long)row0 * p->ldb + col0, p->ldb, rows_left, cols_left);
        ts_rt_f32_16x16 ra, rb, rc;
        ts_load_s2r(&ra, sa);
        ts_load_s2r(&rb, sb);
        ts_rt_add(&rc, &ra, &rb);
        ts_store_r2g(p->c + (long long)row0 * p->ldc + col0, p->ldc, &rc, rows_left, cols_left);
    }
}

TS_EXTERN_C ts_status ts_tile_add_f32(float *c, const float *a, const float *b, int rows, int cols,
                                      int ldc, int lda, int ldb, ts_stream stream) {
    if (!c || !a || !b) return TS_ERROR_NULL_POINTER;
    if (rows <= 0 || cols <= 0) return TS_ERROR_INVALID_SIZE;
    if (ldc < cols || lda < cols || ldb < cols) return TS_ERROR_INVALID_VALUE;
    if ((((uintptr_t)a | (uintptr_t)b | (uintptr_t)c) & 3u) != 0) return TS_ERROR_MISALIGNED;
    const long long tiles_across = (cols + 15) / 16;
    const long long tiles = ((rows + 15) / 16) * tiles_across;
    const long long blocks = (tiles + TS_TILE_ADD_WARPS - 1) / TS_TILE_ADD_WARPS;
    if (blocks > 2147483647LL) return TS_ERROR_SIZE_OVERFLOW;
    ts_tile_add_params params;
    params.c = c;
    params.a = a;
    params.b = b;
    params.rows = rows;
    params.cols = cols;
    params.ldc = ldc;
    params.lda = lda;
    params.ldb = ldb;
    params.tiles_across = (int)tiles_across;
    params.tiles = tiles;
    const size_t shared = 2 * TS_TILE_ADD_WARPS * sizeof(ts_st_f32_16x16);
    return TS_LAUNCH(ts_tile_add_kernel, ts_grid_1d((unsigned)blocks), TS_TILE_ADD_WARPS, shared,
                     stream, params);
}
