/* Races LayerNorm / RMSNorm + residual kernels loaded from compiled files, in one process and one
 * timing loop: Tessera's norm kernel built with different options (bench/probes/norm_cubins.sh)
 * against each other and against torch.compile's own Triton kernel for the same operation
 * (its cubin or PTX, bench/probes/dump_torch_compile.py), so that a gap to torch.compile can be
 * taken apart one change at a time without PyTorch in the loop.
 *   usage: norm_race NAME=FILE[:FUNCTION] ...   (ROWS, COLS: the shape, 65536 x 1024 by default;
 *          RMS=1 for RMSNorm, no bias; PREWARM=B: before each timed run, after the flush, an untimed
 *          launch of the same kernel on B blocks (its first B rows), which brings its code and
 *          weight back into L2, so that a difference from PREWARM=0 is the kernel's cold start;
 *          CONSUME=1: each timed run also reads the output once after the kernel, as the next
 *          kernel of a model would, and TB/s counts that read too: a kernel that leaves more of
 *          its output in the L2 is credited only for what the reader gains, its deferred
 *          write-back charged in the same span; CONSUME=2: a read of a buffer twice the L2's size
 *          instead, which writes back every dirty line the kernel left in the L2, so that the span
 *          holds all of the kernel's DRAM traffic; TB/s counts the kernel's bytes and that read).
 *          FUNCTION defaults to Inductor's LayerNorm kernel name,
 *          triton_per_fused_add_native_layer_norm_0, whose signature (x, residual, weight, bias,
 *          sum out, norm out, xnumel, r0numel, two scratch pointers) is the one supported for
 *          Triton, and with RMS=1 its RMSNorm kernel's, triton_per_fused__fused_rms_norm_add_0
 *          (the same without the bias); a FUNCTION that is a mangled C++ name (_Z...) is
 *          Tessera's, taking ts_norm_params and launched as the whole instance is (one block a
 *          row, ceil(cols / 1024) warps).
 *   build (on the GPU machine): nvcc -O3 -std=c++17 -arch=sm_90a -o /tmp/norm_race
 *          bench/probes/norm_race.cu -lcuda (or the target probe_norm_race of a CUDA build
 *          configured with -DTESSERA_BUILD_PROBES=ON; bench/probes/README.md)
 * Every kernel's output is first checked against a double-precision reference on four rows (the
 * outputs poisoned before); timing as tessera-bench: L2 flushed before each run, the kernels
 * interleaved in alternating order, the median of 40 runs, twice. TB/s counts x, residual, the sum
 * and the output once each. */
#include <cuda.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "probe_timing.cuh"

#define CHECK_CU(x)                                                                                \
    do {                                                                                           \
        CUresult e_ = (x);                                                                         \
        if (e_ != CUDA_SUCCESS) {                                                                  \
            const char *m_ = "?";                                                                  \
            cuGetErrorString(e_, &m_);                                                             \
            std::printf("%s:%d %s\n", __FILE__, __LINE__, m_);                                     \
            std::exit(1);                                                                          \
        }                                                                                          \
    } while (0)

/* kernels/norm/norm_common.h's ts_norm_params, field for field. */
struct ts_norm_params {
    const void *x, *residual, *weight, *bias;
    void *out, *residual_out;
    long long rows, x_stride, residual_stride, out_stride, residual_out_stride;
    int cols, rms, out_dtype, param_dtype, warps_per_row;
    float eps, inv_cols;
};
static const int kDtypeBf16 = 1; /* TS_DTYPE_BF16 */

static unsigned short to_bf16(float f) {
    unsigned u;
    std::memcpy(&u, &f, 4);
    u += 0x7fff + ((u >> 16) & 1);
    return (unsigned short)(u >> 16);
}
static double from_bf16(unsigned short h) {
    const unsigned u = (unsigned)h << 16;
    float f;
    std::memcpy(&f, &u, 4);
    return f;
}

static std::vector<char> read_file(const std::string &path) {
    FILE *f = std::fopen(path.c_str(), "rb");
    if (!f) {
        std::printf("cannot open %s\n", path.c_str());
        std::exit(1);
    }
    std::vector<char> v;
    char buf[65536];
    size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) v.insert(v.end(), buf, buf + n);
    v.push_back(0); /* PTX is loaded as a string */
    std::fclose(f);
    return v;
}

struct Kernel {
    std::string name;
    CUfunction function;
    bool tessera;
};

int main(int argc, char **argv) {
    const long rows = std::getenv("ROWS") ? std::atol(std::getenv("ROWS")) : 65536;
    const long cols = std::getenv("COLS") ? std::atol(std::getenv("COLS")) : 1024;
    const int rms = std::getenv("RMS") ? std::atoi(std::getenv("RMS")) : 0;
    const long prewarm = std::getenv("PREWARM") ? std::atol(std::getenv("PREWARM")) : 0;
    const int consume = std::getenv("CONSUME") ? std::atoi(std::getenv("CONSUME")) : 0;
    if (cols % 1024 != 0 || cols > 8192 || rows < 4 || prewarm < 0 || prewarm > rows || consume < 0 || consume > 2) {
        std::printf("COLS must be a multiple of 1024 up to 8192 (the whole instance), ROWS at least 4, PREWARM 0 to ROWS, CONSUME 0 to 2\n");
        return 2;
    }
    const size_t bytes = (size_t)rows * cols * 2;
    CHECK(cudaFree(0));
    std::vector<Kernel> kernels;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        const size_t eq = arg.find('=');
        if (eq == std::string::npos) {
            std::printf("argument %s: want NAME=FILE[:FUNCTION]\n", arg.c_str());
            return 2;
        }
        std::string file = arg.substr(eq + 1), function = "triton_per_fused_add_native_layer_norm_0";
        const size_t colon = file.find(':');
        if (colon != std::string::npos) {
            function = file.substr(colon + 1);
            file = file.substr(0, colon);
        }
        const bool tessera = function.rfind("_Z", 0) == 0;
        const bool inductor_rms = function.find("rms_norm") != std::string::npos;
        if (!tessera && (rms != inductor_rms || rows > 2147483647L)) {
            std::printf("%s: Inductor's LayerNorm kernel takes RMS=0, its RMSNorm kernel RMS=1\n", arg.c_str());
            return 2;
        }
        const std::vector<char> image = read_file(file);
        CUmodule module;
        CHECK_CU(cuModuleLoadData(&module, image.data()));
        CUfunction f;
        CHECK_CU(cuModuleGetFunction(&f, module, function.c_str()));
        kernels.push_back({arg.substr(0, eq), f, tessera});
    }

    std::vector<unsigned short> hx(rows * cols), hr(rows * cols), hw(cols), hb(cols);
    std::mt19937 gen(1);
    std::normal_distribution<float> normal;
    for (auto *v : {&hx, &hr, &hw, &hb})
        for (auto &e : *v) e = to_bf16(normal(gen));
    void *x, *r, *w, *b, *out, *sum;
    CHECK(cudaMalloc(&x, bytes));
    CHECK(cudaMalloc(&r, bytes));
    CHECK(cudaMalloc(&out, bytes));
    CHECK(cudaMalloc(&sum, bytes));
    CHECK(cudaMalloc(&w, cols * 2));
    CHECK(cudaMalloc(&b, cols * 2));
    CHECK(cudaMemcpy(x, hx.data(), bytes, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(r, hr.data(), bytes, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(w, hw.data(), cols * 2, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(b, hb.data(), cols * 2, cudaMemcpyHostToDevice));

    const int warps = (int)(cols / 1024);
    ts_norm_params p{};
    p.x = x;
    p.residual = r;
    p.weight = w;
    p.bias = rms ? nullptr : b;
    p.out = out;
    p.residual_out = sum;
    p.rows = rows;
    p.x_stride = p.residual_stride = p.out_stride = p.residual_out_stride = cols;
    p.cols = (int)cols;
    p.rms = rms;
    p.out_dtype = p.param_dtype = kDtypeBf16;
    p.warps_per_row = warps;
    p.eps = 1e-5f;
    p.inv_cols = 1.0f / (float)cols;
    auto launch = [&](const Kernel &k, long blocks) {
        if (k.tessera) {
            void *args[] = {&p};
            const unsigned shared = warps > 1 ? (unsigned)(warps * 2 * sizeof(float)) : 0;
            CHECK_CU(cuLaunchKernel(k.function, (unsigned)blocks, 1, 1, 32 * warps, 1, 1, shared, 0, args, nullptr));
        } else {
            void *scratch0 = nullptr, *scratch1 = nullptr;
            int xnumel = (int)rows, rnumel = (int)cols;
            void *ln_args[] = {&x, &r, &w, &b, &sum, &out, &xnumel, &rnumel, &scratch0, &scratch1};
            void *rms_args[] = {&x, &r, &w, &sum, &out, &xnumel, &rnumel, &scratch0, &scratch1};
            CHECK_CU(cuLaunchKernel(k.function, (unsigned)blocks, 1, 1, 32, 1, 1, 0, 0, rms ? rms_args : ln_args, nullptr));
        }
    };

    int failures = 0;
    for (const Kernel &k : kernels) {
        CHECK(cudaMemset(out, 0xff, bytes));
        CHECK(cudaMemset(sum, 0xff, bytes));
        launch(k, rows);
        CHECK(cudaDeviceSynchronize());
        double worst_out = 0, worst_sum = 0;
        std::vector<unsigned short> got_out(cols), got_sum(cols);
        std::vector<double> h(cols);
        for (long row : {0L, 1L, rows / 2 + 1, rows - 1}) {
            CHECK(cudaMemcpy(got_out.data(), (char *)out + row * cols * 2, cols * 2, cudaMemcpyDeviceToHost));
            CHECK(cudaMemcpy(got_sum.data(), (char *)sum + row * cols * 2, cols * 2, cudaMemcpyDeviceToHost));
            double mean = 0, var = 0;
            for (long c = 0; c < cols; ++c) {
                h[c] = from_bf16(hx[row * cols + c]) + from_bf16(hr[row * cols + c]);
                mean += h[c];
            }
            mean = rms ? 0.0 : mean / cols;
            for (long c = 0; c < cols; ++c) var += (h[c] - mean) * (h[c] - mean);
            var /= cols;
            for (long c = 0; c < cols; ++c) {
                const double ref = (h[c] - mean) / std::sqrt(var + 1e-5) * from_bf16(hw[c]) + (rms ? 0.0 : from_bf16(hb[c]));
                worst_out = std::max(worst_out, std::fabs(from_bf16(got_out[c]) - ref) / (1 + std::fabs(ref)));
                worst_sum = std::max(worst_sum, std::fabs(from_bf16(got_sum[c]) - h[c]) / (1 + std::fabs(h[c])));
            }
        }
        const bool ok = worst_out < 2e-2 && worst_sum < 1e-2;
        failures += !ok;
        std::printf("check %-14s output %.2e, sum %.2e (relative to 1 + |ref|)  %s\n", k.name.c_str(), worst_out,
                    worst_sum, ok ? "ok" : "FAILED");
    }
    if (failures) return 1;

    std::printf("%s + residual %ld x %ld bf16%s%s\n", rms ? "RMSNorm" : "LayerNorm", rows, cols,
                prewarm ? (", each run after an untimed launch on " + std::to_string(prewarm) + " blocks").c_str() : "",
                consume == 1   ? ", each run followed by a read of the output (timed, counted)"
                : consume == 2 ? ", each run followed by a read of twice the L2 (timed, counted)"
                               : "");
    std::vector<std::string> names;
    for (const Kernel &k : kernels) names.push_back(k.name);
    float *sink;
    CHECK(cudaMalloc(&sink, 4));
    long drain_n = 0;
    float4 *drain = consume == 2 ? probe_l2_sized_buffer(&drain_n) : nullptr;
    const double read_after = consume == 1 ? (double)bytes : consume == 2 ? drain_n * 16.0 : 0.0;
    probe_race(
        names, 4.0 * bytes + read_after,
        [&](size_t i) {
            launch(kernels[i], rows);
            if (consume == 1) probe_flush_read<<<264, 512>>>((const float4 *)out, (long)(bytes / 16), sink);
            if (consume == 2) probe_flush_read<<<264, 512>>>(drain, drain_n, sink);
            CHECK(cudaGetLastError());
        },
        [&](size_t i) {
            if (prewarm) launch(kernels[i], prewarm);
        });
    CHECK(cudaFree(sink));
    if (drain) CHECK(cudaFree(drain));
    return 0;
}
