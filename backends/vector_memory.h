/* Selects the 16-byte global-memory accesses of the backend being built: ts_v16 (four 32-bit
 * words), ts_load16(p) and ts_store16(p, v) on 16-byte aligned addresses, one vector instruction
 * per lane on a GPU (LDG.E.128 / STG.E.128 on Hopper, global_load_dwordx4 on CDNA), memcpy on the
 * host. Only ops' implementations include this; kernels use the warp-vector ops
 * (ops/warp_vector.h). */
#ifndef TESSERA_BACKENDS_VECTOR_MEMORY_H
#define TESSERA_BACKENDS_VECTOR_MEMORY_H

#include "backends/backend.h"

#if defined(TESSERA_BACKEND_CUDA)
#include "backends/cuda/vector_memory.h"
#elif defined(TESSERA_BACKEND_HIP)
#include "backends/hip/vector_memory.h"
#else
#include "backends/host/vector_memory.h"
#endif

#endif
