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

typedef struct ts_tile_sched {
    int tiles_m, tiles_n, group_m;
    long long tasks;
} ts_tile_sched;

TS_LAYOUT_FN ts_tile_sched ts_sched_make(int tiles_m, int tiles_n, int group_m) {
    ts_tile_sched s;
    s.tiles_m = tiles_m;
    s.tiles_n = tiles_n;
    s.group_m = group_m < 1 ? 1 : group_m;
    s.tasks = (long long)tiles_m * tiles_n;
    return s;
}

/* The tile (tm, tn) of task `task` (0 <= task < s->tasks). */
TS_LAYOUT_FN void ts_sched_tile(const ts_tile_sched *s, long long task, int *tm, int *tn) {
    const long long per_group = (long long)s->group_m * s->tiles_n;
    const long long group = task / per_group;
    const int first_m = (int)(group * s->group_m);
    const int rows = s->tiles_m - first_m < s->group_m ? s->tiles_m - first_m : s->group_m;
    const long long in_group = task % per_group;
    *tm = first_m + (int)(in_group % rows);
    *tn = (int)(in_group / rows);
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
