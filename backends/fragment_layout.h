/* Backend-neutral names for the register-tile fragment layout of the backend being built: how
 * many elements of a 16x16 subtile each lane holds, where element i of a lane sits, which lanes
 * share a row or column, the slots of per-row and per-column vectors, and the placement of
 * shared-tile elements (ts_st_offset). Each function takes the
 * layout (TS_LAYOUT_ROW or TS_LAYOUT_COL) and the element size in bytes (2 or 4). */
#ifndef TESSERA_BACKENDS_FRAGMENT_LAYOUT_H
#define TESSERA_BACKENDS_FRAGMENT_LAYOUT_H

#if defined(TESSERA_BACKEND_CUDA)
#include "backends/cuda/fragment_layout.h"
#include "backends/cuda/shared_layout.h"
#define TS_LAYOUT_PREFIX(name) ts_cuda_##name
#define TS_RT_SUB_ELEMS TS_CUDA_RT_SUB_ELEMS
#define TS_RV_SLOTS TS_CUDA_RV_SLOTS
#elif defined(TESSERA_BACKEND_HIP)
#include "backends/hip/fragment_layout.h"
#include "backends/hip/shared_layout.h"
#define TS_LAYOUT_PREFIX(name) ts_hip_##name
#define TS_RT_SUB_ELEMS TS_HIP_RT_SUB_ELEMS
#define TS_RV_SLOTS TS_HIP_RV_SLOTS
#elif defined(TESSERA_BACKEND_HOST)
#include "backends/host/fragment_layout.h"
#include "backends/host/shared_layout.h"
#define TS_LAYOUT_PREFIX(name) ts_host_##name
#define TS_RT_SUB_ELEMS TS_HOST_RT_SUB_ELEMS
#define TS_RV_SLOTS TS_HOST_RV_SLOTS
#else
#error "define one of TESSERA_BACKEND_CUDA, TESSERA_BACKEND_HIP, TESSERA_BACKEND_HOST (the build does)"
#endif

#define ts_rt_layout_row TS_LAYOUT_PREFIX(rt_row)
#define ts_rt_layout_col TS_LAYOUT_PREFIX(rt_col)
#define ts_rt_row_lane_bits TS_LAYOUT_PREFIX(rt_row_lane_bits)
#define ts_rt_col_lane_bits TS_LAYOUT_PREFIX(rt_col_lane_bits)
#define ts_rv_row_slot TS_LAYOUT_PREFIX(rv_row_slot)
#define ts_rv_row_of_slot TS_LAYOUT_PREFIX(rv_row_of_slot)
#define ts_rv_row_slots TS_LAYOUT_PREFIX(rv_row_slots)
#define ts_rv_col_slot TS_LAYOUT_PREFIX(rv_col_slot)
#define ts_rv_col_of_slot TS_LAYOUT_PREFIX(rv_col_of_slot)
#define ts_rv_col_slots TS_LAYOUT_PREFIX(rv_col_slots)
#define ts_rt_transpose_perm TS_LAYOUT_PREFIX(rt_transpose_perm)
#define ts_st_offset TS_LAYOUT_PREFIX(st_offset)
#define ts_rt_lane_of TS_LAYOUT_PREFIX(rt_lane_of)
#define ts_rt_elem_of TS_LAYOUT_PREFIX(rt_elem_of)
#define ts_rt_same_positions TS_LAYOUT_PREFIX(rt_same_positions)
#define ts_rt_quad_octets TS_LAYOUT_PREFIX(rt_quad_octets)

#endif
