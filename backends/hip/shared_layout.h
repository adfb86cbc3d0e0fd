/* How a shared tile's elements are placed in LDS on CDNA: 128-byte column chunks as on Hopper, with
 * the 8-byte units of row r XORed by r % 16 (r % 8, r % 4 for 64- and 32-byte rows). The MFMA
 * operand reads (ds_read_b64: lane l reads 8 bytes of row l % 16) then hit 16 different units of
 * a 128-byte line, free of bank conflicts. Plain C so the layout tests run it on the CPU. */
#ifndef TESSERA_BACKENDS_HIP_SHARED_LAYOUT_H
#define TESSERA_BACKENDS_HIP_SHARED_LAYOUT_H

#include "backends/common.h"

TS_LAYOUT_FN int ts_hip_st_offset(int rows, int cols, int bytes, int r, int c) {
    const int row_bytes = cols * bytes;
    const int w = row_bytes % 128 == 0 ? 128 : row_bytes == 64 ? 64 : 32;
    const int cb = c * bytes;
    const int chunk = cb / w;
    const int units = w / 8;
    const int unit = ((cb % w) / 8) ^ (r % units);
    return (chunk * rows * w + r * w + unit * 8 + cb % 8) / bytes;
}

#endif
