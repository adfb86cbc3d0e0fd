/* The tile scheduler on the CPU: the grouped order visits every tile exactly once, keeps a group's
 * tasks inside group_m tile rows, and the chiplet remap is a permutation that gives each chiplet a
 * run of consecutive numbers; the persistent grid is the planner's wave in whole clusters; the
 * split-K schedule computes every iteration once, in equal pieces. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "support/device_models.h"
#include "templates/tile_scheduler.h"

Test(scheduler, grouped_order_visits_every_tile_once) {
    const int shapes[][3] = {{1, 1, 8}, {7, 5, 8}, {32, 32, 8}, {33, 17, 4}, {5, 100, 16}, {64, 1, 8}};
    for (int k = 0; k < 6; ++k) {
        ts_tile_sched s = ts_sched_make(shapes[k][0], shapes[k][1], shapes[k][2]);
        cr_assert_eq(s.tasks, (long long)shapes[k][0] * shapes[k][1]);
        char *seen = calloc((size_t)s.tasks, 1);
        for (long long t = 0; t < s.tasks; ++t) {
            int tm, tn;
            ts_sched_tile(&s, t, &tm, &tn);
            cr_assert(tm >= 0 && tm < s.tiles_m && tn >= 0 && tn < s.tiles_n, "task %lld -> (%d,%d)", t, tm, tn);
            cr_assert_eq(seen[(long long)tm * s.tiles_n + tn]++, 0, "tile (%d,%d) twice", tm, tn);
            /* Task t stays within its group of group_m rows. */
            cr_assert_eq(tm / s.group_m, (int)(t / ((long long)s.group_m * s.tiles_n)));
        }
        free(seen);
    }
}

Test(scheduler, grids_past_32_bits_map_tasks_as_small_ones_do) {
    /* 65536 x 65536 tiles: tasks past 2^31 take the 64-bit path; each task's tile follows the
     * grouped order's formula (groups of 8 rows, down the rows of a group, then right). */
    ts_tile_sched s = ts_sched_make(65536, 65536, 8);
    cr_assert_eq(s.tasks, 65536LL * 65536);
    const long long tasks[] = {0, 7, 8, 524287, 524288, 2147483647LL, 2147483648LL, 3000000001LL, s.tasks - 1};
    for (int k = 0; k < 9; ++k) {
        const long long t = tasks[k], per_group = 8LL * 65536;
        int tm, tn;
        ts_sched_tile(&s, t, &tm, &tn);
        cr_assert_eq(tm, (int)(t / per_group * 8 + t % per_group % 8), "task %lld", t);
        cr_assert_eq(tn, (int)(t % per_group / 8), "task %lld", t);
    }
}

Test(scheduler, narrow_grids_divide_by_multiplies_as_the_wide_path_does) {
    /* Below 2^31 tasks ts_sched_tile takes its divisions as multiplies: every task of grids whose
     * groups do and do not divide the tile rows, and the ends of grids just under 2^31 tasks, where
     * a group holds more tasks than the grid, map as the 64-bit path maps them. */
    const int shapes[][3] = {{1, 1, 8},  {7, 5, 8},   {33, 17, 4}, {5, 100, 16}, {64, 1, 8},
                             {3, 9, 16}, {17, 33, 8}, {100, 3, 7}, {9, 1000, 8}};
    for (int k = 0; k < (int)(sizeof shapes / sizeof shapes[0]); ++k) {
        ts_tile_sched s = ts_sched_make(shapes[k][0], shapes[k][1], shapes[k][2]);
        cr_assert(s.tasks < (1LL << 31));
        for (long long t = 0; t < s.tasks; ++t) {
            int tm, tn, wm, wn;
            ts_sched_tile(&s, t, &tm, &tn);
            ts_sched_tile_wide(&s, t, &wm, &wn);
            cr_assert(tm == wm && tn == wn, "shape %d task %lld: (%d,%d) against (%d,%d)", k, t, tm, tn, wm, wn);
        }
    }
    const int big[][3] = {{46341, 46340, 8}, {3, 715827882, 8}, {715827882, 3, 16}, {5, 429496729, 16}};
    for (int k = 0; k < 4; ++k) {
        ts_tile_sched s = ts_sched_make(big[k][0], big[k][1], big[k][2]);
        cr_assert(s.tasks < (1LL << 31), "shape %d: %lld tasks", k, s.tasks);
        const long long tasks[] = {0, 1, 7, 8, 9, s.tasks / 2, s.tasks - 9, s.tasks - 8, s.tasks - 2, s.tasks - 1};
        for (int i = 0; i < 10; ++i) {
            int tm, tn, wm, wn;
            ts_sched_tile(&s, tasks[i], &tm, &tn);
            ts_sched_tile_wide(&s, tasks[i], &wm, &wn);
            cr_assert(tm == wm && tn == wn, "big shape %d task %lld: (%d,%d) against (%d,%d)", k, tasks[i], tm, tn, wm, wn);
        }
    }
}

Test(scheduler, a_wave_of_tasks_touches_few_rows_and_columns) {
    /* 132 consecutive tasks of a 32x32 tile grid in groups of 8 rows touch 8 rows and 17 columns,
     * against 5 rows and 32 columns in row-major order: the grouping is what keeps them in L2. */
    ts_tile_sched s = ts_sched_make(32, 32, 8);
    int rows[32] = {0}, cols[32] = {0}, nr = 0, nc = 0;
    for (long long t = 0; t < 132; ++t) {
        int tm, tn;
        ts_sched_tile(&s, t, &tm, &tn);
        nr += !rows[tm]++;
        nc += !cols[tn]++;
    }
    cr_assert_eq(nr, 8);
    cr_assert_eq(nc, 17);
}

Test(scheduler, xcd_remap_is_a_permutation_with_runs_per_chiplet) {
    const int grids[] = {1, 7, 8, 9, 300, 304, 305};
    for (int k = 0; k < 7; ++k) {
        const int grid = grids[k];
        char *seen = calloc((size_t)grid, 1);
        for (int b = 0; b < grid; ++b) {
            const int n = ts_sched_remap_xcd(b, grid, 8);
            cr_assert(n >= 0 && n < grid, "grid %d block %d -> %d", grid, b, n);
            cr_assert_eq(seen[n]++, 0, "grid %d: %d twice", grid, n);
            /* Blocks of one chiplet, in dealing order, get consecutive numbers. */
            if (b >= 8) cr_assert_eq(n, ts_sched_remap_xcd(b - 8, grid, 8) + 1, "grid %d block %d", grid, b);
        }
        free(seen);
    }
    cr_assert_eq(ts_sched_remap_xcd(5, 10, 1), 5);
}

/* A Hopper part with another SM count. */
static ts_device_props hopper_with(int sms) {
    ts_device_props d = ts_test_hopper();
    d.sm_count = sms;
    return d;
}

Test(scheduler, persistent_grid_is_one_wave_in_whole_clusters) {
    const ts_device_props h200 = ts_test_hopper(), odd = hopper_with(131);
    /* The GEMM's block: 12 warps and about 215 KiB of shared memory, one per SM. */
    const ts_kernel_resources gemm = {12, 0, 215u * 1024u};
    int grid = 0;
    cr_assert_eq(ts_sched_persistent_grid(&h200, &gemm, 1000, 1, &grid), TS_SUCCESS);
    cr_assert_eq(grid, 132);
    cr_assert_eq(ts_sched_persistent_grid(&h200, &gemm, 1000, 2, &grid), TS_SUCCESS);
    cr_assert_eq(grid, 132);
    cr_assert_eq(ts_sched_persistent_grid(&odd, &gemm, 1000, 2, &grid), TS_SUCCESS);
    cr_assert_eq(grid, 130, "131 SMs hold 65 clusters of two, not 65.5");
    /* Fewer tasks than a wave: one block (cluster) per task. */
    cr_assert_eq(ts_sched_persistent_grid(&h200, &gemm, 10, 2, &grid), TS_SUCCESS);
    cr_assert_eq(grid, 20);
    cr_assert_eq(ts_sched_persistent_grid(&h200, &gemm, 1, 1, &grid), TS_SUCCESS);
    cr_assert_eq(grid, 1);
    /* Blocks small enough for three per SM: three per SM in the wave. */
    const ts_kernel_resources small = {8, 0, 60u * 1024u};
    cr_assert_eq(ts_sched_persistent_grid(&h200, &small, 100000, 1, &grid), TS_SUCCESS);
    cr_assert_eq(grid, 3 * 132);
    /* What cannot fit an SM is the planner's error; bad arguments are rejected. */
    const ts_kernel_resources huge = {12, 0, 240u * 1024u};
    cr_assert_eq(ts_sched_persistent_grid(&h200, &huge, 10, 1, &grid), TS_ERROR_RESOURCES);
    cr_assert_eq(ts_sched_persistent_grid(NULL, &gemm, 10, 1, &grid), TS_ERROR_NULL_POINTER);
    cr_assert_eq(ts_sched_persistent_grid(&h200, &gemm, 0, 1, &grid), TS_ERROR_INVALID_SIZE);
    cr_assert_eq(ts_sched_persistent_grid(&h200, &gemm, 10, 0, &grid), TS_ERROR_INVALID_SIZE);
}

/* Split-K: where the units leave most clusters idle, every unit is cut into the same number of
 * pieces (at most clusters / units, each at least min_iters long, and none where that is fewer
 * than min_pieces), pieces of a unit differing by at most one iteration; every (unit, k) is
 * computed exactly once, piece j of unit u is task u * split + j; elsewhere the units stay whole,
 * as ts_split_whole makes them. */
Test(scheduler, split_k_cuts_every_unit_into_equal_pieces) {
    /* units, k iterations, clusters, min iterations, min pieces, the pieces expected */
    const int cases[][6] = {{8, 64, 66, 4, 4, 8},   {16, 64, 66, 4, 4, 4},  {28, 64, 66, 4, 4, 1},  {28, 64, 66, 4, 2, 2},
                            {34, 64, 66, 4, 2, 1},  {1, 10, 66, 4, 2, 2},   {1, 7, 66, 4, 2, 1},    {3, 200, 66, 4, 4, 22},
                            {2, 13, 6, 4, 2, 3},    {4, 224, 66, 4, 4, 16}, {1, 64, 1, 4, 1, 1},    {16, 8, 66, 4, 4, 1}};
    for (int z = 0; z < 12; ++z) {
        const long long units = cases[z][0];
        const int k = cases[z][1], g = cases[z][2], min_iters = cases[z][3], min_pieces = cases[z][4], expect = cases[z][5];
        const ts_split_sched s = ts_split_make(units, k, g, min_iters, min_pieces);
        cr_assert_eq(s.split, expect, "case %d: %d pieces, expected %d", z, s.split, expect);
        cr_assert_eq(s.units, units);
        cr_assert_eq(s.k_iters, k);
        cr_assert_eq(ts_split_tasks(&s), units * s.split);
        cr_assert(s.split == 1 || units * s.split <= g, "case %d: more pieces than clusters", z);
        const ts_split_sched whole = ts_split_whole(units, k);
        cr_assert(whole.split == 1 && whole.units == units && whole.k_iters == k && ts_split_tasks(&whole) == units);
        char *seen = calloc((size_t)(units * k), 1);
        int *count = calloc((size_t)units, sizeof *count);
        for (long long task = 0; task < ts_split_tasks(&s); ++task) {
            long long unit;
            int kb, ke;
            ts_split_piece(&s, task, &unit, &kb, &ke);
            cr_assert(unit >= 0 && unit < units && kb >= 0 && kb < ke && ke <= k, "case %d task %lld", z, task);
            for (int i = kb; i < ke; ++i) cr_assert_eq(seen[unit * k + i]++, 0, "case %d: unit %lld k %d twice", z, unit, i);
            if (s.split == 1) {
                cr_assert(unit == task && kb == 0 && ke == k, "case %d task %lld: not the whole unit", z, task);
                continue;
            }
            cr_assert_eq(unit, task / s.split, "case %d: piece j of unit u is task u * split + j", z);
            cr_assert(ke - kb >= min_iters && ke - kb >= k / s.split && ke - kb <= k / s.split + 1, "case %d: piece of %d",
                      z, ke - kb);
            ++count[unit];
        }
        for (long long i = 0; i < units * k; ++i) cr_assert_eq(seen[i], 1, "case %d: iteration %lld missed", z, i);
        for (long long u = 0; u < units && s.split > 1; ++u) cr_assert_eq(count[u], s.split);
        free(seen);
        free(count);
    }
}
