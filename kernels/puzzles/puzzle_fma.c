/* The compute-bound kernel of the hardware-model puzzles, with its launcher. Each warp owns a
 * 16x16 fp32 register tile, i.e. 256 independent fma chains (8 per lane on CUDA, 4 on HIP, all
 * 256 in the one thread of a host warp), and advances every chain `iterations` steps. The chains
 * keep an SM's arithmetic units busy at any block size, so run time follows how many warps the
 * busiest SM must run: exactly what the puzzles measure. */
#include "backends/backend.h"
#include "ops/maps.h"
#include "ops/memory.h"

typedef struct ts_puzzle_fma_params {
    float *data;
    int iterations;
    float a, b;
} ts_puzzle_fma_params;

TS_KERNEL(ts_puzzle_fma_kernel, TS_MAX_WARPS_PER_BLOCK, ts_puzzle_fma_params, p) {
    const long long warp = (long long)ts_block_x() * ts_num_warps() + ts_warp_id();
    const ts_gl tile = ts_gl_matrix(p->data + warp * 256, TS_DTYPE_F32, 16, 16, 16);
    ts_rt_f32_16x16 x;
    ts_load_g2r(&x, &tile, 0, 0, 0, 0);
    ts_fma_repeat(&x, p->a, p->b, p->iterations);
    ts_store_r2g(&tile, &x, 0, 0, 0, 0);
}

TS_EXTERN_C ts_status ts_puzzle_fma_resources(int threads_per_block, ts_kernel_resources *res) {
    if (!res) return TS_ERROR_NULL_POINTER;
    if (threads_per_block <= 0) return TS_ERROR_INVALID_SIZE;
    if (threads_per_block % TS_WARP_LANES != 0 ||
        threads_per_block / TS_WARP_LANES > TS_MAX_WARPS_PER_BLOCK)
        return TS_ERROR_INVALID_VALUE;
    res->warps_per_block = threads_per_block / TS_WARP_LANES;
    /* The tile's 256 / lanes chains plus addressing stay far below the 64-register cap of
     * 1024-thread blocks, so registers never limit residency. */
    res->regs_per_thread = 0;
    res->shared_mem_per_block = 0;
    return TS_SUCCESS;
}

TS_EXTERN_C ts_status ts_puzzle_fma(float *data, long long grid_blocks, int threads_per_block,
                                    int iterations, float a, float b, ts_stream stream) {
    if (!data) return TS_ERROR_NULL_POINTER;
    if (grid_blocks <= 0 || threads_per_block <= 0 || iterations < 0) return TS_ERROR_INVALID_SIZE;
    if (grid_blocks > 2147483647LL) return TS_ERROR_SIZE_OVERFLOW;
    if (((uintptr_t)data & 15u) != 0) return TS_ERROR_MISALIGNED;
    ts_kernel_resources res;
    ts_status s = ts_puzzle_fma_resources(threads_per_block, &res);
    if (s != TS_SUCCESS) return s;
    ts_puzzle_fma_params params;
    params.data = data;
    params.iterations = iterations;
    params.a = a;
    params.b = b;
    return TS_LAUNCH(ts_puzzle_fma_kernel, ts_grid_1d((unsigned)grid_blocks), res.warps_per_block,
                     0, stream, params);
}
