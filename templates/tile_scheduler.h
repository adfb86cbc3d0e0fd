/* Which output tile a block works on, and in what order. A persistent kernel runs one wave of
 * blocks (the launch planner's persistent_grid) and each block walks tasks block, block + grid,
 * block + 2 * grid, ... The task -> tile map is grouped: tasks go down a group of `group_m` tile
 * rows before moving one tile column right, so blocks running at the same time share their A rows
 * and B columns in L2. On MI300X, blocks are dealt round-robin to 8 chiplets (XCDs) with separate
 * L2s; ts_sched_remap_xcd renumbers blocks so that consecutive tasks land on the same chiplet.
 * Plain C usable on the host (launchers size grids with it; tests check it on the CPU). The grid of
 * a persistent kernel comes from the launch planner (ts_sched_persistent_grid). */
#ifndef TESSERA_TEMPLATES_TILE_SCHEDULER_H
#define TESSERA_TEMPLATES_TILE_SCHEDULER_H

#include <tessera/tessera.h>

#include "backends/common.h"
#include "templates/fast_div.h"

typedef struct ts_tile_sched {
    int tiles_m, tiles_n, group_m;
    long long tasks;
    /* Below 2^31 tasks ts_sched_tile divides by multiplies (templates/fast_div.h), where 64-bit
     * divisions are called routines of about a hundred instructions on CUDA, ahead of each tile's
     * first multiply; past it, by the 64-bit path. */
    int last_group, last_rows; /* the last group of tile rows may hold fewer */
    ts_fast_div by_group_tasks, by_group_m, by_last_rows;
} ts_tile_sched;

TS_LAYOUT_FN ts_tile_sched ts_sched_make(int tiles_m, int tiles_n, int group_m) {
    ts_tile_sched s;
    s.tiles_m = tiles_m;
    s.tiles_n = tiles_n;
    s.group_m = group_m < 1 ? 1 : group_m;
    s.tasks = (long long)tiles_m * tiles_n;
    s.last_group = (tiles_m - 1) / s.group_m;
    s.last_rows = tiles_m - s.last_group * s.group_m;
    /* A group's tasks past 2^31 - 1 (more than all of them) put every task in group 0 all the same. */
    const long long per_group = (long long)s.group_m * tiles_n;
    s.by_group_tasks = ts_fast_div_make((unsigned)(per_group < (1LL << 31) ? per_group : (1LL << 31) - 1));
    s.by_group_m = ts_fast_div_make((unsigned)s.group_m);
    s.by_last_rows = ts_fast_div_make((unsigned)s.last_rows);
    return s;
}

/* The tile (tm, tn) of task `task` (0 <= task < s->tasks), in 64-bit arithmetic. */
TS_LAYOUT_FN void ts_sched_tile_wide(const ts_tile_sched *s, long long task, int *tm, int *tn) {
    const long long per_group = (long long)s->group_m * s->tiles_n;
    const long long group = task / per_group;
    const int first_m = (int)(group * s->group_m);
    const int rows = s->tiles_m - first_m < s->group_m ? s->tiles_m - first_m : s->group_m;
    const long long in_group = task % per_group;
    *tm = first_m + (int)(in_group % rows);
    *tn = (int)(in_group / rows);
}

/* The same, by multiplies, for a schedule of fewer than 2^31 tasks. */
TS_LAYOUT_FN void ts_sched_tile_narrow(const ts_tile_sched *s, unsigned task, int *tm, int *tn) {
    const unsigned group = ts_fast_div_quot(s->by_group_tasks, task);
    const unsigned in_group = task - group * s->by_group_tasks.d;
    const int last = (int)group == s->last_group;
    const unsigned rows = last ? (unsigned)s->last_rows : (unsigned)s->group_m;
    const unsigned col = ts_fast_div_quot_either(last, s->by_last_rows, s->by_group_m, in_group);
    *tm = (int)(group * (unsigned)s->group_m + (in_group - col * rows));
    *tn = (int)col;
}

/* The same for any schedule: by multiplies below 2^31 tasks. */
TS_LAYOUT_FN void ts_sched_tile(const ts_tile_sched *s, long long task, int *tm, int *tn) {
    if (s->tasks >= (1LL << 31)) {
        ts_sched_tile_wide(s, task, tm, tn);
        return;
    }
    ts_sched_tile_narrow(s, (unsigned)task, tm, tn);
}

/* Stream-K for the last waves of a persistent grid of G clusters over `units` tiles of k_iters
 * iterations each. Where the units do not fill whole waves, the last wave leaves clusters idle
 * (at 4096^3 the GEMM's 256 units on 66 clusters take 4 rounds for 3.88 rounds of work). Here the
 * units of all waves but the last two run whole (data-parallel, dp of them); the k iterations of
 * the rest (sk units, between G and 2G) are cut into G ranges of equal length, one per cluster,
 * each at least one unit long, so that a unit is split between at most two clusters: its head
 * (k from 0) ends the range of cluster c, its tail (k to the end) opens the range of cluster
 * c + 1. Cluster c's part is the tasks c, c + G, ... : its dp units, then the up to three pieces
 * of its range (some empty). With sk = 0 every task is one whole unit.
 *
 * Split-K, where the units leave most clusters idle (a GEMM of few rows: M = 16 with N = 4096 is 8
 * units on the H200's 66 clusters): every unit is cut into `split` pieces of equal k ranges, task
 * u * split + j being piece j of unit u, one task a cluster; dp is then the units, sk 0. */
typedef struct ts_sk_sched {
    long long dp, sk; /* units run whole (split by k where split > 1); units shared out by k after them */
    int clusters;     /* G */
    int k_iters;
    int split;        /* pieces a unit (1: whole units) */
} ts_sk_sched;

/* The pieces of a unit: whole, its head (k from 0, finished by combining the tail's partial
 * result), its tail (k to the end, which hands its partial result to the head), or one of a split
 * unit's pieces (each leaves its partial result for a reduction afterwards). */
#define TS_SK_WHOLE 0
#define TS_SK_HEAD 1
#define TS_SK_TAIL 2
#define TS_SK_SPLIT 3

/* The schedule; stream-K only where it helps (a partial last wave, more units than clusters). */
TS_LAYOUT_FN ts_sk_sched ts_sk_make(long long units, int k_iters, int clusters, int enable) {
    ts_sk_sched s;
    s.clusters = clusters < 1 ? 1 : clusters;
    s.k_iters = k_iters;
    s.dp = units;
    s.sk = 0;
    s.split = 1;
    if (enable && k_iters > 1 && units > s.clusters && units % s.clusters != 0) {
        s.dp = (units / s.clusters - 1) * s.clusters;
        s.sk = units - s.dp;
    }
    return s;
}

/* The split-K schedule: each of `units` units in as many pieces as the clusters hold (at most
 * clusters / units) with at least min_iters k iterations each; whole units (split 1) where fewer
 * than min_pieces pieces would result (a split costs its partial results' round trip through
 * memory, which two pieces do not repay). */
TS_LAYOUT_FN ts_sk_sched ts_sk_make_split(long long units, int k_iters, int clusters, int min_iters, int min_pieces) {
    ts_sk_sched s = ts_sk_make(units, k_iters, clusters, 0);
    if (min_iters < 1) min_iters = 1;
    const long long by_clusters = units > 0 ? s.clusters / units : 0;
    const long long by_iters = k_iters / min_iters;
    const long long split = by_clusters < by_iters ? by_clusters : by_iters;
    if (split >= 2 && split >= min_pieces) s.split = (int)split;
    return s;
}

/* The tasks of a schedule without split-K (whole units, stream-K), and of any schedule. */
TS_LAYOUT_FN long long ts_sk_unsplit_tasks(const ts_sk_sched *s) { return s->dp + (s->sk > 0 ? 3LL * s->clusters : 0); }
TS_LAYOUT_FN long long ts_sk_tasks(const ts_sk_sched *s) {
    return s->split > 1 ? s->dp * s->split : ts_sk_unsplit_tasks(s);
}

/* Task `task`'s piece of a split-K schedule: its unit, k iterations [*k_begin, *k_end) (the first
 * k_iters % split pieces one longer), TS_SK_SPLIT (TS_SK_WHOLE where split is 1: whole units), and
 * the task as its boundary (where it leaves its partial results; piece j of unit u is task
 * u * split + j).
 * 32-bit arithmetic: a split schedule has fewer tasks than clusters, and whole units (the skinny
 * GEMM's) stay far below 2^31; a kernel's 64-bit divisions are calls, around which ptxas spilled
 * the GEMM's task counter. */
TS_LAYOUT_FN int ts_sk_split_piece(const ts_sk_sched *s, long long task, long long *unit, int *k_begin, int *k_end,
                                   int *kind, int *boundary) {
    const int t = (int)task, u = t / s->split, j = t - u * s->split;
    const int base = s->k_iters / s->split, longer = s->k_iters - base * s->split;
    *unit = u;
    *k_begin = j * base + (j < longer ? j : longer);
    *k_end = *k_begin + base + (j < longer);
    *kind = s->split > 1 ? TS_SK_SPLIT : TS_SK_WHOLE;
    *boundary = t;
    return 1;
}

/* Task `task`'s piece of a schedule without split-K (whole units, stream-K; ts_sk_split_piece
 * takes the split ones): its unit, k iterations [*k_begin, *k_end), its kind (TS_SK_*) and, for a
 * head or a tail, the boundary it shares with its other half (the head's cluster). Returns 0 for
 * an empty piece (nothing to do). */
TS_LAYOUT_FN int ts_sk_piece(const ts_sk_sched *s, long long task, long long *unit, int *k_begin, int *k_end,
                             int *kind, int *boundary) {
    *boundary = 0;
    if (task < s->dp) {
        *unit = task;
        *k_begin = 0;
        *k_end = s->k_iters;
        *kind = TS_SK_WHOLE;
        return 1;
    }
    const long long r = task - s->dp, k = s->k_iters, total = s->sk * k;
    const int c = (int)(r % s->clusters), piece = (int)(r / s->clusters);
    const long long start = total * c / s->clusters, end = total * (c + 1) / s->clusters;
    const long long tile = start / k + piece;
    if (tile * k >= end) return 0;
    const long long lo = start > tile * k ? start : tile * k, hi = end < (tile + 1) * k ? end : (tile + 1) * k;
    *unit = s->dp + tile;
    *k_begin = (int)(lo - tile * k);
    *k_end = (int)(hi - tile * k);
    *kind = *k_begin > 0 ? TS_SK_TAIL : *k_end < k ? TS_SK_HEAD : TS_SK_WHOLE;
    *boundary = *kind == TS_SK_TAIL ? c - 1 : c;
    return 1;
}

/* The grid of a persistent kernel with `tasks` tasks, each taken by a cluster of `cluster` blocks:
 * the launch planner's one full wave for the kernel's resources on the device, but no more blocks
 * than the tasks need, in whole clusters. Host code. */
static inline ts_status ts_sched_persistent_grid(const ts_device_props *device, const ts_kernel_resources *kernel,
                                                 long long tasks, int cluster, int *grid) {
    if (!device || !kernel || !grid) return TS_ERROR_NULL_POINTER;
    if (tasks < 1 || cluster < 1) return TS_ERROR_INVALID_SIZE;
    if (tasks > (1LL << 40)) return TS_ERROR_SIZE_OVERFLOW;
    ts_launch_plan plan;
    const ts_status s = ts_plan_launch(device, kernel, tasks * cluster, &plan);
    if (s != TS_SUCCESS) return s;
    long long g = plan.persistent_grid < tasks * cluster ? plan.persistent_grid : tasks * cluster;
    g -= g % cluster;
    if (g < cluster) g = cluster;
    *grid = (int)g;
    return TS_SUCCESS;
}

/* Block `block` of `grid` renumbered so that blocks dealt to the same chiplet (block % xcds) get
 * consecutive numbers. A permutation of 0 .. grid-1 for any grid. */
TS_LAYOUT_FN int ts_sched_remap_xcd(int block, int grid, int xcds) {
    if (xcds <= 1) return block;
    const int per = grid / xcds, extra = grid % xcds; /* chiplets below `extra` hold one more */
    const int xcd = block % xcds, slot = block / xcds;
    return xcd * per + (xcd < extra ? xcd : extra) + slot;
}

#endif
