/* Kernels that exercise the warpgroup matrix multiply (ops/warpgroup.h), the asynchronous tile
 * copies (ops/tma.h) and register budgets (ops/registers.h) on the backend the tests are built
 * for, with their launchers. One warpgroup per block multiplies; the accumulator goes to global
 * memory through a plain per-element store written here, so these tests depend on nothing but the
 * ops under test and the layout functions (and, for the register A operand, ts_load_s2r_at, which
 * tests/test_tiles.c covers). */
#include <string.h>

#include "backends/cluster.h"
#include "ops/memory.h"
#include "ops/registers.h"
#include "ops/tma.h"
#include "ops/warpgroup.h"
#include "tests/kernels/wg_kernels.h"
#include "tiles/shared_alloc.h"

/* Tile shapes of these tests, named apart from tiles/ so that shapes added there never collide. */
#define TS_WGT_ST(R, C)                                                                            \
    TS_ST_STRUCT(ts_wgt_st_bf16_##R##x##C, unsigned short, TS_DTYPE_BF16, R, C);                  \
    TS_ST_STRUCT(ts_wgt_st_fp16_##R##x##C, unsigned short, TS_DTYPE_FP16, R, C)

TS_WGT_ST(16, 16);
TS_WGT_ST(16, 64);
TS_WGT_ST(16, 128);
TS_WGT_ST(16, 256);
TS_WGT_ST(32, 48);
TS_WGT_ST(32, 64);
TS_WGT_ST(48, 32);
TS_WGT_ST(64, 16);
TS_WGT_ST(64, 32);
TS_WGT_ST(64, 48);
TS_WGT_ST(64, 64);
TS_WGT_ST(64, 128);
TS_WGT_ST(64, 256);
TS_WGT_ST(128, 16);
TS_WGT_ST(128, 64);
TS_WGT_ST(128, 128);
TS_WGT_ST(128, 256);
TS_WGT_ST(256, 16);
TS_WGT_ST(256, 64);
TS_WGT_ST(256, 128);
TS_ST_STRUCT(ts_wgt_st_f32_16x32, float, TS_DTYPE_F32, 16, 32);
TS_RT_STRUCT(ts_wgt_rt_f32_16x48, float, TS_RT_SUB_ELEMS, TS_DTYPE_F32, TS_LAYOUT_ROW, 16, 48);

/* ---- warpgroup multiply ---------------------------------------------------------------------- */

/* Both families' parameters (shared operands, and A from registers). */
typedef struct ts_wgt_params {
    ts_async_desc a, b; /* tensor maps first (64-byte aligned) */
    float *c;
    long long ldc;
    int m, n, k_tiles, form, mode;
} ts_wgt_params;

/* NaN in every accumulator register: an overwriting multiply must not read them. */
TS_DEVICE void ts_wgt_poison(void *acc, int count) {
    const unsigned nan_bits = 0x7fc00000u;
    float nan;
    memcpy(&nan, &nan_bits, sizeof nan);
    TS_UNROLL
    for (int i = 0; i < count; ++i) ((float *)acc)[i] = nan;
}

/* Each warp writes its 16 rows of the block's 64 to out (m x n, leading dimension ldc), element by
 * element through the layout. */
TS_DEVICE void ts_wgt_store_acc_to(float *out, long long ldc, int m, int n, const void *acc, ts_rt_desc d, int bm,
                                   int bn) {
    const float *v = (const float *)acc;
    const int lane = ts_lane_id();
    const long long row0 = 64LL * bm + 16 * ts_warp_in_group(), col0 = (long long)d.cols * bn;
    TS_UNROLL
    for (int e = 0; e < TS_RT_DESC_ELEMS(d); ++e) {
        const long long r = row0 + ts_rt_elem_row(d, lane, e), c = col0 + ts_rt_elem_col(d, lane, e);
        if (r < m && c < n) out[r * ldc + c] = v[e];
    }
}

TS_DEVICE void ts_wgt_store_acc(const ts_wgt_params *p, const void *acc, ts_rt_desc d, int bm, int bn) {
    ts_wgt_store_acc_to(p->c, p->ldc, p->m, p->n, acc, d, bm, bn);
}

/* The k loop of one operand form: warp 0 loads both tiles of k tile kt onto the barrier, the
 * warpgroup waits and multiplies, and the block synchronizes before the tiles are reloaded. The
 * first tile overwrites the accumulator and is peeled off the loop, so that no branch separates a
 * multiply from its fence. Mode 1 runs the _async forms under the explicit protocol. */
#define TS_WGT_LOAD(kt, a_row, a_col, b_row, b_col)                                                    do {                                                                                                   if (ts_warp_id() == 0) {                                                                               ts_tbar_expect_bytes(bar, TS_ASYNC_BYTES(ta) + TS_ASYNC_BYTES(tb));                                ts_async_load(ta, &p->a, 0, 0, (a_row), (a_col), bar);                                             ts_async_load(tb, &p->b, 0, 0, (b_row), (b_col), bar);                                         }                                                                                                  ts_tbar_wait(bar, (kt) & 1);                                                                   } while (0)

#define TS_WGT_ASYNC(OP, acc)                                                                          do {                                                                                                   ts_wg_acc_fence(acc);                                                                              ts_wg_fence();                                                                                     OP(acc, ta, tb);                                                                                   ts_wg_commit();                                                                                    ts_wg_wait(0);                                                                                     ts_wg_acc_fence(acc);                                                                          } while (0)

#define TS_WGT_FORM(acc, AT, BT, a_row, a_col, b_row, b_col, FORM)                                     do {                                                                                                   AT *ta = (AT *)abuf;                                                                               BT *tb = (BT *)bbuf;                                                                               int kt = 0;                                                                                        TS_WGT_LOAD(kt, a_row, a_col, b_row, b_col);                                                       if (p->mode == 0)                                                                                      ts_wg_mm_##FORM(acc, ta, tb);                                                                  else                                                                                                   TS_WGT_ASYNC(ts_wg_mm_##FORM##_async, acc);                                                    ts_sync_block();                                                                                   for (kt = 1; kt < p->k_tiles; ++kt) {                                                                  TS_WGT_LOAD(kt, a_row, a_col, b_row, b_col);                                                       if (p->mode == 0)                                                                                      ts_wg_mma_##FORM(acc, ta, tb);                                                                 else                                                                                                   TS_WGT_ASYNC(ts_wg_mma_##FORM##_async, acc);                                                   ts_sync_block();                                                                               }                                                                                              } while (0)

/* One kernel per (dtype, N, K); the form is a launch parameter. */
#define TS_WGT_MMA_KERNEL(DT, N, K, RT)                                                            \
    TS_KERNEL(ts_wgt_mma_##DT##_n##N##_k##K, 4, ts_wgt_params, p) {                            \
        ts_smem sm = ts_smem_begin();                                                              \
        unsigned char *abuf = (unsigned char *)ts_smem_take(&sm, 64 * (K) * 2, TS_SHARED_ALIGN);   \
        unsigned char *bbuf = (unsigned char *)ts_smem_take(&sm, (K) * (N) * 2, TS_SHARED_ALIGN);  \
        ts_tbar *bar = (ts_tbar *)ts_smem_take(&sm, sizeof(ts_tbar), 16);                          \
        const int bm = ts_block_x(), bn = ts_block_y();                                            \
        RT acc;                                                                                    \
        ts_wgt_poison(TS_RT_DATA(&acc), (int)(sizeof(acc.v) / sizeof(float)));                      \
        if (ts_warp_id() == 0) ts_tbar_init(bar, 1);                                               \
        ts_sync_block();                                                                           \
        switch (p->form) {                                                                         \
        case TS_TEST_WG_AB:                                                                        \
            TS_WGT_FORM(&acc, ts_wgt_st_##DT##_64x##K, ts_wgt_st_##DT##_##K##x##N, bm, kt, kt, bn, AB); \
            break;                                                                                 \
        case TS_TEST_WG_ABT:                                                                       \
            TS_WGT_FORM(&acc, ts_wgt_st_##DT##_64x##K, ts_wgt_st_##DT##_##N##x##K, bm, kt, bn, kt, ABt); \
            break;                                                                                 \
        case TS_TEST_WG_ATB:                                                                       \
            TS_WGT_FORM(&acc, ts_wgt_st_##DT##_##K##x64, ts_wgt_st_##DT##_##K##x##N, kt, bm, kt, bn, AtB); \
            break;                                                                                 \
        default:                                                                                   \
            TS_WGT_FORM(&acc, ts_wgt_st_##DT##_##K##x64, ts_wgt_st_##DT##_##N##x##K, kt, bm, bn, kt, AtBt); \
            break;                                                                                 \
        }                                                                                          \
        ts_wgt_store_acc(p, TS_RT_CDATA(&acc), TS_RT_DESC(&acc), bm, bn);                          \
    }

/* The (N, K) shapes the sweeps cover, with the accumulator tile of each N: X(DT, ARG, N, K, ACC)
 * for each. One list serves the kernels and their dispatch, for both forms of A. */
#define TS_WGT_SHAPES(X, DT, ARG)                                                                  \
    X(DT, ARG, 16, 16, ts_rt_f32_16x16)                                                            \
    X(DT, ARG, 16, 64, ts_rt_f32_16x16)                                                            \
    X(DT, ARG, 16, 128, ts_rt_f32_16x16)                                                           \
    X(DT, ARG, 64, 16, ts_rt_f32_16x64)                                                            \
    X(DT, ARG, 64, 64, ts_rt_f32_16x64)                                                            \
    X(DT, ARG, 64, 128, ts_rt_f32_16x64)                                                           \
    X(DT, ARG, 128, 16, ts_rt_f32_16x128)                                                          \
    X(DT, ARG, 128, 64, ts_rt_f32_16x128)                                                          \
    X(DT, ARG, 128, 128, ts_rt_f32_16x128)                                                         \
    X(DT, ARG, 256, 16, ts_rt_f32_16x256)                                                          \
    X(DT, ARG, 256, 64, ts_rt_f32_16x256)                                                          \
    X(DT, ARG, 256, 128, ts_rt_f32_16x256)

#define TS_WGT_MMA_KERNEL_X(DT, ARG, N, K, ACC) TS_WGT_MMA_KERNEL(DT, N, K, ACC)
#define TS_WGT_MMA_KERNELS(DT) TS_WGT_SHAPES(TS_WGT_MMA_KERNEL_X, DT, 0)

TS_WGT_MMA_KERNELS(bf16)
TS_WGT_MMA_KERNELS(fp16)
/* 64- and 32-byte swizzles in both operands, and a B of three 32-byte column chunks. */
TS_WGT_MMA_KERNEL(bf16, 48, 32, ts_wgt_rt_f32_16x48)

/* Launches kernel FAM (mma or rs) of (DT, N, K) when the call asks for it. */
#define TS_WGT_CASE(FAM, DT, DTYPE, N, K)                                                          \
    if (dtype == (DTYPE) && tile_n == (N) && tile_k == (K))                                        \
        return TS_LAUNCH(ts_wgt_##FAM##_##DT##_n##N##_k##K, grid, 4, shared, NULL, params);

#define TS_WGT_MMA_CASE_X(DT, DTYPE, N, K, ACC) TS_WGT_CASE(mma, DT, DTYPE, N, K)
#define TS_WGT_MMA_CASES(DT, DTYPE) TS_WGT_SHAPES(TS_WGT_MMA_CASE_X, DT, DTYPE)

/* Either family's launch: the operands' tensor maps (A's tile 64 x tile_k, or tile_k x 64 when
 * transposed; B's tile_k x tile_n, or tile_n x tile_k), one block per 64 x tile_n tile of C, and
 * the shared memory of the kernels above. */
static ts_status ts_wgt_setup(ts_wgt_params *params, ts_grid *grid, size_t *shared, float *c, long long ldc,
                              const void *a, long long lda, const void *b, long long ldb, int m, int n, int k,
                              int dtype, int tile_n, int tile_k, int form, int mode) {
    if (m < 1 || n < 1 || k < 1 || tile_n < 16 || tile_k < 16) return TS_ERROR_INVALID_SIZE;
    const int at = form == TS_TEST_WG_ATB || form == TS_TEST_WG_ATBT;
    const int bt = form == TS_TEST_WG_ABT || form == TS_TEST_WG_ATBT;
    ts_gl ga = at ? ts_gl_matrix((void *)a, dtype, k, m, lda) : ts_gl_matrix((void *)a, dtype, m, k, lda);
    ts_gl gb = bt ? ts_gl_matrix((void *)b, dtype, n, k, ldb) : ts_gl_matrix((void *)b, dtype, k, n, ldb);
    memset(params, 0, sizeof *params);
    ts_status s = ts_async_desc_make(&params->a, &ga, at ? tile_k : 64, at ? 64 : tile_k, dtype);
    if (s != TS_SUCCESS) return s;
    s = ts_async_desc_make(&params->b, &gb, bt ? tile_n : tile_k, bt ? tile_k : tile_n, dtype);
    if (s != TS_SUCCESS) return s;
    params->c = c;
    params->ldc = ldc;
    params->m = m;
    params->n = n;
    params->k_tiles = (k + tile_k - 1) / tile_k;
    params->form = form;
    params->mode = mode;
    *grid = ts_grid_3d((unsigned)((m + 63) / 64), (unsigned)((n + tile_n - 1) / tile_n), 1);
    *shared = TS_ALIGN_UP((size_t)64 * tile_k * 2, TS_SHARED_ALIGN) + TS_ALIGN_UP((size_t)tile_k * tile_n * 2, 16) +
              sizeof(ts_tbar);
    return TS_SUCCESS;
}

TS_EXTERN_C ts_status ts_test_wg_mma(float *c, long long ldc, const void *a, long long lda, const void *b,
                                     long long ldb, int m, int n, int k, int dtype, int tile_n, int tile_k,
                                     int form, int mode) {
    ts_wgt_params params;
    ts_grid grid;
    size_t shared;
    const ts_status s = ts_wgt_setup(&params, &grid, &shared, c, ldc, a, lda, b, ldb, m, n, k, dtype, tile_n, tile_k,
                                     form, mode);
    if (s != TS_SUCCESS) return s;
    TS_WGT_MMA_CASES(bf16, TS_DTYPE_BF16)
    TS_WGT_MMA_CASES(fp16, TS_DTYPE_FP16)
    TS_WGT_CASE(mma, bf16, TS_DTYPE_BF16, 48, 32)
    return TS_ERROR_INVALID_VALUE;
}

/* ---- warpgroup multiply with A from registers ---------------------------------------------------- */

/* One k tile: warp 0 loads A's 64 x K tile and B's tile onto the barrier (the copies zero-fill
 * past the matrices), the warps wait, each takes its own 16 rows of A into a register tile, and
 * the warpgroup multiplies with A from those registers. (A plain ts_load_g2r of A, element by
 * element, would do too, but its per-element addresses crowd out the accumulator of the widest
 * tiles and ptxas spills.) The first tile overwrites the accumulator and is peeled off the loop,
 * as in the shared-operand kernels; mode 1 runs the _async forms under the explicit protocol, with
 * the A fences around it. */
#define TS_WGT_RS_STEP(kt, OP, acc, ra, b_row, b_col)                                              \
    do {                                                                                           \
        if (ts_warp_id() == 0) {                                                                   \
            ts_tbar_expect_bytes(bar, TS_ASYNC_BYTES(ta) + TS_ASYNC_BYTES(tb));                    \
            ts_async_load(ta, &p->a, 0, 0, bm, (kt), bar);                                         \
            ts_async_load(tb, &p->b, 0, 0, (b_row), (b_col), bar);                                 \
        }                                                                                          \
        ts_tbar_wait(bar, (kt) & 1);                                                               \
        ts_load_s2r_at(ra, ta, 16 * ts_warp_in_group(), 0);                                        \
        if (p->mode == 0) {                                                                        \
            OP(acc, ra, tb);                                                                       \
        } else {                                                                                   \
            ts_wg_acc_fence(acc);                                                                  \
            ts_wg_a_fence(ra);                                                                     \
            ts_wg_fence();                                                                         \
            OP##_async(acc, ra, tb);                                                               \
            ts_wg_commit();                                                                        \
            ts_wg_wait(0);                                                                         \
            ts_wg_acc_fence(acc);                                                                  \
            ts_wg_a_fence(ra);                                                                     \
        }                                                                                          \
        ts_sync_block();                                                                           \
    } while (0)

#define TS_WGT_RS_FORM(acc, ra, AT, BT, b_row, b_col, FORM)                                        \
    do {                                                                                           \
        AT *ta = (AT *)abuf;                                                                       \
        BT *tb = (BT *)bbuf;                                                                       \
        int kt = 0;                                                                                \
        TS_WGT_RS_STEP(kt, ts_wg_mm_##FORM##_rs, acc, ra, b_row, b_col);                           \
        for (kt = 1; kt < p->k_tiles; ++kt) TS_WGT_RS_STEP(kt, ts_wg_mma_##FORM##_rs, acc, ra, b_row, b_col); \
    } while (0)

/* One kernel per (dtype, N, K); the form (AB or ABt) is a launch parameter. */
#define TS_WGT_RS_KERNEL(DT, N, K, RT)                                                             \
    TS_KERNEL(ts_wgt_rs_##DT##_n##N##_k##K, 4, ts_wgt_params, p) {                              \
        ts_smem sm = ts_smem_begin();                                                              \
        unsigned char *abuf = (unsigned char *)ts_smem_take(&sm, 64 * (K) * 2, TS_SHARED_ALIGN);   \
        unsigned char *bbuf = (unsigned char *)ts_smem_take(&sm, (K) * (N) * 2, TS_SHARED_ALIGN);  \
        ts_tbar *bar = (ts_tbar *)ts_smem_take(&sm, sizeof(ts_tbar), 16);                          \
        const int bm = ts_block_x(), bn = ts_block_y();                                            \
        RT acc;                                                                                    \
        ts_rt_##DT##_16x##K ra;                                                                    \
        ts_wgt_poison(TS_RT_DATA(&acc), (int)(sizeof(acc.v) / sizeof(float)));                      \
        if (ts_warp_id() == 0) ts_tbar_init(bar, 1);                                               \
        ts_sync_block();                                                                           \
        if (p->form == TS_TEST_WG_AB)                                                              \
            TS_WGT_RS_FORM(&acc, &ra, ts_wgt_st_##DT##_64x##K, ts_wgt_st_##DT##_##K##x##N, kt, bn, AB); \
        else                                                                                       \
            TS_WGT_RS_FORM(&acc, &ra, ts_wgt_st_##DT##_64x##K, ts_wgt_st_##DT##_##N##x##K, bn, kt, ABt); \
        ts_wgt_store_acc_to(p->c, p->ldc, p->m, p->n, TS_RT_CDATA(&acc), TS_RT_DESC(&acc), bm, bn); \
    }

#define TS_WGT_RS_KERNEL_X(DT, ARG, N, K, ACC) TS_WGT_RS_KERNEL(DT, N, K, ACC)
#define TS_WGT_RS_KERNELS(DT) TS_WGT_SHAPES(TS_WGT_RS_KERNEL_X, DT, 0)

TS_WGT_RS_KERNELS(bf16)
TS_WGT_RS_KERNELS(fp16)
/* K = 32 (two k steps, a 64-byte swizzled N x K B), N = 48 (three 32-byte chunks of a K x N B). */
TS_WGT_RS_KERNEL(bf16, 48, 32, ts_wgt_rt_f32_16x48)

#define TS_WGT_RS_CASE_X(DT, DTYPE, N, K, ACC) TS_WGT_CASE(rs, DT, DTYPE, N, K)
#define TS_WGT_RS_CASES(DT, DTYPE) TS_WGT_SHAPES(TS_WGT_RS_CASE_X, DT, DTYPE)

TS_EXTERN_C ts_status ts_test_wg_mma_rs(float *c, long long ldc, const void *a, long long lda, const void *b,
                                        long long ldb, int m, int n, int k, int dtype, int tile_n, int tile_k,
                                        int form, int mode) {
    if (m < 1 || n < 1 || k < 1 || tile_n < 16 || tile_k < 16) return TS_ERROR_INVALID_SIZE;
    if (form != TS_TEST_WG_AB && form != TS_TEST_WG_ABT) return TS_ERROR_INVALID_VALUE;
    ts_wgt_params params;
    ts_grid grid;
    size_t shared;
    const ts_status s = ts_wgt_setup(&params, &grid, &shared, c, ldc, a, lda, b, ldb, m, n, k, dtype, tile_n, tile_k,
                                     form, mode);
    if (s != TS_SUCCESS) return s;
    TS_WGT_RS_CASES(bf16, TS_DTYPE_BF16)
    TS_WGT_RS_CASES(fp16, TS_DTYPE_FP16)
    TS_WGT_CASE(rs, bf16, TS_DTYPE_BF16, 48, 32)
    return TS_ERROR_INVALID_VALUE;
}

/* ---- tile copies ------------------------------------------------------------------------------- */

typedef struct ts_wgt_copy_params {
    ts_async_desc src, dst;
    int b, h, tile_row, tile_col, dst_tile_row, dst_tile_col, mode;
    int store_rank; /* mode 2: the block of the cluster whose tile is stored */
} ts_wgt_copy_params;

/* Values in [1, 2) that differ along rows and columns, as raw bits of the dtype. */
TS_HOST_DEVICE unsigned ts_wgt_pattern(int dtype, int r, int c) {
    const unsigned v = (unsigned)(r * 37 + c * 11);
    if (dtype == TS_DTYPE_F32) return 0x3f800000u | ((v << 8) & 0x7fffffu);
    if (dtype == TS_DTYPE_FP16) return 0x3c00u | (v & 0x3ffu);
    return 0x3f80u | (v & 0x7fu);
}

/* The warps of the block write the pattern into the tile with ordinary stores. */
TS_DEVICE void ts_wgt_fill_pattern(void *st, ts_st_desc sd) {
    const int step = ts_num_warps() * TS_WARP_LANES;
    for (int idx = ts_warp_id() * TS_WARP_LANES + ts_lane_id(); idx < sd.rows * sd.cols; idx += step) {
        const int r = idx / sd.cols, c = idx % sd.cols;
        const unsigned bits = ts_wgt_pattern(sd.dtype, r, c);
        if (sd.dtype == TS_DTYPE_F32)
            ((unsigned *)st)[ts_st_index(sd, r, c)] = bits;
        else
            ((unsigned short *)st)[ts_st_index(sd, r, c)] = (unsigned short)bits;
    }
}

#define TS_WGT_COPY_KERNEL(NAME, ST)                                                               \
    TS_KERNEL(NAME, 4, ts_wgt_copy_params, p) {                                                    \
        ts_smem sm = ts_smem_begin();                                                              \
        ST *t = TS_SMEM_TILE(&sm, ST);                                                             \
        ts_tbar *bar = (ts_tbar *)ts_smem_take(&sm, sizeof(ts_tbar), 16);                          \
        if (ts_warp_id() == 0) ts_tbar_init(bar, 1);                                               \
        ts_sync_block();                                                                           \
        if (p->mode == 2) ts_cluster_sync(); /* every block's barrier ready for the others' bytes */ \
        if (p->mode == 0 || p->mode == 2) {                                                        \
            if (ts_warp_id() == 0) {                                                               \
                ts_tbar_expect_bytes(bar, TS_ASYNC_BYTES(t));                                      \
                if (p->mode == 0)                                                                  \
                    ts_async_load(t, &p->src, p->b, p->h, p->tile_row, p->tile_col, bar);          \
                else                                                                               \
                    ts_async_load_cluster(t, &p->src, p->b, p->h, p->tile_row, p->tile_col, bar);  \
            }                                                                                      \
            ts_tbar_wait(bar, 0);                                                                  \
        } else {                                                                                   \
            ts_wgt_fill_pattern(TS_ST_DATA(t), TS_ST_DESC(t));                                     \
            ts_async_fence_shared();                                                               \
        }                                                                                          \
        ts_sync_block();                                                                           \
        if (ts_warp_id() == 0 && (p->mode != 2 || ts_cluster_rank() == p->store_rank)) {           \
            ts_async_store(&p->dst, t, p->b, p->h, p->dst_tile_row, p->dst_tile_col);              \
            ts_async_store_commit();                                                               \
            ts_async_store_wait();                                                                 \
        }                                                                                          \
        if (p->mode == 2) ts_cluster_sync();                                                       \
    }

TS_WGT_COPY_KERNEL(ts_wgt_copy_bf16_64x128, ts_wgt_st_bf16_64x128)
TS_WGT_COPY_KERNEL(ts_wgt_copy_bf16_64x32, ts_wgt_st_bf16_64x32)
TS_WGT_COPY_KERNEL(ts_wgt_copy_fp16_16x16, ts_wgt_st_fp16_16x16)
TS_WGT_COPY_KERNEL(ts_wgt_copy_f32_16x32, ts_wgt_st_f32_16x32)
TS_WGT_COPY_KERNEL(ts_wgt_copy_bf16_64x48, ts_wgt_st_bf16_64x48)

TS_EXTERN_C void ts_test_wg_copy_shape(int shape, int *rows, int *cols, int *dtype) {
    static const int table[5][3] = {{64, 128, TS_DTYPE_BF16},
                                    {64, 32, TS_DTYPE_BF16},
                                    {16, 16, TS_DTYPE_FP16},
                                    {16, 32, TS_DTYPE_F32},
                                    {64, 48, TS_DTYPE_BF16}};
    const int s = shape < 0 || shape > 4 ? 0 : shape;
    *rows = table[s][0];
    *cols = table[s][1];
    *dtype = table[s][2];
}

TS_EXTERN_C unsigned ts_test_wg_pattern(int dtype, int r, int c) { return ts_wgt_pattern(dtype, r, c); }

TS_EXTERN_C int ts_test_wg_cluster_max(void) { return TS_CLUSTER_MAX; }

static ts_gl ts_wgt_gl(void *ptr, int dtype, long long batch, long long heads, long long rows,
                       long long cols, long long ld) {
    ts_gl g = ts_gl_make(ptr, dtype, batch, heads, rows, cols);
    g.stride_row = ld;
    g.stride_head = rows * ld;
    g.stride_batch = heads * rows * ld;
    return g;
}

TS_EXTERN_C ts_status ts_test_wg_copy(void *dst, const void *src, int dtype, long long batch,
                                      long long heads, long long rows, long long cols, long long ld,
                                      int bi, int hi, int tile_row, int tile_col, int dst_tile_row,
                                      int dst_tile_col, int shape, int mode) {
    int tr = 0, tc = 0, tdtype = 0;
    ts_test_wg_copy_shape(shape, &tr, &tc, &tdtype);
    if (shape < 0 || shape > 4 || tdtype != dtype) return TS_ERROR_INVALID_VALUE;
    ts_gl gs = ts_wgt_gl((void *)src, dtype, batch, heads, rows, cols, ld);
    ts_gl gd = ts_wgt_gl(dst, dtype, batch, heads, rows, cols, ld);
    ts_wgt_copy_params params;
    memset(&params, 0, sizeof params);
    ts_status s = ts_async_desc_make(&params.src, &gs, tr, tc, dtype);
    if (s != TS_SUCCESS) return s;
    s = ts_async_desc_make(&params.dst, &gd, tr, tc, dtype);
    if (s != TS_SUCCESS) return s;
    params.b = bi;
    params.h = hi;
    params.tile_row = tile_row;
    params.tile_col = tile_col;
    params.dst_tile_row = dst_tile_row;
    params.dst_tile_col = dst_tile_col;
    /* Mode 2 + r: a cluster of two loads the tile by multicast, block r stores it. */
    params.mode = mode < 2 ? mode : 2;
    params.store_rank = mode - 2;
    const int cluster = mode < 2 ? 1 : 2;
    if (cluster > TS_CLUSTER_MAX) return TS_ERROR_UNSUPPORTED;
    const size_t shared = TS_ALIGN_UP((size_t)tr * tc * TS_DTYPE_BYTES(dtype) + 64, 16) + sizeof(ts_tbar);
    const ts_grid grid = ts_grid_1d((unsigned)cluster);
    switch (shape) {
    case 0: return TS_LAUNCH_CLUSTER(ts_wgt_copy_bf16_64x128, grid, 4, shared, NULL, params, cluster);
    case 1: return TS_LAUNCH_CLUSTER(ts_wgt_copy_bf16_64x32, grid, 4, shared, NULL, params, cluster);
    case 2: return TS_LAUNCH_CLUSTER(ts_wgt_copy_fp16_16x16, grid, 4, shared, NULL, params, cluster);
    case 3: return TS_LAUNCH_CLUSTER(ts_wgt_copy_f32_16x32, grid, 4, shared, NULL, params, cluster);
    default: return TS_LAUNCH_CLUSTER(ts_wgt_copy_bf16_64x48, grid, 4, shared, NULL, params, cluster);
    }
}

/* Each block adds (block + 1) x the f32 pattern tile into one tile of dst with ts_async_store_add:
 * the blocks' adds land on the same elements at once. */
TS_KERNEL(ts_wgt_store_add_f32_16x32, 4, ts_wgt_copy_params, p) {
    ts_smem sm = ts_smem_begin();
    ts_wgt_st_f32_16x32 *t = TS_SMEM_TILE(&sm, ts_wgt_st_f32_16x32);
    const ts_st_desc sd = TS_ST_DESC(t);
    const float k = (float)(ts_block_x() + 1);
    for (int idx = ts_warp_id() * TS_WARP_LANES + ts_lane_id(); idx < sd.rows * sd.cols;
         idx += ts_num_warps() * TS_WARP_LANES) {
        const int r = idx / sd.cols, c = idx % sd.cols;
        const unsigned bits = ts_wgt_pattern(TS_DTYPE_F32, r, c);
        float x;
        memcpy(&x, &bits, 4);
        ((float *)TS_ST_DATA(t))[ts_st_index(sd, r, c)] = k * x;
    }
    ts_async_fence_shared();
    ts_sync_block();
    if (ts_warp_id() == 0) {
        ts_async_store_add(&p->dst, t, p->b, p->h, p->dst_tile_row, p->dst_tile_col);
        ts_async_store_commit();
        ts_async_store_wait();
    }
}

TS_EXTERN_C ts_status ts_test_wg_store_add(float *dst, long long batch, long long heads, long long rows,
                                           long long cols, long long ld, int bi, int hi, int tile_row,
                                           int tile_col, int blocks) {
    ts_gl gd = ts_wgt_gl(dst, TS_DTYPE_F32, batch, heads, rows, cols, ld);
    ts_wgt_copy_params params;
    memset(&params, 0, sizeof params);
    const ts_status s = ts_async_desc_make(&params.dst, &gd, 16, 32, TS_DTYPE_F32);
    if (s != TS_SUCCESS) return s;
    params.b = bi;
    params.h = hi;
    params.dst_tile_row = tile_row;
    params.dst_tile_col = tile_col;
    const size_t shared = TS_ALIGN_UP((size_t)16 * 32 * 4 + 64, 16);
    return TS_LAUNCH(ts_wgt_store_add_f32_16x32, ts_grid_1d((unsigned)blocks), 4, shared, NULL, params);
}

/* ---- register budgets -------------------------------------------------------------------------- */

typedef struct ts_wgt_regs_params {
    int *out;
} ts_wgt_regs_params;

/* Three warpgroups under the 168-register cap of a 384-thread block: the first gives registers
 * back, the other two take them, as a producer and two consumers would. */
TS_KERNEL(ts_wgt_regs_kernel, 12, ts_wgt_regs_params, p) {
    const int warp = ts_warp_id();
    if (ts_warpgroup_id() == 0) {
        ts_set_max_regs_dec(40);
        if (ts_lane_id() == 0) p->out[warp] = 100 + warp;
    } else {
        ts_set_max_regs_inc(232);
        if (ts_lane_id() == 0) p->out[warp] = 200 + warp;
    }
}

TS_EXTERN_C ts_status ts_test_wg_regs(int *out) {
    ts_wgt_regs_params params;
    params.out = out;
    return TS_LAUNCH(ts_wgt_regs_kernel, ts_grid_1d(1), 12, 0, NULL, params);
}

/* ---- descriptor arguments ---------------------------------------------------------------------- */

TS_EXTERN_C ts_status ts_test_wg_desc_make(void *ptr, int gl_dtype, long long batch, long long heads,
                                           long long rows, long long cols, long long ld, int tile_rows,
                                           int tile_cols, int dtype, int null_arg) {
    ts_gl g = ts_wgt_gl(ptr, gl_dtype, batch, heads, rows, cols, ld);
    ts_async_desc d;
    return ts_async_desc_make(null_arg == 1 ? NULL : &d, null_arg == 2 ? NULL : &g, tile_rows,
                              tile_cols, dtype);
}
