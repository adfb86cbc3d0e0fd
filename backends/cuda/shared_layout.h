/* How a shared tile's elements are placed on Hopper: the swizzled layouts that TMA writes and wgmma
 * reads. A tile whose rows are a multiple of 128 bytes is cut into column chunks 128 bytes wide,
 * each stored as rows x 128 bytes with the 128-byte swizzle (16-byte unit u of row r moves to
 * u ^ (r % 8)); rows of 64 or 32 bytes use the 64- or 32-byte swizzle. Tiles start 1024-byte
 * aligned, the swizzle atom. Plain C so the layout models run it on the CPU. */
#ifndef TESSERA_BACKENDS_CUDA_SHARED_LAYOUT_H
#define TESSERA_BACKENDS_CUDA_SHARED_LAYOUT_H

#include "backends/common.h"

/* Swizzle width in bytes for rows of row_bytes bytes: 128, 64 or 32. */
TS_LAYOUT_FN int ts_cuda_st_swizzle_bytes(int row_bytes) {
    return row_bytes % 128 == 0 ? 128 : row_bytes == 64 ? 64 : 32;
}

/* Element offset of (r, c) in a rows x cols tile of `bytes`-byte elements. */
TS_LAYOUT_FN int ts_cuda_st_offset(int rows, int cols, int bytes, int r, int c) {
    const int sw = ts_cuda_st_swizzle_bytes(cols * bytes);
    const int cb = c * bytes;
    const int chunk = cb / sw;
    const int lin = r * sw + cb % sw;
    const int mask = sw / 16 - 1; /* 7, 3 or 1 */
    const int swizzled = lin ^ (((lin >> 7) & mask) << 4);
    return (chunk * rows * sw + swizzled) / bytes;
}

#endif
