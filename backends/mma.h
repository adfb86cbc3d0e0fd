/* Selects the subtile matrix multiply-accumulate (ts_mma_sub16) of the backend being built:
 * mma.sync m16n8k16 on CUDA, v_mfma_f32_16x16x16 on HIP, loops on host. Only ops/mma.h includes
 * this; kernels use the tile ops. */
#ifndef TESSERA_BACKENDS_MMA_H
#define TESSERA_BACKENDS_MMA_H

#include "backends/backend.h"

#if defined(TESSERA_BACKEND_CUDA)
#include "backends/cuda/mma.h"
#elif defined(TESSERA_BACKEND_HIP)
#include "backends/hip/mma.h"
#else
#include "backends/host/mma.h"
#endif

#endif
