/* Internals of the host backend shared by its macro layer (backends/host/backend.h) and its runtime
 * (backends/host/runtime.c): the per-warp context a kernel thread reads its ids from, the
 * transaction barrier's layout, the launch entry point behind TS_LAUNCH, the barrier functions, and
 * the knobs tests turn (deadlock timeout, shuffle seed, block concurrency, thread-failure
 * injection, a slow warp). A block's mutex and condition variable stay private to runtime.c so that kernel
 * sources need not see <pthread.h>. */
#ifndef TESSERA_BACKENDS_HOST_RUNTIME_HOST_H
#define TESSERA_BACKENDS_HOST_RUNTIME_HOST_H

#include <stddef.h>

#include <tessera/tessera.h>

#include "backends/common.h"

/* One thread per warp, at most 32 warps per block, like 1024 threads on a GPU. */
#define TS_HOST_MAX_WARPS 32
/* Thread-block clusters of up to 8 blocks, CUDA's portable limit. */
#define TS_HOST_MAX_CLUSTER 8
/* Hopper's opt-in limit of dynamic shared memory per block (227 KiB), so that kernels sized for
 * the GPU fit on the host and kernels too big for the GPU fail here too. */
#define TS_HOST_MAX_SHARED_BYTES 232448u
#define TS_HOST_SHARED_PER_SM 233472u
/* Every block's shared arena starts filled with this byte: a kernel that reads shared memory it
 * never wrote sees garbage, as on a GPU, instead of the zeros a fresh allocation often holds. */
#define TS_HOST_SHARED_POISON 0xA5
#define TS_HOST_DEFAULT_DEADLOCK_MS 5000L
#define TS_HOST_DEFAULT_SEED 0x7e55e4a5eed5ULL
/* Tells an initialised ts_tbar from poisoned or stray shared memory. */
#define TS_HOST_TBAR_MAGIC 0x74626172u

/* A kernel as the runtime sees it: TS_KERNEL's wrapper, taking a pointer to the parameter copy. */
typedef void (*ts_host_kernel_fn)(const void *params);

struct ts_host_block; /* barrier counters and shared memory of one running block, and its cluster's lock */

/* What one warp thread knows about itself. The ids are copied here so that reading one is a single
 * load through the thread-local pointer. */
typedef struct ts_host_warp {
    struct ts_host_block *block;
    unsigned char *shared;
    int warp_id;
    int num_warps;
    int cluster_rank, cluster_size;
    int block_x, block_y, block_z;
    int grid_x, grid_y, grid_z;
    /* TS_ONE_LANE regions the warp is inside (backends/host/lane_ops.h): ts_atomic_add_i32 fails
     * the block with TS_ERROR_UNGUARDED_ATOMIC outside one. */
    int one_lane_depth;
} ts_host_warp;

/* The context of the warp this thread runs; NULL outside a kernel. */
extern _Thread_local ts_host_warp *ts_host_current;

/* The transaction barrier: plain integers in shared memory, read and written only under the
 * block's mutex. `bytes` is signed because bytes may land before they are announced. */
typedef struct ts_tbar {
    unsigned magic;
    unsigned phase;   /* the phase in progress, counted from 0 */
    int expected;     /* arrivals per phase */
    int pending;      /* arrivals still missing in the phase in progress */
    long long bytes;  /* announced minus landed bytes of the phase in progress */
} ts_tbar;

/* The launch behind TS_LAUNCH and TS_LAUNCH_CLUSTER: checks the configuration, then runs every
 * block, in clusters of `cluster` blocks consecutive in x that run together, and returns when the
 * grid is done. Statuses: TS_ERROR_RESOURCES (warps outside 1..max_warps or above 32, shared
 * memory above TS_HOST_MAX_SHARED_BYTES), TS_ERROR_INVALID_SIZE (a grid dimension of 0),
 * TS_ERROR_SIZE_OVERFLOW (a grid beyond the GPU's limits), TS_ERROR_UNSUPPORTED (a cluster outside
 * 1..TS_HOST_MAX_CLUSTER), TS_ERROR_INVALID_VALUE (a grid x the cluster does not divide),
 * TS_ERROR_OUT_OF_MEMORY, TS_ERROR_RUNTIME (a thread could not be created), TS_ERROR_DEADLOCK,
 * or the status of a contract violation a kernel made (see ts_host_fail). */
ts_status ts_host_launch(ts_host_kernel_fn kernel, ts_grid grid, int warps, int max_warps,
                         size_t shared_bytes, ts_stream stream, const void *params,
                         size_t params_size, int cluster);

/* Barriers, called from warp threads only. A warp that reaches one in a block that has failed
 * leaves its thread there. */
void ts_host_sync_block(void);
void ts_host_sync_named(int id, int warps);
void ts_host_arrive_named(int id, int warps);
void ts_host_tbar_init(ts_tbar *bar, int arrivals);
void ts_host_tbar_arrive(ts_tbar *bar);
void ts_host_tbar_expect_bytes(ts_tbar *bar, unsigned bytes);
void ts_host_tbar_complete_bytes(ts_tbar *bar, unsigned bytes);
void ts_host_tbar_wait(ts_tbar *bar, int parity);
int ts_host_tbar_test(ts_tbar *bar, int parity);
void ts_host_copy_async_g2s(void *dst, const void *src, unsigned bytes, ts_tbar *bar);
/* The cluster (backends/host/cluster.h): the barrier of every warp of its blocks, where warps that
 * have returned count as arrived; and the address of p, in the calling block's shared memory, in
 * block `rank`'s. Arrivals and bytes may go to a ts_tbar in any block of the cluster; waits and
 * initialisation only to the block's own (as on a GPU, where a wait reads only its own). */
void ts_host_cluster_sync(void);
void *ts_host_cluster_map(const void *p, int rank);

/* Ends the calling warp's block with `status` (the launch returns it) and leaves the thread. The
 * host backend uses it for contract violations a GPU would fault on or hang at:
 * TS_ERROR_MISALIGNED for a misaligned asynchronous copy, TS_ERROR_LAUNCH_FAILED for a barrier id
 * or count out of range, an uninitialised or over-arrived ts_tbar, a copy outside shared memory;
 * TS_ERROR_UNGUARDED_ATOMIC for ts_atomic_add_i32 outside TS_ONE_LANE (every lane of a GPU warp
 * would add), TS_ERROR_INVALID_ENUM for a tile load or store of a global layout whose dtype is none
 * of the three, TS_ERROR_INVALID_VALUE for a 16-bit register tile's load or store of a global layout
 * of another dtype (ops/memory.h). */
_Noreturn void ts_host_fail(ts_status status);

/* Knobs, mostly for tests. Each setting applies to launches that start after it. */
/* ms <= 0 restores the default: TS_HOST_DEADLOCK_MS from the environment, else 5000. */
void ts_host_set_deadlock_timeout_ms(long ms);
long ts_host_get_deadlock_timeout_ms(void);
/* The seed of the block order; without a call, TS_HOST_SEED from the environment, else
 * TS_HOST_DEFAULT_SEED. The same seed and grid give the same order of block starts. */
void ts_host_set_seed(unsigned long long seed);
unsigned long long ts_host_get_seed(void);
/* Blocks that run at once; n <= 0 restores the default, min(4, processors) but at least 2.
 * 1 makes the order of block starts exactly the shuffled order. At most 64. */
void ts_host_set_block_concurrency(int n);
int ts_host_get_block_concurrency(void);
/* Fault injection: after n more successful thread creations, the next one fails (once);
 * n < 0 turns it off. */
void ts_host_fail_thread_creation_after(int n);
/* A slow warp: warp `warp` (ts_warp_id()) of the blocks of cluster rank `rank` (0 for clusters of
 * one) sleeps `us` microseconds before each of its waits on a transaction barrier, so that the
 * other warps run as far ahead as the kernel's protocol lets them (a GPU may delay any warp that
 * long). A protocol that bounds no warp's lag shows here as a wrong result or a deadlock.
 * warp < 0 or us <= 0 restores the default: TS_HOST_SLOW_WARP=RANK:WARP:US from the environment,
 * else none. */
void ts_host_set_slow_warp(int rank, int warp, long us);

#endif
