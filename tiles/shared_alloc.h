/* Carving a block's dynamic shared memory into tiles and barriers: a bump allocator over
 * ts_shared_base(). Every warp runs the same sequence of takes, so every warp gets the same
 * addresses without communicating. Launchers size shared memory with TS_SMEM_SIZE over the same
 * sequence of (bytes, alignment). */
#ifndef TESSERA_TILES_SHARED_ALLOC_H
#define TESSERA_TILES_SHARED_ALLOC_H

#include "backends/backend.h"

typedef struct ts_smem {
    unsigned char *base;
    unsigned long long offset;
} ts_smem;

TS_DEVICE ts_smem ts_smem_begin(void) {
    ts_smem s;
    s.base = ts_shared_base();
    s.offset = 0;
    return s;
}

/* Round x up to a multiple of align (a power of two). */
#define TS_ALIGN_UP(x, align) (((x) + (align) - 1) / (align) * (align))

TS_DEVICE void *ts_smem_take(ts_smem *s, unsigned long long bytes, unsigned long long align) {
    s->offset = TS_ALIGN_UP(s->offset, align);
    void *p = s->base + s->offset;
    s->offset += bytes;
    return p;
}

/* A tile: aligned to TS_SHARED_ALIGN, as the swizzled layouts need. */
#define TS_SMEM_TILE(smem, type) ((type *)ts_smem_take((smem), sizeof(type), TS_SHARED_ALIGN))

#endif
