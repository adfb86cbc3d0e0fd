/* Tests of the launch planner (core/planner.c) on two devices described by hand, an H100/H200
 * and an MI300X, so they run on any machine. Every expected number is worked out in the comment
 * next to it from the model documented in planner.c. */
#include <criterion/criterion.h>

#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <tessera/tessera.h>

#include "support/device_models.h"

static ts_kernel_resources res(int warps, int regs, size_t shared)
{
    ts_kernel_resources k = {warps, regs, shared};
    return k;
}

static ts_launch_plan plan_ok(const ts_device_props *d, ts_kernel_resources k, long long grid)
{
    ts_launch_plan p;
    memset(&p, 0, sizeof p);
    ts_status st = ts_plan_launch(d, &k, grid, &p);
    cr_assert_eq(st, TS_SUCCESS, "ts_plan_launch returned status %d", (int)st);
    return p;
}

#define NEAR(a, b) (fabs((double)(a) - (double)(b)) < 1e-12)

/* ---- blocks per SM and the limiter, Hopper ------------------------------------------------- */

Test(planner_hopper, full_blocks_limited_by_warps)
{
    /* 1024 threads = 32 warps, 32 regs: warps 64/32 = 2. Registers: 32 x 32 = 1024 per warp,
     * 16384 per partition / 1024 = 16 warps, x4 = 64 warps, /32 = 2 blocks: a tie, reported as
     * warps. Shared: 233472 / (0 + 1024) = 228. Cap 32. */
    ts_device_props d = ts_test_hopper();
    ts_launch_plan p = plan_ok(&d, res(32, 32, 0), 132);
    cr_expect_eq(p.blocks_per_sm, 2);
    cr_expect_eq(p.limiter, TS_LIMIT_WARPS);
    cr_expect_eq(p.resident_warps_per_sm, 64);
    cr_expect(NEAR(p.occupancy, 1.0));
    cr_expect_eq(p.blocks_per_wave, 264);
    cr_expect_eq(p.persistent_grid, 264);
}

Test(planner_hopper, unknown_registers_are_no_limit)
{
    /* regs 0: only warps (2), shared (228) and the cap (32) count. */
    ts_device_props d = ts_test_hopper();
    ts_launch_plan p = plan_ok(&d, res(32, 0, 0), 1);
    cr_expect_eq(p.blocks_per_sm, 2);
    cr_expect_eq(p.limiter, TS_LIMIT_WARPS);
}

Test(planner_hopper, many_registers_limit)
{
    /* 256 threads = 8 warps, 128 regs: 4096 per warp; 16384 / 4096 = 4 warps per partition,
     * 16 per SM, 16 / 8 = 2 blocks. Warps would allow 64 / 8 = 8. Occupancy 16 / 64. */
    ts_device_props d = ts_test_hopper();
    ts_launch_plan p = plan_ok(&d, res(8, 128, 0), 132);
    cr_expect_eq(p.blocks_per_sm, 2);
    cr_expect_eq(p.limiter, TS_LIMIT_REGISTERS);
    cr_expect_eq(p.resident_warps_per_sm, 16);
    cr_expect(NEAR(p.occupancy, 0.25));
    cr_expect_eq(p.persistent_grid, 264);
}

Test(planner_hopper, sixty_four_registers_at_1024_threads)
{
    /* 64 regs x 32 lanes = 2048 per warp; 16384 / 2048 = 8 per partition, 32 per SM = one block
     * of 32 warps (warps alone would allow 2). */
    ts_device_props d = ts_test_hopper();
    ts_launch_plan p = plan_ok(&d, res(32, 64, 0), 132);
    cr_expect_eq(p.blocks_per_sm, 1);
    cr_expect_eq(p.limiter, TS_LIMIT_REGISTERS);
    cr_expect_eq(p.persistent_grid, 132);
}

Test(planner_hopper, registers_round_up_to_the_allocation_unit)
{
    /* 33 regs round to 40: 40 x 32 = 1280 per warp; 16384 / 1280 = 12 per partition, 48 per SM,
     * 48 / 8 = 6 blocks of 256 threads. Unrounded (1056 per warp) it would be 15 -> 60 -> 7. */
    ts_device_props d = ts_test_hopper();
    ts_launch_plan p = plan_ok(&d, res(8, 33, 0), 1);
    cr_expect_eq(p.blocks_per_sm, 6);
    cr_expect_eq(p.limiter, TS_LIMIT_REGISTERS);
}

Test(planner_hopper, register_file_is_split_over_partitions)
{
    /* 80 regs, one-warp blocks: 2560 per warp; 16384 / 2560 = 6 per partition (1024 registers of
     * each partition idle), 24 per SM = 24 blocks. The whole file would give 65536 / 2560 = 25. */
    ts_device_props d = ts_test_hopper();
    ts_launch_plan p = plan_ok(&d, res(1, 80, 0), 1);
    cr_expect_eq(p.blocks_per_sm, 24);
    cr_expect_eq(p.limiter, TS_LIMIT_REGISTERS);
}

Test(planner_hopper, shared_memory_limits)
{
    /* 100 KiB = 102400 + 1024 reserved = 103424 per block; 233472 / 103424 = 2.26 -> 2. Warps
     * (128 threads = 4 warps) would allow 16. */
    ts_device_props d = ts_test_hopper();
    ts_launch_plan p = plan_ok(&d, res(4, 0, 100 * 1024), 132);
    cr_expect_eq(p.blocks_per_sm, 2);
    cr_expect_eq(p.limiter, TS_LIMIT_SHARED_MEMORY);
    cr_expect_eq(p.resident_warps_per_sm, 8);
}

Test(planner_hopper, reserve_counts_without_shared_memory)
{
    /* No shared memory but 1 KiB reserve: 233472 / 1024 = 228 blocks; with a cap of 512 blocks
     * and 4096 warps that is the limit. */
    ts_device_props d = ts_test_hopper();
    d.max_blocks_per_sm = 512;
    d.max_warps_per_sm = 4096;
    ts_launch_plan p = plan_ok(&d, res(1, 0, 0), 1);
    cr_expect_eq(p.blocks_per_sm, 228);
    cr_expect_eq(p.limiter, TS_LIMIT_SHARED_MEMORY);
}

Test(planner_hopper, block_cap_limits_small_blocks)
{
    /* 32 threads = 1 warp: warps allow 64, registers (32 x 32 = 1024 per warp) 64, shared 228,
     * the cap 32. Only half the warp slots are used. */
    ts_device_props d = ts_test_hopper();
    ts_launch_plan p = plan_ok(&d, res(1, 32, 0), 132);
    cr_expect_eq(p.blocks_per_sm, 32);
    cr_expect_eq(p.limiter, TS_LIMIT_BLOCKS);
    cr_expect_eq(p.resident_warps_per_sm, 32);
    cr_expect(NEAR(p.occupancy, 0.5));
    cr_expect_eq(p.persistent_grid, 132 * 32);
}

Test(planner_hopper, ties_follow_the_documented_order)
{
    ts_device_props d = ts_test_hopper();
    /* registers 2 (128 regs x 8 warps) and shared 2 (100 KiB): registers. */
    ts_launch_plan p = plan_ok(&d, res(8, 128, 100 * 1024), 1);
    cr_expect_eq(p.blocks_per_sm, 2);
    cr_expect_eq(p.limiter, TS_LIMIT_REGISTERS);
    /* shared 6144 + 1024 = 7168: 233472 / 7168 = 32.6 -> 32, the cap is 32: shared memory. */
    p = plan_ok(&d, res(1, 0, 6144), 1);
    cr_expect_eq(p.blocks_per_sm, 32);
    cr_expect_eq(p.limiter, TS_LIMIT_SHARED_MEMORY);
    /* 2 warps: warps 32, cap 32: warps. */
    p = plan_ok(&d, res(2, 0, 0), 1);
    cr_expect_eq(p.blocks_per_sm, 32);
    cr_expect_eq(p.limiter, TS_LIMIT_WARPS);
}

/* ---- waves and SM balance: the 133-block puzzle -------------------------------------------- */

typedef struct wave_case {
    long long grid;
    long long waves, last_blocks, busiest;
    double last_fill, wave_eff, efficiency;
} wave_case;

Test(planner_hopper, waves_and_busiest_sm)
{
    /* 1024-thread blocks, 2 per SM, 264 per wave.
     * 131: 1 wave of 131 (131/264 full); SMs run 0 or 1 block, busiest 1; 131 / 132.
     * 132: every SM 1 block, efficiency 1.
     * 133: still one wave (133/264), but one SM runs 2 blocks after the others run 1: 133 / 264.
     * 264: every SM 2, 1.0.
     * 265: 2 waves, the second holds 1 block (1/264); wave efficiency 265 / 528; busiest 3:
     *      265 / 396. */
    const wave_case cases[] = {
        {131, 1, 131, 1, 131.0 / 264, 131.0 / 264, 131.0 / 132},
        {132, 1, 132, 1, 0.5, 0.5, 1.0},
        {133, 1, 133, 2, 133.0 / 264, 133.0 / 264, 133.0 / 264},
        {264, 1, 264, 2, 1.0, 1.0, 1.0},
        {265, 2, 1, 3, 1.0 / 264, 265.0 / 528, 265.0 / 396},
    };
    ts_device_props d = ts_test_hopper();
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const wave_case *c = &cases[i];
        ts_launch_plan p = plan_ok(&d, res(32, 32, 0), c->grid);
        cr_expect_eq(p.grid_blocks, c->grid);
        cr_expect_eq(p.waves, c->waves, "grid %lld: waves %lld", c->grid, p.waves);
        cr_expect_eq(p.last_wave_blocks, c->last_blocks, "grid %lld", c->grid);
        cr_expect(NEAR(p.last_wave_fill, c->last_fill), "grid %lld", c->grid);
        cr_expect(NEAR(p.wave_efficiency, c->wave_eff), "grid %lld", c->grid);
        cr_expect_eq(p.busiest_sm_blocks, c->busiest, "grid %lld", c->grid);
        cr_expect(NEAR(p.sm_balance, c->efficiency), "grid %lld", c->grid);
        cr_expect(NEAR(p.predicted_efficiency, c->efficiency), "grid %lld", c->grid);
        cr_expect_eq(p.persistent_grid, 264);
    }
}

Test(planner_hopper, same_threads_in_smaller_blocks)
{
    /* The other puzzle: 132 x 1024 threads as 528 blocks of 256 (8 warps, 32 regs): 8 per SM by
     * warps, 1056 per wave, one wave half full, every SM runs 4 blocks = 1024 threads, as with
     * 132 blocks of 1024: efficiency 1. */
    ts_device_props d = ts_test_hopper();
    ts_launch_plan p = plan_ok(&d, res(8, 32, 0), 528);
    cr_expect_eq(p.blocks_per_sm, 8);
    cr_expect_eq(p.limiter, TS_LIMIT_WARPS);
    cr_expect_eq(p.waves, 1);
    cr_expect_eq(p.busiest_sm_blocks, 4);
    cr_expect(NEAR(p.predicted_efficiency, 1.0));
}

Test(planner_hopper, huge_grid_near_the_limit)
{
    /* LLONG_MAX - 264 leaves room for rounding up: fine. */
    ts_device_props d = ts_test_hopper();
    long long grid = LLONG_MAX - 264;
    ts_launch_plan p = plan_ok(&d, res(32, 32, 0), grid);
    cr_expect_eq(p.waves, grid / 264 + (grid % 264 != 0));
    cr_expect_eq(p.busiest_sm_blocks, grid / 132 + (grid % 132 != 0));
    cr_expect(p.predicted_efficiency > 0.999 && p.predicted_efficiency <= 1.0);
}

/* ---- MI300X --------------------------------------------------------------------------------- */

Test(planner_mi300x, vgprs_limit_256_thread_blocks)
{
    /* 256 threads = 4 waves of 64, 128 VGPRs: 8192 per wave; a SIMD has 131072 / 4 = 32768:
     * 4 waves per SIMD, 16 per CU, 16 / 4 = 4 blocks. Waves alone: 32 / 4 = 8. LDS: 0 bytes and
     * no reserve: no limit. One wave of blocks: 304 x 4 = 1216. */
    ts_device_props d = ts_test_mi300x();
    ts_launch_plan p = plan_ok(&d, res(4, 128, 0), 304);
    cr_expect_eq(p.blocks_per_sm, 4);
    cr_expect_eq(p.limiter, TS_LIMIT_REGISTERS);
    cr_expect_eq(p.resident_warps_per_sm, 16);
    cr_expect(NEAR(p.occupancy, 0.5));
    cr_expect_eq(p.blocks_per_wave, 1216);
    cr_expect_eq(p.persistent_grid, 1216);
    cr_expect_eq(p.busiest_sm_blocks, 1);
    cr_expect(NEAR(p.predicted_efficiency, 1.0));
}

Test(planner_mi300x, one_block_more_than_cus)
{
    /* 305 blocks on 304 CUs: one CU runs 2, balance 305 / 608. One wave (305 / 1216). */
    ts_device_props d = ts_test_mi300x();
    ts_launch_plan p = plan_ok(&d, res(4, 128, 0), 305);
    cr_expect_eq(p.waves, 1);
    cr_expect_eq(p.last_wave_blocks, 305);
    cr_expect_eq(p.busiest_sm_blocks, 2);
    cr_expect(NEAR(p.predicted_efficiency, 305.0 / 608));
}

Test(planner_mi300x, full_blocks_and_wave_cap)
{
    /* 1024 threads = 16 waves, 64 VGPRs: 4096 per wave, 8 per SIMD, 32 per CU = 2 blocks; waves
     * 32 / 16 = 2 as well: tie -> warps. */
    ts_device_props d = ts_test_mi300x();
    ts_launch_plan p = plan_ok(&d, res(16, 64, 0), 1);
    cr_expect_eq(p.blocks_per_sm, 2);
    cr_expect_eq(p.limiter, TS_LIMIT_WARPS);
    /* One-wave blocks, no registers: waves 32, cap 32: warps. */
    p = plan_ok(&d, res(1, 0, 0), 1);
    cr_expect_eq(p.blocks_per_sm, 32);
    cr_expect_eq(p.limiter, TS_LIMIT_WARPS);
    /* 512 VGPRs fill a SIMD with one wave: 4 waves per CU = 4 one-wave blocks. */
    p = plan_ok(&d, res(1, 512, 0), 1);
    cr_expect_eq(p.blocks_per_sm, 4);
    cr_expect_eq(p.limiter, TS_LIMIT_REGISTERS);
}

Test(planner_mi300x, lds_limits)
{
    /* A block that takes all 64 KiB of LDS: 65536 / 65536 = 1 per CU; 32 KiB: 2. */
    ts_device_props d = ts_test_mi300x();
    ts_launch_plan p = plan_ok(&d, res(4, 64, 65536), 1);
    cr_expect_eq(p.blocks_per_sm, 1);
    cr_expect_eq(p.limiter, TS_LIMIT_SHARED_MEMORY);
    p = plan_ok(&d, res(4, 64, 32768), 1);
    cr_expect_eq(p.blocks_per_sm, 2);
    cr_expect_eq(p.limiter, TS_LIMIT_SHARED_MEMORY);
}

/* ---- errors ------------------------------------------------------------------------------- */

static void expect_untouched(const ts_launch_plan *p)
{
    ts_launch_plan ref;
    memset(&ref, 0x5a, sizeof ref);
    cr_expect_eq(memcmp(p, &ref, sizeof ref), 0, "plan was written on error");
}

static ts_status try_plan(const ts_device_props *d, ts_kernel_resources k, long long grid)
{
    ts_launch_plan p;
    memset(&p, 0x5a, sizeof p);
    ts_status st = ts_plan_launch(d, &k, grid, &p);
    if (st != TS_SUCCESS)
        expect_untouched(&p);
    return st;
}

Test(planner_errors, null_pointers)
{
    ts_device_props d = ts_test_hopper();
    ts_kernel_resources k = res(32, 32, 0);
    ts_launch_plan p;
    cr_expect_eq(ts_plan_launch(NULL, &k, 1, &p), TS_ERROR_NULL_POINTER);
    cr_expect_eq(ts_plan_launch(&d, NULL, 1, &p), TS_ERROR_NULL_POINTER);
    cr_expect_eq(ts_plan_launch(&d, &k, 1, NULL), TS_ERROR_NULL_POINTER);
}

Test(planner_errors, invalid_sizes)
{
    ts_device_props d = ts_test_hopper();
    cr_expect_eq(try_plan(&d, res(32, 32, 0), 0), TS_ERROR_INVALID_SIZE);
    cr_expect_eq(try_plan(&d, res(32, 32, 0), -5), TS_ERROR_INVALID_SIZE);
    cr_expect_eq(try_plan(&d, res(0, 32, 0), 1), TS_ERROR_INVALID_SIZE);
    cr_expect_eq(try_plan(&d, res(-1, 32, 0), 1), TS_ERROR_INVALID_SIZE);
    cr_expect_eq(try_plan(&d, res(32, -1, 0), 1), TS_ERROR_INVALID_SIZE);
}

Test(planner_errors, invalid_device_fields)
{
    const ts_device_props base = ts_test_hopper();
    /* Each field the model needs, set to 0 and to -1 in turn. */
    const size_t offsets[] = {
        offsetof(ts_device_props, sm_count),
        offsetof(ts_device_props, warp_lanes),
        offsetof(ts_device_props, partitions_per_sm),
        offsetof(ts_device_props, max_threads_per_block),
        offsetof(ts_device_props, max_warps_per_sm),
        offsetof(ts_device_props, max_blocks_per_sm),
        offsetof(ts_device_props, regs_per_sm),
        offsetof(ts_device_props, max_regs_per_thread),
        offsetof(ts_device_props, reg_alloc_unit),
    };
    const int values[] = {0, -1};
    for (size_t i = 0; i < sizeof offsets / sizeof offsets[0]; i++) {
        for (size_t j = 0; j < 2; j++) {
            ts_device_props d = base;
            memcpy((char *)&d + offsets[i], &values[j], sizeof(int));
            cr_expect_eq(try_plan(&d, res(32, 32, 0), 132), TS_ERROR_INVALID_VALUE,
                         "field at offset %zu = %d", offsets[i], values[j]);
        }
    }
}

Test(planner_errors, block_that_cannot_fit)
{
    ts_device_props d = ts_test_hopper();
    /* 33 warps = 1056 threads > 1024. */
    cr_expect_eq(try_plan(&d, res(33, 0, 0), 1), TS_ERROR_RESOURCES);
    /* More warps than an SM holds (on a device that would allow the threads). */
    ts_device_props small = ts_test_hopper();
    small.max_warps_per_sm = 16;
    cr_expect_eq(try_plan(&small, res(32, 0, 0), 1), TS_ERROR_RESOURCES);
    /* 256 registers per thread > 255. */
    cr_expect_eq(try_plan(&d, res(1, 256, 0), 1), TS_ERROR_RESOURCES);
    /* 72 registers at 1024 threads: 2304 per warp, 16384 / 2304 = 7 per partition, 28 < 32
     * warps: the register file cannot hold one block (CUDA's 64-register limit at 1024). */
    cr_expect_eq(try_plan(&d, res(32, 72, 0), 1), TS_ERROR_RESOURCES);
    /* Shared memory over the per-block limit. */
    cr_expect_eq(try_plan(&d, res(1, 0, 232449), 1), TS_ERROR_RESOURCES);
    /* Within the per-block limit, but with the reserve more than the SM has. */
    ts_device_props tight = ts_test_hopper();
    tight.shared_mem_per_block = 233472;
    cr_expect_eq(try_plan(&tight, res(1, 0, 233000), 1), TS_ERROR_RESOURCES);
    /* The largest legal block does fit: 227 KiB + 1 KiB = 228 KiB, one per SM. */
    cr_expect_eq(try_plan(&d, res(32, 64, 232448), 1), TS_SUCCESS);
}

Test(planner_errors, grid_overflow)
{
    ts_device_props d = ts_test_hopper();
    cr_expect_eq(try_plan(&d, res(32, 32, 0), LLONG_MAX), TS_ERROR_SIZE_OVERFLOW);
    cr_expect_eq(try_plan(&d, res(32, 32, 0), LLONG_MAX - 263), TS_ERROR_SIZE_OVERFLOW);
}

Test(planner_errors, limiter_names)
{
    const char *name = NULL;
    cr_expect_eq(ts_plan_limiter_name(TS_LIMIT_WARPS, &name), TS_SUCCESS);
    cr_expect_str_eq(name, "warps");
    cr_expect_eq(ts_plan_limiter_name(TS_LIMIT_REGISTERS, &name), TS_SUCCESS);
    cr_expect_str_eq(name, "registers");
    cr_expect_eq(ts_plan_limiter_name(TS_LIMIT_SHARED_MEMORY, &name), TS_SUCCESS);
    cr_expect_str_eq(name, "shared memory");
    cr_expect_eq(ts_plan_limiter_name(TS_LIMIT_BLOCKS, &name), TS_SUCCESS);
    cr_expect_str_eq(name, "blocks");
    cr_expect_eq(ts_plan_limiter_name((ts_plan_limiter)4, &name), TS_ERROR_INVALID_ENUM);
    cr_expect_eq(ts_plan_limiter_name((ts_plan_limiter)-1, &name), TS_ERROR_INVALID_ENUM);
    cr_expect_eq(ts_plan_limiter_name(TS_LIMIT_WARPS, NULL), TS_ERROR_NULL_POINTER);
}

Test(planner_errors, explain_arguments)
{
    ts_device_props d = ts_test_hopper();
    ts_kernel_resources k = res(32, 32, 0);
    ts_launch_plan p = plan_ok(&d, k, 132);
    char buf[512];
    cr_expect_eq(ts_plan_explain(NULL, &k, &p, buf, sizeof buf), TS_ERROR_NULL_POINTER);
    cr_expect_eq(ts_plan_explain(&d, NULL, &p, buf, sizeof buf), TS_ERROR_NULL_POINTER);
    cr_expect_eq(ts_plan_explain(&d, &k, NULL, buf, sizeof buf), TS_ERROR_NULL_POINTER);
    cr_expect_eq(ts_plan_explain(&d, &k, &p, NULL, sizeof buf), TS_ERROR_NULL_POINTER);
    cr_expect_eq(ts_plan_explain(&d, &k, &p, buf, 0), TS_ERROR_INVALID_SIZE);
    ts_launch_plan bad = p;
    bad.limiter = (ts_plan_limiter)9;
    cr_expect_eq(ts_plan_explain(&d, &k, &bad, buf, sizeof buf), TS_ERROR_INVALID_ENUM);
    bad = p;
    bad.blocks_per_sm = 0;
    cr_expect_eq(ts_plan_explain(&d, &k, &bad, buf, sizeof buf), TS_ERROR_INVALID_VALUE);
    ts_device_props bad_d = d;
    bad_d.sm_count = 0;
    cr_expect_eq(ts_plan_explain(&bad_d, &k, &p, buf, sizeof buf), TS_ERROR_INVALID_VALUE);
    ts_kernel_resources bad_k = res(0, 32, 0);
    cr_expect_eq(ts_plan_explain(&d, &bad_k, &p, buf, sizeof buf), TS_ERROR_INVALID_SIZE);
}

/* ---- explanations ---------------------------------------------------------------------------- */

static void explain(const ts_device_props *d, ts_kernel_resources k, long long grid, char *buf,
                    size_t size)
{
    ts_launch_plan p = plan_ok(d, k, grid);
    cr_assert_eq(ts_plan_explain(d, &k, &p, buf, size), TS_SUCCESS);
}

#define EXPECT_HAS(text, part) \
    cr_expect(strstr((text), (part)) != NULL, "missing \"%s\" in: %s", (part), (text))

Test(planner_explain, full_wave_of_one_block_per_sm)
{
    char buf[1024];
    ts_device_props d = ts_test_hopper();
    explain(&d, res(32, 32, 0), 132, buf, sizeof buf);
    EXPECT_HAS(buf, "132 blocks of 32 warps on 132 SMs");
    EXPECT_HAS(buf, "2 blocks fit per SM");
    EXPECT_HAS(buf, "limited by warps");
    EXPECT_HAS(buf, "64 resident warps / 32 per block");
    EXPECT_HAS(buf, "one wave holds 264 blocks");
    EXPECT_HAS(buf, "1 wave, 50% full");
    EXPECT_HAS(buf, "busiest SM runs 1 block;");
    EXPECT_HAS(buf, "predicted efficiency 100%");
    cr_expect(strchr(buf, '\n') == NULL, "one paragraph, one line");
}

Test(planner_explain, one_block_too_many)
{
    char buf[1024];
    ts_device_props d = ts_test_hopper();
    explain(&d, res(32, 32, 0), 133, buf, sizeof buf);
    EXPECT_HAS(buf, "busiest SM runs 2 blocks while most run 1");
    EXPECT_HAS(buf, "predicted efficiency 50%");
    EXPECT_HAS(buf, "twice that of 132 blocks");
    explain(&d, res(32, 32, 0), 265, buf, sizeof buf);
    EXPECT_HAS(buf, "265 blocks take 2 waves");
    EXPECT_HAS(buf, "busiest SM runs 3 blocks");
    EXPECT_HAS(buf, "1.50x that of 264 blocks");
    EXPECT_HAS(buf, "predicted efficiency 67%");
    explain(&d, res(32, 32, 0), 131, buf, sizeof buf);
    EXPECT_HAS(buf, "predicted efficiency 99%");
    EXPECT_HAS(buf, "the same as 132 blocks");
}

Test(planner_explain, names_each_limiter_with_its_numbers)
{
    char buf[1024];
    ts_device_props d = ts_test_hopper();
    explain(&d, res(8, 128, 0), 264, buf, sizeof buf);
    EXPECT_HAS(buf, "limited by registers");
    EXPECT_HAS(buf, "128 registers per thread");
    EXPECT_HAS(buf, "4096 per warp");
    explain(&d, res(8, 33, 0), 1, buf, sizeof buf);
    EXPECT_HAS(buf, "33 registers per thread, allocated as 40");
    explain(&d, res(4, 0, 100 * 1024), 264, buf, sizeof buf);
    EXPECT_HAS(buf, "limited by shared memory");
    EXPECT_HAS(buf, "233472");
    EXPECT_HAS(buf, "102400");
    explain(&d, res(1, 32, 0), 4224, buf, sizeof buf);
    EXPECT_HAS(buf, "limited by blocks");
    EXPECT_HAS(buf, "at most 32 blocks");
    ts_device_props m = ts_test_mi300x();
    explain(&m, res(4, 128, 0), 305, buf, sizeof buf);
    EXPECT_HAS(buf, "305 blocks of 4 waves on 304 CUs");
    EXPECT_HAS(buf, "4 blocks fit per CU");
    EXPECT_HAS(buf, "busiest CU runs 2 blocks");
}

Test(planner_explain, truncates_safely)
{
    ts_device_props d = ts_test_hopper();
    ts_kernel_resources k = res(32, 32, 0);
    ts_launch_plan p = plan_ok(&d, k, 133);
    char full[1024];
    cr_assert_eq(ts_plan_explain(&d, &k, &p, full, sizeof full), TS_SUCCESS);
    cr_assert(strlen(full) > 100);

    char small[64];
    memset(small, 'X', sizeof small);
    cr_assert_eq(ts_plan_explain(&d, &k, &p, small, 16), TS_SUCCESS);
    cr_expect_eq(small[15], '\0');
    cr_expect_eq(strncmp(small, full, 15), 0);
    for (size_t i = 16; i < sizeof small; i++)
        cr_expect_eq(small[i], 'X', "wrote past the buffer at %zu", i);

    char one = 'X';
    cr_assert_eq(ts_plan_explain(&d, &k, &p, &one, 1), TS_SUCCESS);
    cr_expect_eq(one, '\0');
}
