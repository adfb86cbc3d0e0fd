/* The host backend's runtime: the functions of backends/runtime.h for a CPU "device", and the
 * launch engine behind TS_LAUNCH. A launch runs every block of the grid, a few blocks at a time,
 * in an order shuffled from a seed, so that a kernel which depends on block order fails its tests.
 * A block is one OS thread per warp around one shared-memory arena; the blocks of a thread-block
 * cluster run together and share one mutex and one condition variable that every barrier of the
 * cluster waits on, so that a block may arrive on another's transaction barriers, multicast into
 * their shared memory and read it (backends/host/cluster.h). A wait that outlasts the deadlock
 * timeout fails the cluster: its warps leave their threads at the next barrier and the launch
 * returns TS_ERROR_DEADLOCK, so that a broken synchronization protocol ends a test instead of
 * hanging it. A registry of live allocations, streams and events refuses a handle freed twice or
 * never handed out. Nothing here prints, exits or aborts. */
#include "backends/host/runtime_host.h"
#include "backends/runtime.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h> /* snprintf for the device name */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#if defined(__SANITIZE_ADDRESS__)
#define TS_HOST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TS_HOST_ASAN 1
#endif
#endif
#if defined(TS_HOST_ASAN)
#include <sanitizer/asan_interface.h>
#endif

/* Warp threads hold register tiles on their stacks, which are arrays on the host and can reach
 * hundreds of KiB in a large kernel (more under AddressSanitizer's redzones). */
#define TS_HOST_WARP_STACK_BYTES ((size_t)8 << 20)
#define TS_HOST_MAX_CONCURRENCY 64
/* The launch copies the parameter struct, as a GPU launch passes it by value; this alignment
 * covers any member a parameter struct may align. */
#define TS_HOST_PARAMS_ALIGN 256

_Thread_local ts_host_warp *ts_host_current;

/* ---- settings ------------------------------------------------------------------------------ */

static pthread_once_t ts_host_settings_once = PTHREAD_ONCE_INIT;
/* Written once under ts_host_settings_once, read-only afterwards. */
static long ts_host_env_deadlock_ms;
static unsigned long long ts_host_env_seed;
static int ts_host_processors;
static int ts_host_default_concurrency;

static atomic_long ts_host_deadlock_ms;
static atomic_ullong ts_host_seed;
static atomic_int ts_host_concurrency;
static atomic_int ts_host_thread_failure_countdown = -1;
static int ts_host_env_slow_rank, ts_host_env_slow_warp = -1;
static long ts_host_env_slow_us;
static atomic_int ts_host_slow_rank, ts_host_slow_warp = -1;
static atomic_long ts_host_slow_us;

static void ts_host_store_slow_warp(int rank, int warp, long us) {
    atomic_store(&ts_host_slow_rank, rank);
    atomic_store(&ts_host_slow_us, us);
    atomic_store(&ts_host_slow_warp, warp);
}

static void ts_host_settings_init(void) {
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    if (n < 1) n = 1;
    ts_host_processors = n > INT_MAX ? INT_MAX : (int)n;
    /* At least two blocks at once even on one processor, so that blocks really overlap. */
    int c = ts_host_processors < 4 ? ts_host_processors : 4;
    ts_host_default_concurrency = c < 2 ? 2 : c;

    ts_host_env_deadlock_ms = TS_HOST_DEFAULT_DEADLOCK_MS;
    const char *text = getenv("TS_HOST_DEADLOCK_MS");
    if (text && *text) {
        char *end = NULL;
        errno = 0;
        long ms = strtol(text, &end, 10);
        if (errno == 0 && end && *end == '\0' && ms > 0) ts_host_env_deadlock_ms = ms;
    }
    ts_host_env_seed = TS_HOST_DEFAULT_SEED;
    text = getenv("TS_HOST_SEED");
    if (text && *text) {
        char *end = NULL;
        errno = 0;
        unsigned long long seed = strtoull(text, &end, 0);
        if (errno == 0 && end && *end == '\0') ts_host_env_seed = seed;
    }
    /* TS_HOST_SLOW_WARP=RANK:WARP:US, as ts_host_set_slow_warp */
    text = getenv("TS_HOST_SLOW_WARP");
    int rank = 0, warp = -1;
    long us = 0;
    if (text && sscanf(text, "%d:%d:%ld", &rank, &warp, &us) == 3 && warp >= 0 && us > 0) {
        ts_host_env_slow_rank = rank;
        ts_host_env_slow_warp = warp;
        ts_host_env_slow_us = us;
    }
    ts_host_store_slow_warp(ts_host_env_slow_rank, ts_host_env_slow_warp, ts_host_env_slow_us);
    atomic_store(&ts_host_deadlock_ms, ts_host_env_deadlock_ms);
    atomic_store(&ts_host_seed, ts_host_env_seed);
    atomic_store(&ts_host_concurrency, ts_host_default_concurrency);
}

static void ts_host_settings(void) { (void)pthread_once(&ts_host_settings_once, ts_host_settings_init); }

void ts_host_set_deadlock_timeout_ms(long ms) {
    ts_host_settings();
    atomic_store(&ts_host_deadlock_ms, ms > 0 ? ms : ts_host_env_deadlock_ms);
}

long ts_host_get_deadlock_timeout_ms(void) {
    ts_host_settings();
    return atomic_load(&ts_host_deadlock_ms);
}

void ts_host_set_seed(unsigned long long seed) {
    ts_host_settings();
    atomic_store(&ts_host_seed, seed);
}

unsigned long long ts_host_get_seed(void) {
    ts_host_settings();
    return atomic_load(&ts_host_seed);
}

void ts_host_set_block_concurrency(int n) {
    ts_host_settings();
    if (n <= 0) n = ts_host_default_concurrency;
    if (n > TS_HOST_MAX_CONCURRENCY) n = TS_HOST_MAX_CONCURRENCY;
    atomic_store(&ts_host_concurrency, n);
}

int ts_host_get_block_concurrency(void) {
    ts_host_settings();
    return atomic_load(&ts_host_concurrency);
}

void ts_host_fail_thread_creation_after(int n) {
    atomic_store(&ts_host_thread_failure_countdown, n < 0 ? -1 : n);
}

void ts_host_set_slow_warp(int rank, int warp, long us) {
    ts_host_settings();
    if (warp < 0 || us <= 0)
        ts_host_store_slow_warp(ts_host_env_slow_rank, ts_host_env_slow_warp, ts_host_env_slow_us);
    else
        ts_host_store_slow_warp(rank, warp, us);
}

/* The slow warp's delay (ts_host_set_slow_warp), before it takes the lock to wait. */
static void ts_host_slow_down(void) {
    const int warp = atomic_load(&ts_host_slow_warp);
    if (warp < 0 || ts_host_current->warp_id != warp || ts_host_current->cluster_rank != atomic_load(&ts_host_slow_rank))
        return;
    const long us = atomic_load(&ts_host_slow_us);
    struct timespec pause = {(time_t)(us / 1000000), (us % 1000000) * 1000L};
    while (nanosleep(&pause, &pause) != 0 && errno == EINTR) {
    }
}

/* pthread_create behind the fault-injection countdown of ts_host_fail_thread_creation_after. */
static int ts_host_thread_create(pthread_t *thread, const pthread_attr_t *attr,
                                 void *(*start)(void *), void *arg) {
    int left = atomic_load(&ts_host_thread_failure_countdown);
    while (left >= 0) {
        if (atomic_compare_exchange_weak(&ts_host_thread_failure_countdown, &left,
                                         left == 0 ? -1 : left - 1)) {
            if (left == 0) return EAGAIN;
            break;
        }
    }
    return pthread_create(thread, attr, start, arg);
}

/* ---- a running block ----------------------------------------------------------------------- */

/* What the blocks of one cluster share (a lone block is a cluster of one): the lock and the
 * condition variable of every barrier, the status, and the cluster barrier. */
struct ts_host_cluster {
    pthread_mutex_t mutex;
    /* One condition variable for every barrier of the cluster: a completion broadcasts and each
     * waiter re-checks its own condition. A cluster has at most 8 x 32 warps, so the extra
     * wake-ups are cheap, and a failure reaches every waiter with one broadcast. */
    pthread_cond_t cond;
    ts_status status; /* TS_SUCCESS until a block of the cluster fails */
    long timeout_ms;
    int size;
    struct ts_host_block *blocks[TS_HOST_MAX_CLUSTER];
    /* The cluster barrier counts the warps of every block; warps whose kernel has returned count
     * as arrived, as exited threads do on a GPU. */
    int warps, exited, sync_arrived;
    unsigned sync_generation;
    /* Arrivals, landed bytes and returns of any warp of the cluster: a wait is a deadlock only
     * once nothing has moved for the timeout (a cluster's many threads on a few cores may take
     * longer than that to all reach a barrier while every one of them still moves). */
    unsigned long long progress;
};

struct ts_host_block {
    struct ts_host_cluster *cluster;
    int warps;
    ts_host_kernel_fn kernel;
    const void *params;
    unsigned char *shared;
    size_t shared_bytes;
    /* Barriers count arrivals and a generation; a waiter waits for the generation to move, so a
     * barrier is reusable as soon as it releases. */
    int sync_arrived;
    unsigned sync_generation;
    int named_arrived[TS_NAMED_BARRIERS];
    int named_warps[TS_NAMED_BARRIERS];
    unsigned named_generation[TS_NAMED_BARRIERS];
};

_Noreturn static void ts_host_leave_locked(struct ts_host_block *b) {
    (void)pthread_mutex_unlock(&b->cluster->mutex);
    pthread_exit(NULL);
}

_Noreturn static void ts_host_fail_locked(struct ts_host_block *b, ts_status status) {
    if (b->cluster->status == TS_SUCCESS) b->cluster->status = status;
    (void)pthread_cond_broadcast(&b->cluster->cond);
    ts_host_leave_locked(b);
}

_Noreturn void ts_host_fail(ts_status status) {
    struct ts_host_block *b = ts_host_current->block;
    (void)pthread_mutex_lock(&b->cluster->mutex);
    ts_host_fail_locked(b, status == TS_SUCCESS ? TS_ERROR_LAUNCH_FAILED : status);
}

/* Locks the calling warp's block; a warp of a failed block leaves here. */
static struct ts_host_block *ts_host_lock(void) {
    struct ts_host_block *b = ts_host_current->block;
    (void)pthread_mutex_lock(&b->cluster->mutex);
    if (b->cluster->status != TS_SUCCESS) ts_host_leave_locked(b);
    return b;
}

static void ts_host_unlock(struct ts_host_block *b) { (void)pthread_mutex_unlock(&b->cluster->mutex); }

static void ts_host_deadline(const struct ts_host_block *b, struct timespec *deadline) {
    (void)clock_gettime(CLOCK_MONOTONIC, deadline);
    deadline->tv_sec += (time_t)(b->cluster->timeout_ms / 1000);
    deadline->tv_nsec += (b->cluster->timeout_ms % 1000) * 1000000L;
    if (deadline->tv_nsec >= 1000000000L) {
        deadline->tv_sec += 1;
        deadline->tv_nsec -= 1000000000L;
    }
}

/* Sleeps until a broadcast or the deadline. Leaves the thread if the block failed meanwhile;
 * returns nonzero once the deadline has passed with no progress in the cluster since *seen (else
 * it moves the deadline on from now), so that the caller declares a deadlock only if its
 * condition still does not hold. */
static int ts_host_wait(struct ts_host_block *b, struct timespec *deadline, unsigned long long *seen) {
    int rc = pthread_cond_timedwait(&b->cluster->cond, &b->cluster->mutex, deadline);
    if (b->cluster->status != TS_SUCCESS) ts_host_leave_locked(b);
    if (rc == ETIMEDOUT) {
        if (b->cluster->progress == *seen) return 1;
        *seen = b->cluster->progress;
        ts_host_deadline(b, deadline);
        return 0;
    }
    if (rc != 0) ts_host_fail_locked(b, TS_ERROR_RUNTIME);
    return 0;
}

/* Waits (the lock held) until a barrier's generation moves from `from`; a deadlock once the
 * deadline passes with it unmoved. */
static void ts_host_wait_generation(struct ts_host_block *b, const unsigned *generation, unsigned from) {
    struct timespec deadline;
    unsigned long long seen = b->cluster->progress;
    ts_host_deadline(b, &deadline);
    while (*generation == from) {
        if (ts_host_wait(b, &deadline, &seen) && *generation == from) ts_host_fail_locked(b, TS_ERROR_DEADLOCK);
    }
}

void ts_host_sync_block(void) {
    struct ts_host_block *b = ts_host_lock();
    unsigned generation = b->sync_generation;
    b->cluster->progress += 1;
    if (++b->sync_arrived == b->warps) {
        b->sync_arrived = 0;
        b->sync_generation = generation + 1;
        (void)pthread_cond_broadcast(&b->cluster->cond);
    } else {
        ts_host_wait_generation(b, &b->sync_generation, generation);
    }
    ts_host_unlock(b);
}

/* One warp's arrival at named barrier id; returns nonzero if it completed the barrier. */
static int ts_host_named_arrive_locked(struct ts_host_block *b, int id, int warps) {
    if (id < 0 || id >= TS_NAMED_BARRIERS || warps < 1 || warps > b->warps)
        ts_host_fail_locked(b, TS_ERROR_LAUNCH_FAILED);
    /* Every arrival of one use must name the same count; a GPU would misbehave otherwise. */
    if (b->named_arrived[id] == 0)
        b->named_warps[id] = warps;
    else if (b->named_warps[id] != warps)
        ts_host_fail_locked(b, TS_ERROR_LAUNCH_FAILED);
    b->cluster->progress += 1;
    if (++b->named_arrived[id] < warps) return 0;
    b->named_arrived[id] = 0;
    b->named_generation[id] += 1;
    (void)pthread_cond_broadcast(&b->cluster->cond);
    return 1;
}

void ts_host_arrive_named(int id, int warps) {
    struct ts_host_block *b = ts_host_lock();
    (void)ts_host_named_arrive_locked(b, id, warps);
    ts_host_unlock(b);
}

void ts_host_sync_named(int id, int warps) {
    struct ts_host_block *b = ts_host_lock();
    unsigned generation = b->named_generation[id < 0 || id >= TS_NAMED_BARRIERS ? 0 : id];
    if (!ts_host_named_arrive_locked(b, id, warps)) {
        ts_host_wait_generation(b, &b->named_generation[id], generation);
    }
    ts_host_unlock(b);
}

/* ---- the transaction barrier --------------------------------------------------------------- */

/* A ts_tbar must lie in the block's shared memory, 8-byte aligned, as an mbarrier must; checking
 * it here catches a barrier on the stack or in global memory that would only fail on a GPU. */
static int ts_host_in_shared(const struct ts_host_block *b, const void *p, size_t bytes) {
    uintptr_t a = (uintptr_t)p, base = (uintptr_t)b->shared;
    return a >= base && b->shared_bytes >= bytes && a - base <= b->shared_bytes - bytes;
}

static void ts_host_tbar_place(struct ts_host_block *b, const ts_tbar *bar) {
    if ((uintptr_t)bar % 8 != 0 || !ts_host_in_shared(b, bar, sizeof *bar))
        ts_host_fail_locked(b, TS_ERROR_LAUNCH_FAILED);
}

static void ts_host_tbar_check(struct ts_host_block *b, const ts_tbar *bar) {
    ts_host_tbar_place(b, bar);
    if (bar->magic != TS_HOST_TBAR_MAGIC) ts_host_fail_locked(b, TS_ERROR_LAUNCH_FAILED);
}

/* Arrivals and bytes may also go to a barrier in another block of the cluster (a GPU reaches it
 * through its shared::cluster address); waits and initialisation only to the block's own. */
static void ts_host_tbar_check_cluster(struct ts_host_block *b, const ts_tbar *bar) {
    for (int r = 0; r < b->cluster->size; ++r) {
        struct ts_host_block *owner = b->cluster->blocks[r];
        if (ts_host_in_shared(owner, bar, sizeof *bar)) {
            if ((uintptr_t)bar % 8 != 0 || bar->magic != TS_HOST_TBAR_MAGIC) break;
            return;
        }
    }
    ts_host_fail_locked(b, TS_ERROR_LAUNCH_FAILED);
}

/* A phase completes when its arrivals and its bytes are all in; the next starts with the full
 * count of arrivals and no bytes. */
static void ts_host_tbar_advance(struct ts_host_block *b, ts_tbar *bar) {
    if (bar->pending == 0 && bar->bytes == 0) {
        bar->phase += 1;
        bar->pending = bar->expected;
        (void)pthread_cond_broadcast(&b->cluster->cond);
    }
}

/* One arrival. An arrival beyond the expected count would underflow an mbarrier's count: on the
 * host it fails the block. */
static void ts_host_tbar_arrive_locked(struct ts_host_block *b, ts_tbar *bar, long long bytes) {
    if (bar->pending <= 0) ts_host_fail_locked(b, TS_ERROR_LAUNCH_FAILED);
    b->cluster->progress += 1;
    bar->pending -= 1;
    bar->bytes += bytes;
    ts_host_tbar_advance(b, bar);
}

void ts_host_tbar_init(ts_tbar *bar, int arrivals) {
    struct ts_host_block *b = ts_host_lock();
    ts_host_tbar_place(b, bar);
    if (arrivals < 1) ts_host_fail_locked(b, TS_ERROR_LAUNCH_FAILED);
    bar->magic = TS_HOST_TBAR_MAGIC;
    bar->phase = 0;
    bar->expected = arrivals;
    bar->pending = arrivals;
    bar->bytes = 0;
    ts_host_unlock(b);
}

void ts_host_tbar_arrive(ts_tbar *bar) {
    struct ts_host_block *b = ts_host_lock();
    ts_host_tbar_check_cluster(b, bar);
    ts_host_tbar_arrive_locked(b, bar, 0);
    ts_host_unlock(b);
}

void ts_host_tbar_expect_bytes(ts_tbar *bar, unsigned bytes) {
    struct ts_host_block *b = ts_host_lock();
    ts_host_tbar_check_cluster(b, bar);
    ts_host_tbar_arrive_locked(b, bar, (long long)bytes);
    ts_host_unlock(b);
}

void ts_host_tbar_complete_bytes(ts_tbar *bar, unsigned bytes) {
    struct ts_host_block *b = ts_host_lock();
    ts_host_tbar_check_cluster(b, bar);
    b->cluster->progress += 1;
    bar->bytes -= (long long)bytes;
    ts_host_tbar_advance(b, bar);
    ts_host_unlock(b);
}

/* The phase of parity `parity` has completed when the phase in progress has the other parity
 * (mbarrier try_wait.parity): on a fresh barrier a wait on parity 1 returns at once, which is
 * what lets a producer's first wait on an "empty" barrier pass. A waiter that finds the phase of
 * its parity in progress waits for the phase number to move, so it cannot miss a completion even
 * if two phases complete while it sleeps. */
void ts_host_tbar_wait(ts_tbar *bar, int parity) {
    ts_host_slow_down();
    struct ts_host_block *b = ts_host_lock();
    ts_host_tbar_check(b, bar);
    unsigned phase = bar->phase;
    if ((phase & 1u) == ((unsigned)parity & 1u)) {
        struct timespec deadline;
        unsigned long long seen = b->cluster->progress;
        ts_host_deadline(b, &deadline);
        while (bar->phase == phase) {
            if (ts_host_wait(b, &deadline, &seen) && bar->phase == phase)
                ts_host_fail_locked(b, TS_ERROR_DEADLOCK);
        }
    }
    ts_host_unlock(b);
}

int ts_host_tbar_test(ts_tbar *bar, int parity) {
    struct ts_host_block *b = ts_host_lock();
    ts_host_tbar_check(b, bar);
    int done = (bar->phase & 1u) != ((unsigned)parity & 1u);
    ts_host_unlock(b);
    /* A warp that polls lets the warps it waits for run; there are more threads than cores. */
    if (!done) (void)sched_yield();
    return done;
}

void ts_host_copy_async_g2s(void *dst, const void *src, unsigned bytes, ts_tbar *bar) {
    struct ts_host_block *b = ts_host_current->block;
    uintptr_t d = (uintptr_t)dst, base = (uintptr_t)b->shared;
    /* The GPU copy engines fault on these; the host must not quietly accept them. */
    if (d % 16 != 0 || (uintptr_t)src % 16 != 0 || bytes % 16 != 0) ts_host_fail(TS_ERROR_MISALIGNED);
    if (d < base || bytes > b->shared_bytes || d - base > b->shared_bytes - bytes)
        ts_host_fail(TS_ERROR_LAUNCH_FAILED);
    if (bytes > 0) memcpy(dst, src, bytes);
    ts_host_tbar_complete_bytes(bar, bytes);
}

/* ---- the cluster ----------------------------------------------------------------------------- */

static void ts_host_cluster_release_locked(struct ts_host_cluster *c) {
    c->sync_arrived = 0;
    c->sync_generation += 1;
    (void)pthread_cond_broadcast(&c->cond);
}

void ts_host_cluster_sync(void) {
    struct ts_host_block *b = ts_host_lock();
    struct ts_host_cluster *c = b->cluster;
    unsigned generation = c->sync_generation;
    c->progress += 1;
    if (++c->sync_arrived + c->exited >= c->warps) {
        ts_host_cluster_release_locked(c);
    } else {
        ts_host_wait_generation(b, &c->sync_generation, generation);
    }
    ts_host_unlock(b);
}

/* A warp whose kernel has returned counts as arrived at the cluster barrier from then on. */
static void ts_host_cluster_exit(struct ts_host_cluster *c) {
    (void)pthread_mutex_lock(&c->mutex);
    c->exited += 1;
    c->progress += 1;
    if (c->sync_arrived > 0 && c->sync_arrived + c->exited >= c->warps) ts_host_cluster_release_locked(c);
    (void)pthread_mutex_unlock(&c->mutex);
}

void *ts_host_cluster_map(const void *p, int rank) {
    struct ts_host_block *b = ts_host_current->block;
    struct ts_host_cluster *c = b->cluster;
    if (rank < 0 || rank >= c->size || !ts_host_in_shared(b, p, 1)) ts_host_fail(TS_ERROR_LAUNCH_FAILED);
    return c->blocks[rank]->shared + ((const unsigned char *)p - b->shared);
}

/* ---- the handle registry ------------------------------------------------------------------ */

/* The allocations, streams and events this runtime has handed out and not yet taken back, so that
 * a pointer or handle it does not know (freed or destroyed already, an interior pointer, another
 * allocator's) is refused with TS_ERROR_INVALID_VALUE instead of corrupting the heap. An
 * open-addressing hash set of addresses under one mutex: a look-up is a hash and a probe or two.
 * Slots hold the address and its kind; 0 is an empty slot and 1 a removed one (no handle has
 * either address). The table doubles at half full, dropping removed slots. */
enum { TS_HOST_HANDLE_MEMORY = 1, TS_HOST_HANDLE_STREAM = 2, TS_HOST_HANDLE_EVENT = 3 };
#define TS_HOST_HANDLE_EMPTY ((uintptr_t)0)
#define TS_HOST_HANDLE_REMOVED ((uintptr_t)1)

typedef struct ts_host_handle_slot {
    uintptr_t address;
    int kind;
} ts_host_handle_slot;

static pthread_mutex_t ts_host_handles_mutex = PTHREAD_MUTEX_INITIALIZER;
static ts_host_handle_slot *ts_host_handles;
static size_t ts_host_handles_capacity; /* a power of two, or 0 before the first handle */
static size_t ts_host_handles_taken;    /* live and removed slots */

static size_t ts_host_handle_hash(uintptr_t address, size_t capacity) {
    uint64_t z = (uint64_t)address * 0x9e3779b97f4a7c15ULL;
    return (size_t)(z ^ (z >> 29)) & (capacity - 1);
}

/* The slot of address, or of the empty slot where it would go; the table is never full. */
static ts_host_handle_slot *ts_host_handle_find(uintptr_t address) {
    size_t i = ts_host_handle_hash(address, ts_host_handles_capacity);
    ts_host_handle_slot *first_removed = NULL;
    for (;;) {
        ts_host_handle_slot *slot = &ts_host_handles[i];
        if (slot->address == address) return slot;
        if (slot->address == TS_HOST_HANDLE_EMPTY) return first_removed ? first_removed : slot;
        if (slot->address == TS_HOST_HANDLE_REMOVED && !first_removed) first_removed = slot;
        i = (i + 1) & (ts_host_handles_capacity - 1);
    }
}

static int ts_host_handle_grow_locked(void) {
    size_t capacity = ts_host_handles_capacity ? 2 * ts_host_handles_capacity : 64;
    ts_host_handle_slot *old = ts_host_handles, *table = (ts_host_handle_slot *)calloc(capacity, sizeof *table);
    if (!table) return 0;
    size_t old_capacity = ts_host_handles_capacity, live = 0;
    ts_host_handles = table;
    ts_host_handles_capacity = capacity;
    for (size_t i = 0; i < old_capacity; ++i)
        if (old[i].address > TS_HOST_HANDLE_REMOVED) {
            *ts_host_handle_find(old[i].address) = old[i];
            ++live;
        }
    ts_host_handles_taken = live;
    free(old);
    return 1;
}

static ts_status ts_host_handle_add(const void *handle, int kind) {
    const uintptr_t address = (uintptr_t)handle;
    ts_status status = TS_SUCCESS;
    (void)pthread_mutex_lock(&ts_host_handles_mutex);
    if (2 * (ts_host_handles_taken + 1) > ts_host_handles_capacity && !ts_host_handle_grow_locked()) {
        status = TS_ERROR_OUT_OF_MEMORY;
    } else {
        ts_host_handle_slot *slot = ts_host_handle_find(address);
        if (slot->address == TS_HOST_HANDLE_EMPTY) ++ts_host_handles_taken;
        slot->address = address;
        slot->kind = kind;
    }
    (void)pthread_mutex_unlock(&ts_host_handles_mutex);
    return status;
}

/* Whether handle is live with that kind; the caller holds the mutex. */
static int ts_host_handle_live_locked(const void *handle, int kind) {
    const uintptr_t address = (uintptr_t)handle;
    if (ts_host_handles_capacity == 0 || address <= TS_HOST_HANDLE_REMOVED) return 0;
    const ts_host_handle_slot *slot = ts_host_handle_find(address);
    return slot->address == address && slot->kind == kind;
}

/* Takes a live handle out; TS_ERROR_INVALID_VALUE if it is not one of that kind. */
static ts_status ts_host_handle_remove(const void *handle, int kind) {
    ts_status status = TS_ERROR_INVALID_VALUE;
    (void)pthread_mutex_lock(&ts_host_handles_mutex);
    if (ts_host_handle_live_locked(handle, kind)) {
        ts_host_handle_find((uintptr_t)handle)->address = TS_HOST_HANDLE_REMOVED;
        status = TS_SUCCESS;
    }
    (void)pthread_mutex_unlock(&ts_host_handles_mutex);
    return status;
}

/* NULL (the default stream) or a live stream. */
static ts_status ts_host_stream_check(ts_stream stream) {
    if (!stream) return TS_SUCCESS;
    (void)pthread_mutex_lock(&ts_host_handles_mutex);
    const int live = ts_host_handle_live_locked(stream, TS_HOST_HANDLE_STREAM);
    (void)pthread_mutex_unlock(&ts_host_handles_mutex);
    return live ? TS_SUCCESS : TS_ERROR_INVALID_VALUE;
}

/* ---- the launch engine --------------------------------------------------------------------- */

/* One launch: what every block needs, and the queue of clusters in shuffled order. */
typedef struct ts_host_grid_run {
    ts_host_kernel_fn kernel;
    const void *params;
    ts_grid grid;
    int warps;
    int cluster; /* blocks per cluster, consecutive in x */
    size_t shared_bytes;
    long timeout_ms;
    const pthread_attr_t *warp_attr;
    const uint32_t *order;
    uint32_t clusters;
    pthread_mutex_t mutex; /* guards next and status */
    uint32_t next;
    ts_status status; /* the first failure of any block; no new cluster starts after one */
} ts_host_grid_run;

static void *ts_host_warp_main(void *arg) {
    ts_host_warp *warp = (ts_host_warp *)arg;
    ts_host_current = warp;
    warp->block->kernel(warp->block->params);
    ts_host_cluster_exit(warp->block->cluster);
    return NULL;
}

static size_t ts_host_round_up(size_t n, size_t unit) { return (n + unit - 1) / unit * unit; }

/* Runs cluster `index` to its end: an arena per block, every block's warp threads at once, and the
 * join. A failed cluster still joins every thread it created, since they all leave at their next
 * barrier. */
static ts_status ts_host_run_cluster(const ts_host_grid_run *run, uint32_t index) {
    const int size = run->cluster, n = run->warps, threads_n = size * n;
    /* One alignment unit past the end is a redzone for reads beyond the requested size. */
    size_t arena_bytes = ts_host_round_up(run->shared_bytes, TS_SHARED_ALIGN) + TS_SHARED_ALIGN;
    struct ts_host_block *blocks = (struct ts_host_block *)calloc((size_t)size, sizeof *blocks);
    ts_host_warp *warps = (ts_host_warp *)calloc((size_t)threads_n, sizeof *warps);
    pthread_t *threads = (pthread_t *)calloc((size_t)threads_n, sizeof *threads);
    int arenas = 0;
    ts_status status = blocks && warps && threads ? TS_SUCCESS : TS_ERROR_OUT_OF_MEMORY;
    for (; status == TS_SUCCESS && arenas < size; ++arenas) {
        unsigned char *arena = (unsigned char *)aligned_alloc(TS_SHARED_ALIGN, arena_bytes);
        if (!arena) {
            status = TS_ERROR_OUT_OF_MEMORY;
            break;
        }
        memset(arena, TS_HOST_SHARED_POISON, arena_bytes);
#if defined(TS_HOST_ASAN)
        ASAN_POISON_MEMORY_REGION(arena + run->shared_bytes, arena_bytes - run->shared_bytes);
#endif
        blocks[arenas].shared = arena;
    }

    struct ts_host_cluster cluster;
    memset(&cluster, 0, sizeof cluster);
    cluster.status = TS_SUCCESS;
    cluster.timeout_ms = run->timeout_ms;
    cluster.size = size;
    cluster.warps = threads_n;
    int have_mutex = 0, have_cond = 0;
    pthread_condattr_t cond_attr;
    if (status == TS_SUCCESS && pthread_mutex_init(&cluster.mutex, NULL) == 0) have_mutex = 1;
    if (have_mutex && pthread_condattr_init(&cond_attr) == 0) {
        if (pthread_condattr_setclock(&cond_attr, CLOCK_MONOTONIC) == 0 &&
            pthread_cond_init(&cluster.cond, &cond_attr) == 0)
            have_cond = 1;
        (void)pthread_condattr_destroy(&cond_attr);
    }
    if (status == TS_SUCCESS && !have_cond) status = TS_ERROR_RUNTIME;

    if (status == TS_SUCCESS) {
        /* The cluster's blocks are consecutive in x, from a multiple of its size. */
        const unsigned gx = run->grid.x, gy = run->grid.y, per_row = gx / (unsigned)size;
        const uint64_t first = (uint64_t)(index / per_row) * gx + (uint64_t)(index % per_row) * (unsigned)size;
        for (int r = 0; r < size; ++r) {
            struct ts_host_block *b = &blocks[r];
            b->cluster = &cluster;
            b->warps = n;
            b->kernel = run->kernel;
            b->params = run->params;
            b->shared_bytes = run->shared_bytes;
            cluster.blocks[r] = b;
            const uint64_t linear = first + (uint64_t)r;
            for (int i = 0; i < n; ++i) {
                ts_host_warp *w = &warps[r * n + i];
                w->block = b;
                w->shared = b->shared;
                w->warp_id = i;
                w->num_warps = n;
                w->cluster_rank = r;
                w->cluster_size = size;
                w->block_x = (int)(linear % gx);
                w->block_y = (int)(linear / gx % gy);
                w->block_z = (int)(linear / gx / gy);
                w->grid_x = (int)run->grid.x;
                w->grid_y = (int)run->grid.y;
                w->grid_z = (int)run->grid.z;
            }
        }
        int created = 0;
        for (; created < threads_n; ++created) {
            if (ts_host_thread_create(&threads[created], run->warp_attr, ts_host_warp_main,
                                      &warps[created]) != 0) {
                /* Warps already running would wait for the missing ones: fail the cluster so
                 * that they leave at their next barrier. */
                (void)pthread_mutex_lock(&cluster.mutex);
                if (cluster.status == TS_SUCCESS) cluster.status = TS_ERROR_RUNTIME;
                (void)pthread_cond_broadcast(&cluster.cond);
                (void)pthread_mutex_unlock(&cluster.mutex);
                break;
            }
        }
        for (int i = 0; i < created; ++i) (void)pthread_join(threads[i], NULL);
        status = cluster.status;
    }

    if (have_cond) (void)pthread_cond_destroy(&cluster.cond);
    if (have_mutex) (void)pthread_mutex_destroy(&cluster.mutex);
    for (int r = 0; r < arenas; ++r) {
#if defined(TS_HOST_ASAN)
        ASAN_UNPOISON_MEMORY_REGION(blocks[r].shared, arena_bytes);
#endif
        free(blocks[r].shared);
    }
    free(blocks);
    free(warps);
    free(threads);
    return status;
}

/* Takes clusters off the shuffled queue until it is empty or one has failed. */
static void *ts_host_runner(void *arg) {
    ts_host_grid_run *run = (ts_host_grid_run *)arg;
    for (;;) {
        (void)pthread_mutex_lock(&run->mutex);
        if (run->status != TS_SUCCESS || run->next >= run->clusters) {
            (void)pthread_mutex_unlock(&run->mutex);
            break;
        }
        uint32_t index = run->order[run->next++];
        (void)pthread_mutex_unlock(&run->mutex);

        ts_status status = ts_host_run_cluster(run, index);
        if (status != TS_SUCCESS) {
            (void)pthread_mutex_lock(&run->mutex);
            if (run->status == TS_SUCCESS) run->status = status;
            (void)pthread_mutex_unlock(&run->mutex);
        }
    }
    return NULL;
}

static uint64_t ts_host_splitmix64(uint64_t *state) {
    uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* Fisher-Yates over the linear block ids. */
static void ts_host_shuffle(uint32_t *order, uint32_t n, unsigned long long seed) {
    uint64_t state = seed;
    for (uint32_t i = 0; i < n; ++i) order[i] = i;
    for (uint32_t i = n - 1; n > 1 && i > 0; --i) {
        uint64_t r = ts_host_splitmix64(&state) >> 32;
        uint32_t j = (uint32_t)((r * ((uint64_t)i + 1)) >> 32);
        uint32_t t = order[i];
        order[i] = order[j];
        order[j] = t;
    }
}

ts_status ts_host_launch(ts_host_kernel_fn kernel, ts_grid grid, int warps, int max_warps,
                         size_t shared_bytes, ts_stream stream, const void *params,
                         size_t params_size, int cluster) {
    /* Work is synchronous, so every stream is already in order; the stream is only checked. */
    if (!kernel || (!params && params_size > 0)) return TS_ERROR_NULL_POINTER;
    const ts_status stream_status = ts_host_stream_check(stream);
    if (stream_status != TS_SUCCESS) return stream_status;
    if (warps < 1 || warps > max_warps || warps > TS_HOST_MAX_WARPS) return TS_ERROR_RESOURCES;
    if (grid.x < 1 || grid.y < 1 || grid.z < 1) return TS_ERROR_INVALID_SIZE;
    /* The GPU's grid limits, so that a launch refused there is refused here too. */
    if (grid.x > 2147483647u || grid.y > 65535u || grid.z > 65535u) return TS_ERROR_SIZE_OVERFLOW;
    if (shared_bytes > TS_HOST_MAX_SHARED_BYTES) return TS_ERROR_RESOURCES;
    /* As CUDA's launcher: clusters of 1 to 8 blocks along x, which the grid's x divides. */
    if (cluster < 1 || cluster > TS_HOST_MAX_CLUSTER) return TS_ERROR_UNSUPPORTED;
    if (grid.x % (unsigned)cluster != 0) return TS_ERROR_INVALID_VALUE;
    uint64_t blocks = (uint64_t)grid.x * grid.y * grid.z, clusters = blocks / (unsigned)cluster;
    /* The shuffled queue holds one 32-bit id per cluster. */
    if (blocks > UINT32_MAX) return TS_ERROR_UNSUPPORTED;

    ts_host_settings();
    size_t params_bytes = ts_host_round_up(params_size > 0 ? params_size : 1, TS_HOST_PARAMS_ALIGN);
    void *params_copy = aligned_alloc(TS_HOST_PARAMS_ALIGN, params_bytes);
    uint32_t *order = (uint32_t *)malloc((size_t)clusters * sizeof *order);
    if (!params_copy || !order) {
        free(params_copy);
        free(order);
        return TS_ERROR_OUT_OF_MEMORY;
    }
    memset(params_copy, 0, params_bytes);
    if (params_size > 0) memcpy(params_copy, params, params_size);
    ts_host_shuffle(order, (uint32_t)clusters, atomic_load(&ts_host_seed));

    ts_status status = TS_SUCCESS;
    pthread_attr_t warp_attr;
    int have_attr = pthread_attr_init(&warp_attr) == 0;
    if (!have_attr || pthread_attr_setstacksize(&warp_attr, TS_HOST_WARP_STACK_BYTES) != 0)
        status = TS_ERROR_RUNTIME;

    ts_host_grid_run run;
    memset(&run, 0, sizeof run);
    run.kernel = kernel;
    run.params = params_copy;
    run.grid = grid;
    run.warps = warps;
    run.cluster = cluster;
    run.shared_bytes = shared_bytes;
    run.timeout_ms = atomic_load(&ts_host_deadlock_ms);
    run.warp_attr = &warp_attr;
    run.order = order;
    run.clusters = (uint32_t)clusters;
    run.status = status;
    int have_mutex = status == TS_SUCCESS && pthread_mutex_init(&run.mutex, NULL) == 0;
    if (!have_mutex) status = TS_ERROR_RUNTIME;

    if (status == TS_SUCCESS) {
        /* Each runner holds a cluster's blocks at once: the blocks running together stay within
         * the block concurrency (the "SMs" of ts_backend_device_props), as a GPU holds no more
         * clusters than its SMs. */
        int runners = atomic_load(&ts_host_concurrency) / cluster;
        if (runners < 1) runners = 1;
        if ((uint64_t)runners > clusters) runners = (int)clusters;
        /* The calling thread is one of the runners. */
        pthread_t helpers[TS_HOST_MAX_CONCURRENCY];
        int started = 0;
        for (int i = 1; i < runners; ++i) {
            if (ts_host_thread_create(&helpers[started], NULL, ts_host_runner, &run) != 0) {
                (void)pthread_mutex_lock(&run.mutex);
                if (run.status == TS_SUCCESS) run.status = TS_ERROR_RUNTIME;
                (void)pthread_mutex_unlock(&run.mutex);
                break;
            }
            ++started;
        }
        (void)ts_host_runner(&run);
        for (int i = 0; i < started; ++i) (void)pthread_join(helpers[i], NULL);
        status = run.status;
    }

    if (have_mutex) (void)pthread_mutex_destroy(&run.mutex);
    if (have_attr) (void)pthread_attr_destroy(&warp_attr);
    free(order);
    free(params_copy);
    return status;
}

/* ---- the runtime functions of backends/runtime.h ------------------------------------------- */

struct ts_stream_opaque {
    int unused; /* streams have nothing to hold: host work runs when it is submitted */
};

struct ts_event_opaque {
    int recorded;
    struct timespec when;
};

ts_backend ts_backend_id(void) { return TS_BACKEND_HOST; }

ts_status ts_backend_device_count(int *count) {
    *count = 1;
    return TS_SUCCESS;
}

ts_status ts_backend_device_props(int device, ts_device_props *props) {
    if (device != 0) return TS_ERROR_INVALID_DEVICE;
    ts_host_settings();
    memset(props, 0, sizeof *props);
    (void)snprintf(props->name, sizeof props->name, "host CPU (%d threads)", ts_host_processors);
    (void)snprintf(props->arch, sizeof props->arch, "host");
    props->backend = TS_BACKEND_HOST;
    /* An "SM" is a slot of the block pool: that many blocks run at once. */
    props->sm_count = atomic_load(&ts_host_concurrency);
    props->warp_lanes = 1;
    props->partitions_per_sm = 1;
    props->max_threads_per_block = TS_HOST_MAX_WARPS; /* one thread per warp */
    props->max_warps_per_sm = TS_HOST_MAX_WARPS;
    props->max_blocks_per_sm = 1;
    props->regs_per_sm = 65536;
    props->max_regs_per_thread = 255;
    props->reg_alloc_unit = 1;
    props->shared_mem_per_block = TS_HOST_MAX_SHARED_BYTES;
    props->shared_mem_per_sm = TS_HOST_SHARED_PER_SM;
    props->shared_mem_reserved_per_block = 0;
    props->l2_bytes = 0;
    long pages = sysconf(_SC_PHYS_PAGES), page_size = sysconf(_SC_PAGESIZE);
    if (pages > 0 && page_size > 0) props->global_mem_bytes = (size_t)pages * (size_t)page_size;
    props->clock_khz = 0;
    props->memory_clock_khz = 0;
    props->memory_bus_bits = 0;
    return TS_SUCCESS;
}

ts_status ts_backend_device_set(int device) {
    return device == 0 ? TS_SUCCESS : TS_ERROR_INVALID_DEVICE;
}

ts_status ts_backend_device_get(int *device) {
    *device = 0;
    return TS_SUCCESS;
}

ts_status ts_backend_device_synchronize(void) { return TS_SUCCESS; }

ts_status ts_backend_malloc(void **ptr, size_t bytes) {
    *ptr = NULL;
    if (bytes == 0) return TS_ERROR_INVALID_SIZE;
    if (bytes > SIZE_MAX - 255) return TS_ERROR_OUT_OF_MEMORY;
    /* aligned_alloc wants a multiple of the alignment; 256 matches what GPU allocators give. */
    void *p = aligned_alloc(256, ts_host_round_up(bytes, 256));
    if (!p) return TS_ERROR_OUT_OF_MEMORY;
    const ts_status status = ts_host_handle_add(p, TS_HOST_HANDLE_MEMORY);
    if (status != TS_SUCCESS) {
        free(p);
        return status;
    }
    *ptr = p;
    return TS_SUCCESS;
}

/* Only what ts_backend_malloc returned and was not freed since: not a pointer into it, not twice. */
ts_status ts_backend_free(void *ptr) {
    const ts_status status = ts_host_handle_remove(ptr, TS_HOST_HANDLE_MEMORY);
    if (status == TS_SUCCESS) free(ptr);
    return status;
}

/* Work is synchronous, so the stream's work before a free is done when the free is made. */
ts_status ts_backend_scratch_alloc(void **ptr, size_t bytes, ts_stream stream) {
    *ptr = NULL;
    const ts_status status = ts_host_stream_check(stream);
    return status == TS_SUCCESS ? ts_backend_malloc(ptr, bytes) : status;
}

ts_status ts_backend_scratch_free(void *ptr, ts_stream stream) {
    const ts_status status = ts_host_stream_check(stream);
    return status == TS_SUCCESS ? ts_backend_free(ptr) : status;
}

ts_status ts_backend_memcpy(void *dst, const void *src, size_t bytes, ts_memcpy_kind kind,
                            ts_stream stream, int async) {
    (void)kind; /* host and "device" memory are the same memory */
    (void)async;
    const ts_status status = ts_host_stream_check(stream);
    if (status != TS_SUCCESS) return status;
    if (bytes > 0) memcpy(dst, src, bytes);
    return TS_SUCCESS;
}

ts_status ts_backend_memset(void *dst, int value, size_t bytes, ts_stream stream, int async) {
    (void)async;
    const ts_status status = ts_host_stream_check(stream);
    if (status != TS_SUCCESS) return status;
    if (bytes > 0) memset(dst, value, bytes);
    return TS_SUCCESS;
}

ts_status ts_backend_stream_create(ts_stream *stream) {
    ts_stream s = (ts_stream)calloc(1, sizeof(struct ts_stream_opaque));
    if (!s) return TS_ERROR_OUT_OF_MEMORY;
    const ts_status status = ts_host_handle_add(s, TS_HOST_HANDLE_STREAM);
    if (status != TS_SUCCESS) {
        free(s);
        return status;
    }
    *stream = s;
    return TS_SUCCESS;
}

ts_status ts_backend_stream_destroy(ts_stream stream) {
    const ts_status status = ts_host_handle_remove(stream, TS_HOST_HANDLE_STREAM);
    if (status == TS_SUCCESS) free(stream);
    return status;
}

ts_status ts_backend_stream_synchronize(ts_stream stream) { return ts_host_stream_check(stream); }

ts_status ts_backend_event_create(ts_event *event) {
    ts_event e = (ts_event)calloc(1, sizeof(struct ts_event_opaque));
    if (!e) return TS_ERROR_OUT_OF_MEMORY;
    const ts_status status = ts_host_handle_add(e, TS_HOST_HANDLE_EVENT);
    if (status != TS_SUCCESS) {
        free(e);
        return status;
    }
    *event = e;
    return TS_SUCCESS;
}

ts_status ts_backend_event_destroy(ts_event event) {
    const ts_status status = ts_host_handle_remove(event, TS_HOST_HANDLE_EVENT);
    if (status == TS_SUCCESS) free(event);
    return status;
}

/* An event is read and written under the registry's mutex, so that a record racing a destroy on
 * another thread finds it either live or gone. */
ts_status ts_backend_event_record(ts_event event, ts_stream stream) {
    struct timespec now;
    if (clock_gettime(CLOCK_MONOTONIC, &now) != 0) return TS_ERROR_RUNTIME;
    ts_status status = TS_ERROR_INVALID_VALUE;
    (void)pthread_mutex_lock(&ts_host_handles_mutex);
    if (ts_host_handle_live_locked(event, TS_HOST_HANDLE_EVENT) &&
        (!stream || ts_host_handle_live_locked(stream, TS_HOST_HANDLE_STREAM))) {
        event->when = now;
        event->recorded = 1;
        status = TS_SUCCESS;
    }
    (void)pthread_mutex_unlock(&ts_host_handles_mutex);
    return status;
}

ts_status ts_backend_event_synchronize(ts_event event) {
    (void)pthread_mutex_lock(&ts_host_handles_mutex);
    const int live = ts_host_handle_live_locked(event, TS_HOST_HANDLE_EVENT);
    (void)pthread_mutex_unlock(&ts_host_handles_mutex);
    return live ? TS_SUCCESS : TS_ERROR_INVALID_VALUE;
}

/* An event never recorded has no time, as a CUDA event gives cudaErrorInvalidResourceHandle. */
ts_status ts_backend_event_elapsed_ms(float *ms, ts_event start, ts_event end) {
    ts_status status = TS_ERROR_INVALID_VALUE;
    (void)pthread_mutex_lock(&ts_host_handles_mutex);
    if (ts_host_handle_live_locked(start, TS_HOST_HANDLE_EVENT) &&
        ts_host_handle_live_locked(end, TS_HOST_HANDLE_EVENT) && start->recorded && end->recorded) {
        double seconds = (double)(end->when.tv_sec - start->when.tv_sec) +
                         (double)(end->when.tv_nsec - start->when.tv_nsec) * 1e-9;
        *ms = (float)(seconds * 1e3);
        status = TS_SUCCESS;
    }
    (void)pthread_mutex_unlock(&ts_host_handles_mutex);
    return status;
}
