/* Launchers of the kernels that exercise the warpgroup matrix multiply (ops/warpgroup.h) and the
 * asynchronous tile copies (ops/tma.h), built for whichever backend the tests are built for.
 * Matrix pointers are device memory; dtypes are TS_TEST_WG_* (bf16, fp16, f32 as the tile
 * dtypes number them). */
#ifndef TESSERA_TESTS_WG_KERNELS_H
#define TESSERA_TESTS_WG_KERNELS_H

#include <tessera/tessera.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The tile dtypes' numbers (tiles/dtypes.h), for tests compiled as plain C. */
enum { TS_TEST_WG_F32 = 1, TS_TEST_WG_BF16 = 2, TS_TEST_WG_FP16 = 3 };

/* The four operand forms: A stored as M x K (A) or K x M (At), B as K x N (B) or N x K (Bt). */
enum { TS_TEST_WG_AB, TS_TEST_WG_ABT, TS_TEST_WG_ATB, TS_TEST_WG_ATBT };

/* c (m x n floats, leading dimension ldc) = A * B over k, with A (lda) and B (ldb) stored as
 * `form` says, 16-bit elements of dtype. One warpgroup per block computes a 64 x tile_n block of c,
 * loading 64 x tile_k (or tile_k x 64) tiles of A and tile_k x tile_n (or tile_n x tile_k) tiles
 * of B with ts_async_load, the first k tile with ts_wg_mm_* (overwrite, onto a NaN-filled
 * accumulator), the others with ts_wg_mma_*; mode 1 uses the _async forms with explicit fence,
 * commit and wait. Ragged m, n and k come from the copies' zero fill and a masked store.
 * (tile_n, tile_k): tile_n in {16, 64, 128, 256} with tile_k in {16, 64, 128}, or (48, 32).
 * TS_ERROR_INVALID_VALUE for another pair. */
ts_status ts_test_wg_mma(float *c, long long ldc, const void *a, long long lda, const void *b,
                         long long ldb, int m, int n, int k, int dtype, int tile_n, int tile_k,
                         int form, int mode);

/* The same product with A from registers (ts_wg_mm_*_rs / ts_wg_mma_*_rs): A's 64 x tile_k tile
 * (A stored m x k, row stride lda) lands in shared memory as above, each warp takes its 16 rows of
 * it into a 16-bit register tile (ts_load_s2r_at), and the multiply reads A from there. form: TS_TEST_WG_AB or TS_TEST_WG_ABT (else
 * TS_ERROR_INVALID_VALUE); mode 1 uses the _async forms with fences, commit and wait. The same
 * (tile_n, tile_k) pairs as ts_test_wg_mma. */
ts_status ts_test_wg_mma_rs(float *c, long long ldc, const void *a, long long lda, const void *b,
                            long long ldb, int m, int n, int k, int dtype, int tile_n, int tile_k,
                            int form, int mode);

/* Tile copies through shared memory: tile (tile_row, tile_col) of matrix (bi, hi) of src (batch x
 * heads x rows x cols, row stride ld, dense otherwise) goes to tile (dst_tile_row, dst_tile_col) of
 * dst (same shape and strides) with ts_async_store. mode 0 loads it with ts_async_load; mode 1
 * writes the shared tile with ordinary stores instead (element (r, c) = ts_test_wg_pattern) and
 * publishes it with ts_async_fence_shared; modes 2 and 3 load it in a cluster of two blocks with
 * ts_async_load_cluster (multicast) and store block 0's (mode 2) or block 1's (mode 3) tile
 * (TS_ERROR_UNSUPPORTED where the backend has no clusters). shape: 0 bf16 64x128, 1 bf16 64x32,
 * 2 fp16 16x16, 3 f32 16x32, 4 bf16 64x48. */
ts_status ts_test_wg_copy(void *dst, const void *src, int dtype, long long batch, long long heads,
                          long long rows, long long cols, long long ld, int bi, int hi, int tile_row,
                          int tile_col, int dst_tile_row, int dst_tile_col, int shape, int mode);
/* blocks blocks each add (block + 1) x the f32 pattern (ts_test_wg_pattern) of a 16 x 32 tile into
 * tile (tile_row, tile_col) of matrix (bi, hi) of dst (batch x heads x rows x cols, row stride ld)
 * with ts_async_store_add, all at once. */
ts_status ts_test_wg_store_add(float *dst, long long batch, long long heads, long long rows, long long cols,
                               long long ld, int bi, int hi, int tile_row, int tile_col, int blocks);
/* Tile rows and columns of a copy shape, and the bits mode 1 writes at (r, c). */
void ts_test_wg_copy_shape(int shape, int *rows, int *cols, int *dtype);
unsigned ts_test_wg_pattern(int dtype, int r, int c);
/* The largest thread-block cluster the backend runs (1: none). */
int ts_test_wg_cluster_max(void);

/* ts_async_desc_make on the matrix (batch, heads, rows, cols) at ptr with row stride ld, dtype
 * gl_dtype, for tiles of tile_rows x tile_cols of dtype; ptr is never dereferenced. null_arg 1
 * passes a NULL descriptor, 2 a NULL global layout. */
ts_status ts_test_wg_desc_make(void *ptr, int gl_dtype, long long batch, long long heads,
                               long long rows, long long cols, long long ld, int tile_rows,
                               int tile_cols, int dtype, int null_arg);

/* A block of 12 warps: warpgroup 0 lowers its register budget to 40, warpgroups 1 and 2 raise
 * theirs to 232 (ts_set_max_regs_dec / _inc); then warp w writes out[w] = 100 + w (group 0) or
 * 200 + w. out: 12 ints. */
ts_status ts_test_wg_regs(int *out);

#ifdef __cplusplus
}
#endif

#endif
