/* Calls from several threads at once (tests/support/concurrent_calls.c): the first calls of a
 * process released together (they fill the launchers' cache of device properties), calls racing
 * ts_device_set (which empties it), and allocations, streams and events made and destroyed on
 * every thread, with one allocation freed by all of them at once (exactly one free succeeds on the
 * host backend). Each returns the number of failed checks, or -1 where the run itself failed. */
#ifndef TESSERA_TESTS_CONCURRENT_CALLS_H
#define TESSERA_TESTS_CONCURRENT_CALLS_H

#include <stdint.h>

int ts_test_concurrent_first_calls(uint64_t seed);
int ts_test_concurrent_device_set(uint64_t seed);
int ts_test_concurrent_handles(uint64_t seed);
/* A worker's two failures, counted: 2. */
int ts_test_concurrent_failures_counted(void);

#endif
