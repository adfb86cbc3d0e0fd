/* wgmma shared-memory matrix descriptors for shared tiles in the project's Hopper layout
 * (backends/cuda/shared_layout.h): column chunks of the swizzle width sw (128, 64 or 32 bytes),
 * each stored as rows x sw bytes, the 16-byte units of every row XORed by the address bits above
 * them. That is exactly the canonical swizzled layout of the PTX ISA ("Shared Memory Matrix
 * Layout"), so one descriptor per k16 step addresses a tile in place:
 *
 *   K-major operand (K runs along the tile's columns: A of AB/ABt, B^T of ABt/AtBt): 8-row groups
 *     of the M/N dimension sw bytes per row, next group at SBO = 8 * sw; LBO unused (1). Step s
 *     starts at byte 32 * s of the rows, i.e. inside a swizzle atom (the hardware swizzles the
 *     absolute address, so a start 32, 64 or 96 bytes into a 1024-byte aligned atom is exact),
 *     and in the next column chunk once the step passes sw.
 *   MN-major operand (K runs along the tile's rows: B of AB/AtB, A^T of AtB/AtBt): sw bytes of M/N
 *     per row, 8 K-rows per core-matrix group, next K group at SBO = 8 * sw, next sw-wide column
 *     chunk of M/N at LBO = rows * sw. Step s starts 16 rows down, at 16 * sw * s bytes.
 *
 * The tile must start on a 1024-byte boundary (TS_SMEM_TILE does that), so the descriptors' base
 * offset field stays 0. Plain C: the layout-model test (tests/test_layout_wgmma.c) builds its
 * descriptors with these same functions and decodes them as the hardware does. */
#ifndef TESSERA_BACKENDS_CUDA_WGMMA_LAYOUT_H
#define TESSERA_BACKENDS_CUDA_WGMMA_LAYOUT_H

#include "backends/common.h"
#include "backends/cuda/shared_layout.h"

/* One wgmma consumes 32 bytes of K per operand row: k16 for 16-bit types. */
#define TS_CUDA_WGMMA_K_BYTES 32

/* Descriptor bits 62-63 for a swizzle width in bytes: 1 = 128B, 2 = 64B, 3 = 32B. */
TS_LAYOUT_FN int ts_cuda_wgmma_swizzle_mode(int sw_bytes) {
    return sw_bytes == 128 ? 1 : sw_bytes == 64 ? 2 : 3;
}

/* Packs a descriptor: each byte quantity enters as (x & 0x3FFFF) >> 4 in its 14-bit field. */
TS_LAYOUT_FN unsigned long long ts_cuda_wgmma_encode(unsigned start_addr, unsigned lbo, unsigned sbo,
                                                     int swizzle_mode) {
    return (unsigned long long)((start_addr & 0x3FFFFu) >> 4) |
           ((unsigned long long)((lbo & 0x3FFFFu) >> 4) << 16) |
           ((unsigned long long)((sbo & 0x3FFFFu) >> 4) << 32) |
           ((unsigned long long)(swizzle_mode & 3) << 62);
}

/* The swizzle width of a rows x cols tile of `bytes`-byte elements. */
TS_LAYOUT_FN int ts_cuda_wgmma_tile_swizzle(int cols, int bytes) {
    return ts_cuda_st_swizzle_bytes(cols * bytes);
}

/* Byte offset from the tile's start where k step `kstep` of the operand begins. */
TS_LAYOUT_FN unsigned ts_cuda_wgmma_step_offset(int rows, int cols, int bytes, int k_major, int kstep) {
    const int sw = ts_cuda_wgmma_tile_swizzle(cols, bytes);
    if (k_major) {
        const int kb = kstep * TS_CUDA_WGMMA_K_BYTES;
        return (unsigned)((kb / sw) * rows * sw + kb % sw);
    }
    return (unsigned)(kstep * (TS_CUDA_WGMMA_K_BYTES / bytes) * sw);
}

/* Leading byte offset: unused by swizzled K-major operands (the ISA assumes 1, i.e. 16 bytes);
 * for MN-major ones the distance between column chunks. */
TS_LAYOUT_FN unsigned ts_cuda_wgmma_lbo(int rows, int cols, int bytes, int k_major) {
    return k_major ? 16u : (unsigned)(rows * ts_cuda_wgmma_tile_swizzle(cols, bytes));
}

/* Stride byte offset: the distance between groups of 8 rows (core matrices) of the tile. */
TS_LAYOUT_FN unsigned ts_cuda_wgmma_sbo(int rows, int cols, int bytes, int k_major) {
    (void)rows, (void)k_major;
    return (unsigned)(8 * ts_cuda_wgmma_tile_swizzle(cols, bytes));
}

/* The descriptor of k step `kstep` of a rows x cols tile at shared address tile_addr (1024-byte
 * aligned). k_major: the operand's K runs along the tile's columns. */
TS_LAYOUT_FN unsigned long long ts_cuda_wgmma_desc(unsigned tile_addr, int rows, int cols, int bytes,
                                                   int k_major, int kstep) {
    return ts_cuda_wgmma_encode(tile_addr + ts_cuda_wgmma_step_offset(rows, cols, bytes, k_major, kstep),
                                ts_cuda_wgmma_lbo(rows, cols, bytes, k_major),
                                ts_cuda_wgmma_sbo(rows, cols, bytes, k_major),
                                ts_cuda_wgmma_swizzle_mode(ts_cuda_wgmma_tile_swizzle(cols, bytes)));
}

/* The descriptor of k step `kstep` from the same tile's step-0 descriptor desc0: the step's byte
 * offset added to the start-address field alone. A tile lies inside the 256 KiB the field spans, so
 * the sum never carries out of it, and the other fields stay as they are; in a kernel this is one
 * 32-bit add per step where ts_cuda_wgmma_desc would mask, shift and merge the address again. */
TS_LAYOUT_FN unsigned long long ts_cuda_wgmma_desc_step(unsigned long long desc0, int rows, int cols, int bytes,
                                                        int k_major, int kstep) {
    const unsigned start = (unsigned)desc0 + (ts_cuda_wgmma_step_offset(rows, cols, bytes, k_major, kstep) >> 4);
    return (desc0 & 0xFFFFFFFF00000000ull) | start;
}

/* The wgmma m64nN accumulator, per warp of the warpgroup, is the mma.sync m16n8 accumulator
 * repeated over N/8: register i of lane l holds row (l / 4) + 8 * ((i / 2) % 2) of the warp's 16
 * rows and column 8 * (i / 4) + 2 * (l % 4) + i % 2. With the CUDA row layout of a 16x16 subtile
 * (backends/cuda/fragment_layout.h), element i of subtile s is register 8 * s + i, so a
 * ts_rt_f32_16xN tile's floats, in storage order, are the instruction's registers in order. */
TS_LAYOUT_FN int ts_cuda_wgmma_acc_reg(int subtile, int i) { return 8 * subtile + i; }

#endif
