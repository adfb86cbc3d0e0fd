/* The tile scheduler on the CPU: the grouped order visits every tile exactly once, keeps a group's
 * tasks inside group_m tile rows, and the chiplet remap is a permutation that gives each chiplet a
 * run of consecutive numbers. */
#include <criterion/criterion.h>
#include <stdlib.h>

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
