/* Random benchmark inputs: docs/design.md asks for random normal values, never zeros. */
#ifndef TESSERA_BENCH_RANDOM_H
#define TESSERA_BENCH_RANDOM_H

#include <stddef.h>

#include <tessera/tessera.h>

/* fp32 -> bf16 bits, rounding to nearest even, and back. */
unsigned short bench_bf16_bits(float f);
float bench_bf16_value(unsigned short bits);

/* Fills `count` bf16 elements of device memory with standard normal values: a block of up to 2^22
 * values made on the host from `seed`, then doubled on the device until the buffer is full. */
ts_status bench_fill_bf16_normal(void *dev, size_t count, unsigned long long seed);

#endif
