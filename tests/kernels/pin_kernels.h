/* A kernel that runs the pin op of ops/pin.h, for the tests. */
#ifndef TESSERA_TESTS_PIN_KERNELS_H
#define TESSERA_TESTS_PIN_KERNELS_H

#include <tessera/tessera.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One block of two warps with four floats of shared memory, set to `sentinel`; warp w loads a
 * 32-row vector from in[32 w .. 32 w + 31] (the vector zeroed first) and pins it to float 1 + w
 * (ts_rv_pin); out[0 .. 3] receives the four floats afterwards. in and out are device memory. */
ts_status ts_test_pin(const float *in, float *out, float sentinel);

#ifdef __cplusplus
}
#endif

#endif
