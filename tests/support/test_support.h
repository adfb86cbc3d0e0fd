/* Helpers the tests share: device presence, fresh random inputs, poisoning and device buffers.
 * Every test draws a new seed (printed in its failure messages) so the kernels are checked on
 * fresh inputs each run. */
#ifndef TESSERA_TESTS_TEST_SUPPORT_H
#define TESSERA_TESTS_TEST_SUPPORT_H

#include <stddef.h>
#include <stdint.h>

#include <tessera/tessera.h>

/* Nonzero when the backend has a device to run kernels on (always on the host backend). */
int ts_test_device_available(void);

/* Nonzero when the library was built for a GPU backend (CUDA or HIP), device or not: tests size
 * their problems by it, and keep host memory away from its kernels. */
int ts_test_on_gpu(void);
/* Nonzero for the HIP backend (some limits are lower there, e.g. rows of the norms). */
int ts_test_on_hip(void);

/* Skips the calling Criterion test when there is no device. */
#define TS_TEST_REQUIRE_DEVICE()                                                                   \
    do {                                                                                           \
        if (!ts_test_device_available()) cr_skip_test("no device for this backend");               \
    } while (0)

/* A seed that differs from run to run. */
uint64_t ts_test_fresh_seed(void);
/* Uniform in [0, 1) and standard normal draws from a splitmix64 state. */
double ts_test_uniform(uint64_t *state);
double ts_test_normal(uint64_t *state);
/* Two independent standard normal draws (both of one Box-Muller transform: half the cost of two
 * ts_test_normal calls, for filling large operands). */
void ts_test_normal_pair(uint64_t *state, double *first, double *second);
void ts_test_fill_normal(float *x, size_t n, uint64_t *state);

/* Device buffer of `bytes` filled with a copy of `host` (or the poison byte 0xFF, which makes
 * every float a NaN, when host is NULL). Returns NULL on failure. */
void *ts_test_device_copy(const void *host, size_t bytes);
/* Copies device memory back into host memory; returns the status. */
ts_status ts_test_copy_back(void *host, const void *device, size_t bytes);

#endif
