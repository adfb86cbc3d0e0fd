/* The host backend stores shared tiles in Hopper's swizzled layout, so that CI exercises the
 * swizzle through every op that touches shared tiles. */
#ifndef TESSERA_BACKENDS_HOST_SHARED_LAYOUT_H
#define TESSERA_BACKENDS_HOST_SHARED_LAYOUT_H

#include "backends/cuda/shared_layout.h"

TS_LAYOUT_FN int ts_host_st_offset(int rows, int cols, int bytes, int r, int c) {
    return ts_cuda_st_offset(rows, cols, bytes, r, c);
}

#endif
