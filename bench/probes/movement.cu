/* Data-movement probe for the row-wise kernels: how fast the H200 moves the bytes of a fused
 * residual + norm at 65536 x 1024 bf16 (read two 2 KiB rows, write two) under different access
 * schemes, with no arithmetic to speak of. It separates what the memory system allows from what a
 * kernel's instructions cost: when a norm trails torch.compile, this says whether any scheme of
 * loads and stores could do better before the kernel's code is blamed.
 *   schemes: one warp a row with 16-byte loads (the norms' whole instance), the same with the sum
 *            stored last, x and residual loads interleaved, two rows a warp, 4-warp blocks, bulk
 *            copies (cp.async.bulk) through shared memory, a driver memcpy of the same bytes, and
 *            the one-warp scheme with residency capped at N blocks an SM by padding dynamic shared
 *            memory under a fixed carve-out (32, 64 or 228 KiB of shared memory, the rest L1).
 * Timing as tessera-bench: L2 flushed (a read of twice its size) before every run, the schemes
 * interleaved in alternating order, the median of 40 runs; TB/s counts 4 x 128 MiB.
 *   build and run (on the GPU machine): nvcc -O3 -std=c++17 -arch=sm_90a -o /tmp/movement
 *   bench/probes/movement.cu && /tmp/movement (or the target probe_movement of a CUDA build
 *   configured with -DTESSERA_BUILD_PROBES=ON; bench/probes/README.md)
 * Results: bench/results/nvidia-h200-2026-12-01-movement-probe.txt. */
#include <cstdio>
#include <string>
#include <vector>

#include "probe_timing.cuh"


static const long kRows = 65536, kRowBytes = 1024 * 2, kChunks = kRowBytes / 16;

__device__ uint4 add4(uint4 a, uint4 b) { return make_uint4(a.x + b.x, a.y + b.y, a.z + b.z, a.w + b.w); }
__device__ uint4 xor4(uint4 a, unsigned s) { return make_uint4(a.x ^ s, a.y ^ s, a.z ^ s, a.w ^ s); }

/* A stand-in for a row statistic: one value the whole warp agrees on, from every word of its row. */
__device__ unsigned warp_mix(const uint4 *t) {
    unsigned acc = 0;
    for (int k = 0; k < 4; ++k) acc += t[k].x ^ t[k].y ^ t[k].z ^ t[k].w;
    for (int m = 16; m; m >>= 1) acc += __shfl_xor_sync(~0u, acc, m);
    return acc;
}

/* ROWS_PER_WARP rows a warp, WARPS warps a block: s = x + r (stored first, or last with SUM_LAST),
 * o = s ^ mix(s). Each lane moves 16 bytes of each 512-byte stretch of a row, as the norms do. */
template <int ROWS_PER_WARP, int WARPS, int INTERLEAVED, int SUM_LAST>
__global__ void __launch_bounds__(32 * WARPS) row_ldg(const uint4 *x, const uint4 *r, uint4 *s, uint4 *o) {
    const int lane = threadIdx.x % 32;
    const long row0 = ((long)blockIdx.x * WARPS + threadIdx.x / 32) * ROWS_PER_WARP;
    uint4 a[4 * ROWS_PER_WARP], b[4 * ROWS_PER_WARP];
#pragma unroll
    for (int q = 0; q < ROWS_PER_WARP; ++q) {
        const long base = (row0 + q) * kChunks + lane;
#pragma unroll
        for (int k = 0; k < 4; ++k) {
            a[q * 4 + k] = x[base + 32 * k];
            if (INTERLEAVED) b[q * 4 + k] = r[base + 32 * k];
        }
        if (!INTERLEAVED)
#pragma unroll
            for (int k = 0; k < 4; ++k) b[q * 4 + k] = r[base + 32 * k];
    }
#pragma unroll
    for (int q = 0; q < ROWS_PER_WARP; ++q) {
        const long base = (row0 + q) * kChunks + lane;
        uint4 t[4];
#pragma unroll
        for (int k = 0; k < 4; ++k) t[k] = add4(a[q * 4 + k], b[q * 4 + k]);
        if (!SUM_LAST)
#pragma unroll
            for (int k = 0; k < 4; ++k) s[base + 32 * k] = t[k];
        const unsigned m = warp_mix(t);
#pragma unroll
        for (int k = 0; k < 4; ++k) o[base + 32 * k] = xor4(t[k], m);
        if (SUM_LAST)
#pragma unroll
            for (int k = 0; k < 4; ++k) s[base + 32 * k] = t[k];
    }
}

__device__ unsigned smem_addr(const void *p) { return (unsigned)__cvta_generic_to_shared(p); }

/* One row a warp, WARPS warps a block: x and r arrive by bulk copies into shared memory (one
 * mbarrier a warp), s and o leave by bulk copies from it. */
template <int WARPS>
__global__ void __launch_bounds__(32 * WARPS) row_bulk(const char *x, const char *r, char *s, char *o) {
    extern __shared__ __align__(128) unsigned char smem[];
    __shared__ __align__(8) unsigned long long bars[WARPS];
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const long row = (long)blockIdx.x * WARPS + warp;
    unsigned char *bx = smem + warp * 2 * kRowBytes, *br = bx + kRowBytes;
    const unsigned bar = smem_addr(&bars[warp]);
    if (lane == 0) {
        asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(bar));
        asm volatile("fence.mbarrier_init.release.cluster;");
        asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"((int)(2 * kRowBytes)) : "memory");
        asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];"
                     ::"r"(smem_addr(bx)), "l"(x + row * kRowBytes), "r"((int)kRowBytes), "r"(bar) : "memory");
        asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];"
                     ::"r"(smem_addr(br)), "l"(r + row * kRowBytes), "r"((int)kRowBytes), "r"(bar) : "memory");
    }
    __syncwarp();
    unsigned done = 0;
    while (!done)
        asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], 0; selp.u32 %0, 1, 0, p; }"
                     : "=r"(done) : "r"(bar) : "memory");
    uint4 t[4];
#pragma unroll
    for (int k = 0; k < 4; ++k) {
        t[k] = add4(((const uint4 *)bx)[lane + 32 * k], ((const uint4 *)br)[lane + 32 * k]);
        ((uint4 *)bx)[lane + 32 * k] = t[k];
    }
    const unsigned m = warp_mix(t);
#pragma unroll
    for (int k = 0; k < 4; ++k) ((uint4 *)br)[lane + 32 * k] = xor4(t[k], m);
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    __syncwarp();
    if (lane == 0) {
        asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;" ::"l"(s + row * kRowBytes), "r"(smem_addr(bx)), "r"((int)kRowBytes) : "memory");
        asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;" ::"l"(o + row * kRowBytes), "r"(smem_addr(br)), "r"((int)kRowBytes) : "memory");
        asm volatile("cp.async.bulk.commit_group;" ::: "memory");
        asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
    }
    __syncwarp();
}

enum Scheme { LDG, LDG_SUM_LAST, LDG_INTERLEAVED, LDG_TWO_ROWS, LDG_FOUR_WARPS, BULK, BULK_FOUR_WARPS, MEMCPY, LDG_CAPPED };
struct Variant {
    std::string name;
    Scheme scheme;
    int blocks_per_sm, shared_kib; /* LDG_CAPPED: the residency cap and the shared-memory configuration */
};

int main() {
    const size_t bytes = kRows * kRowBytes;
    char *x, *r, *s, *o, *copy;
    CHECK(cudaMalloc(&x, bytes));
    CHECK(cudaMalloc(&r, bytes));
    CHECK(cudaMalloc(&s, bytes));
    CHECK(cudaMalloc(&o, bytes));
    CHECK(cudaMalloc(&copy, 4 * bytes));
    CHECK(cudaMemset(x, 1, bytes));
    CHECK(cudaMemset(r, 2, bytes));
    CHECK(cudaFuncSetAttribute(row_bulk<1>, cudaFuncAttributeMaxDynamicSharedMemorySize, 2 * kRowBytes));
    CHECK(cudaFuncSetAttribute(row_bulk<4>, cudaFuncAttributeMaxDynamicSharedMemorySize, 8 * kRowBytes));
    CHECK(cudaFuncSetAttribute(row_ldg<1, 1, 0, 0>, cudaFuncAttributeMaxDynamicSharedMemorySize, 200 * 1024));
    std::vector<Variant> vs = {{"ldg", LDG, 0, 0},
                               {"ldg, sum stored last", LDG_SUM_LAST, 0, 0},
                               {"ldg, x/r interleaved", LDG_INTERLEAVED, 0, 0},
                               {"ldg, 2 rows a warp", LDG_TWO_ROWS, 0, 0},
                               {"ldg, 4-warp blocks", LDG_FOUR_WARPS, 0, 0},
                               {"bulk copies", BULK, 0, 0},
                               {"bulk, 4-warp blocks", BULK_FOUR_WARPS, 0, 0},
                               {"memcpy (same bytes)", MEMCPY, 0, 0}};
    for (int kib : {32, 64, 228})
        for (int cap : {8, 12, 16, 18, 24})
            vs.push_back({"ldg, " + std::to_string(cap) + " blocks/SM, " + std::to_string(kib) + " KiB smem", LDG_CAPPED, cap, kib});
    const uint4 *xv = (const uint4 *)x, *rv = (const uint4 *)r;
    uint4 *sv = (uint4 *)s, *ov = (uint4 *)o;
    auto launch = [&](const Variant &v) {
        switch (v.scheme) {
        case LDG: row_ldg<1, 1, 0, 0><<<kRows, 32>>>(xv, rv, sv, ov); break;
        case LDG_SUM_LAST: row_ldg<1, 1, 0, 1><<<kRows, 32>>>(xv, rv, sv, ov); break;
        case LDG_INTERLEAVED: row_ldg<1, 1, 1, 0><<<kRows, 32>>>(xv, rv, sv, ov); break;
        case LDG_TWO_ROWS: row_ldg<2, 1, 0, 0><<<kRows / 2, 32>>>(xv, rv, sv, ov); break;
        case LDG_FOUR_WARPS: row_ldg<1, 4, 0, 0><<<kRows / 4, 128>>>(xv, rv, sv, ov); break;
        case BULK: row_bulk<1><<<kRows, 32, 2 * kRowBytes>>>(x, r, s, o); break;
        case BULK_FOUR_WARPS: row_bulk<4><<<kRows / 4, 128, 8 * kRowBytes>>>(x, r, s, o); break;
        case MEMCPY: CHECK(cudaMemcpyAsync(copy + 2 * bytes, copy, 2 * bytes, cudaMemcpyDeviceToDevice)); break;
        case LDG_CAPPED: {
            /* The carve-out (percent of 228 KiB, rounded down; the driver rounds it up to a
             * configuration) picks the shared memory; each block takes 1 KiB of it for the system
             * plus its padding, so that blocks_per_sm fit. */
            CHECK(cudaFuncSetAttribute(row_ldg<1, 1, 0, 0>, cudaFuncAttributePreferredSharedMemoryCarveout,
                                       v.shared_kib * 100 / 228));
            const size_t pad = ((size_t)v.shared_kib * 1024 / v.blocks_per_sm - 1024) / 128 * 128;
            row_ldg<1, 1, 0, 0><<<kRows, 32, pad>>>(xv, rv, sv, ov);
            break;
        }
        }
        CHECK(cudaGetLastError());
    };
    /* Every scheme's sum: x + r bytewise (1 + 2) over the first and last rows. */
    std::vector<unsigned> row(kRowBytes / 4);
    for (const Variant &v : vs) {
        if (v.scheme == MEMCPY) continue;
        CHECK(cudaMemset(s, 0, bytes));
        launch(v);
        CHECK(cudaDeviceSynchronize());
        for (long at : {0L, kRows - 1}) {
            CHECK(cudaMemcpy(row.data(), s + at * kRowBytes, kRowBytes, cudaMemcpyDeviceToHost));
            for (unsigned w : row)
                if (w != 0x03030303u) {
                    std::printf("%s: wrong sum %08x in row %ld\n", v.name.c_str(), w, at);
                    return 1;
                }
        }
    }
    std::vector<std::string> names;
    for (const Variant &v : vs) names.push_back(v.name);
    probe_race(names, 4.0 * bytes, [&](size_t i) { launch(vs[i]); });
    return 0;
}
