/* 16-byte global loads and stores for CUDA (backends/vector_memory.h): a uint4 access compiles to
 * one LDG.E.128 / STG.E.128 per lane, so a warp moves 512 contiguous bytes per instruction. */
#ifndef TESSERA_BACKENDS_CUDA_VECTOR_MEMORY_H
#define TESSERA_BACKENDS_CUDA_VECTOR_MEMORY_H

#include "backends/cuda/backend.h"

typedef struct ts_v16 {
    unsigned w[4];
} ts_v16;

TS_DEVICE ts_v16 ts_load16(const void *p) {
    const uint4 t = *(const uint4 *)p;
    ts_v16 r;
    r.w[0] = t.x;
    r.w[1] = t.y;
    r.w[2] = t.z;
    r.w[3] = t.w;
    return r;
}

TS_DEVICE void ts_store16(void *p, ts_v16 v) {
    uint4 t;
    t.x = v.w[0];
    t.y = v.w[1];
    t.z = v.w[2];
    t.w = v.w[3];
    *(uint4 *)p = t;
}

#endif
