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

/* Split-K: where the units (tiles of C, or clusters' worth of them) leave most of a persistent
 * grid's clusters idle, each unit's k_iters k iterations are cut into `split` pieces, task
 * u * split + j being piece j of unit u, one task a cluster; each piece leaves its partial results
 * for a reduction afterwards. split 1: every task a whole unit. */
typedef struct ts_split_sched {
    long long units;
    int k_iters;
    int split; /* pieces a unit */
} ts_split_sched;

/* Whole units: one task each. */
TS_LAYOUT_FN ts_split_sched ts_split_whole(long long units, int k_iters) {
    ts_split_sched s;
    s.units = units;
    s.k_iters = k_iters;
    s.split = 1;
    return s;
}

/* Each of `units` units in as many pieces as `clusters` hold (at most clusters / units) with at
 * least min_iters k iterations each; whole units where fewer than min_pieces pieces would result
 * (a split costs its partial results' round trip through memory, which two pieces do not repay). */
TS_LAYOUT_FN ts_split_sched ts_split_make(long long units, int k_iters, int clusters, int min_iters, int min_pieces) {
    ts_split_sched s = ts_split_whole(units, k_iters);
    if (clusters < 1) clusters = 1;
    if (min_iters < 1) min_iters = 1;
    const long long by_clusters = units > 0 ? clusters / units : 0;
    const long long by_iters = k_iters / min_iters;
    const long long split = by_clusters < by_iters ? by_clusters : by_iters;
    if (split >= 2 && split >= min_pieces) s.split = (int)split;
    return s;
}

TS_LAYOUT_FN long long ts_split_tasks(const ts_split_sched *s) { return s->units * s->split; }

/* Task `task`'s piece: its unit and k iterations [*k_begin, *k_end), the first k_iters % split
 * pieces one longer. 32-bit arithmetic: a split schedule has fewer tasks than clusters, and whole
 * units (the skinny GEMM's) stay far below 2^31, while a kernel's 64-bit divisions are calls that
 * hold registers across the task loop. */
TS_LAYOUT_FN void ts_split_piece(const ts_split_sched *s, long long task, long long *unit, int *k_begin, int *k_end) {
    const int t = (int)task, u = t / s->split, j = t - u * s->split;
    const int base = s->k_iters / s->split, longer = s->k_iters - base * s->split;
    *unit = u;
    *k_begin = j * base + (j < longer ? j : longer);
    *k_end = *k_begin + base + (j < longer);
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
