/* The launch planner: from a device's resources and a kernel's needs, how many blocks an SM holds
 * at once, how a grid falls into waves, how evenly it loads the SMs, and what grid a persistent
 * kernel should use. It is pure arithmetic on the two structs (no backend call), so it answers the
 * same on a machine without a GPU and can be tested on the CPU for any device.
 *
 * Model (one SM; "warp" means an AMD wave too):
 *   - registers are allocated per warp, per-thread counts rounded up to reg_alloc_unit; the
 *     register file is split evenly over partitions_per_sm (NVIDIA schedulers, AMD SIMDs) and a
 *     warp lives on one partition, so each partition holds floor(its registers / warp's registers)
 *     warps and the remainder of a partition is lost;
 *   - shared memory: each block takes its own bytes plus the system's reserve per block;
 *   - resident warps and resident blocks have hardware caps.
 * blocks_per_sm is the smallest of the four limits. When several limits give the same count the
 * limiter reported is the first of: warps, registers, shared memory, blocks (the order of
 * ts_plan_limiter), so "limited by warps" wins a tie: more warps per SM is the usual remedy.
 *
 * Time model: a block that fills one SM's issue throughput on its own makes a kernel's time
 * proportional to the blocks the busiest SM must run, ceil(grid / sm_count); so the predicted
 * efficiency is the SM balance grid / (sm_count * busiest). Waves (grid over blocks_per_wave) are
 * reported too, since they decide the tail for blocks that do not fill an SM alone. */
#include <tessera/tessera.h>

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>

/* Device fields the model divides by or multiplies with; a zero or negative one would make the
 * answer meaningless rather than merely pessimistic. */
static ts_status ts_plan_check_device(const ts_device_props *d)
{
    if (d->sm_count <= 0 || d->warp_lanes <= 0 || d->partitions_per_sm <= 0 ||
        d->max_warps_per_sm <= 0 || d->max_blocks_per_sm <= 0 || d->regs_per_sm <= 0 ||
        d->max_threads_per_block <= 0 || d->reg_alloc_unit <= 0 || d->max_regs_per_thread <= 0)
        return TS_ERROR_INVALID_VALUE;
    return TS_SUCCESS;
}

static ts_status ts_plan_check_kernel(const ts_kernel_resources *k)
{
    if (k->warps_per_block <= 0 || k->regs_per_thread < 0)
        return TS_ERROR_INVALID_SIZE;
    return TS_SUCCESS;
}

/* The per-SM limits, each as a count of blocks (LLONG_MAX where a resource is not a limit). */
typedef struct ts_plan_limits {
    long long by_warps;
    long long by_registers;
    long long by_shared;
    long long by_blocks;
    long long regs_per_thread_rounded; /* 0 when unknown */
    long long regs_per_warp;
    long long warps_by_registers;      /* resident warps the register file allows */
    unsigned long long shared_per_block_total;
} ts_plan_limits;

static void ts_plan_compute_limits(const ts_device_props *d, const ts_kernel_resources *k,
                                   ts_plan_limits *l)
{
    long long wpb = k->warps_per_block;

    l->by_warps = d->max_warps_per_sm / wpb;
    l->by_blocks = d->max_blocks_per_sm;

    l->regs_per_thread_rounded = 0;
    l->regs_per_warp = 0;
    l->warps_by_registers = 0;
    l->by_registers = LLONG_MAX;
    if (k->regs_per_thread > 0) {
        long long unit = d->reg_alloc_unit;
        long long per_partition = (long long)d->regs_per_sm / d->partitions_per_sm;
        l->regs_per_thread_rounded = ((long long)k->regs_per_thread + unit - 1) / unit * unit;
        l->regs_per_warp = l->regs_per_thread_rounded * d->warp_lanes;
        l->warps_by_registers = (long long)d->partitions_per_sm * (per_partition / l->regs_per_warp);
        l->by_registers = l->warps_by_registers / wpb;
    }

    /* The reserve counts even for a block without shared memory: NVIDIA takes it per resident
     * block regardless. */
    l->shared_per_block_total =
        (unsigned long long)k->shared_mem_per_block + d->shared_mem_reserved_per_block;
    if (l->shared_per_block_total < k->shared_mem_per_block) /* wrapped */
        l->by_shared = 0;
    else if (l->shared_per_block_total == 0)
        l->by_shared = LLONG_MAX;
    else {
        unsigned long long n = (unsigned long long)d->shared_mem_per_sm / l->shared_per_block_total;
        l->by_shared = n > (unsigned long long)LLONG_MAX ? LLONG_MAX : (long long)n;
    }
}

ts_status ts_plan_launch(const ts_device_props *device, const ts_kernel_resources *kernel,
                         long long grid_blocks, ts_launch_plan *plan)
{
    if (device == NULL || kernel == NULL || plan == NULL)
        return TS_ERROR_NULL_POINTER;
    if (grid_blocks <= 0)
        return TS_ERROR_INVALID_SIZE;
    ts_status st = ts_plan_check_kernel(kernel);
    if (st != TS_SUCCESS)
        return st;
    st = ts_plan_check_device(device);
    if (st != TS_SUCCESS)
        return st;

    /* One block that cannot be resident on an empty SM can never run. */
    long long threads = (long long)kernel->warps_per_block * device->warp_lanes;
    if (kernel->warps_per_block > device->max_warps_per_sm ||
        threads > device->max_threads_per_block ||
        kernel->regs_per_thread > device->max_regs_per_thread ||
        kernel->shared_mem_per_block > device->shared_mem_per_block)
        return TS_ERROR_RESOURCES;

    ts_plan_limits l;
    ts_plan_compute_limits(device, kernel, &l);

    long long bps = l.by_warps;
    ts_plan_limiter limiter = TS_LIMIT_WARPS;
    if (l.by_registers < bps) {
        bps = l.by_registers;
        limiter = TS_LIMIT_REGISTERS;
    }
    if (l.by_shared < bps) {
        bps = l.by_shared;
        limiter = TS_LIMIT_SHARED_MEMORY;
    }
    if (l.by_blocks < bps) {
        bps = l.by_blocks;
        limiter = TS_LIMIT_BLOCKS;
    }
    if (bps <= 0)
        return TS_ERROR_RESOURCES; /* e.g. one block's registers exceed the register file */

    /* bps <= max_warps_per_sm, so blocks_per_wave fits easily; the grid must leave room for
     * rounding up to whole waves and whole SMs without overflow. */
    long long sm = device->sm_count;
    long long per_wave = sm * bps;
    if (grid_blocks > LLONG_MAX - per_wave)
        return TS_ERROR_SIZE_OVERFLOW;

    long long waves = grid_blocks / per_wave + (grid_blocks % per_wave != 0);
    long long last = grid_blocks - (waves - 1) * per_wave;
    long long busiest = grid_blocks / sm + (grid_blocks % sm != 0);

    plan->blocks_per_sm = (int)bps;
    plan->limiter = limiter;
    plan->resident_warps_per_sm = (int)(bps * kernel->warps_per_block);
    plan->occupancy = (double)plan->resident_warps_per_sm / device->max_warps_per_sm;
    plan->grid_blocks = grid_blocks;
    plan->blocks_per_wave = per_wave;
    plan->waves = waves;
    plan->last_wave_blocks = last;
    plan->last_wave_fill = (double)last / (double)per_wave;
    plan->wave_efficiency = (double)grid_blocks / ((double)waves * (double)per_wave);
    plan->busiest_sm_blocks = busiest;
    plan->sm_balance = (double)grid_blocks / ((double)sm * (double)busiest);
    plan->predicted_efficiency = plan->sm_balance;
    plan->persistent_grid = per_wave;
    return TS_SUCCESS;
}

/* Field by field: a plan's padding may hold anything. */
static int ts_plan_equal(const ts_launch_plan *a, const ts_launch_plan *b)
{
    return a->blocks_per_sm == b->blocks_per_sm && a->limiter == b->limiter &&
           a->resident_warps_per_sm == b->resident_warps_per_sm && a->occupancy == b->occupancy &&
           a->grid_blocks == b->grid_blocks && a->blocks_per_wave == b->blocks_per_wave &&
           a->waves == b->waves && a->last_wave_blocks == b->last_wave_blocks &&
           a->last_wave_fill == b->last_wave_fill && a->wave_efficiency == b->wave_efficiency &&
           a->busiest_sm_blocks == b->busiest_sm_blocks && a->sm_balance == b->sm_balance &&
           a->predicted_efficiency == b->predicted_efficiency &&
           a->persistent_grid == b->persistent_grid;
}

ts_status ts_plan_limiter_name(ts_plan_limiter limiter, const char **name)
{
    if (name == NULL)
        return TS_ERROR_NULL_POINTER;
    switch (limiter) {
    case TS_LIMIT_WARPS: *name = "warps"; return TS_SUCCESS;
    case TS_LIMIT_REGISTERS: *name = "registers"; return TS_SUCCESS;
    case TS_LIMIT_SHARED_MEMORY: *name = "shared memory"; return TS_SUCCESS;
    case TS_LIMIT_BLOCKS: *name = "blocks"; return TS_SUCCESS;
    }
    return TS_ERROR_INVALID_ENUM;
}

/* Appends to a buffer that may already be full: snprintf truncates and keeps the NUL, and the
 * position saturates at the end so later pieces are dropped instead of written out of bounds. */
typedef struct ts_plan_text {
    char *buf;
    size_t size;
    size_t len;
} ts_plan_text;

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static void ts_plan_append(ts_plan_text *t, const char *fmt, ...)
{
    if (t->len + 1 >= t->size)
        return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(t->buf + t->len, t->size - t->len, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n >= t->size - t->len)
        t->len = t->size - 1;
    else
        t->len += (size_t)n;
}

static const char *ts_plural(long long n)
{
    return n == 1 ? "" : "s";
}

/* Percentages print whole, except a small nonzero one that would read as 0%. */
static int ts_pct_digits(double fraction)
{
    return fraction > 0.0 && fraction < 0.01 ? 1 : 0;
}

/* "twice", "3 times", "1.50x": how much longer one time is than another. */
static void ts_plan_append_ratio(ts_plan_text *t, long long num, long long den)
{
    if (num == 2 * den)
        ts_plan_append(t, "twice");
    else if (num % den == 0)
        ts_plan_append(t, "%lld times", num / den);
    else
        ts_plan_append(t, "%.2fx", (double)num / (double)den);
}

ts_status ts_plan_explain(const ts_device_props *device, const ts_kernel_resources *kernel,
                          const ts_launch_plan *plan, char *buffer, size_t buffer_size)
{
    if (device == NULL || kernel == NULL || plan == NULL || buffer == NULL)
        return TS_ERROR_NULL_POINTER;
    if (buffer_size == 0)
        return TS_ERROR_INVALID_SIZE;
    ts_status st = ts_plan_check_kernel(kernel);
    if (st != TS_SUCCESS)
        return st;
    st = ts_plan_check_device(device);
    if (st != TS_SUCCESS)
        return st;
    const char *limiter_name;
    st = ts_plan_limiter_name(plan->limiter, &limiter_name);
    if (st != TS_SUCCESS)
        return st;
    /* The explanation's arithmetic holds for the plans ts_plan_launch makes; any other (a plan of
     * another device or kernel, or edited) is refused rather than explained wrongly. */
    ts_launch_plan expected;
    if (plan->grid_blocks <= 0 || ts_plan_launch(device, kernel, plan->grid_blocks, &expected) != TS_SUCCESS ||
        !ts_plan_equal(plan, &expected))
        return TS_ERROR_INVALID_VALUE;

    ts_plan_text t = {buffer, buffer_size, 0};
    buffer[0] = '\0';
    ts_plan_limits l;
    ts_plan_compute_limits(device, kernel, &l);

    long long grid = plan->grid_blocks;
    long long sm = device->sm_count;
    int wpb = kernel->warps_per_block;
    int bps = plan->blocks_per_sm;
    const char *unit = device->warp_lanes == 64 ? "wave" : "warp";
    const char *place = device->backend == TS_BACKEND_HIP ? "CU" : "SM";

    ts_plan_append(&t, "%lld block%s of %d %s%s on %lld %ss: %d block%s fit%s per %s (limited by %s: ",
                   grid, ts_plural(grid), wpb, unit, ts_plural(wpb), sm, place, bps,
                   ts_plural(bps), bps == 1 ? "s" : "", place, limiter_name);
    switch (plan->limiter) {
    case TS_LIMIT_WARPS:
        ts_plan_append(&t, "%d resident %ss / %d per block", device->max_warps_per_sm, unit, wpb);
        break;
    case TS_LIMIT_REGISTERS:
        ts_plan_append(&t, "%d registers per thread", kernel->regs_per_thread);
        if (l.regs_per_thread_rounded != kernel->regs_per_thread)
            ts_plan_append(&t, ", allocated as %lld", l.regs_per_thread_rounded);
        ts_plan_append(&t, " x %d lanes = %lld per %s; %d partitions hold %lld %ss / %d per block",
                       device->warp_lanes, l.regs_per_warp, unit, device->partitions_per_sm,
                       l.warps_by_registers, unit, wpb);
        break;
    case TS_LIMIT_SHARED_MEMORY:
        ts_plan_append(&t, "%zu bytes of shared memory per %s / (%zu + %zu reserved) per block",
                       device->shared_mem_per_sm, place, kernel->shared_mem_per_block,
                       device->shared_mem_reserved_per_block);
        break;
    case TS_LIMIT_BLOCKS:
        ts_plan_append(&t, "the hardware holds at most %d block%s per %s",
                       device->max_blocks_per_sm, ts_plural(device->max_blocks_per_sm), place);
        break;
    }
    ts_plan_append(&t, "), so one wave holds %lld blocks; ", plan->blocks_per_wave);

    if (plan->waves == 1)
        ts_plan_append(&t, "%lld block%s take%s 1 wave, %.*f%% full. ", grid, ts_plural(grid),
                       grid == 1 ? "s" : "", ts_pct_digits(plan->last_wave_fill),
                       100.0 * plan->last_wave_fill);
    else
        ts_plan_append(&t, "%lld blocks take %lld waves, the last %.*f%% full (%lld block%s). ",
                       grid, plan->waves, ts_pct_digits(plan->last_wave_fill),
                       100.0 * plan->last_wave_fill, plan->last_wave_blocks,
                       ts_plural(plan->last_wave_blocks));

    long long busiest = plan->busiest_sm_blocks;
    long long full = grid / sm;          /* blocks every SM runs */
    long long extra = grid - full * sm;  /* SMs that run one more */
    if (extra == 0) {
        ts_plan_append(&t,
                       "The busiest %s runs %lld block%s; for blocks that each saturate an %s, "
                       "predicted efficiency %.0f%%.",
                       place, busiest, ts_plural(busiest), place,
                       100.0 * plan->predicted_efficiency);
        return TS_SUCCESS;
    }
    if (extra * 2 < sm)
        ts_plan_append(&t, "The busiest %s runs %lld block%s while most run %lld",
                       place, busiest, ts_plural(busiest), full);
    else
        ts_plan_append(&t, "The busiest %s runs %lld block%s while %lld %s%s run%s %lld", place,
                       busiest, ts_plural(busiest), sm - extra, place, ts_plural(sm - extra),
                       sm - extra == 1 ? "s" : "", full);
    ts_plan_append(&t, ": predicted efficiency %.*f%%, time about ",
                   ts_pct_digits(plan->predicted_efficiency), 100.0 * plan->predicted_efficiency);
    if (full > 0) {
        ts_plan_append_ratio(&t, busiest, full);
        ts_plan_append(&t, " that of %lld blocks, the same as %lld blocks.", full * sm,
                       busiest * sm);
    } else {
        ts_plan_append(&t, "the same as %lld blocks.", busiest * sm);
    }
    return TS_SUCCESS;
}
