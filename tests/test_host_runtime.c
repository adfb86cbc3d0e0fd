/* Tests of the host backend's launch engine and runtime (backends/host/): that its barriers really
 * block, that the transaction barrier follows the mbarrier phase rules, that deadlocks come back
 * as TS_ERROR_DEADLOCK, that block order is shuffled by the seed, that ids cover the grid, that
 * launches are checked, that the shared arena is aligned and poisoned, and the runtime functions
 * of backends/runtime.h. The kernels are written here with TS_KERNEL, as a kernel source would
 * write them. */
#include <criterion/criterion.h>

#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "backends/backend.h"
#include "backends/cluster.h"
#include "backends/lane_ops.h"
#include "backends/runtime.h"

/* ---- helpers ------------------------------------------------------------------------------- */

static double now_seconds(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void sleep_us(long us) {
    struct timespec t = {us / 1000000, (us % 1000000) * 1000};
    nanosleep(&t, NULL);
}

/* Makes warps drift apart, so that a barrier that does not block lets a fast warp read a slot a
 * slow warp has not written yet. */
static void jitter(int warp, int iteration) {
    int k = (warp * 7 + iteration * 13) % 5;
    if (k == 0) sched_yield();
    if (k == 1 && iteration % 16 == 0) sleep_us(50);
}

/* Every test leaves the knobs as it found them, in case the runner shares one process. */
static unsigned long long saved_seed;

static void save_settings(void) { saved_seed = ts_host_get_seed(); }

static void restore_settings(void) {
    ts_host_set_deadlock_timeout_ms(0);
    ts_host_set_block_concurrency(0);
    ts_host_set_seed(saved_seed);
    ts_host_fail_thread_creation_after(-1);
}

TestSuite(host_runtime, .init = save_settings, .fini = restore_settings, .timeout = 60);

/* ---- the block barrier --------------------------------------------------------------------- */

typedef struct {
    int iterations;
    atomic_int *errors;
} exchange_params;

/* Each iteration every warp writes its slot, passes the barrier and checks every slot. Two
 * buffers alternate, so one barrier per iteration is enough: a warp writing a buffer again has
 * passed the next barrier, which every reader of that buffer reached first. */
TS_KERNEL(k_block_exchange, 32, exchange_params, p) {
    int n = ts_num_warps(), w = ts_warp_id();
    int *slots = (int *)ts_shared_base();
    for (int it = 0; it < p->iterations; ++it) {
        int *buf = slots + (it & 1) * n;
        jitter(w, it);
        buf[w] = it * 1000 + w;
        ts_sync_block();
        for (int j = 0; j < n; ++j)
            if (buf[j] != it * 1000 + j) atomic_fetch_add(p->errors, 1);
    }
}

Test(host_runtime, block_barrier_blocks) {
    int warp_counts[] = {2, 5, 32};
    for (size_t c = 0; c < sizeof warp_counts / sizeof warp_counts[0]; ++c) {
        int n = warp_counts[c];
        atomic_int errors = 0;
        exchange_params p = {n == 32 ? 60 : 300, &errors};
        ts_status s = TS_LAUNCH(k_block_exchange, ts_grid_1d(3), n, 2 * n * sizeof(int), NULL, p);
        cr_assert_eq(s, TS_SUCCESS, "warps %d: status %d", n, (int)s);
        cr_assert_eq(atomic_load(&errors), 0, "warps %d: %d slots read before written", n,
                     atomic_load(&errors));
    }
}

/* ---- named barriers ------------------------------------------------------------------------ */

typedef struct {
    int iterations;
    atomic_int *errors;
    atomic_int *loner_steps;
} named_params;

/* Warps 0..2 exchange over named barrier 2, warps 3..7 over named barrier 14 (the last id), and
 * warp 8 works alone; the three meet only at the final block barrier. */
TS_KERNEL(k_named_groups, 9, named_params, p) {
    int w = ts_warp_id();
    int *slots = (int *)ts_shared_base(); /* [2][9] */
    if (w == 8) {
        for (int i = 0; i < p->iterations; ++i) {
            atomic_fetch_add(p->loner_steps, 1);
            if (i % 32 == 0) sched_yield();
        }
    } else {
        int first = w < 3 ? 0 : 3, count = w < 3 ? 3 : 5, id = w < 3 ? 2 : 14;
        for (int it = 0; it < p->iterations; ++it) {
            int *buf = slots + (it & 1) * 9;
            jitter(w, it);
            buf[w] = it * 100 + w;
            ts_sync_named(id, count);
            for (int j = first; j < first + count; ++j)
                if (buf[j] != it * 100 + j) atomic_fetch_add(p->errors, 1);
        }
    }
    ts_sync_block();
    /* After the block barrier every warp sees the loner's work finished. */
    if (atomic_load(p->loner_steps) % p->iterations != 0) atomic_fetch_add(p->errors, 1000);
}

Test(host_runtime, named_barriers_over_subsets) {
    atomic_int errors = 0, loner = 0;
    named_params p = {400, &errors, &loner};
    ts_status s = TS_LAUNCH(k_named_groups, ts_grid_1d(2), 9, 2 * 9 * sizeof(int), NULL, p);
    cr_assert_eq(s, TS_SUCCESS, "status %d", (int)s);
    cr_assert_eq(atomic_load(&errors), 0, "%d errors", atomic_load(&errors));
    cr_assert_eq(atomic_load(&loner), 2 * 400);
}

typedef struct {
    int id, warps;
} bad_named_params;

TS_KERNEL(k_bad_named, 4, bad_named_params, p) { ts_sync_named(p->id, p->warps); }

Test(host_runtime, named_barrier_out_of_range_fails_the_launch) {
    bad_named_params p = {TS_NAMED_BARRIERS, 4};
    cr_assert_eq(TS_LAUNCH(k_bad_named, ts_grid_1d(1), 4, 0, NULL, p), TS_ERROR_LAUNCH_FAILED);
    p.id = -1;
    cr_assert_eq(TS_LAUNCH(k_bad_named, ts_grid_1d(1), 4, 0, NULL, p), TS_ERROR_LAUNCH_FAILED);
    p.id = 0;
    p.warps = 5; /* more warps than the block has */
    cr_assert_eq(TS_LAUNCH(k_bad_named, ts_grid_1d(1), 4, 0, NULL, p), TS_ERROR_LAUNCH_FAILED);
    p.warps = 4;
    cr_assert_eq(TS_LAUNCH(k_bad_named, ts_grid_1d(1), 4, 0, NULL, p), TS_SUCCESS);
}

/* ---- the transaction barrier: a producer-consumer ring --------------------------------------- */

enum { RING_TILE_FLOATS = 64, RING_MAX_STAGES = 3, RING_BUFFERS_OFFSET = 1024 };

typedef struct {
    const float *src;   /* [blocks][tiles][RING_TILE_FLOATS] */
    double *sums;       /* [blocks][tiles][consumers] */
    int tiles;
    int stages;
    int late_announce;  /* land the bytes before announcing them */
    atomic_int *errors;
} ring_params;

/* Warp 0 produces: it waits until a stage is empty, announces the stage's bytes and copies a tile
 * into it. Warps 1.. consume: each waits for the stage to be full, sums the tile and arrives on
 * the stage's "empty" barrier. Stage s is filled for the k-th time on phase k of full[s], so a
 * consumer waits on parity k & 1; the producer's k-th wait on empty[s] is on parity (k & 1) ^ 1,
 * which passes at once on a fresh barrier. */
TS_KERNEL(k_ring, 8, ring_params, p) {
    unsigned char *shared = ts_shared_base();
    ts_tbar *full = (ts_tbar *)shared;
    ts_tbar *empty = full + RING_MAX_STAGES;
    int *announced = (int *)(empty + RING_MAX_STAGES); /* tile last announced per stage */
    float *buffers = (float *)(shared + RING_BUFFERS_OFFSET);
    int w = ts_warp_id(), consumers = ts_num_warps() - 1, S = p->stages;
    int block = ts_block_x();
    const float *src = p->src + (size_t)block * p->tiles * RING_TILE_FLOATS;
    const unsigned bytes = RING_TILE_FLOATS * sizeof(float);

    if (w == 0) {
        for (int s = 0; s < S; ++s) {
            ts_tbar_init(&full[s], 1);
            ts_tbar_init(&empty[s], consumers);
            announced[s] = -1;
        }
    }
    ts_sync_block();

    if (w == 0) {
        for (int i = 0; i < p->tiles; ++i) {
            int s = i % S, k = i / S;
            ts_tbar_wait(&empty[s], (k & 1) ^ 1);
            float *dst = buffers + s * RING_TILE_FLOATS;
            if (p->late_announce) {
                /* The bytes land first: the phase's byte count goes negative and the phase must
                 * not complete until the producer's arrival announces them. */
                ts_copy_async_g2s(dst, src + (size_t)i * RING_TILE_FLOATS, bytes, &full[s]);
                if (i % 7 == 0) sched_yield();
                announced[s] = i;
                ts_tbar_expect_bytes(&full[s], bytes);
            } else {
                announced[s] = i;
                ts_tbar_expect_bytes(&full[s], bytes);
                if (i % 7 == 0) sched_yield();
                ts_copy_async_g2s(dst, src + (size_t)i * RING_TILE_FLOATS, bytes, &full[s]);
            }
        }
    } else {
        for (int i = 0; i < p->tiles; ++i) {
            int s = i % S, k = i / S;
            ts_tbar_wait(&full[s], k & 1);
            if (announced[s] != i) atomic_fetch_add(p->errors, 1);
            const float *tile = buffers + s * RING_TILE_FLOATS;
            double sum = 0.0;
            for (int j = 0; j < RING_TILE_FLOATS; ++j) {
                sum += (double)tile[j];
                /* A slow reader: an early refill of the stage would change what it sums. */
                if (j == RING_TILE_FLOATS / 2) jitter(w, i);
            }
            p->sums[((size_t)block * p->tiles + i) * consumers + (w - 1)] = sum;
            ts_tbar_arrive(&empty[s]);
        }
    }
}

static void run_ring(int stages, int consumers, int late_announce) {
    enum { BLOCKS = 3, TILES = 150 };
    size_t nsrc = (size_t)BLOCKS * TILES * RING_TILE_FLOATS;
    float *src = NULL;
    double *sums = NULL;
    cr_assert_eq(ts_backend_malloc((void **)&src, nsrc * sizeof *src), TS_SUCCESS);
    cr_assert_eq(ts_backend_malloc((void **)&sums, (size_t)BLOCKS * TILES * consumers * sizeof *sums),
                 TS_SUCCESS);
    for (size_t i = 0; i < nsrc; ++i) src[i] = (float)((i * 2654435761u) % 1000) - 500.0f;
    atomic_int errors = 0;
    ring_params p = {src, sums, TILES, stages, late_announce, &errors};
    size_t shared = RING_BUFFERS_OFFSET + (size_t)stages * RING_TILE_FLOATS * sizeof(float);
    ts_status s = TS_LAUNCH(k_ring, ts_grid_1d(BLOCKS), 1 + consumers, shared, NULL, p);
    cr_assert_eq(s, TS_SUCCESS, "stages %d consumers %d: status %d", stages, consumers, (int)s);
    cr_assert_eq(atomic_load(&errors), 0, "a stage was consumed before its producer announced it");
    for (int b = 0; b < BLOCKS; ++b) {
        for (int i = 0; i < TILES; ++i) {
            double ref = 0.0;
            const float *tile = src + ((size_t)b * TILES + i) * RING_TILE_FLOATS;
            for (int j = 0; j < RING_TILE_FLOATS; ++j) ref += (double)tile[j];
            for (int c = 0; c < consumers; ++c)
                cr_assert_eq(sums[((size_t)b * TILES + i) * consumers + c], ref,
                             "stages %d block %d tile %d consumer %d", stages, b, i, c);
        }
    }
    ts_backend_free(src);
    ts_backend_free(sums);
}

Test(host_runtime, tbar_ring_two_stages) {
    run_ring(2, 1, 0);
    run_ring(2, 3, 0);
}

Test(host_runtime, tbar_ring_three_stages) {
    run_ring(3, 2, 0);
    run_ring(3, 7, 0);
}

Test(host_runtime, tbar_ring_bytes_land_before_announced) {
    run_ring(2, 2, 1);
    run_ring(3, 3, 1);
}

/* The slow-warp knob (ts_host_set_slow_warp): a consumer that sleeps 2 ms before each of its 150
 * waits holds its block at least 0.3 s, and the ring still delivers every tile as announced, with
 * the consumer slowed and then the producer. */
Test(host_runtime, slow_warp_sleeps_before_each_wait) {
    struct timespec t0, t1;
    ts_host_set_slow_warp(0, 1, 2000);
    clock_gettime(CLOCK_MONOTONIC, &t0);
    run_ring(3, 2, 0);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    const double seconds = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    cr_assert(seconds >= 0.3, "the ring took %.3f s: the slow warp did not sleep", seconds);
    ts_host_set_slow_warp(0, 0, 1000);
    run_ring(2, 3, 1);
    ts_host_set_slow_warp(0, -1, 0);
}

/* ---- the transaction barrier, step by step --------------------------------------------------- */

enum { STEP_COUNT = 16 };

typedef struct {
    int *out; /* STEP_COUNT results of ts_tbar_test, in order */
} steps_params;

TS_KERNEL(k_tbar_steps, 1, steps_params, p) {
    ts_tbar *bar = (ts_tbar *)ts_shared_base();
    int *o = p->out, k = 0;
    ts_tbar_init(bar, 2);
    o[k++] = ts_tbar_test(bar, 0); /* 0: phase 0 in progress */
    o[k++] = ts_tbar_test(bar, 1); /* 1: a fresh barrier's parity-1 phase counts as complete */
    ts_tbar_complete_bytes(bar, 32); /* bytes land before anyone announces them */
    ts_tbar_arrive(bar);
    o[k++] = ts_tbar_test(bar, 0); /* 0: one arrival missing, bytes at -32 */
    ts_tbar_expect_bytes(bar, 48);
    o[k++] = ts_tbar_test(bar, 0); /* 0: arrivals in, 16 bytes outstanding */
    ts_tbar_complete_bytes(bar, 16);
    o[k++] = ts_tbar_test(bar, 0); /* 1: phase 0 complete */
    o[k++] = ts_tbar_test(bar, 1); /* 0: phase 1 in progress */
    ts_tbar_wait(bar, 0);           /* returns at once */
    ts_tbar_arrive(bar);
    o[k++] = ts_tbar_test(bar, 1); /* 0 */
    ts_tbar_arrive(bar);
    o[k++] = ts_tbar_test(bar, 1); /* 1: phase 1 complete (no bytes in it) */
    o[k++] = ts_tbar_test(bar, 0); /* 0: phase 2 in progress */
    ts_tbar_wait(bar, 1);
    /* Phase 2: bytes announced by both arrivals, landing in two parts. */
    ts_tbar_expect_bytes(bar, 64);
    ts_tbar_expect_bytes(bar, 64);
    o[k++] = ts_tbar_test(bar, 0); /* 0 */
    ts_tbar_complete_bytes(bar, 100);
    o[k++] = ts_tbar_test(bar, 0); /* 0 */
    ts_tbar_complete_bytes(bar, 28);
    o[k++] = ts_tbar_test(bar, 0); /* 1 */
    o[k++] = ts_tbar_test(bar, 1); /* 0 */
    o[k] = k;
}

Test(host_runtime, tbar_phases_and_test) {
    int out[STEP_COUNT];
    memset(out, 0xff, sizeof out);
    steps_params p = {out};
    cr_assert_eq(TS_LAUNCH(k_tbar_steps, ts_grid_1d(1), 1, sizeof(ts_tbar), NULL, p), TS_SUCCESS);
    const int expected[] = {0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 0, 1, 0, 13};
    for (size_t i = 0; i < sizeof expected / sizeof expected[0]; ++i)
        cr_assert_eq(out[i], expected[i], "step %zu: got %d, expected %d", i, out[i], expected[i]);
}

typedef struct {
    int mode;
} tbar_misuse_params;

/* Misuse a GPU would not forgive: a barrier never initialised (its memory holds the poison), an
 * arrival beyond the expected count, a barrier outside shared memory. */
TS_KERNEL(k_tbar_misuse, 1, tbar_misuse_params, p) {
    ts_tbar *bar = (ts_tbar *)ts_shared_base();
    if (p->mode == 0) {
        ts_tbar_wait(bar, 0);
    } else if (p->mode == 1) {
        ts_tbar_init(bar, 1);
        ts_tbar_expect_bytes(bar, 16); /* arrivals in, bytes outstanding */
        ts_tbar_arrive(bar);           /* one arrival too many */
    } else {
        ts_tbar local;
        ts_tbar_init(&local, 1);
    }
}

Test(host_runtime, tbar_misuse_fails_the_launch) {
    for (int mode = 0; mode < 3; ++mode) {
        tbar_misuse_params p = {mode};
        ts_status s = TS_LAUNCH(k_tbar_misuse, ts_grid_1d(1), 1, 64, NULL, p);
        cr_assert_eq(s, TS_ERROR_LAUNCH_FAILED, "mode %d: status %d", mode, (int)s);
    }
}

typedef struct {
    const unsigned char *src;
    int mode;
} copy_misuse_params;

TS_KERNEL(k_copy_misuse, 1, copy_misuse_params, p) {
    unsigned char *shared = ts_shared_base();
    ts_tbar *bar = (ts_tbar *)shared;
    ts_tbar_init(bar, 1);
    ts_tbar_expect_bytes(bar, 64);
    if (p->mode == 0) ts_copy_async_g2s(shared + 64, p->src + 4, 64, bar);   /* misaligned source */
    if (p->mode == 1) ts_copy_async_g2s(shared + 72, p->src, 64, bar);       /* misaligned target */
    if (p->mode == 2) ts_copy_async_g2s(shared + 64, p->src, 60, bar);       /* not 16-byte sized */
    if (p->mode == 3) ts_copy_async_g2s(shared + 128, p->src, 64, bar);      /* past the arena */
    if (p->mode == 4) ts_copy_async_g2s(shared + 64, p->src, 64, bar);       /* correct */
    ts_tbar_wait(bar, 0);
}

Test(host_runtime, copy_async_checks_alignment_and_bounds) {
    _Alignas(16) unsigned char src[256];
    memset(src, 1, sizeof src);
    const ts_status expected[] = {TS_ERROR_MISALIGNED, TS_ERROR_MISALIGNED, TS_ERROR_MISALIGNED,
                                  TS_ERROR_LAUNCH_FAILED, TS_SUCCESS};
    for (int mode = 0; mode < 5; ++mode) {
        copy_misuse_params p = {src, mode};
        ts_status s = TS_LAUNCH(k_copy_misuse, ts_grid_1d(1), 1, 128, NULL, p);
        cr_assert_eq(s, expected[mode], "mode %d: status %d", mode, (int)s);
    }
}

/* ---- deadlock detection -------------------------------------------------------------------- */

typedef struct {
    int mode;
    atomic_int *passed; /* arrivals past the broken barrier: there must be none */
    atomic_int *skipped;
} deadlock_params;

TS_KERNEL(k_deadlock, 8, deadlock_params, p) {
    int w = ts_warp_id();
    ts_tbar *bar = (ts_tbar *)ts_shared_base();
    if (p->mode == 0) {
        /* One warp skips the block barrier. */
        if (w == 1) {
            atomic_fetch_add(p->skipped, 1);
            return;
        }
        ts_sync_block();
        atomic_fetch_add(p->passed, 1);
    } else if (p->mode == 1) {
        /* A transaction barrier nobody arrives at. */
        if (w == 0) ts_tbar_init(bar, 1);
        ts_sync_block();
        ts_tbar_wait(bar, 0);
        atomic_fetch_add(p->passed, 1);
    } else if (p->mode == 2) {
        /* Bytes announced that never land. */
        if (w == 0) ts_tbar_init(bar, 1);
        ts_sync_block();
        if (w == 0) ts_tbar_expect_bytes(bar, 256);
        ts_tbar_wait(bar, 0);
        atomic_fetch_add(p->passed, 1);
    } else if (p->mode == 3) {
        /* A named barrier over three warps that only two reach, while the others wait at the
         * block barrier: every waiter must be released when the block fails. */
        if (w < 2) ts_sync_named(5, 3);
        ts_sync_block();
        atomic_fetch_add(p->passed, 1);
    }
}

Test(host_runtime, deadlocks_are_reported) {
    ts_host_set_deadlock_timeout_ms(200);
    cr_assert_eq(ts_host_get_deadlock_timeout_ms(), 200);
    for (int mode = 0; mode < 4; ++mode) {
        atomic_int passed = 0, skipped = 0;
        deadlock_params p = {mode, &passed, &skipped};
        double t0 = now_seconds();
        ts_status s = TS_LAUNCH(k_deadlock, ts_grid_1d(5), 4, 64, NULL, p);
        double dt = now_seconds() - t0;
        cr_assert_eq(s, TS_ERROR_DEADLOCK, "mode %d: status %d", mode, (int)s);
        cr_assert_eq(atomic_load(&passed), 0, "mode %d: a warp passed a broken barrier", mode);
        /* The launch stops after the first deadlocked blocks: about one timeout, not five. */
        cr_assert(dt >= 0.15 && dt < 2.0, "mode %d: took %.3f s", mode, dt);
    }
}

Test(host_runtime, launches_work_after_a_deadlock) {
    long usual = ts_host_get_deadlock_timeout_ms(); /* TS_HOST_DEADLOCK_MS, else the default */
    ts_host_set_deadlock_timeout_ms(150);
    atomic_int passed = 0, skipped = 0;
    deadlock_params bad = {0, &passed, &skipped};
    cr_assert_eq(TS_LAUNCH(k_deadlock, ts_grid_1d(2), 3, 0, NULL, bad), TS_ERROR_DEADLOCK);
    atomic_int errors = 0;
    exchange_params good = {50, &errors};
    cr_assert_eq(TS_LAUNCH(k_block_exchange, ts_grid_1d(4), 4, 8 * sizeof(int), NULL, good),
                 TS_SUCCESS);
    cr_assert_eq(atomic_load(&errors), 0);
    ts_host_set_deadlock_timeout_ms(0);
    cr_assert_eq(ts_host_get_deadlock_timeout_ms(), usual);
}

/* ---- thread-block clusters ---------------------------------------------------------------- */

typedef struct {
    int iterations, cluster;
    atomic_int *errors;
} cluster_params;

/* Each iteration every warp writes its slot in its own block's shared memory, passes the cluster
 * barrier and reads every slot of every block of the cluster through ts_cluster_map. Two buffers
 * alternate, as in k_block_exchange, so one cluster barrier per iteration is enough. */
TS_KERNEL(k_cluster_exchange, 4, cluster_params, p) {
    const int n = ts_num_warps(), w = ts_warp_id(), rank = ts_cluster_rank(), size = ts_cluster_size();
    int *slots = (int *)ts_shared_base();
    if (size != p->cluster || rank != ts_block_x() % size) atomic_fetch_add(p->errors, 1000);
    for (int it = 0; it < p->iterations; ++it) {
        int *buf = slots + (it & 1) * n;
        jitter(w + rank, it);
        buf[w] = (it * 10 + rank) * 100 + w;
        ts_cluster_sync();
        for (int r = 0; r < size; ++r) {
            const int *peer = (const int *)ts_cluster_map(buf, r);
            for (int j = 0; j < n; ++j)
                if (peer[j] != (it * 10 + r) * 100 + j) atomic_fetch_add(p->errors, 1);
        }
    }
    /* No block leaves while another may still read its shared memory. */
    ts_cluster_sync();
}

Test(host_runtime, cluster_blocks_share_their_shared_memory) {
    const int clusters[] = {2, 3, 8};
    for (size_t c = 0; c < sizeof clusters / sizeof clusters[0]; ++c) {
        atomic_int errors = 0;
        cluster_params p = {200, clusters[c], &errors};
        const ts_status s =
            TS_LAUNCH_CLUSTER(k_cluster_exchange, ts_grid_1d(2 * clusters[c]), 3, 2 * 3 * sizeof(int), NULL, p, clusters[c]);
        cr_assert_eq(s, TS_SUCCESS, "cluster %d: status %d", clusters[c], (int)s);
        cr_assert_eq(atomic_load(&errors), 0, "cluster %d: %d slots read before written or ids wrong", clusters[c],
                     atomic_load(&errors));
    }
}

/* A ring through the cluster: each iteration block r writes a value into block r + 1's shared
 * memory and arrives on that block's barrier; each block waits on its own barrier and then reads
 * what its predecessor wrote. Only the barrier orders the write before the read. */
TS_KERNEL(k_cluster_ring, 1, cluster_params, p) {
    const int rank = ts_cluster_rank(), size = ts_cluster_size(), next = (rank + 1) % size;
    ts_tbar *bar = (ts_tbar *)ts_shared_base();
    int *inbox = (int *)(ts_shared_base() + 64);
    ts_tbar_init(bar, 1);
    ts_cluster_sync(); /* every barrier initialised before another block arrives on it */
    for (int it = 0; it < p->iterations; ++it) {
        jitter(rank, it);
        *(int *)ts_cluster_map(inbox, next) = it * 10 + rank;
        ts_tbar_arrive((ts_tbar *)ts_cluster_map(bar, next));
        ts_tbar_wait(bar, it & 1);
        if (*inbox != it * 10 + (rank + size - 1) % size) atomic_fetch_add(p->errors, 1);
        /* The predecessor writes the inbox again only once every block has read its own. */
        ts_cluster_sync();
    }
    ts_cluster_sync();
}

Test(host_runtime, arrivals_on_another_blocks_barrier) {
    atomic_int errors = 0;
    cluster_params p = {100, 4, &errors};
    const ts_status s = TS_LAUNCH_CLUSTER(k_cluster_ring, ts_grid_1d(8), 1, 128, NULL, p, 4);
    cr_assert_eq(s, TS_SUCCESS, "status %d", (int)s);
    cr_assert_eq(atomic_load(&errors), 0, "%d values read before their barrier completed", atomic_load(&errors));
}

/* Warps that return count as arrived at the cluster barrier (as exited GPU threads do): the
 * others still pass it, twice. */
TS_KERNEL(k_cluster_exits, 4, cluster_params, p) {
    if (ts_warp_id() % 2 == 1) return;
    ts_cluster_sync();
    ts_cluster_sync();
    atomic_fetch_add(p->errors, 1); /* counts the warps that passed */
}

Test(host_runtime, returned_warps_release_the_cluster_barrier) {
    atomic_int passed = 0;
    cluster_params p = {0, 2, &passed};
    cr_assert_eq(TS_LAUNCH_CLUSTER(k_cluster_exits, ts_grid_1d(4), 4, 0, NULL, p, 2), TS_SUCCESS);
    cr_assert_eq(atomic_load(&passed), 4 * 2);
}

/* Misuse a GPU would fault on or hang at: waiting on another block's barrier (mode 0), a rank
 * outside the cluster (1), an address outside shared memory (2), a warp missing from the cluster
 * barrier (3). */
TS_KERNEL(k_cluster_misuse, 2, deadlock_params, p) {
    ts_tbar *bar = (ts_tbar *)ts_shared_base();
    if (ts_warp_id() == 0) ts_tbar_init(bar, 1);
    ts_cluster_sync();
    int local = 0;
    if (p->mode == 0) ts_tbar_wait((ts_tbar *)ts_cluster_map(bar, 1 - ts_cluster_rank()), 0);
    if (p->mode == 1) (void)ts_cluster_map(bar, ts_cluster_size());
    if (p->mode == 2) (void)ts_cluster_map(&local, 0);
    if (p->mode == 3) {
        if (ts_cluster_rank() == 1 && ts_warp_id() == 1)
            ts_tbar_wait(bar, 0); /* never completes: the warp neither arrives nor returns */
        else
            ts_cluster_sync();
    }
    atomic_fetch_add(p->passed, 1);
}

Test(host_runtime, cluster_misuse_fails_the_launch) {
    ts_host_set_deadlock_timeout_ms(200);
    const ts_status want[4] = {TS_ERROR_LAUNCH_FAILED, TS_ERROR_LAUNCH_FAILED, TS_ERROR_LAUNCH_FAILED,
                               TS_ERROR_DEADLOCK};
    for (int mode = 0; mode < 4; ++mode) {
        atomic_int passed = 0, skipped = 0;
        deadlock_params p = {mode, &passed, &skipped};
        const ts_status s = TS_LAUNCH_CLUSTER(k_cluster_misuse, ts_grid_1d(2), 2, 64, NULL, p, 2);
        cr_assert_eq(s, want[mode], "mode %d: status %d", mode, (int)s);
        cr_assert_eq(atomic_load(&passed), 0, "mode %d: a warp went past the misuse", mode);
    }
}

Test(host_runtime, cluster_launch_configuration_is_checked) {
    atomic_int errors = 0;
    cluster_params p = {1, 4, &errors};
    cr_assert_eq(TS_LAUNCH_CLUSTER(k_cluster_exchange, ts_grid_1d(8), 1, 64, NULL, p, 0), TS_ERROR_UNSUPPORTED);
    cr_assert_eq(TS_LAUNCH_CLUSTER(k_cluster_exchange, ts_grid_1d(9), 1, 64, NULL, p, 9), TS_ERROR_UNSUPPORTED);
    cr_assert_eq(TS_LAUNCH_CLUSTER(k_cluster_exchange, ts_grid_1d(6), 1, 64, NULL, p, 4), TS_ERROR_INVALID_VALUE);
    /* Clusters along x, so y and z are free. */
    cr_assert_eq(TS_LAUNCH_CLUSTER(k_cluster_exchange, ts_grid_3d(4, 3, 2), 1, 64, NULL, p, 4), TS_SUCCESS);
    cr_assert_eq(atomic_load(&errors), 0);
    /* The capacity follows the block concurrency: a persistent grid of it runs all at once. */
    int clusters = 0;
    ts_host_set_block_concurrency(8);
    cr_assert_eq(TS_CLUSTER_CAPACITY(k_cluster_exchange, 1, 64, 2, &clusters), TS_SUCCESS);
    cr_assert_eq(clusters, 4);
    cr_assert_eq(TS_CLUSTER_CAPACITY(k_cluster_exchange, 1, 64, 8, &clusters), TS_SUCCESS);
    cr_assert_eq(clusters, 1);
    ts_host_set_block_concurrency(0);
}

/* ---- block order --------------------------------------------------------------------------- */

typedef struct {
    atomic_int *counter;
    int *order; /* order[k] = linear id of the k-th block to start */
} order_params;

TS_KERNEL(k_record_order, 1, order_params, p) {
    int linear = ts_block_x() + ts_grid_x() * (ts_block_y() + ts_grid_y() * ts_block_z());
    p->order[atomic_fetch_add(p->counter, 1)] = linear;
}

enum { ORDER_BLOCKS = 64 };

static void record_order(int *order) {
    atomic_int counter = 0;
    order_params p = {&counter, order};
    cr_assert_eq(TS_LAUNCH(k_record_order, ts_grid_3d(4, 4, 4), 1, 0, NULL, p), TS_SUCCESS);
    cr_assert_eq(atomic_load(&counter), ORDER_BLOCKS);
    int seen[ORDER_BLOCKS] = {0};
    for (int i = 0; i < ORDER_BLOCKS; ++i) {
        cr_assert(order[i] >= 0 && order[i] < ORDER_BLOCKS);
        seen[order[i]] += 1;
    }
    for (int i = 0; i < ORDER_BLOCKS; ++i) cr_assert_eq(seen[i], 1, "block %d ran %d times", i, seen[i]);
}

static int is_identity(const int *order) {
    for (int i = 0; i < ORDER_BLOCKS; ++i)
        if (order[i] != i) return 0;
    return 1;
}

Test(host_runtime, block_order_is_shuffled) {
    int order[ORDER_BLOCKS];
    record_order(order); /* the default concurrency: several blocks at once */
    cr_assert(!is_identity(order), "blocks started in order 0, 1, 2, ...");
    /* Not just neighbours swapped by racing runners: most blocks start far from their place. */
    int far = 0;
    for (int i = 0; i < ORDER_BLOCKS; ++i) far += abs(order[i] - i) > 4;
    cr_assert(far >= ORDER_BLOCKS / 4, "only %d blocks started far from their place", far);
}

Test(host_runtime, seed_sets_the_order) {
    /* One block at a time, so that the start order is exactly the shuffled order. */
    ts_host_set_block_concurrency(1);
    cr_assert_eq(ts_host_get_block_concurrency(), 1);
    int a1[ORDER_BLOCKS], a2[ORDER_BLOCKS], b[ORDER_BLOCKS];
    ts_host_set_seed(1234);
    cr_assert_eq(ts_host_get_seed(), 1234ull);
    record_order(a1);
    record_order(a2);
    ts_host_set_seed(98765);
    record_order(b);
    cr_assert(!is_identity(a1) && !is_identity(b));
    cr_assert(memcmp(a1, a2, sizeof a1) == 0, "the same seed gave two orders");
    cr_assert(memcmp(a1, b, sizeof a1) != 0, "two seeds gave the same order");
}

typedef struct {
    atomic_int *chain; /* chain[i] = chain[i - 1] + 1: correct only if blocks run in order */
} chain_params;

TS_KERNEL(k_chain, 1, chain_params, p) {
    int i = ts_block_x();
    int prev = i == 0 ? 0 : atomic_load_explicit(&p->chain[i - 1], memory_order_relaxed);
    atomic_store_explicit(&p->chain[i], prev + 1, memory_order_relaxed);
}

static int run_chain(unsigned long long seed, int *result, int n) {
    atomic_int chain[64];
    for (int i = 0; i < n; ++i) atomic_init(&chain[i], 0);
    ts_host_set_seed(seed);
    chain_params p = {chain};
    cr_assert_eq(TS_LAUNCH(k_chain, ts_grid_1d((unsigned)n), 1, 0, NULL, p), TS_SUCCESS);
    int right = 1;
    for (int i = 0; i < n; ++i) {
        result[i] = atomic_load(&chain[i]);
        if (result[i] != i + 1) right = 0;
    }
    return right;
}

Test(host_runtime, order_dependent_kernel_gets_a_wrong_answer) {
    ts_host_set_block_concurrency(1);
    int r1[64], r2[64];
    cr_assert(!run_chain(1, r1, 64), "an order-dependent kernel passed with seed 1");
    cr_assert(!run_chain(2, r2, 64), "an order-dependent kernel passed with seed 2");
    cr_assert(memcmp(r1, r2, sizeof r1) != 0, "two seeds gave the same wrong answer");
}

typedef struct {
    atomic_int *running;
    atomic_int *most;
} overlap_params;

TS_KERNEL(k_overlap, 2, overlap_params, p) {
    if (ts_warp_id() != 0) return;
    int now = atomic_fetch_add(p->running, 1) + 1;
    int most = atomic_load(p->most);
    while (now > most && !atomic_compare_exchange_weak(p->most, &most, now)) {
    }
    sleep_us(5000);
    atomic_fetch_sub(p->running, 1);
}

Test(host_runtime, blocks_run_a_few_at_a_time) {
    int concurrency = ts_host_get_block_concurrency();
    cr_assert(concurrency >= 2 && concurrency <= 4, "default concurrency %d", concurrency);
    atomic_int running = 0, most = 0;
    overlap_params p = {&running, &most};
    cr_assert_eq(TS_LAUNCH(k_overlap, ts_grid_1d(12), 2, 0, NULL, p), TS_SUCCESS);
    cr_assert(atomic_load(&most) >= 2 && atomic_load(&most) <= concurrency, "at most %d at once",
              atomic_load(&most));
    ts_host_set_block_concurrency(3);
    atomic_store(&most, 0);
    cr_assert_eq(TS_LAUNCH(k_overlap, ts_grid_1d(12), 2, 0, NULL, p), TS_SUCCESS);
    cr_assert(atomic_load(&most) >= 2 && atomic_load(&most) <= 3, "at most %d at once",
              atomic_load(&most));
}

/* ---- ids ----------------------------------------------------------------------------------- */

typedef struct {
    atomic_int *hits; /* per block */
    atomic_int *errors;
    int *visits; /* counted with ts_atomic_add_i32 by one lane of every warp */
    unsigned gx, gy, gz;
    int warps;
} grid_params;

TS_KERNEL(k_grid_ids, 4, grid_params, p) {
    int x = ts_block_x(), y = ts_block_y(), z = ts_block_z();
    if (ts_grid_x() != (int)p->gx || ts_grid_y() != (int)p->gy || ts_grid_z() != (int)p->gz ||
        ts_num_warps() != p->warps)
        atomic_fetch_add(p->errors, 1);
    if (x < 0 || x >= (int)p->gx || y < 0 || y >= (int)p->gy || z < 0 || z >= (int)p->gz) {
        atomic_fetch_add(p->errors, 1);
        return;
    }
    if (ts_warp_id() == 0) atomic_fetch_add(&p->hits[x + (int)p->gx * (y + (int)p->gy * z)], 1);
    TS_ONE_LANE ts_atomic_add_i32(p->visits, 1);
}

static void check_grid(unsigned gx, unsigned gy, unsigned gz, int warps) {
    int n = (int)(gx * gy * gz);
    atomic_int *hits = NULL;
    cr_assert_eq(ts_backend_malloc((void **)&hits, (size_t)n * sizeof *hits), TS_SUCCESS);
    for (int i = 0; i < n; ++i) atomic_init(&hits[i], 0);
    atomic_int errors = 0;
    int visits = 0;
    grid_params p = {hits, &errors, &visits, gx, gy, gz, warps};
    cr_assert_eq(TS_LAUNCH(k_grid_ids, ts_grid_3d(gx, gy, gz), warps, 0, NULL, p), TS_SUCCESS);
    cr_assert_eq(atomic_load(&errors), 0);
    cr_assert_eq(visits, n * warps);
    for (int i = 0; i < n; ++i)
        cr_assert_eq(atomic_load(&hits[i]), 1, "grid %ux%ux%u: block %d ran %d times", gx, gy, gz,
                     i, atomic_load(&hits[i]));
    ts_backend_free(hits);
}

Test(host_runtime, grid_ids_cover_every_block_once) {
    check_grid(1, 1, 1, 1);
    check_grid(3, 4, 5, 2);
    check_grid(7, 1, 3, 1);
    check_grid(1, 6, 1, 3);
    check_grid(300, 1, 1, 1);
}

typedef struct {
    int *out; /* [block][32][5] */
} warp_ids_params;

TS_KERNEL(k_warp_ids, 32, warp_ids_params, p) {
    int w = ts_warp_id();
    int *o = p->out + ((size_t)ts_block_x() * 32 + (size_t)w) * 5;
    o[0] = w;
    o[1] = ts_warpgroup_id();
    o[2] = ts_warp_in_group();
    o[3] = ts_lane_id();
    o[4] = ts_num_warps();
    ts_sync_warp();
    ts_fence_block();
}

Test(host_runtime, warp_and_lane_ids) {
    cr_assert_eq(TS_WARP_LANES, 1);
    int counts[] = {1, 4, 5, 32};
    for (size_t c = 0; c < sizeof counts / sizeof counts[0]; ++c) {
        int n = counts[c];
        static int out[2 * 32 * 5];
        memset(out, 0xff, sizeof out);
        warp_ids_params p = {out};
        cr_assert_eq(TS_LAUNCH(k_warp_ids, ts_grid_1d(2), n, 0, NULL, p), TS_SUCCESS);
        for (int b = 0; b < 2; ++b) {
            for (int w = 0; w < 32; ++w) {
                const int *o = out + (b * 32 + w) * 5;
                if (w >= n) {
                    cr_assert_eq(o[0], -1, "warp %d of %d ran", w, n);
                    continue;
                }
                cr_assert_eq(o[0], w);
                cr_assert_eq(o[1], w / 4);
                cr_assert_eq(o[2], w % 4);
                cr_assert_eq(o[3], 0);
                cr_assert_eq(o[4], n);
            }
        }
    }
}

/* ---- launch checks ------------------------------------------------------------------------- */

typedef struct {
    atomic_int *ran;
    size_t last; /* byte of shared memory to write, or 0 */
} flag_params;

TS_KERNEL(k_flag, 4, flag_params, p) {
    atomic_fetch_add(p->ran, 1);
    if (p->last > 0) {
        unsigned char *shared = ts_shared_base();
        shared[0] = 1;
        shared[p->last] = 2;
    }
}

TS_KERNEL(k_flag_wide, 32, flag_params, p) { atomic_fetch_add(p->ran, 1); }

Test(host_runtime, launch_configuration_is_checked) {
    atomic_int ran = 0;
    flag_params p = {&ran, 0};
    ts_grid one = ts_grid_1d(1);
    cr_assert_eq(TS_LAUNCH(k_flag, one, 0, 0, NULL, p), TS_ERROR_RESOURCES);
    cr_assert_eq(TS_LAUNCH(k_flag, one, -1, 0, NULL, p), TS_ERROR_RESOURCES);
    cr_assert_eq(TS_LAUNCH(k_flag, one, 5, 0, NULL, p), TS_ERROR_RESOURCES);
    cr_assert_eq(TS_LAUNCH(k_flag_wide, one, 33, 0, NULL, p), TS_ERROR_RESOURCES);
    cr_assert_eq(TS_LAUNCH(k_flag, one, 1, TS_HOST_MAX_SHARED_BYTES + 1, NULL, p),
                 TS_ERROR_RESOURCES);
    cr_assert_eq(TS_LAUNCH(k_flag, ts_grid_3d(0, 1, 1), 1, 0, NULL, p), TS_ERROR_INVALID_SIZE);
    cr_assert_eq(TS_LAUNCH(k_flag, ts_grid_3d(1, 0, 1), 1, 0, NULL, p), TS_ERROR_INVALID_SIZE);
    cr_assert_eq(TS_LAUNCH(k_flag, ts_grid_3d(1, 1, 0), 1, 0, NULL, p), TS_ERROR_INVALID_SIZE);
    cr_assert_eq(TS_LAUNCH(k_flag, ts_grid_3d(1, 65536, 1), 1, 0, NULL, p), TS_ERROR_SIZE_OVERFLOW);
    cr_assert_eq(TS_LAUNCH(k_flag, ts_grid_3d(2147483648u, 1, 1), 1, 0, NULL, p),
                 TS_ERROR_SIZE_OVERFLOW);
    cr_assert_eq(atomic_load(&ran), 0, "a refused launch ran");

    /* The limits themselves are accepted. */
    cr_assert_eq(TS_LAUNCH(k_flag, one, 4, 0, NULL, p), TS_SUCCESS);
    cr_assert_eq(TS_LAUNCH(k_flag_wide, one, 32, 0, NULL, p), TS_SUCCESS);
    p.last = TS_HOST_MAX_SHARED_BYTES - 1;
    cr_assert_eq(TS_LAUNCH(k_flag, one, 1, TS_HOST_MAX_SHARED_BYTES, NULL, p), TS_SUCCESS);
    cr_assert_eq(atomic_load(&ran), 4 + 32 + 1);
}

typedef struct {
    double x;
    int values[40];
} big_params;

typedef struct {
    big_params inner;
    int *sum;
} copy_params;

TS_KERNEL(k_params_copy, 1, copy_params, p) {
    int s = (int)p->inner.x;
    for (int i = 0; i < 40; ++i) s += p->inner.values[i];
    *p->sum = s;
}

Test(host_runtime, parameters_arrive_by_value) {
    int sum = 0;
    copy_params p;
    p.inner.x = 100.0;
    for (int i = 0; i < 40; ++i) p.inner.values[i] = i;
    p.sum = &sum;
    const copy_params cp = p; /* a const lvalue is fine too */
    cr_assert_eq(TS_LAUNCH(k_params_copy, ts_grid_1d(1), 1, 0, NULL, cp), TS_SUCCESS);
    cr_assert_eq(sum, 100 + 39 * 40 / 2);
}

/* ---- the shared arena ---------------------------------------------------------------------- */

typedef struct {
    size_t bytes;
    atomic_int *errors;
} arena_params;

TS_KERNEL(k_arena, 4, arena_params, p) {
    unsigned char *shared = ts_shared_base();
    if (shared == NULL || (uintptr_t)shared % TS_SHARED_ALIGN != 0) atomic_fetch_add(p->errors, 1);
    if (ts_warp_id() == 0) {
        for (size_t i = 0; i < p->bytes; ++i)
            if (shared[i] != TS_HOST_SHARED_POISON) {
                atomic_fetch_add(p->errors, 1);
                break;
            }
    }
    ts_sync_block();
    /* Leave something else behind: the next block must still start from the poison. */
    for (size_t i = (size_t)ts_warp_id(); i < p->bytes; i += (size_t)ts_num_warps()) shared[i] = 0;
}

Test(host_runtime, shared_arena_is_aligned_and_poisoned) {
    size_t sizes[] = {0, 1, 1000, 4096, 50000, TS_HOST_MAX_SHARED_BYTES};
    for (size_t c = 0; c < sizeof sizes / sizeof sizes[0]; ++c) {
        atomic_int errors = 0;
        arena_params p = {sizes[c], &errors};
        ts_host_set_block_concurrency(c % 2 ? 1 : 0);
        cr_assert_eq(TS_LAUNCH(k_arena, ts_grid_1d(6), 4, sizes[c], NULL, p), TS_SUCCESS);
        cr_assert_eq(atomic_load(&errors), 0, "%zu bytes of shared memory", sizes[c]);
    }
}

/* ---- thread creation failures -------------------------------------------------------------- */

Test(host_runtime, thread_creation_failure_is_a_status) {
    /* A warp thread fails to start while its block's other warps wait at a barrier: they must be
     * released at once, not after the deadlock timeout. */
    ts_host_set_block_concurrency(1);
    atomic_int errors = 0;
    exchange_params p = {10, &errors};
    ts_host_fail_thread_creation_after(2);
    double t0 = now_seconds();
    cr_assert_eq(TS_LAUNCH(k_block_exchange, ts_grid_1d(3), 4, 8 * sizeof(int), NULL, p),
                 TS_ERROR_RUNTIME);
    cr_assert(now_seconds() - t0 < 1.0);

    /* A runner thread of the pool fails to start: nothing runs. */
    ts_host_set_block_concurrency(2);
    atomic_int ran = 0;
    flag_params f = {&ran, 0};
    ts_host_fail_thread_creation_after(0);
    cr_assert_eq(TS_LAUNCH(k_flag, ts_grid_1d(4), 1, 0, NULL, f), TS_ERROR_RUNTIME);
    cr_assert_eq(atomic_load(&ran), 0);

    /* The injection fires once. */
    cr_assert_eq(TS_LAUNCH(k_flag, ts_grid_1d(4), 1, 0, NULL, f), TS_SUCCESS);
    cr_assert_eq(atomic_load(&ran), 4);
}

/* ---- the runtime functions ----------------------------------------------------------------- */

Test(host_runtime, device_queries) {
    cr_assert_eq(ts_backend_id(), TS_BACKEND_HOST);
    int count = -1, device = -1;
    cr_assert_eq(ts_backend_device_count(&count), TS_SUCCESS);
    cr_assert_eq(count, 1);
    cr_assert_eq(ts_backend_device_set(0), TS_SUCCESS);
    cr_assert_eq(ts_backend_device_set(1), TS_ERROR_INVALID_DEVICE);
    cr_assert_eq(ts_backend_device_get(&device), TS_SUCCESS);
    cr_assert_eq(device, 0);
    cr_assert_eq(ts_backend_device_synchronize(), TS_SUCCESS);

    ts_device_props props;
    memset(&props, 0x5a, sizeof props);
    cr_assert_eq(ts_backend_device_props(0, &props), TS_SUCCESS);
    cr_assert(strncmp(props.name, "host CPU (", 10) == 0, "name '%s'", props.name);
    cr_assert_str_eq(props.arch, "host");
    cr_assert_eq(props.backend, TS_BACKEND_HOST);
    cr_assert_eq(props.sm_count, ts_host_get_block_concurrency());
    cr_assert_eq(props.warp_lanes, 1);
    cr_assert_eq(props.partitions_per_sm, 1);
    cr_assert_eq(props.max_threads_per_block, 32);
    cr_assert_eq(props.max_warps_per_sm, 32);
    cr_assert_eq(props.max_blocks_per_sm, 1);
    cr_assert_eq(props.regs_per_sm, 65536);
    cr_assert_eq(props.max_regs_per_thread, 255);
    cr_assert_eq(props.reg_alloc_unit, 1);
    cr_assert_eq(props.shared_mem_per_block, 232448u);
    cr_assert_eq(props.shared_mem_per_sm, 233472u);
    cr_assert_eq(props.shared_mem_reserved_per_block, 0u);
    cr_assert_eq(props.l2_bytes, 0u);
    cr_assert(props.global_mem_bytes > ((size_t)64 << 20));
    cr_assert_eq(props.clock_khz, 0);
    cr_assert_eq(props.memory_clock_khz, 0);
    cr_assert_eq(props.memory_bus_bits, 0);
    cr_assert_eq(ts_backend_device_props(1, &props), TS_ERROR_INVALID_DEVICE);

    ts_host_set_block_concurrency(3);
    cr_assert_eq(ts_backend_device_props(0, &props), TS_SUCCESS);
    cr_assert_eq(props.sm_count, 3);
}

Test(host_runtime, memory_functions) {
    void *a = NULL, *b = NULL;
    cr_assert_eq(ts_backend_malloc(&a, 1000), TS_SUCCESS);
    cr_assert_eq(ts_backend_malloc(&b, 1), TS_SUCCESS);
    cr_assert((uintptr_t)a % 256 == 0 && (uintptr_t)b % 256 == 0);
    void *none = &a;
    cr_assert_eq(ts_backend_malloc(&none, 0), TS_ERROR_INVALID_SIZE);
    cr_assert_null(none);

    unsigned char host[1000], back[1000];
    for (int i = 0; i < 1000; ++i) host[i] = (unsigned char)(i * 7);
    ts_stream stream = NULL;
    cr_assert_eq(ts_backend_stream_create(&stream), TS_SUCCESS);
    cr_assert_not_null(stream);
    const ts_memcpy_kind kinds[] = {TS_MEMCPY_HOST_TO_HOST, TS_MEMCPY_HOST_TO_DEVICE,
                                    TS_MEMCPY_DEVICE_TO_HOST, TS_MEMCPY_DEVICE_TO_DEVICE,
                                    TS_MEMCPY_DEFAULT};
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; ++k) {
        memset(a, 0, 1000);
        memset(back, 0, sizeof back);
        int async = (int)(k % 2);
        cr_assert_eq(ts_backend_memcpy(a, host, 1000, kinds[k], stream, async), TS_SUCCESS);
        cr_assert_eq(ts_backend_memcpy(back, a, 1000, kinds[k], stream, async), TS_SUCCESS);
        cr_assert(memcmp(back, host, 1000) == 0, "kind %d", (int)kinds[k]);
    }
    cr_assert_eq(ts_backend_memset(a, 0x3c, 1000, NULL, 0), TS_SUCCESS);
    cr_assert_eq(ts_backend_memset(a, 0x11, 10, stream, 1), TS_SUCCESS);
    const unsigned char *bytes = (const unsigned char *)a;
    cr_assert(bytes[0] == 0x11 && bytes[9] == 0x11 && bytes[10] == 0x3c && bytes[999] == 0x3c);
    cr_assert_eq(ts_backend_memcpy(a, host, 0, TS_MEMCPY_DEFAULT, NULL, 0), TS_SUCCESS);
    cr_assert_eq(ts_backend_stream_synchronize(stream), TS_SUCCESS);
    cr_assert_eq(ts_backend_stream_synchronize(NULL), TS_SUCCESS);
    cr_assert_eq(ts_backend_stream_destroy(stream), TS_SUCCESS);
    cr_assert_eq(ts_backend_free(a), TS_SUCCESS);
    cr_assert_eq(ts_backend_free(b), TS_SUCCESS);
}

Test(host_runtime, events_measure_time) {
    ts_event start = NULL, end = NULL;
    cr_assert_eq(ts_backend_event_create(&start), TS_SUCCESS);
    cr_assert_eq(ts_backend_event_create(&end), TS_SUCCESS);
    float ms = -1.0f;
    cr_assert_eq(ts_backend_event_elapsed_ms(&ms, start, end), TS_ERROR_INVALID_VALUE,
                 "events never recorded have no time");
    cr_assert_eq(ts_backend_event_record(start, NULL), TS_SUCCESS);
    sleep_us(20000);
    cr_assert_eq(ts_backend_event_record(end, NULL), TS_SUCCESS);
    cr_assert_eq(ts_backend_event_synchronize(end), TS_SUCCESS);
    cr_assert_eq(ts_backend_event_elapsed_ms(&ms, start, end), TS_SUCCESS);
    cr_assert(ms >= 19.0f && ms < 2000.0f, "elapsed %.3f ms", (double)ms);
    cr_assert_eq(ts_backend_event_elapsed_ms(&ms, start, start), TS_SUCCESS);
    cr_assert_eq(ms, 0.0f);
    cr_assert_eq(ts_backend_event_destroy(start), TS_SUCCESS);
    cr_assert_eq(ts_backend_event_destroy(end), TS_SUCCESS);
}

Test(host_runtime, settings_round_trip) {
    ts_host_set_deadlock_timeout_ms(1234);
    cr_assert_eq(ts_host_get_deadlock_timeout_ms(), 1234);
    ts_host_set_block_concurrency(1000);
    cr_assert_eq(ts_host_get_block_concurrency(), 64);
    ts_host_set_block_concurrency(0);
    int c = ts_host_get_block_concurrency();
    cr_assert(c >= 2 && c <= 4);
    ts_host_set_seed(42);
    cr_assert_eq(ts_host_get_seed(), 42ull);
}
