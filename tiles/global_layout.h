/* Global layouts: a 4-D view (batch, head, rows, cols) of a matrix in device memory with run-time
 * dimensions and strides in elements (the column stride is 1). Ops address it in tile units: tile
 * (tr, tc) of an R x C tile type starts at element row tr * R and column tc * C, and the ops know
 * how many rows and columns remain inside the bounds, so tails are zero-filled on load and skipped
 * on store. The struct is plain data, built on the host and passed in a kernel's parameters. */
#ifndef TESSERA_TILES_GLOBAL_LAYOUT_H
#define TESSERA_TILES_GLOBAL_LAYOUT_H

#include "backends/backend.h"
#include "tiles/dtypes.h"

typedef struct ts_gl {
    void *ptr;
    int dtype;
    int reserved;
    long long batch, heads, rows, cols;
    long long stride_batch, stride_head, stride_row; /* elements */
} ts_gl;

/* A dense (batch, heads, rows, cols) tensor. */
TS_HOST_DEVICE ts_gl ts_gl_make(void *ptr, int dtype, long long batch, long long heads,
                                long long rows, long long cols) {
    ts_gl g;
    g.ptr = ptr;
    g.dtype = dtype;
    g.reserved = 0;
    g.batch = batch;
    g.heads = heads;
    g.rows = rows;
    g.cols = cols;
    g.stride_row = cols;
    g.stride_head = rows * cols;
    g.stride_batch = heads * rows * cols;
    return g;
}

/* A matrix of rows x cols with a leading dimension (elements between rows). */
TS_HOST_DEVICE ts_gl ts_gl_matrix(void *ptr, int dtype, long long rows, long long cols, long long ld) {
    ts_gl g = ts_gl_make(ptr, dtype, 1, 1, rows, cols);
    g.stride_row = ld;
    g.stride_head = rows * ld;
    g.stride_batch = rows * ld;
    return g;
}

/* Element offset of (b, h, r, c). */
TS_HOST_DEVICE long long ts_gl_offset(const ts_gl *g, long long b, long long h, long long r, long long c) {
    return b * g->stride_batch + h * g->stride_head + r * g->stride_row + c;
}

#endif
