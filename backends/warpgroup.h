/* Selects the warpgroup-scope matrix multiply and register-budget layer of the backend being built
 * (wgmma on Hopper, four waves of MFMA on CDNA, loops on the host). Only ops/warpgroup.h and
 * ops/registers.h include this; kernels use those. Every backend provides the same names:
 * ts_wg_mma_raw, ts_wg_mma_rs_raw (A from registers), ts_wg_fence, ts_wg_commit, ts_wg_wait,
 * ts_wg_acc_fence_raw, ts_wg_a_fence_raw, ts_set_max_regs_inc_raw, ts_set_max_regs_dec_raw. */
#ifndef TESSERA_BACKENDS_WARPGROUP_H
#define TESSERA_BACKENDS_WARPGROUP_H

#include "backends/backend.h"

#if defined(TESSERA_BACKEND_CUDA)
#include "backends/cuda/warpgroup.h"
#elif defined(TESSERA_BACKEND_HIP)
#include "backends/hip/warpgroup.h"
#else
#include "backends/host/warpgroup.h"
#endif

#endif
