/* Selects the lane-level operations (shuffles, packed 16-bit conversions) of the backend being
 * built. Only ops' implementations include this; kernels use tile ops. */
#ifndef TESSERA_BACKENDS_LANE_OPS_H
#define TESSERA_BACKENDS_LANE_OPS_H

#include "backends/backend.h"

#if defined(TESSERA_BACKEND_CUDA)
#include "backends/cuda/lane_ops.h"
#elif defined(TESSERA_BACKEND_HIP)
#include "backends/hip/lane_ops.h"
#else
#include "backends/host/lane_ops.h"
#endif

#endif
