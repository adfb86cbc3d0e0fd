/* Selects the macro layer of the backend this translation unit is built for. Kernel sources,
 * tiles, ops and templates include this and nothing vendor-specific. */
#ifndef TESSERA_BACKENDS_BACKEND_H
#define TESSERA_BACKENDS_BACKEND_H

#include "backends/common.h"

#if defined(TESSERA_BACKEND_CUDA)
#include "backends/cuda/backend.h"
#elif defined(TESSERA_BACKEND_HIP)
#include "backends/hip/backend.h"
#elif defined(TESSERA_BACKEND_HOST)
#include "backends/host/backend.h"
#else
#error "define one of TESSERA_BACKEND_CUDA, TESSERA_BACKEND_HIP, TESSERA_BACKEND_HOST (the build does)"
#endif

#ifndef TS_LAUNCH_EARLY
/* Programmatic dependent launch (backends/cuda/backend.h) is CUDA's: elsewhere an early launch is
 * a plain one, which starts after the stream's previous kernel, and the waits are no-ops. */
#define TS_LAUNCH_EARLY(name, grid, warps, shared_bytes, stream, params)                           \
    TS_LAUNCH(name, grid, warps, shared_bytes, stream, params)
TS_DEVICE void ts_grid_wait_prior(void) {}
TS_DEVICE void ts_grid_launch_next(void) {}
#endif

#endif
