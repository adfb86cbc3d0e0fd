/* Scratch memory for one call of a kernel whose caller gave no workspace (ts_gemm's split-K):
 * stream-ordered, from a pool the library keeps for each device (backends/runtime.h), so that a
 * call costs no allocation of device memory once the pool holds enough, and calls on different
 * streams never share it. Kept by core/memory.c. Host code. */
#ifndef TESSERA_KERNELS_COMMON_SCRATCH_H
#define TESSERA_KERNELS_COMMON_SCRATCH_H

#include <tessera/tessera.h>

#ifdef __cplusplus
extern "C" {
#endif
/* *ptr = bytes (> 0) of device memory, usable by work issued to stream after this call; NULL and an
 * error where there is none to be had. */
ts_status ts_scratch_alloc(void **ptr, size_t bytes, ts_stream stream);
/* Hands ptr back once stream's work issued before this call is done. */
ts_status ts_scratch_free(void *ptr, ts_stream stream);
#ifdef __cplusplus
}
#endif

#endif
