/* C = A + B on fp32 matrices, the first kernel through every level of the tile language: each
 * warp takes one 16x16 tile, loads A and B global -> shared (zero-filled past the edges), shared ->
 * registers, adds in registers and stores registers -> global, masked at the edges. */
#include "backends/backend.h"
#include "kernels/common/checks.h"
#include "ops/maps.h"
#include "ops/memory.h"
#include "tiles/shared_alloc.h"

#define TS_TILE_ADD_WARPS 4

typedef struct ts_tile_add_params {
    ts_gl a, b, c;
    int tiles_across;
    long long tiles;
} ts_tile_add_params;

TS_KERNEL(ts_tile_add_kernel, TS_TILE_ADD_WARPS, ts_tile_add_params, p) {
    const int warp = ts_warp_id();
    const long long tile = (long long)ts_block_x() * TS_TILE_ADD_WARPS + warp;
    ts_smem smem = ts_smem_begin();
    ts_st_f32_16x16 *sa = 0, *sb = 0;
    /* Every warp carves the same sequence and keeps its own pair. */
    for (int w = 0; w <= warp; ++w) {
        sa = TS_SMEM_TILE(&smem, ts_st_f32_16x16);
        sb = TS_SMEM_TILE(&smem, ts_st_f32_16x16);
    }
    if (tile < p->tiles) {
        const long long tr = tile / p->tiles_across, tc = tile % p->tiles_across;
        ts_load_g2s(sa, &p->a, 0, 0, tr, tc);
        ts_load_g2s(sb, &p->b, 0, 0, tr, tc);
        ts_rt_f32_16x16 ra, rb, rc;
        ts_load_s2r(&ra, sa);
        ts_load_s2r(&rb, sb);
        ts_add(&rc, &ra, &rb);
        ts_store_r2g(&p->c, &rc, 0, 0, tr, tc);
    }
}

TS_EXTERN_C ts_status ts_tile_add_f32(float *c, const float *a, const float *b, int rows, int cols,
                                      int ldc, int lda, int ldb, ts_stream stream) {
    if (!c || !a || !b) return TS_ERROR_NULL_POINTER;
    if (rows <= 0 || cols <= 0) return TS_ERROR_INVALID_SIZE;
    if (ldc < cols || lda < cols || ldb < cols) return TS_ERROR_INVALID_VALUE;
    if ((((uintptr_t)a | (uintptr_t)b | (uintptr_t)c) & 3u) != 0) return TS_ERROR_MISALIGNED;
    /* Each matrix's elements within 2^46 of its first, as ts_gemm's. */
    if ((long long)(rows - 1) * ldc + cols > (1LL << 46) || (long long)(rows - 1) * lda + cols > (1LL << 46) ||
        (long long)(rows - 1) * ldb + cols > (1LL << 46))
        return TS_ERROR_SIZE_OVERFLOW;
    /* C may be A or B exactly (the same pointer and leading dimension), else apart from both. */
    const ts_check_layout la = ts_check_matrix_layout(a, 4, rows, cols, lda);
    const ts_check_layout lb = ts_check_matrix_layout(b, 4, rows, cols, ldb);
    const ts_check_layout lc = ts_check_matrix_layout(c, 4, rows, cols, ldc);
    if (ts_check_disjoint_or_same(&lc, &la, c == a && ldc == lda) != TS_SUCCESS ||
        ts_check_disjoint_or_same(&lc, &lb, c == b && ldc == ldb) != TS_SUCCESS)
        return TS_ERROR_INVALID_VALUE;
    const long long tiles_across = ts_check_tiles(cols, 16);
    const long long tiles = ts_check_tiles(rows, 16) * tiles_across;
    const long long blocks = (tiles + TS_TILE_ADD_WARPS - 1) / TS_TILE_ADD_WARPS;
    if (blocks > 2147483647LL) return TS_ERROR_SIZE_OVERFLOW;
    ts_tile_add_params params;
    params.a = ts_gl_matrix((void *)a, TS_DTYPE_F32, rows, cols, lda);
    params.b = ts_gl_matrix((void *)b, TS_DTYPE_F32, rows, cols, ldb);
    params.c = ts_gl_matrix(c, TS_DTYPE_F32, rows, cols, ldc);
    params.tiles_across = (int)tiles_across;
    params.tiles = tiles;
    /* Two tiles per warp, each starting on the swizzle alignment. */
    const size_t shared = 2 * TS_TILE_ADD_WARPS * TS_ALIGN_UP(sizeof(ts_st_f32_16x16), TS_SHARED_ALIGN);
    return TS_LAUNCH(ts_tile_add_kernel, ts_grid_1d((unsigned)blocks), TS_TILE_ADD_WARPS, shared,
                     stream, params);
}
