/* tessera-bench: the command line, the list of benchmarks, and the set-up they share (device,
 * stream, report). A new benchmark is one file with a bench_fn, its declaration in bench.h and
 * one line in bench_table below.
 * Exit status: 0 when the benchmark ran, 1 when it failed, 2 for a usage error. */
#include "bench.h"
#include "memory_bound.h"
#include "report.h"
#include "timing.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const bench_entry bench_table[] = {
    {"puzzles", "the hardware-model puzzles: block size and wave quantization, measured next to "
                "the launch planner's prediction",
     bench_puzzles},
    {"gemm", "bf16 GEMM against the vendor library (cuBLAS on CUDA): square and language-model shapes",
     bench_gemm},
    {"attention", "attention forward, bf16, D 64 and 128, causal and not (baselines: bench/compare_torch.py)",
     bench_attention},
    {"attention-decode", "decode attention over a paged cache, bf16, GQA 8, 1k-128k keys, TB/s of K and V against "
                         "a device copy (PyTorch: bench/compare_torch_decode.py)",
     bench_attention_decode},
    {"attention-backward", "attention backward (dQ, dK, dV), bf16, D 64 and 128, causal and not (baselines: "
                           "bench/compare_torch_backward.py)",
     bench_attention_backward},
    {"layernorm", "LayerNorm with the fused residual add, bf16, TB/s (baselines: bench/compare_torch_memory.py)",
     bench_layernorm},
    {"rmsnorm", "RMSNorm with the fused residual add, bf16, TB/s (baselines: bench/compare_torch_memory.py)",
     bench_rmsnorm},
    {"rope", "rotary embedding on Q and K, bf16, B8 N4096 H32 D128, TB/s (baselines: compare_torch_memory.py)",
     bench_rope},
    {"softmax", "row softmax, bf16, TB/s (baselines: bench/compare_torch_memory.py)", bench_softmax},
    {"based", "Based linear attention, bf16, feature dim 16, head dim 64, N 2K..64K (baselines: "
              "bench/compare_torch_based.py)",
     bench_based},
    {"gemm-decode", "decoding's skinny GEMM, M 1-256 x Llama-3 8B/70B projections (weights N x K), bf16, against "
                    "the vendor library, with the weights-over-DRAM-peak limit",
     bench_gemm_decode},
};

#define TS_BENCH_COUNT (sizeof bench_table / sizeof bench_table[0])

static void bench_usage(FILE *out)
{
    fprintf(out,
            "usage: tessera-bench <bench> [--json] [--device N] [--iters N] [--reps N] "
            "[--warmup N] [--shape MxNxK]\n"
            "       tessera-bench list\n"
            "       tessera-bench --version   (the library's commit and build options, one JSON line)\n"
            "       tessera-bench --help\n"
            "\n"
            "  --json       one JSON object per result line on stdout instead of a table\n"
            "  --device N   run on device N (default 0)\n"
            "  --iters N    work per launch where a bench has such a knob (default: sized by the "
            "bench)\n"
            "  --reps N     timed repetitions, at least %d (default %d)\n"
            "  --warmup N   untimed runs before timing (default: chosen by the bench)\n"
            "  --shape MxNxK  one problem shape instead of the bench's list (gemm, gemm-decode)\n"
            "\nbenches:\n",
            TS_BENCH_MIN_REPS, TS_BENCH_MIN_REPS);
    for (size_t i = 0; i < TS_BENCH_COUNT; i++)
        fprintf(out, "  %-12s %s\n", bench_table[i].name, bench_table[i].summary);
}

static const bench_entry *bench_find(const char *name)
{
    for (size_t i = 0; i < TS_BENCH_COUNT; i++)
        if (strcmp(bench_table[i].name, name) == 0)
            return &bench_table[i];
    return NULL;
}

/* A whole-string decimal integer in [min, INT_MAX]. */
static int bench_parse_int(const char *text, int min, int *value)
{
    if (text == NULL || *text == '\0')
        return 0;
    char *end = NULL;
    errno = 0;
    long v = strtol(text, &end, 10);
    if (errno != 0 || *end != '\0' || v < min || v > INT_MAX)
        return 0;
    *value = (int)v;
    return 1;
}

typedef struct bench_int_option {
    const char *name;
    int min;
    int *target;
    const char *requirement;
} bench_int_option;

/* Returns 0 on success, 2 after printing a usage error. */
static int bench_parse_args(int argc, char **argv, bench_options *opt, const char **bench)
{
    opt->json = 0;
    opt->device = 0;
    opt->iters = -1;
    opt->reps = -1;
    opt->warmup = -1;
    opt->shape[0] = opt->shape[1] = opt->shape[2] = 0;
    *bench = NULL;
    const bench_int_option ints[] = {
        {"--device", 0, &opt->device, "a device number >= 0"},
        {"--iters", 1, &opt->iters, "a number >= 1"},
        {"--reps", TS_BENCH_MIN_REPS, &opt->reps, "a number >= 20 (the timing protocol's minimum)"},
        {"--warmup", 0, &opt->warmup, "a number >= 0"},
    };
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (strcmp(arg, "--json") == 0) {
            opt->json = 1;
            continue;
        }
        if (strncmp(arg, "--shape", 7) == 0 && (arg[7] == '=' || arg[7] == '\0')) {
            const char *v = arg[7] == '=' ? arg + 8 : (i + 1 < argc ? argv[++i] : "");
            char tail = 0;
            if (sscanf(v, "%dx%dx%d%c", &opt->shape[0], &opt->shape[1], &opt->shape[2], &tail) != 3 ||
                opt->shape[0] < 1 || opt->shape[1] < 1 || opt->shape[2] < 1) {
                fprintf(stderr, "tessera-bench: --shape needs MxNxK with each >= 1, not '%s'\n", v);
                return 2;
            }
            continue;
        }
        if (arg[0] != '-') {
            if (*bench != NULL) {
                fprintf(stderr, "tessera-bench: one bench at a time ('%s' and '%s')\n", *bench, arg);
                return 2;
            }
            *bench = arg;
            continue;
        }
        size_t k = 0;
        const char *value = NULL;
        for (; k < sizeof ints / sizeof ints[0]; k++) {
            size_t len = strlen(ints[k].name);
            if (strncmp(arg, ints[k].name, len) != 0)
                continue;
            if (arg[len] == '=') {
                value = arg + len + 1;
                break;
            }
            if (arg[len] == '\0') {
                value = i + 1 < argc ? argv[++i] : NULL;
                break;
            }
        }
        if (k == sizeof ints / sizeof ints[0]) {
            fprintf(stderr, "tessera-bench: unknown option '%s' (see tessera-bench --help)\n", arg);
            return 2;
        }
        if (!bench_parse_int(value, ints[k].min, ints[k].target)) {
            fprintf(stderr, "tessera-bench: %s needs %s, not '%s'\n", ints[k].name,
                    ints[k].requirement, value != NULL ? value : "(nothing)");
            return 2;
        }
    }
    return 0;
}

/* Says where the bench runs and what it measures, before any result: on stdout for the table, on
 * stderr with --json so that stdout stays one JSON object per line. */
static void bench_announce(const bench_context *ctx, const char *commit)
{
    FILE *out = ctx->options.json ? stderr : stdout;
    const ts_device_props *p = &ctx->props;
    const char *units = ctx->backend == TS_BACKEND_HIP    ? "CUs"
                        : ctx->backend == TS_BACKEND_HOST ? "worker threads"
                                                          : "SMs";
    fprintf(out, "tessera-bench: %s backend, device %d: %s (%s, %d %s), commit %s\n",
            ctx->backend_name, ctx->device, p->name, p->arch, p->sm_count, units, commit);
    if (ctx->backend == TS_BACKEND_HOST)
        fprintf(out, "host backend: no GPU found, running on the CPU at small sizes\n");
    fflush(out);
}

static int bench_fail(const char *what, ts_status st)
{
    fprintf(stderr, "tessera-bench: %s: %s\n", what, ts_status_string(st));
    return 1;
}

int main(int argc, char **argv)
{
    const char *commit = NULL, *build = NULL;
    ts_status st = ts_build_info(&commit, &build);
    if (st != TS_SUCCESS)
        return bench_fail("build info", st);
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            bench_usage(stdout);
            return 0;
        }
        if (strcmp(argv[i], "--version") == 0) {
            bench_report_version(stdout, commit, build);
            return 0;
        }
    }
    bench_options opt;
    const char *name = NULL;
    int rc = bench_parse_args(argc, argv, &opt, &name);
    if (rc != 0)
        return rc;
    if (name == NULL) {
        bench_usage(stderr);
        return 2;
    }
    if (strcmp(name, "list") == 0) {
        for (size_t i = 0; i < TS_BENCH_COUNT; i++)
            printf("%-12s %s\n", bench_table[i].name, bench_table[i].summary);
        return 0;
    }
    const bench_entry *entry = bench_find(name);
    if (entry == NULL) {
        fprintf(stderr, "tessera-bench: unknown bench '%s' (tessera-bench list shows them)\n", name);
        return 2;
    }

    bench_context ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.options = opt;
    ctx.device = opt.device;
    st = ts_get_backend(&ctx.backend);
    if (st == TS_SUCCESS)
        st = ts_backend_name(ctx.backend, &ctx.backend_name);
    if (st != TS_SUCCESS)
        return bench_fail("backend", st);
    int count = 0;
    st = ts_device_count(&count);
    if (st != TS_SUCCESS)
        return bench_fail("device count", st);
    if (count == 0) {
        fprintf(stderr, "tessera-bench: the %s backend found no device\n", ctx.backend_name);
        return 1;
    }
    if (opt.device >= count) {
        fprintf(stderr, "tessera-bench: --device %d, but there %s only %d\n", opt.device,
                count == 1 ? "is" : "are", count);
        return 2;
    }
    st = ts_device_set(opt.device);
    if (st == TS_SUCCESS)
        st = ts_device_get_props(opt.device, &ctx.props);
    if (st != TS_SUCCESS)
        return bench_fail("device", st);
    bench_announce(&ctx, commit);

    bench_report report;
    bench_report_init(&report, opt.json, ctx.backend_name, ctx.props.name, commit, build);
    ctx.report = &report;
    st = ts_stream_create(&ctx.stream);
    if (st != TS_SUCCESS)
        return bench_fail("stream", st);
    ts_status run_st = entry->run(&ctx);
    st = ts_stream_destroy(ctx.stream);
    if (run_st != TS_SUCCESS)
        return bench_fail(entry->name, run_st);
    if (st != TS_SUCCESS)
        return bench_fail("stream", st);
    return 0;
}
