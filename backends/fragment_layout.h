/* Backend-neutral names for the register-tile fragment layout of the backend being built: how
 * many elements of a 16x16 subtile each lane holds, and which (row, col) element i of a lane is. */
#ifndef TESSERA_BACKENDS_FRAGMENT_LAYOUT_H
#define TESSERA_BACKENDS_FRAGMENT_LAYOUT_H

#if defined(TESSERA_BACKEND_CUDA)
#include "backends/cuda/fragment_layout.h"
#define TS_RT_SUB_ELEMS TS_CUDA_RT_SUB_ELEMS
#define ts_rt_layout_row ts_cuda_rt_row
#define ts_rt_layout_col ts_cuda_rt_col
#elif defined(TESSERA_BACKEND_HIP)
#include "backends/hip/fragment_layout.h"
#define TS_RT_SUB_ELEMS TS_HIP_RT_SUB_ELEMS
#define ts_rt_layout_row ts_hip_rt_row
#define ts_rt_layout_col ts_hip_rt_col
#elif defined(TESSERA_BACKEND_HOST)
#include "backends/host/fragment_layout.h"
#define TS_RT_SUB_ELEMS TS_HOST_RT_SUB_ELEMS
#define ts_rt_layout_row ts_host_rt_row
#define ts_rt_layout_col ts_host_rt_col
#else
#error "define one of TESSERA_BACKEND_CUDA, TESSERA_BACKEND_HIP, TESSERA_BACKEND_HOST (the build does)"
#endif

#endif
