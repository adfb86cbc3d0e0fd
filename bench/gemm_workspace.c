/* The GEMM benches' split-K workspace (gemm_workspace.h). */
#include "gemm_workspace.h"

#include <stdlib.h>

ts_status bench_gemm_workspace_create(bench_gemm_workspace *ws) {
    ws->ptr = NULL;
    ws->bytes = 0;
    const char *use = getenv("TESSERA_BENCH_GEMM_WORKSPACE");
    if (use && use[0] == '0') return TS_SUCCESS;
    ts_status st = ts_gemm_workspace_size(&ws->bytes);
    if (st == TS_SUCCESS && ws->bytes > 0) st = ts_malloc(&ws->ptr, ws->bytes);
    if (st != TS_SUCCESS) bench_gemm_workspace_destroy(ws);
    return st;
}

void bench_gemm_workspace_destroy(bench_gemm_workspace *ws) {
    (void)ts_free(ws->ptr);
    ws->ptr = NULL;
    ws->bytes = 0;
}
