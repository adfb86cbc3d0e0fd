/* What every GEMM variant shares: the block tile, the kernel parameters and the epilogue. A block
 * computes a TS_GEMM_BM x TS_GEMM_BN tile of C with TS_GEMM_CONSUMERS consumer warpgroups, each
 * owning TS_GEMM_WG_TILES x 64 rows, stepping through K TS_GEMM_BK at a time through a ring of
 * TS_GEMM_STAGES stages. The sizes follow the backend's shared memory: 128 x 256 x 64 in four
 * stages (192 KiB, plus 32 KiB for the staged store) where a block may have 227 KiB (Hopper, host),
 * 128 x 64 x 64 in two stages where it has 63 KiB (CDNA). TS_GEMM_WG_TILES=2 with TS_GEMM_BN=128
 * gives cuBLAS's shape on the H200, 256 x 128 with each consumer owning 128 rows (an A/B option).
 * TS_GEMM_BK=32 (an A/B option) halves each stage and doubles the stages that fit (eight): with the
 * template's release lag (TS_PC_RELEASE_LAG=1), which holds every stage one stage longer, the lag
 * then costs an eighth of the ring instead of a quarter. */
#ifndef TESSERA_KERNELS_GEMM_COMMON_H
#define TESSERA_KERNELS_GEMM_COMMON_H

#include <string.h>

#include "backends/backend.h"
#include "backends/cluster.h"
#include "kernels/common/checks.h"
#include "backends/lane_ops.h"
#include "ops/convert.h"
#include "ops/maps.h"
#include "ops/memory.h"
#include "ops/tma.h"
#include "ops/warpgroup.h"
#include "templates/tile_scheduler.h"

#define TS_GEMM_CONSUMERS 2
#ifndef TS_GEMM_BK
#define TS_GEMM_BK 64 /* a plain number: tile type names are pasted from it */
#endif
#if TS_GEMM_BK != 32 && TS_GEMM_BK != 64
#error "TS_GEMM_BK is 32 or 64"
#endif
#if TS_MAX_SHARED_BYTES >= 200 * 1024
#ifndef TS_GEMM_WG_TILES
#define TS_GEMM_WG_TILES 1
#endif
#ifndef TS_GEMM_BN
#define TS_GEMM_BN 256
#endif
/* 1: bf16/fp16 results go registers -> shared -> TMA store, asynchronously, so the consumers move
 * on to the next tile at once; this needs a 64 x BN output tile per consumer in shared memory,
 * which leaves room for three stages instead of four. */
#ifndef TS_GEMM_STAGED_STORE
#define TS_GEMM_STAGED_STORE 1
#endif
/* 1 (the default): each consumer warp stages and TMA-stores its own 16 rows of C, in two
 * 16 x TS_GEMM_OUT_COLS tiles used in turn, waiting only for its own store before last; no warp
 * waits for another. 0: the consumer's four warps fill one 64-row tile together between two named
 * barriers, one warp stores it, and the next fill waits for that store to have read the tile. On
 * the H200 (same-run A/B, two runs) it took 4096^3 from 760-773 to 777-782 TFLOP/s, and made it
 * steadier; each warp with one tile, waiting for its last store, measured 766-770. */
#ifndef TS_GEMM_WARP_STORE
#define TS_GEMM_WARP_STORE 1
#endif
/* Columns of C a consumer stages at a time: 64 with the warp store (two 16 x 64 tiles a warp,
 * 16 KiB a consumer), else 128, in BN / 128 rounds through a 64 x 128 tile (16 KiB); either
 * leaves room for four stages, where all BN at once (64 x 256, 32 KiB a consumer) leaves three.
 * On the H200 (scripts/gpu-ab.sh, 2026-11-30, two interleaved rounds) four stages with the
 * half-width store took 4096^3 from 580 to 667 TFLOP/s and 8192^3 from 565-601 to 618-655. */
#ifndef TS_GEMM_OUT_COLS
#if TS_GEMM_BN >= 128 && TS_GEMM_WARP_STORE
#define TS_GEMM_OUT_COLS 64
#elif TS_GEMM_BN > 128
#define TS_GEMM_OUT_COLS 128 /* a plain number: tile type names are pasted from it */
#else
#define TS_GEMM_OUT_COLS TS_GEMM_BN
#endif
#endif
/* As many stages as fit beside the output tiles, at most eight. */
#define TS_GEMM_STAGE_BYTES ((TS_GEMM_CONSUMERS * TS_GEMM_WG_TILES * 64 + TS_GEMM_BN) * TS_GEMM_BK * 2)
#define TS_GEMM_OUT_BYTES (TS_GEMM_STAGED_STORE ? TS_GEMM_CONSUMERS * 64 * TS_GEMM_OUT_COLS * 2 * (TS_GEMM_WARP_STORE ? 2 : 1) : 0)
#ifndef TS_GEMM_STAGES
#define TS_GEMM_STAGES                                                                             \
    ((int)(TS_MAX_SHARED_BYTES - TS_GEMM_OUT_BYTES - 1024) / TS_GEMM_STAGE_BYTES < 8               \
         ? (int)(TS_MAX_SHARED_BYTES - TS_GEMM_OUT_BYTES - 1024) / TS_GEMM_STAGE_BYTES             \
         : 8)
#endif
#else
#define TS_GEMM_WG_TILES 1
#ifndef TS_GEMM_BN
#define TS_GEMM_BN 64
#endif
#define TS_GEMM_STAGES 2
#define TS_GEMM_STAGED_STORE 0
#define TS_GEMM_WARP_STORE 0
#define TS_GEMM_OUT_COLS TS_GEMM_BN
#endif
/* The parts of a consumer's results the staged store moves one at a time. */
#define TS_GEMM_STORE_PARTS (TS_GEMM_WG_TILES * (TS_GEMM_BN / TS_GEMM_OUT_COLS))
/* With the warp store, how many of a task's last parts wait in registers (C's 16 bits) and go out
 * one a stage during the next task's first stages, each after that stage's multiplies are issued
 * (the last task's in finish); the others go out at the end of the task, while no multiply runs
 * (on the H200 that whole epilogue took ~7 of 183 us at 4096^3, bench/results/
 * nvidia-h200-2026-12-01-gemm-epilogue-probes.txt). 0: none wait. Each costs a warp's
 * 16 x TS_GEMM_OUT_COLS 16-bit results in registers through the main loop. */
#ifndef TS_GEMM_DEFER_STORE
#define TS_GEMM_DEFER_STORE (TS_GEMM_STAGED_STORE && TS_GEMM_WARP_STORE ? TS_GEMM_STORE_PARTS : 0)
#endif
#if TS_GEMM_DEFER_STORE && !(TS_GEMM_STAGED_STORE && TS_GEMM_WARP_STORE)
#error "TS_GEMM_DEFER_STORE needs the staged warp store"
#endif
#if TS_GEMM_DEFER_STORE > TS_GEMM_STORE_PARTS
#error "TS_GEMM_DEFER_STORE is at most TS_GEMM_STORE_PARTS"
#endif
#if TS_GEMM_WARP_STORE && TS_GEMM_STORE_PARTS % 2
#error "TS_GEMM_WARP_STORE takes an even count of parts (BN / TS_GEMM_OUT_COLS per 64-row tile)"
#endif
#define TS_GEMM_BM (64 * TS_GEMM_WG_TILES * TS_GEMM_CONSUMERS)

/* The stage tiles of a dtype (bf16 or fp16) and transpose form: A's 64 x BK tile of M x K as
 * stored, or BK x 64 of A^T; B's BK x BN tile as stored, or BN x BK of B^T. */
#define TS_GEMM_ST(dt, R, C) TS_CAT(TS_CAT(ts_st_##dt##_, R), TS_CAT(x, C))
#define TS_GEMM_A_ST(dt, trans) TS_GEMM_A_ST_##trans(dt)
#define TS_GEMM_A_ST_0(dt) TS_GEMM_ST(dt, 64, TS_GEMM_BK)
#define TS_GEMM_A_ST_1(dt) TS_GEMM_ST(dt, TS_GEMM_BK, 64)
#define TS_GEMM_B_ST(dt, trans) TS_GEMM_B_ST_##trans(dt)
#define TS_GEMM_B_ST_0(dt) TS_GEMM_ST(dt, TS_GEMM_BK, TS_GEMM_BN)
#define TS_GEMM_B_ST_1(dt) TS_GEMM_ST(dt, TS_GEMM_BN, TS_GEMM_BK)
/* Blocks per cluster: a cluster computes TS_GEMM_CLUSTER vertically adjacent tiles of C, which share
 * their columns of B, so each block loads a share of the B stage and multicasts it (A stays per
 * block; for a single row of tiles, horizontally adjacent tiles sharing A instead). This cuts the bytes each SM pulls from L2 per stage from 48 KiB to 32 KiB: on the H200,
 * the loads alone of the 4096^3 product took 0.17 ms and the multiplies alone 0.18 ms, so the
 * unclustered kernel (0.23 ms) was bound by L2 -> SM bandwidth. Clusters of one elsewhere. */
#if !defined(TS_GEMM_CLUSTER)
#if TS_CLUSTER_MAX >= 2
#define TS_GEMM_CLUSTER 2
#else
#define TS_GEMM_CLUSTER 1
#endif
#endif

/* 1, an A/B option: a cluster's tiles always lie across N and share the A stage, as in cuBLAS's
 * 256 x 128 kernel on the H200 (with TS_GEMM_WG_TILES=2 TS_GEMM_BN=128, A is the larger operand);
 * 0: down M, sharing B, unless M has a single row of tiles. That shape with this option measured
 * 720-723 TFLOP/s at 4096^3 against 770 for the default (H200, 2026-11-30). */
#ifndef TS_GEMM_CLUSTER_ACROSS_N
#define TS_GEMM_CLUSTER_ACROSS_N 0
#endif

/* Producer warps that issue a stage's copies, each its share of the A tiles and the B tile
 * (TS_PC_LOAD_WARPS): one copy each where there are warps for them. */
#ifndef TS_GEMM_LOAD_WARPS
#define TS_GEMM_LOAD_WARPS (TS_GEMM_CONSUMERS * TS_GEMM_WG_TILES + 1 < 4 ? TS_GEMM_CONSUMERS * TS_GEMM_WG_TILES + 1 : 4)
#endif

/* 1: ts_gemm_ex shares the last waves of tiles out by K where it is given a workspace (stream-K,
 * templates/tile_scheduler.h); 0 (the default) leaves the code out of the default kernels. On
 * the H200 stream-K made 4096^3 5% slower (730-746 against 768-786 TFLOP/s, two runs,
 * bench/results/nvidia-h200-2026-11-30-stream-k-load-hint-ab.txt): each split tile's partial
 * results cost more than the 3% of idle clusters in the last wave it recovers. On gfx942 it cost
 * the ping-pong kernels 15-25 VGPRs and a wave per SIMD. Kept for A/B runs; CI tests it (host). */
#ifndef TS_GEMM_STREAM_K
#define TS_GEMM_STREAM_K 0
#endif

/* Split-K (ts_gemm_ex with a workspace): where the tiles of C leave most clusters idle (a GEMM of
 * few rows: M = 16 to 256 with N = 4096 is 8 to 16 cluster tiles on the H200's 66 clusters), the
 * split instances (gemm.c, NAME_split) cut each tile's K range into up to clusters / tiles pieces
 * of at least TS_GEMM_SPLIT_MIN_ITERS k tiles each, one piece a cluster; each piece leaves its
 * partial results in the workspace, and a second kernel (ts_gemm_split_reduce) adds a tile's
 * pieces in order and stores C. TS_GEMM_USE_SPLIT 0 leaves them unused. */
#ifndef TS_GEMM_USE_SPLIT
#define TS_GEMM_USE_SPLIT 1
#endif
#ifndef TS_GEMM_SPLIT_MIN_ITERS
#define TS_GEMM_SPLIT_MIN_ITERS 4
#endif
/* ... and only into TS_GEMM_SPLIT_MIN_PIECES pieces or more: on the H200 two pieces a tile were
 * slower than whole tiles (M = 64, N = 14336, K = 4096: 28 tiles on 66 clusters, 50 against 46 us;
 * M = 256, N = 4096, K = 512: 21 against 13 us), four and more faster. */
#ifndef TS_GEMM_SPLIT_MIN_PIECES
#define TS_GEMM_SPLIT_MIN_PIECES 4
#endif
/* A kernel's pieces (gemm_variant.h, TS_GEMM_PIECES): stream-K's, or split-K's. */
#define TS_GEMM_PIECES_STREAM_K 1
#define TS_GEMM_PIECES_SPLIT 2

/* Tiles of C are taken down groups of this many tile rows (templates/tile_scheduler.h). */
#ifndef TS_GEMM_GROUP_M
#define TS_GEMM_GROUP_M 8
#endif

typedef struct ts_gemm_params {
    ts_async_desc a, b; /* tensor maps first: they need 64-byte alignment */
    ts_async_desc c_store; /* C as 16-bit elements in 64 (or per warp 16) x TS_GEMM_OUT_COLS tiles, for the staged store */
    ts_gl c;
    float alpha, beta;
    int k_iters;
    int staged;         /* nonzero: store C through shared memory (16-bit C, beta == 0) */
    int cluster_n;      /* a cluster's tiles lie across N (sharing A), not down M (sharing B) */
    ts_tile_sched sched; /* units (a cluster's tiles) -> tile coordinates */
    ts_sk_sched sk;      /* tasks -> units and k ranges (stream-K or split-K where a workspace is given) */
    int *flags;          /* stream-K: four ints per (boundary, block of the cluster, consumer) */
    float *partials;     /* stream-K: partial results, TS_GEMM_PARTIAL_FLOATS per (boundary, block, consumer);
                          * split-K: a block's tile, TS_GEMM_TILE_FLOATS per (task, block of the cluster) */
} ts_gemm_params;

/* A task: the block's tile of C, and k tiles [k0, k0 + iters) of it; for a stream-K head or tail
 * (TS_SK_*), the boundary where the two meet, for a split tile's piece its task (its slot). */
typedef struct ts_gemm_task {
    int tm, tn, k0, iters, kind, boundary;
} ts_gemm_task;

/* A consumer's partial results of one tile: its TS_GEMM_WG_TILES x 64 x TS_GEMM_BN values; a
 * block's: its whole tile. */
#define TS_GEMM_PARTIAL_FLOATS (TS_GEMM_WG_TILES * 64 * TS_GEMM_BN)
#define TS_GEMM_TILE_FLOATS (TS_GEMM_BM * TS_GEMM_BN)

/* The place in C of element (r, col) of the product: the skinny kernels' product is C^T
 * (gemm_skinny_kernels.h), whose (r, col) is C's (col, r); c describes the product (C^T: N x M, its
 * leading dimension C's). */
#if TS_GEMM_SKINNY
#define TS_GEMM_C_INDEX(c, r, col) ((col) * (c)->stride_row + (r))
#else
#define TS_GEMM_C_INDEX(c, r, col) ((r) * (c)->stride_row + (col))
#endif

/* C element idx as fp32, and the store of an fp32 value into C's dtype. */
TS_DEVICE float ts_gemm_load_c(const ts_gl *c, long long idx) {
    if (c->dtype == TS_DTYPE_F32) return ((const float *)c->ptr)[idx];
    const unsigned short bits = ((const unsigned short *)c->ptr)[idx];
    return c->dtype == TS_DTYPE_BF16 ? ts_unpack_bf16(bits) : ts_unpack_fp16(bits);
}
TS_DEVICE void ts_gemm_store_c(const ts_gl *c, long long idx, float v) {
    if (c->dtype == TS_DTYPE_F32)
        ((float *)c->ptr)[idx] = v;
    else
        ((unsigned short *)c->ptr)[idx] =
            (unsigned short)(c->dtype == TS_DTYPE_BF16 ? ts_pack_bf16x2(v, 0.0f) : ts_pack_fp16x2(v, 0.0f));
}

/* A warp's 16 rows of a consumer's accumulator to C, starting at (row0, col0): alpha, beta and the
 * conversion to C's dtype, masked at C's edges. One store per element: storing pairs of adjacent
 * columns at once measured 30% slower on the H200 (bench/results, 2026-11-30). */
TS_DEVICE void ts_gemm_epilogue(const float *acc, ts_rt_desc d, const ts_gl *c, long long row0,
                                long long col0, float alpha, float beta) {
    const int lane = ts_lane_id();
    TS_UNROLL
    for (int e = 0; e < TS_RT_DESC_ELEMS(d); ++e) {
        const long long r = row0 + ts_rt_elem_row(d, lane, e), col = col0 + ts_rt_elem_col(d, lane, e);
        if (r < c->rows && col < c->cols) {
            const long long idx = TS_GEMM_C_INDEX(c, r, col);
            float v = alpha * acc[e];
            if (beta != 0.0f) v += beta * ts_gemm_load_c(c, idx);
            ts_gemm_store_c(c, idx, v);
        }
    }
}

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
    /* Only where C's rows end on a 16-byte boundary: on the H200 a tensor store into a row that
     * ends mid-way through 16 bytes wrote the elements past the end (tests/test_gemm.c caught it
     * at N = 140 and 300), so other widths take the direct epilogue. */
    if (c_type != TS_DTYPE_F32 && beta == 0.0f && n % 8 == 0) {
        /* bf16 and fp16 are both 2-byte elements to the copy engine. */
        const ts_gl gc = ts_gl_matrix(c, TS_DTYPE_BF16, m, n, ldc);
        if ((s = ts_async_desc_make(&params->c_store, &gc, TS_GEMM_WARP_STORE ? 16 : 64, TS_GEMM_OUT_COLS, TS_DTYPE_BF16)) !=
            TS_SUCCESS)
            return s;
        params->staged = 1;
    }
#endif
    params->alpha = alpha;
    params->beta = beta;
    params->k_iters = (int)ts_check_tiles(k, TS_GEMM_BK);
    /* A cluster's tiles go down M, sharing B (the larger stage operand), unless M has a single
     * row of tiles, where half the blocks would have nothing to do, or TS_GEMM_CLUSTER_ACROSS_N
     * asks; then across N, sharing A. The
     * scheduler counts clusters' worth of tiles; the last may reach past the matrix, where the
     * loads fill zeros and the stores write nothing. */
    const int tiles_m = (int)ts_check_tiles(m, TS_GEMM_BM), tiles_n = (int)ts_check_tiles(n, TS_GEMM_BN);
    params->cluster_n = TS_GEMM_CLUSTER > 1 && tiles_n > 1 && (TS_GEMM_CLUSTER_ACROSS_N || tiles_m < TS_GEMM_CLUSTER);
    params->sched = params->cluster_n
                        ? ts_sched_make(tiles_m, (int)ts_check_tiles(tiles_n, TS_GEMM_CLUSTER), TS_GEMM_GROUP_M)
                        : ts_sched_make((int)ts_check_tiles(tiles_m, TS_GEMM_CLUSTER), tiles_n, TS_GEMM_GROUP_M);
    /* Every unit whole, until a caller with a workspace asks for stream-K (ts_gemm_use_workspace). */
    params->sk = ts_sk_make(params->sched.tasks, params->k_iters, 1, 0);
    return TS_SUCCESS;
}

/* The workspace of pieces (stream-K, split-K) for a grid of `blocks` blocks: four ints per
 * (block, consumer) (see stream_k_combine in gemm_variant.h) in whole 256 bytes, then the partial
 * results of as many consumers, which is as many blocks' tiles. Stream-K has fewer boundaries
 * than clusters, split-K fewer tasks. Host code. */
static inline size_t ts_gemm_flag_bytes(int blocks) {
    return ((size_t)blocks * TS_GEMM_CONSUMERS * 4 * sizeof(int) + 255) / 256 * 256;
}
static inline size_t ts_gemm_workspace_bytes(int blocks) {
    return ts_gemm_flag_bytes(blocks) + (size_t)blocks * TS_GEMM_CONSUMERS * TS_GEMM_PARTIAL_FLOATS * sizeof(float);
}

/* Pieces over a grid of `grid` blocks (which run all at once), in a workspace of at least
 * ts_gemm_workspace_bytes(grid) bytes, zeroed before its first use: split-K where `split` asks
 * and it cuts the tiles into TS_GEMM_SPLIT_MIN_PIECES or more (returns 1), else stream-K where the
 * build has it (returns 0). Host code. */
static inline int ts_gemm_use_workspace(ts_gemm_params *params, void *workspace, int grid, int split) {
    params->flags = (int *)workspace;
    params->partials = (float *)((char *)workspace + ts_gemm_flag_bytes(grid));
    const int clusters = grid / TS_GEMM_CLUSTER;
    if (split) {
        params->sk = ts_sk_make_split(params->sched.tasks, params->k_iters, clusters, TS_GEMM_SPLIT_MIN_ITERS,
                                      TS_GEMM_SPLIT_MIN_PIECES);
        if (params->sk.split > 1) return 1;
    }
    params->sk = ts_sk_make(params->sched.tasks, params->k_iters, clusters, TS_GEMM_STREAM_K);
    return 0;
}

/* Split-K: the slot of block `rank` of a cluster's piece `task`: its tile of fp32 results as the
 * block's warps hold them, 16 rows x TS_GEMM_BN a warp and 64-row tile (a fragment block, fb =
 * (consumer * TS_GEMM_WG_TILES + r) * 4 + warp), each lane's values in groups of four strided by
 * the warp's lanes (ts_store_f32_groups), so that the pieces write with whole 16-byte stores. */
TS_DEVICE float *ts_gemm_split_slot(const ts_gemm_params *p, long long task, int rank) {
    return p->partials + (task * TS_GEMM_CLUSTER + rank) * (long long)TS_GEMM_TILE_FLOATS;
}

/* Split-K's second kernel's items: (tile, fragment block, a lane's group of four) over the
 * fragment blocks that hold rows of C; fewer than 2^31, as the tiles are fewer than the clusters. */
TS_LAYOUT_FN int ts_gemm_split_blocks(const ts_gemm_params *p) {
    const long long rows = p->c.rows < TS_GEMM_BM ? p->c.rows : TS_GEMM_BM;
    return (int)((rows + 15) / 16);
}
TS_LAYOUT_FN int ts_gemm_split_items(const ts_gemm_params *p) {
    return (int)(p->sk.dp * TS_GEMM_CLUSTER * ts_gemm_split_blocks(p) * (4 * TS_GEMM_BN));
}

/* Split-K's second kernel, one item: a lane's group of four values of one fragment block of a
 * block's tile, the tile's pieces added in order (the same sums in every run), then alpha, beta
 * and C's dtype at the four elements' places in C (the register tile's layout). */
TS_DEVICE void ts_gemm_split_reduce_item(const ts_gemm_params *p, int item) {
    const int quads = 4 * TS_GEMM_BN, per_tile = ts_gemm_split_blocks(p) * quads;
    const int tile = item / per_tile, in_tile = item - tile * per_tile;
    const int fb = in_tile / quads, q = in_tile - fb * quads, g = q / TS_WARP_LANES, lane = q - g * TS_WARP_LANES;
    const int unit = tile / TS_GEMM_CLUSTER, rank = tile - unit * TS_GEMM_CLUSTER;
    int tm, tn;
    ts_sched_tile_narrow(&p->sched, (unsigned)unit, &tm, &tn);
    if (p->cluster_n)
        tn = tn * TS_GEMM_CLUSTER + rank;
    else
        tm = tm * TS_GEMM_CLUSTER + rank;
    const long long row0 = (long long)tm * TS_GEMM_BM + fb * 16, col0 = (long long)tn * TS_GEMM_BN;
    if (row0 >= p->c.rows || col0 >= p->c.cols) return;
    const int split = p->sk.split;
    const float *src = ts_gemm_split_slot(p, (long long)unit * split, rank) + fb * (16 * TS_GEMM_BN) + 4 * q;
    const long long step = (long long)TS_GEMM_CLUSTER * TS_GEMM_TILE_FLOATS;
    float sum[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    /* Four pieces' loads in flight at a time, added in order. */
    int j = 0;
    for (; j + 4 <= split; j += 4) {
        ts_v16 v[4];
        TS_UNROLL
        for (int u = 0; u < 4; ++u) v[u] = ts_load16(src + (j + u) * step);
        TS_UNROLL
        for (int u = 0; u < 4; ++u)
            TS_UNROLL
            for (int i = 0; i < 4; ++i) sum[i] += ts_bits_f32(v[u].w[i]);
    }
    for (; j < split; ++j) {
        const ts_v16 v = ts_load16(src + j * step);
        TS_UNROLL
        for (int i = 0; i < 4; ++i) sum[i] += ts_bits_f32(v.w[i]);
    }
    const ts_rt_desc d = ts_rt_make_desc(16, TS_GEMM_BN, TS_DTYPE_F32, TS_LAYOUT_ROW);
    TS_UNROLL
    for (int i = 0; i < 4; ++i) {
        const long long row = row0 + ts_rt_elem_row(d, lane, 4 * g + i), col = col0 + ts_rt_elem_col(d, lane, 4 * g + i);
        if (row < p->c.rows && col < p->c.cols) {
            const long long idx = TS_GEMM_C_INDEX(&p->c, row, col);
            float v = p->alpha * sum[i];
            if (p->beta != 0.0f) v += p->beta * ts_gemm_load_c(&p->c, idx);
            ts_gemm_store_c(&p->c, idx, v);
        }
    }
}

/* A GEMM instance's launcher (the template's P_launch: parameters, grid, stream), as ts_gemm_ex and
 * the skinny kernels pick them from tables by dtype and transpose form. */
typedef ts_status (*ts_gemm_launcher)(const ts_gemm_params *, int, ts_stream);

/* The reduction kernel of kernels/gemm/gemm_split_reduce.c over a split-K call's parameters. */
TS_EXTERN_C ts_status ts_gemm_split_reduce_run(const ts_gemm_params *params, ts_stream stream);

/* A product of few rows through the skinny kernels (kernels/gemm/gemm_skinny.h) whose tile is 16 or
 * 64 columns wide, arguments as ts_gemm_ex has checked them (workspace NULL or at least
 * ts_gemm_workspace_size bytes): *done = 1 where it ran there, 0 where it does not apply (more
 * rows than the tile's columns), for the caller to run as usual. Host code. */
typedef ts_status ts_gemm_skinny_run_fn(ts_trans trans_a, ts_trans trans_b, int m, int n, int k, float alpha,
                                        const void *a, ts_dtype ab_type, long long lda, const void *b,
                                        long long ldb, float beta, void *c, ts_dtype c_type, long long ldc,
                                        void *workspace, size_t workspace_bytes, ts_stream stream, int *done);
TS_EXTERN_C ts_gemm_skinny_run_fn ts_gemm_skinny16_run;
TS_EXTERN_C ts_gemm_skinny_run_fn ts_gemm_skinny64_run;

/* Defines kernel `name`, split-K's second kernel over TS_GEMM_SPLIT_REDUCE_WARPS-warp blocks built
 * for TS_GEMM_SPLIT_REDUCE_BLOCKS blocks an SM, and its launcher name##_launch(params, stream) (a
 * grid for every item). */
#define TS_GEMM_SPLIT_REDUCE_WARPS 8
#define TS_GEMM_SPLIT_REDUCE_BLOCKS 4 /* an SM's, to keep registers low and loads in flight */
#define TS_GEMM_SPLIT_REDUCE_KERNEL(name)                                                          \
    TS_KERNEL_RESIDENT(name, TS_GEMM_SPLIT_REDUCE_WARPS, TS_GEMM_SPLIT_REDUCE_BLOCKS, ts_gemm_params, p) { \
        const int item = (ts_block_x() * TS_GEMM_SPLIT_REDUCE_WARPS + ts_warp_id()) * TS_WARP_LANES + ts_lane_id(); \
        ts_grid_wait_prior(); /* launched early, behind the pieces' kernel */                       \
        if (item < ts_gemm_split_items(p)) ts_gemm_split_reduce_item(p, item);                    \
    }                                                                                              \
    static ts_status name##_launch(const ts_gemm_params *params, ts_stream stream) {               \
        const ts_gemm_params p = *params;                                                          \
        const int threads = TS_GEMM_SPLIT_REDUCE_WARPS * TS_WARP_LANES;                            \
        const unsigned blocks = (unsigned)((ts_gemm_split_items(&p) + threads - 1) / threads);     \
        return TS_LAUNCH_EARLY(name, ts_grid_1d(blocks), TS_GEMM_SPLIT_REDUCE_WARPS, 0, stream, p); \
    }

#endif
