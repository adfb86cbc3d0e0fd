/* What every GEMM variant shares: the block tile, the kernel parameters, split-K's workspace and
 * its reduction kernel. A block computes a TS_GEMM_BM x TS_GEMM_BN tile of C with
 * TS_GEMM_CONSUMERS consumer warpgroups, each owning TS_GEMM_WG_TILES x 64 rows, stepping through K
 * TS_GEMM_BK at a time through a ring of TS_GEMM_STAGES stages; the numbers per architecture are in
 * kernels/gemm/tuning.h, the design in docs/writing-a-kernel.md ("The GEMM, hook by hook").
 *
 * Instance parameters an including source may define first:
 *   TS_GEMM_SKINNY    the skinny kernels' tile width, 16, 64 or 128 (gemm_skinny.h); undefined: gemm.c's tile
 *   TS_GEMM_CLUSTER   blocks per cluster; 1 for the ping-pong schedule (its test kernels) */
#ifndef TESSERA_KERNELS_GEMM_COMMON_H
#define TESSERA_KERNELS_GEMM_COMMON_H

#include <string.h>

#include "backends/backend.h"
#include "backends/cluster.h"
#include "kernels/common/checks.h"
#include "kernels/common/scratch.h"
#include "ops/async_prefetch.h"
#include "ops/convert.h"
#include "ops/fragment_groups.h"
#include "ops/maps.h"
#include "ops/memory.h"
#include "ops/register_slices.h"
#include "ops/store_axpby.h"
#include "ops/tma.h"
#include "ops/warpgroup.h"
#include "kernels/gemm/gemm_plan.h"
#include "kernels/gemm/tuning.h"
#include "templates/tile_scheduler.h"
#include "tiles/shared_alloc.h"

/* The block tile (kernels/gemm/tuning.h): the skinny kernels' where the including source defines
 * TS_GEMM_SKINNY, its width (gemm_skinny.h), else gemm.c's. The skinny kernels store C transposed,
 * element by element, never through the staged store. */
#if TS_GEMM_SKINNY
#define TS_GEMM_BN TS_GEMM_SKINNY
#define TS_GEMM_BK TS_GEMM_SKINNY_BK
#define TS_GEMM_WG_TILES TS_GEMM_SKINNY_WG_TILES
#define TS_GEMM_STAGED_STORE 0
#else
#define TS_GEMM_BN TS_GEMM_LARGE_BN
#define TS_GEMM_BK TS_GEMM_LARGE_BK
#define TS_GEMM_WG_TILES TS_GEMM_LARGE_WG_TILES
#define TS_GEMM_STAGED_STORE TS_GEMM_LARGE_STAGED_STORE
#endif
#define TS_GEMM_BM (64 * TS_GEMM_WG_TILES * TS_GEMM_CONSUMERS)

/* The staged store: each consumer warp converts its 16 rows of C to 16 bits and stores them
 * TS_GEMM_OUT_COLS columns at a time, a part, through two 16 x TS_GEMM_OUT_COLS shared tiles used
 * in turn and a TMA store each, waiting only for its own store before last (gemm_variant.h). */
#if TS_GEMM_STAGED_STORE
#define TS_GEMM_OUT_BYTES (TS_GEMM_CONSUMERS * 4 * 2 * 16 * TS_GEMM_OUT_COLS * 2)
/* The parts of a consumer warp's results. */
#define TS_GEMM_STORE_PARTS (TS_GEMM_WG_TILES * (TS_GEMM_BN / TS_GEMM_OUT_COLS))
#if TS_GEMM_STORE_PARTS % 2
#error "the staged store takes an even count of parts a task (its two tiles keep their turn across tasks)"
#endif
#else
#define TS_GEMM_OUT_BYTES 0
#endif

/* As many stages as fit beside the output tiles, at most TS_GEMM_MAX_STAGES. */
#define TS_GEMM_STAGE_BYTES ((TS_GEMM_CONSUMERS * TS_GEMM_WG_TILES * 64 + TS_GEMM_BN) * TS_GEMM_BK * 2)
#define TS_GEMM_STAGES                                                                             \
    ((int)(TS_MAX_SHARED_BYTES - TS_GEMM_OUT_BYTES - 1024) / TS_GEMM_STAGE_BYTES < TS_GEMM_MAX_STAGES \
         ? (int)(TS_MAX_SHARED_BYTES - TS_GEMM_OUT_BYTES - 1024) / TS_GEMM_STAGE_BYTES             \
         : TS_GEMM_MAX_STAGES)

/* The stage tiles of a dtype (bf16 or fp16) and transpose form: A's 64 x BK tile of M x K as
 * stored, or BK x 64 of A^T; B's BK x BN tile as stored, or BN x BK of B^T. */
#define TS_GEMM_ST(dt, R, C) TS_CAT(TS_CAT(ts_st_##dt##_, R), TS_CAT(x, C))
#define TS_GEMM_A_ST(dt, trans) TS_GEMM_A_ST_##trans(dt)
#define TS_GEMM_A_ST_0(dt) TS_GEMM_ST(dt, 64, TS_GEMM_BK)
#define TS_GEMM_A_ST_1(dt) TS_GEMM_ST(dt, TS_GEMM_BK, 64)
#define TS_GEMM_B_ST(dt, trans) TS_GEMM_B_ST_##trans(dt)
#define TS_GEMM_B_ST_0(dt) TS_GEMM_ST(dt, TS_GEMM_BK, TS_GEMM_BN)
#define TS_GEMM_B_ST_1(dt) TS_GEMM_ST(dt, TS_GEMM_BN, TS_GEMM_BK)

/* Blocks per cluster: a cluster computes TS_GEMM_CLUSTER tiles of C adjacent in M, which share
 * their columns of B, so that each block loads a share of the B stage and multicasts it to all
 * (for a single row of tiles, tiles adjacent in N sharing A). An including source may ask for
 * clusters of one (the ping-pong schedule's test kernels); else the tuning table's. */
#ifndef TS_GEMM_CLUSTER
#define TS_GEMM_CLUSTER TS_GEMM_CLUSTER_BLOCKS
#endif

/* Producer warps that issue a stage's copies (TS_PC_LOAD_WARPS): one copy each, the A tiles and
 * the B tile, where a warpgroup has warps for them. */
#define TS_GEMM_LOAD_WARPS (TS_GEMM_CONSUMERS * TS_GEMM_WG_TILES + 1 < 4 ? TS_GEMM_CONSUMERS * TS_GEMM_WG_TILES + 1 : 4)

typedef struct ts_gemm_params {
    ts_async_desc a, b; /* tensor maps first: they need 64-byte alignment */
    ts_async_desc c_store; /* C as 16-bit elements in 16 x TS_GEMM_OUT_COLS tiles, for the staged store */
    ts_gl c;
    float alpha, beta;
    int k_iters;
    int staged;            /* nonzero: store C through shared memory (16-bit C, beta == 0) */
    int cluster_n;         /* a cluster's tiles lie across N (sharing A), not down M (sharing B) */
    ts_tile_sched sched;   /* units (a cluster's tiles) -> tile coordinates */
    ts_split_sched split;  /* tasks -> units and k ranges (split-K where a workspace is given) */
    float *partials;       /* split-K: a block's tile, TS_GEMM_TILE_FLOATS per (task, block of the cluster) */
    int cluster_pieces;    /* split-K in clusters: a tile's pieces are a thread-block cluster's blocks,
                              which add them through distributed shared memory (no partials) */
} ts_gemm_params;

/* A task: the block's tile of C, and k tiles [k0, k0 + iters) of it; for a split tile's piece, the
 * workspace slot of its partial results (its task), else -1. */
typedef struct ts_gemm_task {
    int tm, tn, k0, iters, slot;
} ts_gemm_task;

/* A block's partial results of one tile. */
#define TS_GEMM_TILE_FLOATS (TS_GEMM_BM * TS_GEMM_BN)

/* 1 where the product is C^T (the skinny kernels, gemm_skinny_kernels.h): params.c describes the
 * product (C^T: N x M, C's leading dimension), whose element (r, c) is C's (c, r) (the
 * `transposed` of ops/store_axpby.h). */
#if TS_GEMM_SKINNY
#define TS_GEMM_C_TRANSPOSED 1
#else
#define TS_GEMM_C_TRANSPOSED 0
#endif

/* The kernel parameters of one GEMM call, from arguments ts_gemm has already checked: tensor maps
 * of the stored A and B for their stage tiles, C, and the tile scheduler. Host code. */
static inline ts_status ts_gemm_make_params(ts_gemm_params *params, ts_trans trans_a, ts_trans trans_b, int m,
                                            int n, int k, float alpha, const void *a, ts_dtype ab_type,
                                            long long lda, const void *b, long long ldb, float beta, void *c,
                                            ts_dtype c_type, long long ldc) {
    memset(params, 0, sizeof *params);
    const ts_gl ga = ts_gl_matrix((void *)a, ab_type, trans_a ? k : m, trans_a ? m : k, lda);
    const ts_gl gb = ts_gl_matrix((void *)b, ab_type, trans_b ? n : k, trans_b ? k : n, ldb);
    ts_status s = trans_a ? ts_async_desc_make(&params->a, &ga, TS_GEMM_BK, 64, ab_type)
                          : ts_async_desc_make(&params->a, &ga, 64, TS_GEMM_BK, ab_type);
    if (s != TS_SUCCESS) return s;
    s = trans_b ? ts_async_desc_make(&params->b, &gb, TS_GEMM_BN, TS_GEMM_BK, ab_type)
                : ts_async_desc_make(&params->b, &gb, TS_GEMM_BK, TS_GEMM_BN, ab_type);
    if (s != TS_SUCCESS) return s;
    params->c = ts_gl_matrix(c, c_type, m, n, ldc);
#if TS_GEMM_STAGED_STORE
    /* Only where C's rows end on a 16-byte boundary: a tensor store into a row that ends mid-way
     * through 16 bytes writes the elements past its end (tests/test_gemm.c, N = 140 and 300), so
     * other widths take the direct epilogue. */
    if (c_type != TS_DTYPE_F32 && beta == 0.0f && n % 8 == 0) {
        /* bf16 and fp16 are both 2-byte elements to the copy engine. */
        const ts_gl gc = ts_gl_matrix(c, TS_DTYPE_BF16, m, n, ldc);
        if ((s = ts_async_desc_make(&params->c_store, &gc, 16, TS_GEMM_OUT_COLS, TS_DTYPE_BF16)) !=
            TS_SUCCESS)
            return s;
        params->staged = 1;
    }
#endif
    params->alpha = alpha;
    params->beta = beta;
    params->k_iters = (int)ts_check_tiles(k, TS_GEMM_BK);
    /* A cluster's tiles go down M, sharing B (the larger stage operand), unless M has a single
     * row of tiles, where half the blocks would have nothing to do; then across N, sharing A
     * (gemm_plan.h). The scheduler counts clusters' worth of tiles; the last may reach past the
     * matrix, where the loads fill zeros and the stores write nothing. */
    const int tiles_m = (int)ts_check_tiles(m, TS_GEMM_BM), tiles_n = (int)ts_check_tiles(n, TS_GEMM_BN);
    (void)ts_gemm_large_units(tiles_m, tiles_n, TS_GEMM_CLUSTER, &params->cluster_n);
    params->sched = params->cluster_n
                        ? ts_sched_make(tiles_m, (int)ts_check_tiles(tiles_n, TS_GEMM_CLUSTER), TS_GEMM_GROUP_M)
                        : ts_sched_make((int)ts_check_tiles(tiles_m, TS_GEMM_CLUSTER), tiles_n, TS_GEMM_GROUP_M);
    /* Every unit whole, unless the plan splits them (ts_gemm_take_split). */
    params->split = ts_split_whole(params->sched.tasks, params->k_iters);
    return TS_SUCCESS;
}

/* Split-K (ts_gemm_ex with a workspace, and ts_gemm with the library's scratch): where the tiles of
 * C leave most clusters idle, the plan (gemm_plan.h) cuts each tile's K range into pieces, one a
 * cluster, of at least TS_GEMM_SPLIT_MIN_ITERS k tiles; each piece leaves its partial results in
 * the workspace, and a second kernel (ts_gemm_split_reduce) adds a tile's pieces in order and
 * stores C.
 *
 * The workspace for a grid of `blocks` blocks: a block's tile of partial results for each (split-K
 * has fewer tasks than clusters). Host code. */
static inline size_t ts_gemm_workspace_bytes(int blocks) {
    return (size_t)blocks * TS_GEMM_TILE_FLOATS * sizeof(float);
}

/* Where one call's partial results go: the caller's workspace, or, for a call without one, scratch
 * taken from the library's pool (kernels/common/scratch.h) once a split is decided, so that a
 * product of whole tiles allocates nothing. Host code. */
typedef struct ts_gemm_workspace {
    void *ptr;      /* the caller's workspace, the scratch taken for the call, or NULL */
    size_t bytes;   /* the caller's workspace's bytes */
    int may_take;   /* no workspace from the caller: a split takes the library's scratch */
    int taken;      /* ptr is scratch, for ts_gemm_ex to hand back after the call's launches */
} ts_gemm_workspace;

/* The plan's split-K through the workspace, over a grid of `grid` blocks (which run all at once),
 * whose partial results need ts_gemm_workspace_bytes(grid) bytes: returns 1 where split cuts the
 * units and ws has or could take the bytes, else 0, the units whole. Host code. */
static inline int ts_gemm_take_split(ts_gemm_params *params, ts_gemm_workspace *ws, const ts_split_sched *split,
                                     int grid, ts_stream stream) {
    const size_t need = ts_gemm_workspace_bytes(grid);
    if (split->split < 2 || (ws->ptr ? ws->bytes < need : !ws->may_take)) return 0;
    if (!ws->ptr) {
        void *scratch = NULL;
        if (ts_scratch_alloc(&scratch, need, stream) != TS_SUCCESS) {
            ws->may_take = 0; /* none to be had: whole tiles */
            return 0;
        }
        ws->ptr = scratch;
        ws->bytes = need;
        ws->taken = 1;
    }
    params->partials = (float *)ws->ptr;
    params->split = *split;
    return 1;
}

/* Split-K: the slot of block `rank` of a cluster's piece `task`: its tile of fp32 results, a
 * fragment block after another, each a warp's 16 x TS_GEMM_BN accumulator in group order
 * (ops/fragment_groups.h); fragment block fb = (consumer * TS_GEMM_WG_TILES + r) * 4 + warp. */
#define TS_GEMM_FRAGMENT_FLOATS (16 * TS_GEMM_BN)
TS_DEVICE float *ts_gemm_split_slot(const ts_gemm_params *p, long long task, int rank) {
    return p->partials + (task * TS_GEMM_CLUSTER + rank) * (long long)TS_GEMM_TILE_FLOATS;
}

/* Split-K's second kernel's items, one a warp: (tile, fragment block, group) over the fragment
 * blocks that hold rows of C; fewer than 2^31, as the tiles are fewer than the clusters. */
#define TS_GEMM_FRAGMENT_DESC ts_rt_make_desc(16, TS_GEMM_BN, TS_DTYPE_F32, TS_LAYOUT_ROW)
TS_LAYOUT_FN int ts_gemm_split_blocks(const ts_gemm_params *p) {
    const long long rows = p->c.rows < TS_GEMM_BM ? p->c.rows : TS_GEMM_BM;
    return (int)((rows + 15) / 16);
}
TS_LAYOUT_FN int ts_gemm_split_items(const ts_gemm_params *p) {
    return (int)(p->split.units * TS_GEMM_CLUSTER * ts_gemm_split_blocks(p) * TS_RT_GROUPS(TS_GEMM_FRAGMENT_DESC));
}

/* Split-K's second kernel, one item: a group of one fragment block of a block's tile, the tile's
 * pieces added in order (the same sums in every run), then alpha, beta and C's dtype. */
TS_DEVICE void ts_gemm_split_reduce_item(const ts_gemm_params *p, int item) {
    const ts_rt_desc d = TS_GEMM_FRAGMENT_DESC;
    const int groups = TS_RT_GROUPS(d), per_tile = ts_gemm_split_blocks(p) * groups;
    const int tile = item / per_tile, in_tile = item - tile * per_tile;
    const int fb = in_tile / groups, group = in_tile - fb * groups;
    const int unit = tile / TS_GEMM_CLUSTER, rank = tile - unit * TS_GEMM_CLUSTER;
    int tm, tn;
    ts_sched_tile_narrow(&p->sched, (unsigned)unit, &tm, &tn);
    if (p->cluster_n)
        tn = tn * TS_GEMM_CLUSTER + rank;
    else
        tm = tm * TS_GEMM_CLUSTER + rank;
    const long long row0 = (long long)tm * TS_GEMM_BM + fb * 16, col0 = (long long)tn * TS_GEMM_BN;
    if (row0 >= p->c.rows || col0 >= p->c.cols) return;
    const int split = p->split.split;
    const float *first = ts_gemm_split_slot(p, (long long)unit * split, rank) + fb * TS_GEMM_FRAGMENT_FLOATS;
    ts_reduce_groups_r2g_axpby(&p->c, d, first, (long long)TS_GEMM_CLUSTER * TS_GEMM_TILE_FLOATS, split, group, row0,
                               col0, p->alpha, p->beta, TS_GEMM_C_TRANSPOSED);
}

/* A GEMM instance's launcher (the template's P_launch: parameters, grid, stream), as ts_gemm_ex and
 * the skinny kernels pick them from tables by dtype and transpose form. */
typedef ts_status (*ts_gemm_launcher)(const ts_gemm_params *, int, ts_stream);

/* The reduction kernel of kernels/gemm/gemm_split_reduce.c over a split-K call's parameters. */
TS_EXTERN_C ts_status ts_gemm_split_reduce_run(const ts_gemm_params *params, ts_stream stream);

/* A product of few rows through the skinny kernels (kernels/gemm/gemm_skinny.h) whose tile is
 * plan->width (16, 64 or 128) columns wide, as the plan splits it on the device of props, arguments
 * as ts_gemm_ex has checked them, split-K's partial results in ws. Host code. */
typedef ts_status ts_gemm_skinny_run_fn(const ts_gemm_plan *plan, const ts_device_props *props, ts_trans trans_a, ts_trans trans_b, int m, int n,
                                        int k, float alpha, const void *a, ts_dtype ab_type, long long lda,
                                        const void *b, long long ldb, float beta, void *c, ts_dtype c_type,
                                        long long ldc, ts_gemm_workspace *ws, ts_stream stream);
/* A skinny width's numbers for the plan: its persistent grid (a wave), and how many clusters of
 * `pieces` of its blocks the device holds at once. Host code. */
typedef ts_status ts_gemm_skinny_wave_fn(const ts_device_props *props, int *wave);
typedef ts_status ts_gemm_skinny_capacity_fn(int pieces, int *clusters);
TS_EXTERN_C ts_gemm_skinny_run_fn ts_gemm_skinny16_run;
TS_EXTERN_C ts_gemm_skinny_run_fn ts_gemm_skinny64_run;
TS_EXTERN_C ts_gemm_skinny_run_fn ts_gemm_skinny128_run;
TS_EXTERN_C ts_gemm_skinny_wave_fn ts_gemm_skinny16_wave;
TS_EXTERN_C ts_gemm_skinny_wave_fn ts_gemm_skinny64_wave;
TS_EXTERN_C ts_gemm_skinny_wave_fn ts_gemm_skinny128_wave;
TS_EXTERN_C ts_gemm_skinny_capacity_fn ts_gemm_skinny16_cluster_capacity;
TS_EXTERN_C ts_gemm_skinny_capacity_fn ts_gemm_skinny64_cluster_capacity;
TS_EXTERN_C ts_gemm_skinny_capacity_fn ts_gemm_skinny128_cluster_capacity;

/* Defines kernel `name`, split-K's second kernel over TS_GEMM_SPLIT_REDUCE_WARPS-warp blocks built
 * for TS_GEMM_SPLIT_REDUCE_BLOCKS blocks an SM, and its launcher name##_launch(params, stream) (a
 * warp for every item). */
#define TS_GEMM_SPLIT_REDUCE_KERNEL(name)                                                          \
    TS_KERNEL_RESIDENT(name, TS_GEMM_SPLIT_REDUCE_WARPS, TS_GEMM_SPLIT_REDUCE_BLOCKS, ts_gemm_params, p) { \
        const int item = ts_block_x() * TS_GEMM_SPLIT_REDUCE_WARPS + ts_warp_id();                 \
        ts_grid_wait_prior(); /* launched early, behind the pieces' kernel */                       \
        if (item < ts_gemm_split_items(p)) ts_gemm_split_reduce_item(p, item);                    \
    }                                                                                              \
    static ts_status name##_launch(const ts_gemm_params *params, ts_stream stream) {               \
        const ts_gemm_params p = *params;                                                          \
        const unsigned blocks =                                                                    \
            (unsigned)((ts_gemm_split_items(&p) + TS_GEMM_SPLIT_REDUCE_WARPS - 1) / TS_GEMM_SPLIT_REDUCE_WARPS); \
        return TS_LAUNCH_EARLY(name, ts_grid_1d(blocks), TS_GEMM_SPLIT_REDUCE_WARPS, 0, stream, p); \
    }

#endif
