/* The workspace the GEMM benches give ts_gemm_ex, as a user who runs products of few rows may:
 * ts_gemm_workspace_size() bytes, which lets a tile of C be cut into pieces of its K range
 * (split-K). TESSERA_BENCH_GEMM_WORKSPACE=0 gives none, and ts_gemm_ex then runs as ts_gemm, with
 * the library's own scratch for split-K, to compare the two in one build. */
#ifndef TESSERA_BENCH_GEMM_WORKSPACE_H
#define TESSERA_BENCH_GEMM_WORKSPACE_H

#include <stddef.h>
#include <tessera/tessera.h>

typedef struct bench_gemm_workspace {
    void *ptr;    /* NULL: none */
    size_t bytes; /* 0: none */
} bench_gemm_workspace;

/* On failure ws holds none and nothing stays allocated. */
ts_status bench_gemm_workspace_create(bench_gemm_workspace *ws);
void bench_gemm_workspace_destroy(bench_gemm_workspace *ws);

#endif
