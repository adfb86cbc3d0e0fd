/* 16- and 8-byte loads and stores for the host backend (backends/vector_memory.h): memcpy, which is
 * what the GPU's vector instructions mean for a single thread. */
#ifndef TESSERA_BACKENDS_HOST_VECTOR_MEMORY_H
#define TESSERA_BACKENDS_HOST_VECTOR_MEMORY_H

#include <string.h>

#include "backends/host/backend.h"

typedef struct ts_v16 {
    unsigned w[4];
} ts_v16;

TS_DEVICE ts_v16 ts_load16(const void *p) {
    ts_v16 r;
    memcpy(r.w, p, 16);
    return r;
}

typedef struct ts_v8 {
    unsigned w[2];
} ts_v8;

TS_DEVICE ts_v8 ts_load8(const void *p) {
    ts_v8 r;
    memcpy(r.w, p, 8);
    return r;
}

TS_DEVICE void ts_store8(void *p, ts_v8 v) { memcpy(p, v.w, 8); }

TS_DEVICE void ts_store4(void *p, unsigned w) { memcpy(p, &w, 4); }

TS_DEVICE void ts_store16(void *p, ts_v16 v) { memcpy(p, v.w, 16); }

#endif
