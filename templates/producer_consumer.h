/* The producer-consumer kernel template. A kernel describes one pipeline stage of inputs, the
 * output stage and its per-task state, and writes hooks; the template owns the ring of stages and
 * its transaction barriers, the warp roles, register budgets and the persistent loop over tasks.
 * The producer runs ahead into the next task's loads while the consumers finish the last task's
 * epilogue, so stores and loads of consecutive tasks overlap.
 *
 * C has no templates, so this header is included once per kernel after defining:
 *
 *   TS_PC_KERNEL      the kernel's name
 *   TS_PC_PARAMS      its parameter struct type
 *   TS_PC_HOOK(name)  maps a hook name to the kernel's function, e.g. #define TS_PC_HOOK(n) gemm_##n
 *   TS_PC_STAGES      pipeline depth (stages of TS_PC_HOOK(input) in shared memory)
 *   TS_PC_CONSUMERS   consumer warpgroups (one producer warpgroup comes on top)
 *   TS_PC_PRODUCER_REGS, TS_PC_CONSUMER_REGS   register budgets (Hopper setmaxnreg)
 *   TS_PC_LOAD_WARPS  optional, default 1: how many warps run P_load for each stage (at most 4).
 *                     Each waits until the stage is free and calls P_load; the hook tells its share
 *                     of the copies by ts_warp_in_group() (0 .. TS_PC_LOAD_WARPS - 1) and announces
 *                     the stage's bytes from warp 0 only. Several issuing warps keep the copy
 *                     engine fed where one warp's issue loop would take as long as a stage's
 *                     compute (tens of dependent instructions per copy). Under warp specialization
 *                     the template has the other load warps arrive on the stage's full barrier
 *                     after their P_load (below)
 *   TS_PC_COMPUTE_WAITS  optional, default 0; 1: P_compute commits and waits for its own
 *                     multiplies, none running when it returns (with TS_PC_RELEASE_LAG, at most
 *                     the group it just committed), and the template neither commits nor waits
 *                     after it but for the last stage of a task (on Hopper a commit with nothing
 *                     issued costs a placeholder multiply, which queues behind the other
 *                     consumers' on the tensor cores)
 *   TS_PC_RELEASE_LAG optional, default 0; 1: a consumer hands a stage back one stage late, once
 *                     the next stage's multiplies are issued and the stage's own have finished,
 *                     for a compute that still reads the previous stage (attention's V)
 *   TS_PC_CONSUMER_BARRIER  optional, default 0; 1 gives each consumer warpgroup a transaction
 *                     barrier of its own (arrival count 1), for operands the warpgroup loads itself
 *                     rather than through the stages: a tile that lasts the whole task, which it may
 *                     fetch for its next task while finishing this one. P_consumer then has a field
 *                     `ts_pc_consumer pc` (templates/consumer_info.h), filled before each P_init
 *   TS_PC_CONSUMER_SCRATCH  optional, default 0; with TS_PC_CONSUMER_BARRIER, floats of shared
 *                     memory each consumer warpgroup has to itself (pc.scratch)
 *   TS_PC_CONSUMER_ITERS  optional, default 0; 1: a consumer warpgroup computes only the first
 *                     P_consumer_iters(p, t, consumer, iters) stages of a task and hands the others
 *                     back once they have landed, without calling compute (stages in which its
 *                     part of the work is empty, such as fully masked scores); the loop over the
 *                     computed stages is the same code as without it
 *   TS_PC_PERSISTENT_CONSUMER  optional, default 0; 1: one P_consumer lives through a consumer
 *                     warpgroup's tasks (see P_consumer). Off where nothing crosses tasks: a
 *                     consumer declared per task leaves the compiler more room
 *   TS_PC_EARLY       optional, default 0; 1: the launcher launches early (TS_LAUNCH_CLUSTER_EARLY,
 *                     backends/backend.h): the kernel's set-up (P_prefetch, the barriers, the
 *                     cluster's first sync) overlaps the end of the stream's previous kernel, every
 *                     thread then waits for that kernel (ts_grid_wait_prior) before any hook runs,
 *                     and the stream's next kernel may launch early in turn (ts_grid_launch_next).
 *                     For short kernels, whose launch and set-up are a large part of their time
 *   TS_PC_PREFETCH    optional, default 0; 1: warp 0 calls void P_prefetch(const PARAMS *p)
 *                     first (tensor maps into the copy engine's cache: ts_async_prefetch,
 *                     ops/async_prefetch.h)
 *   TS_PC_CLUSTER     optional, default 1: blocks per thread-block cluster (backends/cluster.h),
 *                     at most TS_CLUSTER_MAX. The blocks of a cluster work on the same task at
 *                     once (each tells its part by ts_cluster_rank()), and a stage is refilled
 *                     only once every block's consumers have released it, so that load may
 *                     multicast into all of the cluster's copies of a stage (ts_async_load_cluster)
 *   TS_PC_SCHEDULE    optional: TS_PC_PINGPONG or TS_PC_WARP_SPECIALIZED (below), to run a kernel
 *                     on the schedule its backend does not prefer (the host tests both)
 *
 * and these types and hooks (P = the kernel's prefix):
 *
 *   P_input     one stage of input tiles in shared memory
 *   P_output    the output stage, one per consumer warpgroup, in shared memory
 *   P_task      per-task state, computed by producer and consumers alike in setup
 *   P_consumer  a consumer warpgroup's registers (accumulators), one per task; with
 *               TS_PC_PERSISTENT_CONSUMER one through all of the warpgroup's tasks, zeroed before
 *               the first, so that a task's results may wait in it while the next task's
 *               multiplies run (the GEMM's deferred store)
 *   long long P_tasks(const PARAMS *p)                     how many tasks in all
 *   int  P_setup(const PARAMS *p, long long task, P_task *t)  fill t; return the iterations
 *   void P_load(const PARAMS *p, const P_task *t, P_input *in, ts_tbar *full, int iter)
 *        TS_PC_LOAD_WARPS warps of a warpgroup (ts_warp_in_group() below it): announce the
 *        stage's bytes on full (ts_tbar_expect_bytes, warp 0 only) and start the copies
 *        (ts_async_load), each warp its share
 *   void P_init(const PARAMS *p, const P_task *t, P_consumer *c, P_output *out, int consumer)
 *   int  P_consumer_iters(const PARAMS *p, const P_task *t, int consumer, int iters)
 *        with TS_PC_CONSUMER_ITERS only: how many of the task's iters stages the consumer computes
 *   void P_compute(const PARAMS *p, const P_task *t, P_consumer *c, const P_input *in,
 *                  P_output *out, int iter, int consumer)   a consumer warpgroup consumes a landed
 *        stage (out is its own shared area, for data it keeps across stages). It may issue
 *        asynchronous warpgroup multiplies (ts_wg_mma_*_async, after ts_wg_fence): the template
 *        commits them as one group and hands the stage back only once that group has finished
 *        (see TS_PC_RELEASE_LAG); every other read of `in` must be done when compute returns.
 *        Before store runs, every group has finished (store reads the accumulators after
 *        ts_wg_acc_fence). With TS_PC_COMPUTE_WAITS the hook commits and waits itself instead.
 *   void P_store(const PARAMS *p, const P_task *t, P_consumer *c, P_output *out, int consumer)
 *        the epilogue of one task
 *   void P_finish(const PARAMS *p, P_consumer *c, P_output *out, int consumer)
 *        after a consumer warpgroup's last task: complete what store left in flight, or (c, with
 *        TS_PC_PERSISTENT_CONSUMER; NULL otherwise) left waiting
 *
 * The template also defines P_persistent_grid(device, tasks, &grid), the launch planner's grid for
 * the kernel, no larger than the device holds at once (so its blocks may wait on one another's
 * flags), and the launcher P_launch(params, grid, stream), with TS_PC_WARPS warps,
 * TS_PC_SHARED_BYTES of shared memory and clusters of TS_PC_CLUSTER blocks (grid a multiple of it),
 * and undefines the TS_PC_ inputs. Two schedules run the same hooks (below): warp specialization on Hopper and the host,
 * where the warps are threads with real barriers so that CI tests the protocol itself, and
 * ping-pong on CDNA, which the host also runs in tests (tests/kernels/pingpong_kernels.c). */

#include <string.h>

#include "backends/cluster.h"
#include "templates/consumer_info.h"
#include "ops/registers.h"
#include "templates/tile_scheduler.h"
#include "ops/warpgroup.h"
#include "tiles/shared_alloc.h"

#ifndef TS_PC_KERNEL
#error "define TS_PC_KERNEL, TS_PC_PARAMS, TS_PC_HOOK, TS_PC_STAGES and TS_PC_CONSUMERS first"
#endif

/* Schedules. Warp specialization: one producer warpgroup issues the loads and gives its
 * registers to the consumers (Hopper: TMA and setmaxnreg). Ping-pong: no producer; the consumer
 * warpgroups take turns issuing the next stage's loads between their own computations, so each
 * alternates memory and matrix phases (CDNA has no TMA and no register reallocation, where a
 * dedicated producer costs a share of the machine). The backend names its choice
 * (TS_PREFERS_PINGPONG); a kernel may force one with TS_PC_SCHEDULE. */
#define TS_PC_WARP_SPECIALIZED 1
#define TS_PC_PINGPONG 2
#ifndef TS_PC_SCHEDULE
#if defined(TS_PREFERS_PINGPONG)
#define TS_PC_SCHEDULE TS_PC_PINGPONG
#else
#define TS_PC_SCHEDULE TS_PC_WARP_SPECIALIZED
#endif
#endif

#if TS_PC_SCHEDULE == TS_PC_PINGPONG
#define TS_PC_WARPS (4 * TS_PC_CONSUMERS)
#else
#define TS_PC_WARPS (4 * (TS_PC_CONSUMERS + 1))
#endif

#ifndef TS_PC_CLUSTER
#define TS_PC_CLUSTER 1
#endif
#if TS_PC_CLUSTER > TS_CLUSTER_MAX
#error "TS_PC_CLUSTER exceeds this backend's TS_CLUSTER_MAX"
#endif
#if TS_PC_CLUSTER > 1 && TS_PC_SCHEDULE == TS_PC_PINGPONG
#error "the ping-pong schedule runs clusters of one block"
#endif

/* A warp hands stage s back to every block of its cluster (their loads may write into its copy). */
#define TS_PC_RELEASE(bar) ts_tbar_arrive_cluster_all((bar), TS_PC_CLUSTER)

#ifndef TS_PC_RELEASE_LAG
#define TS_PC_RELEASE_LAG 0
#endif

#ifndef TS_PC_EARLY
#define TS_PC_EARLY 0
#endif
#ifndef TS_PC_PREFETCH
#define TS_PC_PREFETCH 0
#endif

#ifndef TS_PC_PERSISTENT_CONSUMER
#define TS_PC_PERSISTENT_CONSUMER 0
#endif
#if TS_PC_PERSISTENT_CONSUMER
#define TS_PC_PERSISTENT_CONSUMER_DECL(c)                                                          \
    TS_PC_HOOK(consumer) c;                                                                        \
    memset(&c, 0, sizeof c)
#define TS_PC_TASK_CONSUMER(c) ((void)0)
#define TS_PC_FINISH_CONSUMER(c) (&(c))
#else
#define TS_PC_PERSISTENT_CONSUMER_DECL(c) ((void)0)
#define TS_PC_TASK_CONSUMER(c) TS_PC_HOOK(consumer) c
#define TS_PC_FINISH_CONSUMER(c) ((TS_PC_HOOK(consumer) *)NULL)
#endif

#ifndef TS_PC_COMPUTE_WAITS
#define TS_PC_COMPUTE_WAITS 0
#endif
/* After a stage's compute: close its multiplies into a group and wait until at most n groups run. */
#if TS_PC_COMPUTE_WAITS
#define TS_PC_COMMIT_WAIT(n) ((void)0)
#else
#define TS_PC_COMMIT_WAIT(n)                                                                       \
    do {                                                                                           \
        ts_wg_commit();                                                                            \
        ts_wg_wait(n);                                                                             \
    } while (0)
#endif

#ifndef TS_PC_LOAD_WARPS
#define TS_PC_LOAD_WARPS 1
#endif
#if TS_PC_LOAD_WARPS < 1 || TS_PC_LOAD_WARPS > 4
#error "TS_PC_LOAD_WARPS is 1 to 4 (the warps of one warpgroup)"
#endif

/* Arrivals on a stage's full barrier. Under warp specialization every load warp arrives (warp 0
 * with the stage's bytes, the others after their copies), so that a stage cannot land without each
 * load warp's turn at it: a load warp whose copies a stage does not wait for (rank 1's B warp in
 * a cluster, where one block's multicast brings a tile whose rows are one chunk) would otherwise
 * fall laps behind the others, and its next wait on an empty barrier would take a later phase of
 * the same parity for the one it wants, a deadlock. Ping-pong's load warps are consumers, whose
 * own stages bound them. */
#if TS_PC_SCHEDULE == TS_PC_PINGPONG
#define TS_PC_FULL_ARRIVALS 1
#else
#define TS_PC_FULL_ARRIVALS TS_PC_LOAD_WARPS
#endif

#ifndef TS_PC_CONSUMER_BARRIER
#define TS_PC_CONSUMER_BARRIER 0
#endif
#ifndef TS_PC_CONSUMER_ITERS
#define TS_PC_CONSUMER_ITERS 0
#endif
#if TS_PC_CONSUMER_ITERS
#define TS_PC_LIVE_ITERS(t, iters) TS_PC_HOOK(consumer_iters)(p, &(t), consumer, (iters))
#else
#define TS_PC_LIVE_ITERS(t, iters) (iters)
#endif
#ifndef TS_PC_CONSUMER_SCRATCH
#define TS_PC_CONSUMER_SCRATCH 0
#endif
#if TS_PC_CONSUMER_BARRIER
#define TS_PC_CONSUMER_INFO(c, task, round, live)                                                  \
    do {                                                                                           \
        (c).pc.bar = &consumer_bars[consumer];                                                     \
        (c).pc.next_task = (task) + step < tasks ? (task) + step : -1;                             \
        (c).pc.round = (round);                                                                    \
        (c).pc.live = (live);                                                                      \
        (c).pc.scratch = TS_PC_CONSUMER_SCRATCH ? consumer_scratch + consumer * TS_PC_CONSUMER_SCRATCH : NULL; \
    } while (0)
#else
#define TS_PC_CONSUMER_INFO(c, task, round, live) ((void)0)
#endif

#ifndef TS_PC_RING_DEFINED
#define TS_PC_RING_DEFINED
/* A place in the ring of stages: the stage, and the parity of the laps round the ring so far (the
 * phase its barriers are in). Kept by increments rather than taken from a count of stages with a
 * division, which for a ring of three stages is a 64-bit division every stage, on the path from a
 * stage's release to the next one's products. */
typedef struct {
    int stage, phase;
} ts_pc_ring;
#endif
#define TS_PC_RING_NEXT(r)                                                                         \
    do {                                                                                           \
        if (++(r).stage == TS_PC_STAGES) {                                                         \
            (r).stage = 0;                                                                         \
            (r).phase ^= 1;                                                                        \
        }                                                                                          \
    } while (0)

TS_KERNEL(TS_PC_KERNEL, TS_PC_WARPS, TS_PC_PARAMS, p) {
    ts_smem smem = ts_smem_begin();
    TS_PC_HOOK(input) *stages = (TS_PC_HOOK(input) *)ts_smem_take(
        &smem, sizeof(TS_PC_HOOK(input)) * TS_PC_STAGES, TS_SHARED_ALIGN);
    TS_PC_HOOK(output) *outputs = (TS_PC_HOOK(output) *)ts_smem_take(
        &smem, sizeof(TS_PC_HOOK(output)) * TS_PC_CONSUMERS, TS_SHARED_ALIGN);
    ts_tbar *full = (ts_tbar *)ts_smem_take(&smem, sizeof(ts_tbar) * TS_PC_STAGES, 8);
    ts_tbar *empty = (ts_tbar *)ts_smem_take(&smem, sizeof(ts_tbar) * TS_PC_STAGES, 8);
#if TS_PC_CONSUMER_BARRIER
    ts_tbar *consumer_bars = (ts_tbar *)ts_smem_take(&smem, sizeof(ts_tbar) * TS_PC_CONSUMERS, 8);
    float *consumer_scratch =
        (float *)ts_smem_take(&smem, sizeof(float) * TS_PC_CONSUMER_SCRATCH * TS_PC_CONSUMERS, 16);
#endif
#if TS_PC_PREFETCH
    if (ts_warp_id() == 0) TS_PC_HOOK(prefetch)(p);
#endif
    if (ts_warp_id() == 0) {
        for (int s = 0; s < TS_PC_STAGES; ++s) {
            ts_tbar_init(&full[s], TS_PC_FULL_ARRIVALS);
            /* Every consumer warp of every block of the cluster hands a stage back. */
            ts_tbar_init(&empty[s], 4 * TS_PC_CONSUMERS * TS_PC_CLUSTER);
        }
#if TS_PC_CONSUMER_BARRIER
        for (int c = 0; c < TS_PC_CONSUMERS; ++c) ts_tbar_init(&consumer_bars[c], 1);
#endif
    }
    /* The barriers must be initialised cluster-wide before any block signals another's. */
    ts_cluster_sync();
#if TS_PC_EARLY
    ts_grid_launch_next();
    ts_grid_wait_prior();
#endif

    /* The blocks of a cluster take the same tasks. */
    const long long tasks = TS_PC_HOOK(tasks)(p);
    const long long first = ts_block_x() / TS_PC_CLUSTER, step = ts_grid_x() / TS_PC_CLUSTER;
#if TS_PC_SCHEDULE == TS_PC_PINGPONG
    const int consumer = ts_warpgroup_id();
    /* Every warp follows the load cursor (which task and iteration the next load is), so that
     * whichever warpgroup's turn it is knows what to load; only its first TS_PC_LOAD_WARPS warps
     * issue. Loads run TS_PC_STAGES - 1 stages ahead of the computation. This schedule keeps counts
     * of stages, not ts_pc_ring places: on gfx942 the places (stage, phase, the first lap, whose
     * turn) take more VGPRs, and its stage counts (2 for the GEMM, 1 for attention) make the
     * divisions shifts. */
    long long load_task = first, load_ring = 0;
    int load_iter = 0, load_iters = 0;
    TS_PC_HOOK(task) lt;
    memset(&lt, 0, sizeof lt); /* read only once set, but compilers cannot always tell */
    if (load_task < tasks) load_iters = TS_PC_HOOK(setup)(p, load_task, &lt);
    while (load_task < tasks && load_iters == 0) {
        load_task += step;
        if (load_task < tasks) load_iters = TS_PC_HOOK(setup)(p, load_task, &lt);
    }
#define TS_PC_ISSUE_NEXT_LOAD()                                                                    \
    do {                                                                                           \
        if (load_task < tasks) {                                                                   \
            const int s_ = (int)(load_ring % TS_PC_STAGES);                                        \
            if (consumer == (int)(load_ring % TS_PC_CONSUMERS) && ts_warp_in_group() < TS_PC_LOAD_WARPS) { \
                if (load_ring >= TS_PC_STAGES)                                                     \
                    ts_tbar_wait(&empty[s_], (int)((load_ring / TS_PC_STAGES - 1) & 1));           \
                TS_PC_HOOK(load)(p, &lt, &stages[s_], &full[s_], load_iter);                       \
            }                                                                                      \
            ++load_ring;                                                                           \
            if (++load_iter == load_iters) {                                                       \
                load_iter = 0;                                                                     \
                load_iters = 0;                                                                    \
                while (load_iters == 0 && (load_task += step) < tasks)                             \
                    load_iters = TS_PC_HOOK(setup)(p, load_task, &lt);                             \
            }                                                                                      \
        }                                                                                          \
    } while (0)
    for (int i = 0; i < TS_PC_STAGES - 1; ++i) TS_PC_ISSUE_NEXT_LOAD();
    long long ring = 0;
    int round = 0;
    TS_PC_PERSISTENT_CONSUMER_DECL(c);
    for (long long task = first; task < tasks; task += step, ++round) {
        TS_PC_HOOK(task) t;
        TS_PC_TASK_CONSUMER(c);
        const int iters = TS_PC_HOOK(setup)(p, task, &t);
        const int live = TS_PC_LIVE_ITERS(t, iters);
        TS_PC_CONSUMER_INFO(c, task, round, live);
        TS_PC_HOOK(init)(p, &t, &c, &outputs[consumer], consumer);
        for (int i = 0; i < live; ++i, ++ring) {
            TS_PC_ISSUE_NEXT_LOAD();
            const int s = (int)(ring % TS_PC_STAGES);
            ts_tbar_wait(&full[s], (int)((ring / TS_PC_STAGES) & 1));
            TS_PC_HOOK(compute)(p, &t, &c, &stages[s], &outputs[consumer], i, consumer);
            TS_PC_COMMIT_WAIT(0);
            ts_tbar_arrive(&empty[s]);
        }
        /* The stages the consumer does not compute (TS_PC_CONSUMER_ITERS): waited for, so that no
         * refill can be announced while their copies still land, and handed back. */
        for (int i = live; i < iters; ++i, ++ring) {
            TS_PC_ISSUE_NEXT_LOAD();
            const int s = (int)(ring % TS_PC_STAGES);
            ts_tbar_wait(&full[s], (int)((ring / TS_PC_STAGES) & 1));
            ts_tbar_arrive(&empty[s]);
        }
        TS_PC_HOOK(store)(p, &t, &c, &outputs[consumer], consumer);
    }
#undef TS_PC_ISSUE_NEXT_LOAD
    TS_PC_HOOK(finish)(p, TS_PC_FINISH_CONSUMER(c), &outputs[consumer], consumer);
#else
    if (ts_warpgroup_id() == 0) {
        ts_set_max_regs_dec(TS_PC_PRODUCER_REGS);
        if (ts_warp_in_group() < TS_PC_LOAD_WARPS) {
            ts_pc_ring ring = {0, 0}; /* the next stage to fill, across tasks */
            int lapped = 0;           /* whether every stage has been filled once */
            for (long long task = first; task < tasks; task += step) {
                TS_PC_HOOK(task) t;
                const int iters = TS_PC_HOOK(setup)(p, task, &t);
                for (int i = 0; i < iters; ++i) {
                    const int s = ring.stage;
                    /* The stage's previous fill must have been consumed (in the last lap). */
                    if (lapped) ts_tbar_wait(&empty[s], ring.phase ^ 1);
                    TS_PC_HOOK(load)(p, &t, &stages[s], &full[s], i);
#if TS_PC_LOAD_WARPS > 1
                    if (ts_warp_in_group() != 0) ts_tbar_arrive(&full[s]);
#endif
                    TS_PC_RING_NEXT(ring);
                    lapped |= ring.stage == 0;
                }
            }
        }
    } else {
        ts_set_max_regs_inc(TS_PC_CONSUMER_REGS);
        const int consumer = ts_warpgroup_id() - 1;
        ts_pc_ring ring = {0, 0};
        int round = 0;
        TS_PC_PERSISTENT_CONSUMER_DECL(c);
        for (long long task = first; task < tasks; task += step, ++round) {
            TS_PC_HOOK(task) t;
            TS_PC_TASK_CONSUMER(c);
            const int iters = TS_PC_HOOK(setup)(p, task, &t);
            const int live = TS_PC_LIVE_ITERS(t, iters);
            TS_PC_CONSUMER_INFO(c, task, round, live);
            TS_PC_HOOK(init)(p, &t, &c, &outputs[consumer], consumer);
            int previous = -1;
            for (int i = 0; i < live; ++i) {
                const int s = ring.stage;
                ts_tbar_wait(&full[s], ring.phase);
                TS_PC_HOOK(compute)(p, &t, &c, &stages[s], &outputs[consumer], i, consumer);
#if TS_PC_RELEASE_LAG
                /* Keep this stage's multiplies running while the previous stage's finish; only
                 * then is the previous stage free to refill. */
                TS_PC_COMMIT_WAIT(1);
                if (previous >= 0) TS_PC_RELEASE(&empty[previous]);
                previous = s;
#else
                TS_PC_COMMIT_WAIT(0);
                TS_PC_RELEASE(&empty[s]);
#endif
                TS_PC_RING_NEXT(ring);
            }
#if !TS_PC_COMPUTE_WAITS || TS_PC_RELEASE_LAG
            ts_wg_wait(0);
#endif
            if (previous >= 0) TS_PC_RELEASE(&empty[previous]);
            /* The stages the consumer does not compute (TS_PC_CONSUMER_ITERS): waited for, so that
             * no refill can be announced while their copies still land, and handed back. */
            for (int i = live; i < iters; ++i) {
                ts_tbar_wait(&full[ring.stage], ring.phase);
                TS_PC_RELEASE(&empty[ring.stage]);
                TS_PC_RING_NEXT(ring);
            }
            TS_PC_HOOK(store)(p, &t, &c, &outputs[consumer], consumer);
        }
        TS_PC_HOOK(finish)(p, TS_PC_FINISH_CONSUMER(c), &outputs[consumer], consumer);
    }
#endif
#if TS_PC_CLUSTER > 1
    /* No block leaves while another may still write its stages or arrive on its barriers. */
    ts_cluster_sync();
#endif
}

/* Shared memory the launcher asks for: the same carving as above. */
#define TS_PC_SHARED_BYTES                                                                         \
    (TS_ALIGN_UP(sizeof(TS_PC_HOOK(input)) * TS_PC_STAGES, TS_SHARED_ALIGN) +                      \
     TS_ALIGN_UP(sizeof(TS_PC_HOOK(output)) * TS_PC_CONSUMERS, 8) + 2 * sizeof(ts_tbar) * TS_PC_STAGES +   \
     (TS_PC_CONSUMER_BARRIER ? sizeof(ts_tbar) * TS_PC_CONSUMERS : 0) +                             \
     (TS_PC_CONSUMER_BARRIER && TS_PC_CONSUMER_SCRATCH ? 16 + sizeof(float) * TS_PC_CONSUMER_SCRATCH * TS_PC_CONSUMERS : 0))

/* The kernel's resources for the launch planner (registers are left to the compiler's launch
 * bounds), and its persistent grid for `tasks` tasks on a device (templates/tile_scheduler.h). */
static inline ts_kernel_resources TS_PC_HOOK(resources)(void) {
    ts_kernel_resources r;
    r.warps_per_block = TS_PC_WARPS;
    r.regs_per_thread = 0;
    r.shared_mem_per_block = TS_PC_SHARED_BYTES;
    return r;
}
/* The most blocks the device holds at once in clusters of TS_PC_CLUSTER (INT_MAX for clusters of
 * one, which the launch planner bounds): a persistent grid must be resident all at once. */
static ts_status TS_PC_HOOK(max_resident_blocks)(int *blocks) {
#if TS_PC_CLUSTER > 1
    /* Kept after the first query where the backend's answer never changes (a GPU's). */
    static int cached = 0;
    int capacity = TS_CLUSTER_CAPACITY_CACHED ? cached : 0;
    if (capacity == 0) {
        int clusters = 0;
        const ts_status st = TS_CLUSTER_CAPACITY(TS_PC_KERNEL, TS_PC_WARPS, TS_PC_SHARED_BYTES, TS_PC_CLUSTER,
                                                 &clusters);
        if (st != TS_SUCCESS) return st;
        if (clusters < 1) return TS_ERROR_RESOURCES;
        capacity = clusters;
        if (TS_CLUSTER_CAPACITY_CACHED) cached = capacity;
    }
    *blocks = capacity * TS_PC_CLUSTER;
#else
    *blocks = 0x7fffffff;
#endif
    return TS_SUCCESS;
}

/* The grid the launcher uses for `tasks` tasks: the planner's persistent grid, no larger than the
 * clusters the device holds at once (so a kernel may rely on every block running together). */
static inline ts_status TS_PC_HOOK(persistent_grid)(const ts_device_props *device, long long tasks, int *grid) {
    const ts_kernel_resources r = TS_PC_HOOK(resources)();
    int most = 0;
    ts_status s = ts_sched_persistent_grid(device, &r, tasks, TS_PC_CLUSTER, grid);
    if (s == TS_SUCCESS) s = TS_PC_HOOK(max_resident_blocks)(&most);
    if (s == TS_SUCCESS && *grid > most) *grid = most;
    return s;
}

/* The kernel's launcher, TS_PC_HOOK(launch)(params, grid, stream): the template's warps and shared
 * memory, so a kernel never restates them. A grid larger than the device holds at once is cut to
 * that (the tasks are strided by the grid, so any grid covers them all). */
static ts_status TS_PC_HOOK(launch)(const TS_PC_PARAMS *params, int grid, ts_stream stream) {
    int most = 0;
    const ts_status s = TS_PC_HOOK(max_resident_blocks)(&most);
    if (s != TS_SUCCESS) return s;
    if (grid > most) grid = most;
#if TS_PC_EARLY
    return TS_LAUNCH_CLUSTER_EARLY(TS_PC_KERNEL, ts_grid_1d((unsigned)grid), TS_PC_WARPS, TS_PC_SHARED_BYTES, stream,
                                   *params, TS_PC_CLUSTER);
#else
    return TS_LAUNCH_CLUSTER(TS_PC_KERNEL, ts_grid_1d((unsigned)grid), TS_PC_WARPS, TS_PC_SHARED_BYTES, stream,
                             *params, TS_PC_CLUSTER);
#endif
}

#if TS_PC_CLUSTER == 1
/* Kernels of clusters of one whose blocks still meet in thread-block clusters at run time, to add
 * their results through each other's shared memory (ts_cluster_map) in a hook: the launcher
 * TS_PC_HOOK(launch_clusters)(params, grid, cluster, stream) runs the grid in clusters of `cluster`
 * consecutive blocks (grid a multiple of it), each block still taking its own tasks, and refuses
 * (TS_ERROR_RESOURCES) a grid larger than the device holds at once, since the blocks of a cluster
 * wait for one another; TS_PC_HOOK(cluster_capacity)(cluster, &clusters) is how many such
 * clusters it holds. The ring of stages starts the block's shared memory (the first
 * TS_SHARED_ALIGN take of ts_smem_begin above), so a hook that runs once the block's last stage is
 * consumed may reuse it. */
static inline ts_status TS_PC_HOOK(cluster_capacity)(int cluster, int *clusters) {
    static int cached[TS_CLUSTER_MAX + 1];
    if (cluster < 1 || cluster > TS_CLUSTER_MAX) return TS_ERROR_UNSUPPORTED;
    int n = TS_CLUSTER_CAPACITY_CACHED ? cached[cluster] : 0;
    if (n == 0) {
        const ts_status st = TS_CLUSTER_CAPACITY(TS_PC_KERNEL, TS_PC_WARPS, TS_PC_SHARED_BYTES, cluster, &n);
        if (st != TS_SUCCESS) return st;
        if (TS_CLUSTER_CAPACITY_CACHED) cached[cluster] = n;
    }
    *clusters = n;
    return TS_SUCCESS;
}

static inline ts_status TS_PC_HOOK(launch_clusters)(const TS_PC_PARAMS *params, int grid, int cluster, ts_stream stream) {
    int clusters = 0;
    const ts_status s = TS_PC_HOOK(cluster_capacity)(cluster, &clusters);
    if (s != TS_SUCCESS) return s;
    if (grid % cluster != 0) return TS_ERROR_INVALID_VALUE;
    if (grid / cluster > clusters) return TS_ERROR_RESOURCES;
#if TS_PC_EARLY
    return TS_LAUNCH_CLUSTER_EARLY(TS_PC_KERNEL, ts_grid_1d((unsigned)grid), TS_PC_WARPS, TS_PC_SHARED_BYTES, stream,
                                   *params, cluster);
#else
    return TS_LAUNCH_CLUSTER(TS_PC_KERNEL, ts_grid_1d((unsigned)grid), TS_PC_WARPS, TS_PC_SHARED_BYTES, stream,
                             *params, cluster);
#endif
}
#endif

/* The inputs belong to this instantiation only; the next kernel defines its own. */
#undef TS_PC_KERNEL
#undef TS_PC_PARAMS
#undef TS_PC_HOOK
#undef TS_PC_STAGES
#undef TS_PC_CONSUMERS
#undef TS_PC_PRODUCER_REGS
#undef TS_PC_CONSUMER_REGS
#undef TS_PC_CLUSTER
#undef TS_PC_RELEASE
#undef TS_PC_RELEASE_LAG
#undef TS_PC_CONSUMER_BARRIER
#undef TS_PC_CONSUMER_SCRATCH
#undef TS_PC_LOAD_WARPS
#undef TS_PC_FULL_ARRIVALS
#undef TS_PC_COMPUTE_WAITS
#undef TS_PC_PERSISTENT_CONSUMER
#undef TS_PC_EARLY
#undef TS_PC_PREFETCH
#undef TS_PC_PERSISTENT_CONSUMER_DECL
#undef TS_PC_TASK_CONSUMER
#undef TS_PC_FINISH_CONSUMER
#undef TS_PC_COMMIT_WAIT
#undef TS_PC_CONSUMER_INFO
#undef TS_PC_CONSUMER_ITERS
#undef TS_PC_LIVE_ITERS
#undef TS_PC_RING_NEXT
