/* The one HIP runtime entry point kernel sources call: TS_LAUNCH expands to ts_hip_launch. It is
 * declared here, apart from backend.h, because its definition lives in runtime.c, which gcc
 * compiles as C, while backend.h is only ever compiled as HIP. */
#ifndef TESSERA_BACKENDS_HIP_LAUNCH_H
#define TESSERA_BACKENDS_HIP_LAUNCH_H

#include <stddef.h>

#include <tessera/tessera.h>

#include "backends/common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Dynamic LDS a block may ask for. A CU has 64 KiB of LDS and one block may address all of it,
 * but every kernel's static LDS (the named-barrier state of TS_KERNEL's prologue) sits below the
 * dynamic region, which starts TS_SHARED_ALIGN-aligned: that first KiB is taken from each block. */
#define TS_HIP_LDS_PER_CU (64 * 1024)
#define TS_HIP_LDS_RESERVED TS_SHARED_ALIGN
#define TS_HIP_MAX_DYNAMIC_SHARED (TS_HIP_LDS_PER_CU - TS_HIP_LDS_RESERVED)

/* Launches `kernel` (the host handle of a __global__ function) on `grid` blocks of `warps` waves
 * with `shared_bytes` of dynamic LDS; `params` points to the kernel's one parameter struct.
 * Refuses warps outside 1..max_warps and more LDS than TS_HIP_MAX_DYNAMIC_SHARED with
 * TS_ERROR_RESOURCES, an empty grid with TS_ERROR_INVALID_VALUE; a launch the runtime refuses
 * comes back as TS_ERROR_LAUNCH_FAILED (or the more precise status it maps to). */
ts_status ts_hip_launch(const void *kernel, ts_grid grid, int warps, int max_warps,
                        size_t shared_bytes, ts_stream stream, void *params);

#ifdef __cplusplus
}
#endif

#endif
