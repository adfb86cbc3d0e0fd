/* The 16-byte global-memory accesses of the backend being built: ts_v16 (four 32-bit words),
 * ts_load16(p) and ts_store16(p, v) on 16-byte aligned addresses, one vector instruction per lane
 * on a GPU (LDG.E.128 / STG.E.128 on Hopper, global_load_dwordx4 / global_store_dwordx4 on CDNA,
 * through the backend's four-word vector type), memcpy on the host; their 8-byte forms ts_v8,
 * ts_load8(p) and ts_store8(p, v) on 8-byte aligned addresses; and ts_store4(p, w), one aligned
 * 32-bit word. Only ops' implementations
 * include this; kernels use the warp-vector ops (ops/warp_vector.h). */
#ifndef TESSERA_BACKENDS_VECTOR_MEMORY_H
#define TESSERA_BACKENDS_VECTOR_MEMORY_H

#include "backends/backend.h"

#if defined(TESSERA_BACKEND_CUDA) || defined(TESSERA_BACKEND_HIP)

#if defined(TESSERA_BACKEND_CUDA)
typedef uint4 ts_gpu_u32x4;
typedef uint2 ts_gpu_u32x2;
#else
typedef ts_hip_u32x4 ts_gpu_u32x4;
typedef unsigned int ts_gpu_u32x2 __attribute__((ext_vector_type(2)));
#endif

typedef struct ts_v16 {
    unsigned w[4];
} ts_v16;

typedef struct ts_v8 {
    unsigned w[2];
} ts_v8;

/* CDNA: a load through a generic pointer is a flat load unless the compiler proves the pointer
 * global (a page address taken from a table, a pointer chosen between two, it does not), and a
 * flat load counts against both the vector-memory and the LDS counters, so the waits on it are
 * coarser; every ts_load16 reads global memory, so it says so. */
#if defined(TESSERA_BACKEND_HIP)
#define TS_GLOBAL_U32X4 const __attribute__((address_space(1))) ts_gpu_u32x4
#else
#define TS_GLOBAL_U32X4 const ts_gpu_u32x4
#endif

TS_DEVICE ts_v16 ts_load16(const void *p) {
    const ts_gpu_u32x4 t = *(TS_GLOBAL_U32X4 *)p;
    ts_v16 r;
    r.w[0] = t.x;
    r.w[1] = t.y;
    r.w[2] = t.z;
    r.w[3] = t.w;
    return r;
}

TS_DEVICE ts_v8 ts_load8(const void *p) {
    const ts_gpu_u32x2 t = *(const ts_gpu_u32x2 *)p;
    ts_v8 r;
    r.w[0] = t.x;
    r.w[1] = t.y;
    return r;
}

TS_DEVICE void ts_store8(void *p, ts_v8 v) {
    ts_gpu_u32x2 t;
    t.x = v.w[0];
    t.y = v.w[1];
    *(ts_gpu_u32x2 *)p = t;
}

/* One 32-bit word to a 4-byte aligned address. */
TS_DEVICE void ts_store4(void *p, unsigned w) { *(unsigned *)p = w; }

TS_DEVICE void ts_store16(void *p, ts_v16 v) {
    ts_gpu_u32x4 t;
    t.x = v.w[0];
    t.y = v.w[1];
    t.z = v.w[2];
    t.w = v.w[3];
    *(ts_gpu_u32x4 *)p = t;
}

#else
#include "backends/host/vector_memory.h"
#endif

#endif
