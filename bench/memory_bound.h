/* The benches of the fused memory-bound kernels (bench/memory_bound.c): layernorm, rmsnorm, rope,
 * softmax. Kept apart from bench.h so that the list there stays the others'. */
#ifndef TESSERA_BENCH_MEMORY_BOUND_H
#define TESSERA_BENCH_MEMORY_BOUND_H

#include "bench.h"

ts_status bench_layernorm(bench_context *ctx);
ts_status bench_rmsnorm(bench_context *ctx);
ts_status bench_rope(bench_context *ctx);
ts_status bench_softmax(bench_context *ctx);

#endif
