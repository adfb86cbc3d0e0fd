/* 16-byte global loads and stores for HIP (backends/vector_memory.h): a four-word vector access
 * compiles to one global_load_dwordx4 / global_store_dwordx4 per lane. */
#ifndef TESSERA_BACKENDS_HIP_VECTOR_MEMORY_H
#define TESSERA_BACKENDS_HIP_VECTOR_MEMORY_H

#include "backends/hip/backend.h"

typedef struct ts_v16 {
    unsigned w[4];
} ts_v16;

typedef unsigned int ts_hip_v16_raw __attribute__((ext_vector_type(4)));

TS_DEVICE ts_v16 ts_load16(const void *p) {
    const ts_hip_v16_raw t = *(const ts_hip_v16_raw *)p;
    ts_v16 r;
    r.w[0] = t.x;
    r.w[1] = t.y;
    r.w[2] = t.z;
    r.w[3] = t.w;
    return r;
}

TS_DEVICE void ts_store16(void *p, ts_v16 v) {
    ts_hip_v16_raw t;
    t.x = v.w[0];
    t.y = v.w[1];
    t.z = v.w[2];
    t.w = v.w[3];
    *(ts_hip_v16_raw *)p = t;
}

#endif
