/* Which kernel runs a product and how each tile's K range is split: ts_gemm_ex's decision as a
 * function of the shape and a few numbers of the device (ts_gemm_device), apart from running it,
 * so that tests pin the rules for any device (the H200's 132 SMs on the host backend) and
 * ts_gemm_explain says what a call does. kernels/gemm/gemm.c makes the plan and runs it; the
 * numbers behind each rule are in kernels/gemm/tuning.h and kernels/gemv/tuning.h, their
 * measurements in docs/gemm.md. Host code. */
#ifndef TESSERA_KERNELS_GEMM_GEMM_PLAN_H
#define TESSERA_KERNELS_GEMM_GEMM_PLAN_H

#include <tessera/tessera.h>

#include "backends/backend.h"
#include "templates/tile_scheduler.h"

typedef enum ts_gemm_kernel {
    TS_GEMM_KERNEL_GEMV,   /* kernels/gemv/: at most 8 rows, A as stored */
    TS_GEMM_KERNEL_SKINNY, /* gemm_skinny_kernels.h: C^T on tiles `width` columns of M wide */
    TS_GEMM_KERNEL_LARGE   /* gemm.c's 128 x 256 tiles, in clusters of TS_GEMM_CLUSTER_BLOCKS */
} ts_gemm_kernel;

/* The skinny tiles' widths, by index. */
#define TS_GEMM_SKINNY_WIDTHS 3
static const int ts_gemm_skinny_widths[TS_GEMM_SKINNY_WIDTHS] = {16, 64, 128};

/* What the plan needs to know of a device: each kernel's persistent grid (a wave: the blocks
 * the device holds at once), and how many thread-block clusters of `pieces` blocks of the skinny
 * kernel of width index w it holds at once (0 where the backend has no such clusters). The skinny
 * kernels' numbers are asked for only where the plan takes one (a call's host time is part of a
 * decoding step's). */
typedef struct ts_gemm_device {
    int large_wave;
    int (*skinny_wave)(const struct ts_gemm_device *device, int w);
    int (*cluster_capacity)(const struct ts_gemm_device *device, int w, int pieces);
    const void *context; /* for the two functions */
    ts_device_props props; /* the device's (ts_gemm_device_get), for the functions and the launchers */
} ts_gemm_device;

typedef struct ts_gemm_plan {
    ts_gemm_kernel kernel;
    int width;           /* TS_GEMM_KERNEL_SKINNY: 16, 64 or 128 */
    /* Units (tiles of C, or of C^T on the skinny tiles; clusters' worth of tiles on the large
     * ones), k iterations, and split: pieces of K a unit (1: whole). */
    ts_split_sched split;
    int cluster_pieces;  /* the pieces of a unit are the blocks of one cluster, added through
                            distributed shared memory; 0: through the workspace and the reduction
                            kernel where split > 1 */
    int wave;            /* the kernel's wave, which the split was made for and the workspace
                            holds a tile for each block of */
} ts_gemm_plan;

/* The plan of a product of arguments ts_gemm_ex has checked (m, n, k >= 1). Workspace or scratch
 * is assumed to be had: without it (no scratch left) a split runs whole. */
TS_EXTERN_C ts_gemm_plan ts_gemm_plan_make(const ts_gemm_device *device, ts_trans trans_a, ts_trans trans_b, int m,
                                           int n, int k);

/* The current device's numbers, from the kernels' own launch planning (kernels/gemm/gemm.c). */
TS_EXTERN_C ts_status ts_gemm_device_get(ts_gemm_device *device);

/* One sentence on a plan: the kernel, its tiles, the pieces of K and where they are added.
 * Returns what snprintf returns. */
TS_EXTERN_C int ts_gemm_plan_describe(const ts_gemm_plan *plan, char *buffer, size_t buffer_size);

/* The large tiles' units: clusters' worth of tiles adjacent in M (sharing B), unless M has a single
 * row of tiles, where half a cluster's blocks would have nothing to do; then across N (sharing A),
 * *cluster_n = 1. */
static inline long long ts_gemm_large_units(long long tiles_m, long long tiles_n, int cluster, int *cluster_n) {
    *cluster_n = cluster > 1 && tiles_n > 1 && tiles_m < cluster;
    return *cluster_n ? tiles_m * ((tiles_n + cluster - 1) / cluster) : ((tiles_m + cluster - 1) / cluster) * tiles_n;
}

#endif
