/* Loads and stores of tiles between global memory, shared tiles and register tiles, destination
 * first:
 *   ts_load_g2r(rt, gl, b, h, tile_row, tile_col)    global -> registers (warp)
 *   ts_store_r2g(gl, rt, b, h, tile_row, tile_col)   registers -> global (warp)
 *   ts_load_g2s(st, gl, b, h, tile_row, tile_col)    global -> shared (warp; _group for several)
 *   ts_store_s2g(gl, st, b, h, tile_row, tile_col)   shared -> global (warp; _group for several)
 *   ts_load_s2r(rt, st)  / ts_store_r2s(st, rt)      shared <-> registers (warp)
 *   ts_sv_load_g2s(sv, ptr, i0, n) / ts_sv_store_s2g(ptr, sv, i0, n)   vectors, global <-> shared
 *   ts_rv_load_s(rv, sv) / ts_rv_store_s(sv, rv)       vectors, shared <-> registers
 *   ts_load_s2r_at(rt, st, row0, col0) / ts_store_r2s_at(st, rt, row0, col0)
 *                                                    a register tile's worth at an offset of a
 *                                                    larger shared tile (a warp's rows of a
 *                                                    warpgroup tile)
 *   ts_rv_load_typed(rv, ptr, dtype, i0, n) / ts_rv_store_typed(ptr, dtype, rv, i0, n)
 *   ts_sv_load_g2s_typed(sv, ptr, dtype, i0, n) / ts_sv_store_s2g_typed(ptr, dtype, sv, i0, n)
 *                                                    vectors and an array of any dtype, converted
 * Tile coordinates are in units of the tile's shape. Elements past the global layout's rows and
 * columns are zero-filled on load and skipped on store, so ragged shapes never touch memory out of
 * bounds. These are the portable element-wise forms, built on the layout functions; they serve
 * every dtype and layout.
 *
 * Dtypes. A global layout's dtype is a run-time field, and a load never reads it at the tile's
 * width. Where it is not the tile's, fp32 register tiles and shared tiles of any dtype convert each
 * element through fp32 at the global's own width (a bf16 global into an fp32 tile, an fp32 tile out
 * to an fp16 global; narrowing rounds to nearest even), on a path of their own, so a global of the
 * tile's dtype takes the same code as before. A 16-bit register tile takes only its own dtype
 * (ts_load_g2r_other_dtype): otherwise it loads zeros and stores nothing, and the host's launch
 * returns TS_ERROR_INVALID_VALUE. A global layout whose dtype is none of the three is never read or
 * written: the host's launch returns TS_ERROR_INVALID_ENUM. A GPU has no channel for either: its
 * loads give zeros and its stores write nothing (launchers validate their dtypes before they
 * launch). Shared and register vectors hold fp32 or, for shared vectors, 16-bit
 * values (tiles/shared_vector.h); the plain vector ops take fp32 arrays (a pointer of another type
 * does not compile) and the _typed ones an array of a run-time dtype. Shared <-> register copies of
 * tiles need the same dtype on both sides (a compile-time check naming both). */
#ifndef TESSERA_OPS_MEMORY_H
#define TESSERA_OPS_MEMORY_H

#include <stdint.h>
#include <string.h>

#include "backends/lane_ops.h"
#include "backends/vector_memory.h"
#include "ops/bits.h"
#include "tiles/global_layout.h"
#include "tiles/register_tile.h"
#include "tiles/shared_tile.h"

/* ---- raw element access (ts_raw_get / ts_raw_set: ops/bits.h) -------------------------------- */

/* Element e of a lane's register-tile storage (floats, or 16-bit pairs in words), as raw bits. */
TS_DEVICE unsigned ts_rt_raw_get(const void *data, int bytes, int e) {
    if (bytes == 4) return ts_f32_bits(((const float *)data)[e]);
    return ts_rt16_get((const unsigned *)data, e);
}
TS_DEVICE void ts_rt_raw_set(void *data, int bytes, int e, unsigned bits) {
    if (bytes == 4)
        ((float *)data)[e] = ts_bits_f32(bits);
    else
        ts_rt16_set((unsigned *)data, e, (unsigned short)bits);
}

/* ---- elements of a run-time dtype -------------------------------------------------------------- */

/* Whether dtype is one of the three element types. */
TS_DEVICE int ts_dtype_known(int dtype) {
    return dtype == TS_DTYPE_F32 || dtype == TS_DTYPE_BF16 || dtype == TS_DTYPE_FP16;
}

/* One element's raw bits of a known dtype as fp32, and fp32 as a dtype's bits (rounded to nearest
 * even). */
TS_DEVICE float ts_dtype_bits_to_f32(unsigned bits, int dtype) {
    if (dtype == TS_DTYPE_F32) return ts_bits_f32(bits);
    return dtype == TS_DTYPE_BF16 ? ts_unpack_bf16((unsigned short)bits) : ts_unpack_fp16((unsigned short)bits);
}
TS_DEVICE unsigned ts_f32_to_dtype_bits(float x, int dtype) {
    if (dtype == TS_DTYPE_F32) return ts_f32_bits(x);
    return (dtype == TS_DTYPE_BF16 ? ts_pack_bf16x2(x, 0.0f) : ts_pack_fp16x2(x, 0.0f)) & 0xffffu;
}

/* Element idx of an array of a known dtype as fp32, and x stored there. */
TS_DEVICE float ts_dtype_get_f32(const void *p, int dtype, long long idx) {
    return ts_dtype_bits_to_f32(ts_raw_get(p, TS_DTYPE_BYTES(dtype), idx), dtype);
}
TS_DEVICE void ts_dtype_set_f32(void *p, int dtype, long long idx, float x) {
    ts_raw_set(p, TS_DTYPE_BYTES(dtype), idx, ts_f32_to_dtype_bits(x, dtype));
}

/* Element e of a register tile's storage as fp32, and x stored there (rounded to a 16-bit tile's
 * dtype). */
TS_DEVICE float ts_rt_elem_get_f32(const void *rt, int dtype, int e) {
    return ts_dtype_bits_to_f32(ts_rt_raw_get(rt, TS_DTYPE_BYTES(dtype), e), dtype);
}
TS_DEVICE void ts_rt_elem_set_f32(void *rt, int dtype, int e, float x) {
    ts_rt_raw_set(rt, TS_DTYPE_BYTES(dtype), e, ts_f32_to_dtype_bits(x, dtype));
}

/* A global layout's dtype: 1 where known, else the host's launch fails with TS_ERROR_INVALID_ENUM
 * (ts_fail_launch; a GPU goes on, and the caller touches no memory). */
TS_DEVICE int ts_gl_dtype_ok(const ts_gl *g) {
    if (ts_dtype_known(g->dtype)) return 1;
    ts_fail_launch(TS_ERROR_INVALID_ENUM);
    return 0;
}

/* ---- global <-> registers -------------------------------------------------------------------- */

/* A global layout of another dtype than the tile's: element by element at the global's width,
 * converted through fp32. An unknown dtype loads zeros (ts_gl_dtype_ok). */
TS_DEVICE void ts_load_g2r_convert(void *rt, ts_rt_desc d, const ts_gl *g, long long b, long long h, long long row0,
                                   long long col0) {
    const int lane = ts_lane_id(), ok = ts_gl_dtype_ok(g), gbytes = TS_DTYPE_BYTES(g->dtype);
    const long long rows_left = ok ? g->rows - row0 : 0, cols_left = g->cols - col0;
    const unsigned char *base = (const unsigned char *)g->ptr + ts_gl_offset(g, b, h, row0, col0) * gbytes;
    TS_UNROLL
    for (int e = 0; e < TS_RT_DESC_ELEMS(d); ++e) {
        const int r = ts_rt_elem_row(d, lane, e), c = ts_rt_elem_col(d, lane, e);
        const float x = (r < rows_left && c < cols_left) ? ts_dtype_get_f32(base, g->dtype, r * g->stride_row + c) : 0.0f;
        ts_rt_elem_set_f32(rt, d.dtype, e, x);
    }
}

TS_DEVICE void ts_store_r2g_convert(const ts_gl *g, const void *rt, ts_rt_desc d, long long b, long long h,
                                    long long row0, long long col0) {
    if (!ts_gl_dtype_ok(g)) return;
    const int lane = ts_lane_id(), gbytes = TS_DTYPE_BYTES(g->dtype);
    const long long rows_left = g->rows - row0, cols_left = g->cols - col0;
    unsigned char *base = (unsigned char *)g->ptr + ts_gl_offset(g, b, h, row0, col0) * gbytes;
    TS_UNROLL
    for (int e = 0; e < TS_RT_DESC_ELEMS(d); ++e) {
        const int r = ts_rt_elem_row(d, lane, e), c = ts_rt_elem_col(d, lane, e);
        if (r < rows_left && c < cols_left)
            ts_dtype_set_f32(base, g->dtype, r * g->stride_row + c, ts_rt_elem_get_f32(rt, d.dtype, e));
    }
}

/* A global layout of another dtype than the tile's: an fp32 tile converts; a 16-bit tile (a
 * matrix operand, or an output such as attention's) takes only its own dtype, and loads zeros and
 * stores nothing otherwise, the host's launch failing with TS_ERROR_INVALID_VALUE. The 16-bit tiles'
 * refusal is a few instructions where a converting path beside attention's output store changed
 * the scheduling of its main loop; a kernel that wants a 16-bit tile of another dtype loads an fp32
 * tile and converts it (ts_convert). */
TS_DEVICE void ts_load_g2r_other_dtype(void *rt, ts_rt_desc d, const ts_gl *g, long long b, long long h,
                                       long long row0, long long col0) {
    if (d.dtype == TS_DTYPE_F32) {
        ts_load_g2r_convert(rt, d, g, b, h, row0, col0);
        return;
    }
    ts_fail_launch(ts_dtype_known(g->dtype) ? TS_ERROR_INVALID_VALUE : TS_ERROR_INVALID_ENUM);
    TS_UNROLL
    for (int e = 0; e < TS_RT_DESC_ELEMS(d); e += 2) ((unsigned *)rt)[e >> 1] = 0u;
}
TS_DEVICE void ts_store_r2g_other_dtype(const ts_gl *g, const void *rt, ts_rt_desc d, long long b, long long h,
                                        long long row0, long long col0) {
    if (d.dtype == TS_DTYPE_F32)
        ts_store_r2g_convert(g, rt, d, b, h, row0, col0);
    else
        ts_fail_launch(ts_dtype_known(g->dtype) ? TS_ERROR_INVALID_VALUE : TS_ERROR_INVALID_ENUM);
}

TS_DEVICE void ts_load_g2r_impl(void *rt, ts_rt_desc d, const ts_gl *g, long long b, long long h,
                                long long row0, long long col0) {
    if (g->dtype != d.dtype) {
        ts_load_g2r_other_dtype(rt, d, g, b, h, row0, col0);
        return;
    }
    const int lane = ts_lane_id(), bytes = TS_DTYPE_BYTES(d.dtype);
    const long long rows_left = g->rows - row0, cols_left = g->cols - col0;
    const unsigned char *base = (const unsigned char *)g->ptr + ts_gl_offset(g, b, h, row0, col0) * bytes;
    TS_UNROLL
    for (int e = 0; e < TS_RT_DESC_ELEMS(d); ++e) {
        const int r = ts_rt_elem_row(d, lane, e), c = ts_rt_elem_col(d, lane, e);
        const unsigned bits = (r < rows_left && c < cols_left) ? ts_raw_get(base, bytes, r * g->stride_row + c) : 0u;
        ts_rt_raw_set(rt, bytes, e, bits);
    }
}

/* Lanes 4k .. 4k+3 (q = lane & 3) hold four words a[0..3] each; afterwards lane q holds the
 * quad's words q, in lane order: a[i] becomes lane i's former a[q]. Two trades of two words, with
 * the lane 2 apart and then 1 apart. */
TS_DEVICE void ts_quad_transpose_u32(unsigned a[4], int lane) {
    const int up2 = lane & 2, up1 = lane & 1;
    unsigned s0 = up2 ? a[0] : a[2], s1 = up2 ? a[1] : a[3];
    unsigned r0 = ts_shfl_xor_u32(s0, 2), r1 = ts_shfl_xor_u32(s1, 2);
    if (up2) a[0] = r0, a[1] = r1;
    else a[2] = r0, a[3] = r1;
    s0 = up1 ? a[0] : a[1], s1 = up1 ? a[2] : a[3];
    r0 = ts_shfl_xor_u32(s0, 1), r1 = ts_shfl_xor_u32(s1, 1);
    if (up1) a[0] = r0, a[2] = r1;
    else a[1] = r0, a[3] = r1;
}

TS_DEVICE void ts_store_r2g_impl(const ts_gl *g, const void *rt, ts_rt_desc d, long long b, long long h,
                                 long long row0, long long col0) {
    if (g->dtype != d.dtype) {
        ts_store_r2g_other_dtype(g, rt, d, b, h, row0, col0);
        return;
    }
    const int lane = ts_lane_id(), bytes = TS_DTYPE_BYTES(d.dtype);
    const long long rows_left = g->rows - row0, cols_left = g->cols - col0;
    unsigned char *base = (unsigned char *)g->ptr + ts_gl_offset(g, b, h, row0, col0) * bytes;
    /* A 16-bit tile of whole 32-column groups, wholly inside the layout and 16-byte aligned, whose
     * rows' 8-column blocks each lie in one quad of lanes (ts_rt_quad_octets: CUDA's row layout):
     * the quad trades words so that lane q holds block q of each group of four, and stores its
     * 16 bytes at once. A quarter of the word path's stores, each writing a row's 64 contiguous
     * bytes per quad instead of 8 pieces of 16. */
    if (bytes == 2 && ts_rt_quad_octets(d.layout, bytes) && d.cols % 32 == 0 && rows_left >= d.rows &&
        cols_left >= d.cols && (((uintptr_t)base | (uintptr_t)(g->stride_row * 2)) & 15u) == 0) {
        const unsigned *words = (const unsigned *)rt;
        const int q = lane & 3;
        /* Lane q's block starts 8q columns into the group, 6q past its own first column there. */
        const int r0 = ts_rt_elem_row(d, lane, 0), c0 = ts_rt_elem_col(d, lane, 0);
        unsigned char *lane_base = base + ((long long)r0 * g->stride_row + c0 + 6 * q) * 2;
        /* Two neighbouring subtiles of a row hold a group: elements i and i + 4 of each (i = 0 for
         * the lane's first row of the subtile, 2 for its second) are blocks 0, 1 and 2, 3. */
        TS_UNROLL
        for (int e = 0; e < TS_RT_DESC_ELEMS(d); e += 2 * TS_RT_SUB_ELEMS) {
            TS_UNROLL
            for (int i = 0; i < 4; i += 2) {
                const int e0 = e + i;
                unsigned a[4] = {words[e0 >> 1], words[(e0 + 4) >> 1], words[(e0 + TS_RT_SUB_ELEMS) >> 1],
                                 words[(e0 + TS_RT_SUB_ELEMS + 4) >> 1]};
                ts_quad_transpose_u32(a, lane);
                ts_v16 v;
                TS_UNROLL
                for (int k = 0; k < 4; ++k) v.w[k] = a[k];
                const long long at = (long long)(ts_rt_elem_row(d, lane, e0) - r0) * g->stride_row +
                                     (ts_rt_elem_col(d, lane, e0) - c0);
                ts_store16(lane_base + at * 2, v);
            }
        }
        return;
    }
    /* A 16-bit tile wholly inside the layout, whose lanes hold column pairs that land 4-byte
     * aligned, goes out a word at a time: half the stores, and no test per element; attention gained
     * most at D = 128 (docs/tiles.md, "Where the ops' choices come from"). */
    if (bytes == 2 && rows_left >= d.rows && cols_left >= d.cols &&
        ts_rt_pairs_along_rows(d, lane) && (((uintptr_t)base | (uintptr_t)(g->stride_row * 2)) & 3u) == 0) {
        const unsigned *words = (const unsigned *)rt;
        /* Offsets from the lane's first element: constants of the unrolled loop but for whole rows
         * of the stride, so each store is one address plus an immediate instead of a 64-bit
         * multiply-add of its own. */
        const int r0 = ts_rt_elem_row(d, lane, 0), c0 = ts_rt_elem_col(d, lane, 0);
        unsigned char *lane_base = base + ((long long)r0 * g->stride_row + c0) * 2;
        TS_UNROLL
        for (int e = 0; e < TS_RT_DESC_ELEMS(d); e += 2) {
            const long long at = (long long)(ts_rt_elem_row(d, lane, e) - r0) * g->stride_row +
                                 (ts_rt_elem_col(d, lane, e) - c0);
            ts_store4(lane_base + at * 2, words[e >> 1]);
        }
        return;
    }
    TS_UNROLL
    for (int e = 0; e < TS_RT_DESC_ELEMS(d); ++e) {
        const int r = ts_rt_elem_row(d, lane, e), c = ts_rt_elem_col(d, lane, e);
        if (r < rows_left && c < cols_left) ts_raw_set(base, bytes, r * g->stride_row + c, ts_rt_raw_get(rt, bytes, e));
    }
}

#define ts_load_g2r(dst, gl, b, h, tile_row, tile_col)                                             \
    ts_load_g2r_impl(TS_RT_DATA(dst), TS_RT_DESC(dst), (gl), (b), (h),                             \
                     (long long)(tile_row) * TS_RT_ROWS(dst), (long long)(tile_col) * TS_RT_COLS(dst))
#define ts_store_r2g(gl, src, b, h, tile_row, tile_col)                                            \
    ts_store_r2g_impl((gl), TS_RT_CDATA(src), TS_RT_DESC(src), (b), (h),                           \
                      (long long)(tile_row) * TS_RT_ROWS(src), (long long)(tile_col) * TS_RT_COLS(src))

/* ---- global <-> shared ----------------------------------------------------------------------- */

/* `threads` threads of the block, numbered `thread`, share the copy: consecutive threads take
 * consecutive columns so a warp reads contiguous global memory. */
/* A global layout of another dtype than the shared tile's: converted through fp32, element by
 * element, as the register tiles' ts_load_g2r_convert. */
TS_DEVICE void ts_load_g2s_convert(void *st, ts_st_desc d, const ts_gl *g, long long b, long long h, long long row0,
                                   long long col0, int thread, int threads) {
    const int ok = ts_gl_dtype_ok(g), gbytes = TS_DTYPE_BYTES(g->dtype);
    const long long rows_left = ok ? g->rows - row0 : 0, cols_left = g->cols - col0;
    const unsigned char *base = (const unsigned char *)g->ptr + ts_gl_offset(g, b, h, row0, col0) * gbytes;
    for (int idx = thread; idx < d.rows * d.cols; idx += threads) {
        const int r = idx / d.cols, c = idx % d.cols;
        const float x = (r < rows_left && c < cols_left) ? ts_dtype_get_f32(base, g->dtype, r * g->stride_row + c) : 0.0f;
        ts_dtype_set_f32(st, d.dtype, ts_st_index(d, r, c), x);
    }
}

TS_DEVICE void ts_store_s2g_convert(const ts_gl *g, const void *st, ts_st_desc d, long long b, long long h,
                                    long long row0, long long col0, int thread, int threads) {
    if (!ts_gl_dtype_ok(g)) return;
    const int gbytes = TS_DTYPE_BYTES(g->dtype);
    const long long rows_left = g->rows - row0, cols_left = g->cols - col0;
    unsigned char *base = (unsigned char *)g->ptr + ts_gl_offset(g, b, h, row0, col0) * gbytes;
    for (int idx = thread; idx < d.rows * d.cols; idx += threads) {
        const int r = idx / d.cols, c = idx % d.cols;
        if (r < rows_left && c < cols_left)
            ts_dtype_set_f32(base, g->dtype, r * g->stride_row + c, ts_dtype_get_f32(st, d.dtype, ts_st_index(d, r, c)));
    }
}

TS_DEVICE void ts_load_g2s_impl(void *st, ts_st_desc d, const ts_gl *g, long long b, long long h,
                                long long row0, long long col0, int thread, int threads) {
    if (g->dtype != d.dtype) {
        ts_load_g2s_convert(st, d, g, b, h, row0, col0, thread, threads);
        return;
    }
    const int bytes = TS_DTYPE_BYTES(d.dtype);
    const long long rows_left = g->rows - row0, cols_left = g->cols - col0;
    const unsigned char *base = (const unsigned char *)g->ptr + ts_gl_offset(g, b, h, row0, col0) * bytes;
    for (int idx = thread; idx < d.rows * d.cols; idx += threads) {
        const int r = idx / d.cols, c = idx % d.cols;
        const unsigned bits = (r < rows_left && c < cols_left) ? ts_raw_get(base, bytes, r * g->stride_row + c) : 0u;
        ts_raw_set(st, bytes, ts_st_index(d, r, c), bits);
    }
}

TS_DEVICE void ts_store_s2g_impl(const ts_gl *g, const void *st, ts_st_desc d, long long b, long long h,
                                 long long row0, long long col0, int thread, int threads) {
    if (g->dtype != d.dtype) {
        ts_store_s2g_convert(g, st, d, b, h, row0, col0, thread, threads);
        return;
    }
    const int bytes = TS_DTYPE_BYTES(d.dtype);
    const long long rows_left = g->rows - row0, cols_left = g->cols - col0;
    unsigned char *base = (unsigned char *)g->ptr + ts_gl_offset(g, b, h, row0, col0) * bytes;
    for (int idx = thread; idx < d.rows * d.cols; idx += threads) {
        const int r = idx / d.cols, c = idx % d.cols;
        if (r < rows_left && c < cols_left)
            ts_raw_set(base, bytes, r * g->stride_row + c, ts_raw_get(st, bytes, ts_st_index(d, r, c)));
    }
}

/* Warp scope: the calling warp alone; its lanes see the data after the op returns. */
#define ts_load_g2s(dst, gl, b, h, tile_row, tile_col)                                             \
    do {                                                                                           \
        ts_load_g2s_impl(TS_ST_DATA(dst), TS_ST_DESC(dst), (gl), (b), (h),                         \
                         (long long)(tile_row) * TS_ST_ROWS(dst),                                  \
                         (long long)(tile_col) * TS_ST_COLS(dst), ts_lane_id(), TS_WARP_LANES);    \
        ts_sync_warp();                                                                            \
    } while (0)
#define ts_store_s2g(gl, src, b, h, tile_row, tile_col)                                            \
    ts_store_s2g_impl((gl), TS_ST_CDATA(src), TS_ST_DESC(src), (b), (h),                           \
                      (long long)(tile_row) * TS_ST_ROWS(src), (long long)(tile_col) * TS_ST_COLS(src), \
                      ts_lane_id(), TS_WARP_LANES)

/* Group scope: `warps` warps starting at warp `first_warp` share the copy; the caller
 * synchronizes them (ts_sync_named or ts_sync_block) before anyone reads the tile. */
#define ts_load_g2s_group(dst, gl, b, h, tile_row, tile_col, first_warp, warps)                    \
    ts_load_g2s_impl(TS_ST_DATA(dst), TS_ST_DESC(dst), (gl), (b), (h),                             \
                     (long long)(tile_row) * TS_ST_ROWS(dst), (long long)(tile_col) * TS_ST_COLS(dst), \
                     (ts_warp_id() - (first_warp)) * TS_WARP_LANES + ts_lane_id(),                 \
                     (warps) * TS_WARP_LANES)
#define ts_store_s2g_group(gl, src, b, h, tile_row, tile_col, first_warp, warps)                   \
    ts_store_s2g_impl((gl), TS_ST_CDATA(src), TS_ST_DESC(src), (b), (h),                           \
                      (long long)(tile_row) * TS_ST_ROWS(src), (long long)(tile_col) * TS_ST_COLS(src), \
                      (ts_warp_id() - (first_warp)) * TS_WARP_LANES + ts_lane_id(),                \
                      (warps) * TS_WARP_LANES)

/* ---- shared <-> registers -------------------------------------------------------------------- */

#if defined(TS_HAVE_LDMATRIX) || defined(TS_HAVE_STMATRIX)
/* The shared element where a lane's row of a matrix load or store of subtile `sub` of register
 * tile d starts (tile origin at row0, col0): lane l gives row l % 8 of the subtile's matrix l / 8,
 * the matrices in the order (rows 0-7, cols 0-7), (8-15, 0-7), (0-7, 8-15), (8-15, 8-15). A 16-byte
 * row of 8 elements starting at a multiple of 8 columns is one swizzle unit, so it is contiguous
 * in every swizzled layout. */
TS_DEVICE int ts_matrix_row_index(ts_st_desc sd, ts_rt_desc d, int sub, int lane, int row0, int col0) {
    const int subcols = d.cols / 16;
    const int r = row0 + (sub / subcols) * 16 + ((lane >> 3) & 1) * 8 + (lane & 7);
    const int c = col0 + (sub % subcols) * 16 + (lane >> 4) * 8;
    return ts_st_index(sd, r, c);
}
#endif

TS_DEVICE void ts_load_s2r_impl(void *rt, ts_rt_desc d, const void *st, ts_st_desc sd, int row0, int col0) {
    const int lane = ts_lane_id(), bytes = TS_DTYPE_BYTES(d.dtype);
#if defined(TS_HAVE_LDMATRIX)
    /* 16-bit tiles: one matrix load per subtile (ts_matrix_row_index). */
    if (bytes == 2) {
        TS_UNROLL
        for (int sub = 0; sub < (d.rows / 16) * (d.cols / 16); ++sub)
            ts_ldmatrix_x4((unsigned *)rt + sub * (TS_RT_SUB_ELEMS / 2),
                           (const unsigned short *)st + ts_matrix_row_index(sd, d, sub, lane, row0, col0),
                           d.layout == TS_LAYOUT_COL);
        return;
    }
#endif
    TS_UNROLL
    for (int e = 0; e < TS_RT_DESC_ELEMS(d); ++e) {
        const int r = row0 + ts_rt_elem_row(d, lane, e), c = col0 + ts_rt_elem_col(d, lane, e);
        ts_rt_raw_set(rt, bytes, e, ts_raw_get(st, bytes, ts_st_index(sd, r, c)));
    }
}

TS_DEVICE void ts_store_r2s_impl(void *st, ts_st_desc sd, const void *rt, ts_rt_desc d, int row0, int col0) {
    const int lane = ts_lane_id(), bytes = TS_DTYPE_BYTES(d.dtype);
#if defined(TS_HAVE_STMATRIX)
    /* 16-bit tiles: one matrix store per subtile (ts_matrix_row_index). */
    if (bytes == 2) {
        TS_UNROLL
        for (int sub = 0; sub < (d.rows / 16) * (d.cols / 16); ++sub)
            ts_stmatrix_x4((unsigned short *)st + ts_matrix_row_index(sd, d, sub, lane, row0, col0),
                           (const unsigned *)rt + sub * (TS_RT_SUB_ELEMS / 2), d.layout == TS_LAYOUT_COL);
        return;
    }
#endif
    /* fp32 tiles whose lanes hold pairs of neighbouring columns: a pair is 8 adjacent, aligned
     * bytes of every backend's layout (its swizzle moves whole 8- or 16-byte units), one store. */
    if (bytes == 4 && ts_rt_pairs_along_rows(d, lane)) {
        TS_UNROLL
        for (int e = 0; e < TS_RT_DESC_ELEMS(d); e += 2) {
            const int r = row0 + ts_rt_elem_row(d, lane, e), c = col0 + ts_rt_elem_col(d, lane, e);
            ts_v8 v;
            v.w[0] = ts_rt_raw_get(rt, 4, e);
            v.w[1] = ts_rt_raw_get(rt, 4, e + 1);
            ts_store8((float *)st + ts_st_index(sd, r, c), v);
        }
        return;
    }
    TS_UNROLL
    for (int e = 0; e < TS_RT_DESC_ELEMS(d); ++e) {
        const int r = row0 + ts_rt_elem_row(d, lane, e), c = col0 + ts_rt_elem_col(d, lane, e);
        ts_raw_set(st, bytes, ts_st_index(sd, r, c), ts_rt_raw_get(rt, bytes, e));
    }
}

#define TS_CHECK_RT_ST_DTYPES(rt, st)                                                              \
    TS_STATIC_ASSERT(TS_RT_DTYPE(rt) == TS_ST_DTYPE(st), #rt " and " #st ": register and shared tile dtypes differ")
#define TS_CHECK_RT_ST_FITS(rt, st)                                                                \
    TS_STATIC_ASSERT(TS_RT_ROWS(rt) <= TS_ST_ROWS(st) && TS_RT_COLS(rt) <= TS_ST_COLS(st),         \
                     #rt " and " #st ": register tile larger than the shared tile")

#define ts_load_s2r_at(dst, src, row0, col0)                                                       \
    do {                                                                                           \
        TS_CHECK_RT_ST_DTYPES(dst, src);                                                           \
        TS_CHECK_RT_ST_FITS(dst, src);                                                             \
        ts_load_s2r_impl(TS_RT_DATA(dst), TS_RT_DESC(dst), TS_ST_CDATA(src), TS_ST_DESC(src), (row0), (col0)); \
    } while (0)
#define ts_store_r2s_at(dst, src, row0, col0)                                                      \
    do {                                                                                           \
        TS_CHECK_RT_ST_DTYPES(src, dst);                                                           \
        TS_CHECK_RT_ST_FITS(src, dst);                                                             \
        ts_store_r2s_impl(TS_ST_DATA(dst), TS_ST_DESC(dst), TS_RT_CDATA(src), TS_RT_DESC(src), (row0), (col0)); \
        ts_sync_warp();                                                                            \
    } while (0)
#define ts_load_s2r(dst, src) ts_load_s2r_at(dst, src, 0, 0)
#define ts_store_r2s(dst, src) ts_store_r2s_at(dst, src, 0, 0)

/* ---- register vectors <-> global ------------------------------------------------------------ */

#include "tiles/register_vector.h"

/* Vector entries i0 .. i0 + LEN - 1 of a plain fp32 array of n entries; entries past n load as 0
 * and are not stored. Of the lanes holding the same entry, only the one whose shared lane bits are
 * zero stores it. */
TS_DEVICE void ts_rv_load_impl(float *v, int len, int axis, int layout, const float *src, long long i0, long long n) {
    const int lane = ts_lane_id();
    TS_UNROLL
    for (int blk = 0; blk < len / 16; ++blk) {
        TS_UNROLL
        for (int s = 0; s < TS_RV_SLOTS; ++s) {
            if (s >= ts_rv_slots(axis, layout)) continue;
            const long long idx = i0 + blk * 16 + ts_rv_index_of_slot(axis, layout, lane, s);
            v[blk * TS_RV_SLOTS + s] = idx < n ? src[idx] : 0.0f;
        }
    }
}
TS_DEVICE void ts_rv_store_impl(float *dst, const float *v, int len, int axis, int layout, long long i0, long long n) {
    const int lane = ts_lane_id();
    if ((lane & ts_rv_shared_lane_bits(axis, layout)) != 0) return;
    TS_UNROLL
    for (int blk = 0; blk < len / 16; ++blk) {
        TS_UNROLL
        for (int s = 0; s < TS_RV_SLOTS; ++s) {
            if (s >= ts_rv_slots(axis, layout)) continue;
            const long long idx = i0 + blk * 16 + ts_rv_index_of_slot(axis, layout, lane, s);
            if (idx < n) dst[idx] = v[blk * TS_RV_SLOTS + s];
        }
    }
}

#define ts_rv_load(dst, src, i0, n)                                                                \
    ts_rv_load_impl(TS_RV_DATA(dst), TS_RV_LEN(dst), TS_RV_AXIS(dst), TS_RV_LAYOUT(dst), (src), (i0), (n))
#define ts_rv_store(dst, src, i0, n)                                                               \
    ts_rv_store_impl((dst), TS_RV_CDATA(src), TS_RV_LEN(src), TS_RV_AXIS(src), TS_RV_LAYOUT(src), (i0), (n))

/* The same with an array of dtype `dtype` (a run-time value), converted through fp32; an unknown
 * dtype loads zeros and stores nothing (ts_gl_dtype_ok's rule). */
TS_DEVICE void ts_rv_load_typed_impl(float *v, int len, int axis, int layout, const void *src, int dtype, long long i0,
                                     long long n) {
    const int lane = ts_lane_id();
    if (!ts_dtype_known(dtype)) {
        ts_fail_launch(TS_ERROR_INVALID_ENUM);
        n = 0;
    }
    TS_UNROLL
    for (int blk = 0; blk < len / 16; ++blk) {
        TS_UNROLL
        for (int s = 0; s < TS_RV_SLOTS; ++s) {
            if (s >= ts_rv_slots(axis, layout)) continue;
            const long long idx = i0 + blk * 16 + ts_rv_index_of_slot(axis, layout, lane, s);
            v[blk * TS_RV_SLOTS + s] = idx < n ? ts_dtype_get_f32(src, dtype, idx) : 0.0f;
        }
    }
}
TS_DEVICE void ts_rv_store_typed_impl(void *dst, int dtype, const float *v, int len, int axis, int layout, long long i0,
                                      long long n) {
    const int lane = ts_lane_id();
    if (!ts_dtype_known(dtype)) {
        ts_fail_launch(TS_ERROR_INVALID_ENUM);
        return;
    }
    if ((lane & ts_rv_shared_lane_bits(axis, layout)) != 0) return;
    TS_UNROLL
    for (int blk = 0; blk < len / 16; ++blk) {
        TS_UNROLL
        for (int s = 0; s < TS_RV_SLOTS; ++s) {
            if (s >= ts_rv_slots(axis, layout)) continue;
            const long long idx = i0 + blk * 16 + ts_rv_index_of_slot(axis, layout, lane, s);
            if (idx < n) ts_dtype_set_f32(dst, dtype, idx, v[blk * TS_RV_SLOTS + s]);
        }
    }
}

#define ts_rv_load_typed(dst, src, dtype, i0, n)                                                   \
    ts_rv_load_typed_impl(TS_RV_DATA(dst), TS_RV_LEN(dst), TS_RV_AXIS(dst), TS_RV_LAYOUT(dst), (src), (dtype), (i0), (n))
#define ts_rv_store_typed(dst, dtype, src, i0, n)                                                  \
    ts_rv_store_typed_impl((dst), (dtype), TS_RV_CDATA(src), TS_RV_LEN(src), TS_RV_AXIS(src), TS_RV_LAYOUT(src), (i0), (n))

/* ---- shared vectors ------------------------------------------------------------------------- */

#include "tiles/shared_vector.h"

/* Global <-> shared, warp scope: entries i0 .. i0 + LEN - 1 of an array of dtype mem_dtype (n
 * entries), converted to and from the vector's dtype sv_dtype, zero past n on load, not stored past
 * n. An unknown mem_dtype loads zeros and stores nothing. */
TS_DEVICE void ts_sv_load_g2s_impl(void *sv, int sv_dtype, int len, const void *src, int mem_dtype, long long i0,
                                   long long n) {
    if (!ts_dtype_known(mem_dtype)) {
        ts_fail_launch(TS_ERROR_INVALID_ENUM);
        n = 0;
    }
    for (int i = ts_lane_id(); i < len; i += TS_WARP_LANES)
        ts_dtype_set_f32(sv, sv_dtype, i, i0 + i < n ? ts_dtype_get_f32(src, mem_dtype, i0 + i) : 0.0f);
    ts_sync_warp();
}
TS_DEVICE void ts_sv_store_s2g_impl(void *dst, int mem_dtype, const void *sv, int sv_dtype, int len, long long i0,
                                    long long n) {
    if (!ts_dtype_known(mem_dtype)) {
        ts_fail_launch(TS_ERROR_INVALID_ENUM);
        return;
    }
    for (int i = ts_lane_id(); i < len; i += TS_WARP_LANES)
        if (i0 + i < n) ts_dtype_set_f32(dst, mem_dtype, i0 + i, ts_dtype_get_f32(sv, sv_dtype, i));
}

/* Shared <-> register vectors: each lane reads the entries of its slots; of the lanes holding the
 * same entry, only the one whose shared lane bits are zero writes it. A 16-bit shared vector is
 * widened on the way in and rounded on the way out. */
TS_DEVICE void ts_rv_load_s_impl(float *v, int len, int axis, int layout, const void *sv, int sv_dtype) {
    const int lane = ts_lane_id();
    TS_UNROLL
    for (int blk = 0; blk < len / 16; ++blk) {
        TS_UNROLL
        for (int s = 0; s < TS_RV_SLOTS; ++s) {
            if (s >= ts_rv_slots(axis, layout)) continue;
            v[blk * TS_RV_SLOTS + s] = ts_dtype_get_f32(sv, sv_dtype, blk * 16 + ts_rv_index_of_slot(axis, layout, lane, s));
        }
    }
}
TS_DEVICE void ts_rv_store_s_impl(void *sv, int sv_dtype, const float *v, int len, int axis, int layout) {
    const int lane = ts_lane_id();
    if ((lane & ts_rv_shared_lane_bits(axis, layout)) == 0) {
        TS_UNROLL
        for (int blk = 0; blk < len / 16; ++blk) {
            TS_UNROLL
            for (int s = 0; s < TS_RV_SLOTS; ++s) {
                if (s >= ts_rv_slots(axis, layout)) continue;
                ts_dtype_set_f32(sv, sv_dtype, blk * 16 + ts_rv_index_of_slot(axis, layout, lane, s), v[blk * TS_RV_SLOTS + s]);
            }
        }
    }
    ts_sync_warp();
}

/* The plain forms take an fp32 array: a pointer of another type does not compile. */
TS_DEVICE const void *ts_f32_array_in(const float *p) { return p; }
TS_DEVICE void *ts_f32_array_out(float *p) { return p; }

#define ts_sv_load_g2s(dst, src, i0, n)                                                            \
    ts_sv_load_g2s_impl(TS_SV_DATA(dst), TS_SV_DTYPE(dst), TS_SV_LEN(dst), ts_f32_array_in(src), TS_DTYPE_F32, (i0), (n))
#define ts_sv_store_s2g(dst, src, i0, n)                                                           \
    ts_sv_store_s2g_impl(ts_f32_array_out(dst), TS_DTYPE_F32, TS_SV_CDATA(src), TS_SV_DTYPE(src), TS_SV_LEN(src), (i0), (n))
#define ts_sv_load_g2s_typed(dst, src, dtype, i0, n)                                               \
    ts_sv_load_g2s_impl(TS_SV_DATA(dst), TS_SV_DTYPE(dst), TS_SV_LEN(dst), (src), (dtype), (i0), (n))
#define ts_sv_store_s2g_typed(dst, dtype, src, i0, n)                                              \
    ts_sv_store_s2g_impl((dst), (dtype), TS_SV_CDATA(src), TS_SV_DTYPE(src), TS_SV_LEN(src), (i0), (n))
#define ts_rv_load_s(dst, src)                                                                     \
    do {                                                                                           \
        TS_STATIC_ASSERT(TS_RV_LEN(dst) == TS_SV_LEN(src), #dst " and " #src ": vector lengths differ"); \
        ts_rv_load_s_impl(TS_RV_DATA(dst), TS_RV_LEN(dst), TS_RV_AXIS(dst), TS_RV_LAYOUT(dst), TS_SV_CDATA(src), \
                          TS_SV_DTYPE(src));                                                       \
    } while (0)
#define ts_rv_store_s(dst, src)                                                                    \
    do {                                                                                           \
        TS_STATIC_ASSERT(TS_RV_LEN(src) == TS_SV_LEN(dst), #dst " and " #src ": vector lengths differ"); \
        ts_rv_store_s_impl(TS_SV_DATA(dst), TS_SV_DTYPE(dst), TS_RV_CDATA(src), TS_RV_LEN(src), TS_RV_AXIS(src), \
                           TS_RV_LAYOUT(src));                                                     \
    } while (0)

/* ---- a lane's raw fp32 values <-> global, 16 bytes at a time --------------------------------- */

/* A lane's n floats (n a multiple of 4) as groups of four, group g at dst + g * stride (dst and
 * stride 16-byte aligned): with dst = base + 4 * lane-in-group and stride = 4 x the group's lanes,
 * each group's stores of all lanes are contiguous (a register tile's accumulators parked in a
 * workspace). */
TS_DEVICE void ts_store_f32_groups(float *dst, const float *v, int n, long long stride) {
    TS_UNROLL
    for (int g = 0; g < n / 4; ++g) {
        ts_v16 t;
        TS_UNROLL
        for (int i = 0; i < 4; ++i) t.w[i] = ts_f32_bits(v[4 * g + i]);
        ts_store16(dst + g * stride, t);
    }
}

#endif
