/* What the probes in bench/probes share: a checked CUDA call, and the timing loop of tessera-bench
 * (bench/timing.c) for a set of variants: the L2 flushed by a read of twice its size before every
 * run, the variants interleaved in alternating order, 40 runs each, the median, twice over. */
#ifndef TESSERA_BENCH_PROBES_PROBE_TIMING_CUH
#define TESSERA_BENCH_PROBES_PROBE_TIMING_CUH

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#define CHECK(x)                                                                                   \
    do {                                                                                           \
        cudaError_t e_ = (x);                                                                      \
        if (e_ != cudaSuccess) {                                                                   \
            std::printf("%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_));                 \
            std::exit(1);                                                                          \
        }                                                                                          \
    } while (0)

__global__ void probe_flush_read(const float4 *f, long n, float *sink) {
    float a = 0;
    for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < n; i += (long)gridDim.x * blockDim.x) {
        const float4 v = f[i];
        a += v.x + v.y + v.z + v.w;
    }
    if (a == 1234.5f) *sink = a;
}

/* A zeroed device buffer of twice the L2's size, as float4s (*n of them): reading it evicts
 * whatever the L2 held, writing back its dirty lines. */
inline float4 *probe_l2_sized_buffer(long *n) {
    int l2 = 0;
    CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0));
    *n = 2L * l2 / 16;
    float4 *b;
    CHECK(cudaMalloc(&b, *n * 16));
    CHECK(cudaMemset(b, 0, *n * 16));
    return b;
}

/* A wait on the GPU of about `cycles` clock cycles (the PyTorch driver's lead, bench/torch_timing.py). */
__global__ void probe_spin(long long cycles) {
    const long long t0 = clock64();
    while (clock64() - t0 < cycles) {
    }
}

/* Times launch(i) for each of names.size() variants and prints each pass's medians as TB/s of
 * `bytes`; launch issues variant i on the default stream. prepare(i), where given, is issued
 * after the flush and before the start event (untimed): e.g. a one-block launch of variant i that
 * brings its code back into L2, to take a kernel's cold-start cost apart from its work.
 * PROBE_LEAD_CYCLES=N: the GPU spins N cycles after the flush (and prepare) before each timed run,
 * as the PyTorch driver's lead does, so that a race can take the driver's conditions. */
template <typename Launch, typename Prepare>
void probe_race(const std::vector<std::string> &names, double bytes, Launch launch, Prepare prepare) {
    long flush_n;
    float4 *flush = probe_l2_sized_buffer(&flush_n);
    float *sink;
    CHECK(cudaMalloc(&sink, 4));
    cudaEvent_t start, stop;
    CHECK(cudaEventCreate(&start));
    CHECK(cudaEventCreate(&stop));
    const size_t n = names.size();
    const long long lead = std::getenv("PROBE_LEAD_CYCLES") ? std::atoll(std::getenv("PROBE_LEAD_CYCLES")) : 0;
    for (int pass = 0; pass < 2; ++pass) {
        std::vector<std::vector<float>> times(n);
        for (size_t i = 0; i < n; ++i) launch(i);
        for (int rep = 0; rep < 40; ++rep)
            for (size_t i = 0; i < n; ++i) {
                const size_t j = rep % 2 ? n - 1 - i : i;
                probe_flush_read<<<264, 512>>>(flush, flush_n, sink);
                prepare(j);
                if (lead > 0) probe_spin<<<1, 1>>>(lead);
                CHECK(cudaGetLastError());
                CHECK(cudaEventRecord(start));
                launch(j);
                CHECK(cudaEventRecord(stop));
                CHECK(cudaEventSynchronize(stop));
                float ms = 0;
                CHECK(cudaEventElapsedTime(&ms, start, stop));
                times[j].push_back(ms);
            }
        for (size_t j = 0; j < n; ++j) {
            std::sort(times[j].begin(), times[j].end());
            const float med = times[j][times[j].size() / 2];
            std::printf("pass %d  %-36s median %.4f ms  %.3f TB/s\n", pass, names[j].c_str(), med, bytes / med / 1e9);
        }
    }
    CHECK(cudaFree(flush));
    CHECK(cudaFree(sink));
}

template <typename Launch>
void probe_race(const std::vector<std::string> &names, double bytes, Launch launch) {
    probe_race(names, bytes, launch, [](size_t) {});
}

#endif
