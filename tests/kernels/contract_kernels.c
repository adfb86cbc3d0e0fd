/* Kernels that exercise the backend contract directly. Unlike library kernels, some of them work
 * per lane on purpose: the lane id is part of what they check. */
#include "backends/backend.h"
#include "backends/lane_ops.h"
#include "tests/kernels/contract_kernels.h"

TS_EXTERN_C int ts_test_warp_lanes(void) { return TS_WARP_LANES; }
TS_EXTERN_C int ts_test_max_warps(void) { return TS_MAX_WARPS_PER_BLOCK; }

/* ---- ids ----------------------------------------------------------------------------------- */

typedef struct ts_test_ids_params {
    int *records;
} ts_test_ids_params;

TS_KERNEL(ts_test_ids_kernel, TS_MAX_WARPS_PER_BLOCK, ts_test_ids_params, p) {
    const long long block =
        ((long long)ts_block_z() * ts_grid_y() + ts_block_y()) * ts_grid_x() + ts_block_x();
    int *r = p->records + (block * ts_num_warps() + ts_warp_id()) * TS_TEST_ID_FIELDS;
    /* Every lane adds its id, so the sum proves each lane ran once with a distinct id. */
    ts_lane_atomic_add_i32(&r[TS_TEST_ID_LANE_SUM], ts_lane_id());
    ts_sync_warp();
    /* The warp ids are warp-wide calls (backends/README.md): taken by every lane, stored by one. */
    const int warp = ts_warp_id(), warpgroup = ts_warpgroup_id(), warp_in_group = ts_warp_in_group();
    if (ts_lane_id() == 0) {
        r[TS_TEST_ID_BX] = ts_block_x();
        r[TS_TEST_ID_BY] = ts_block_y();
        r[TS_TEST_ID_BZ] = ts_block_z();
        r[TS_TEST_ID_GX] = ts_grid_x();
        r[TS_TEST_ID_GY] = ts_grid_y();
        r[TS_TEST_ID_GZ] = ts_grid_z();
        r[TS_TEST_ID_WARP] = warp;
        r[TS_TEST_ID_NUM_WARPS] = ts_num_warps();
        r[TS_TEST_ID_WARPGROUP] = warpgroup;
        r[TS_TEST_ID_WARP_IN_GROUP] = warp_in_group;
        r[TS_TEST_ID_VISITS] += 1;
    }
}

TS_EXTERN_C ts_status ts_test_ids(int *records, int gx, int gy, int gz, int warps) {
    ts_test_ids_params params;
    params.records = records;
    return TS_LAUNCH(ts_test_ids_kernel, ts_grid_3d((unsigned)gx, (unsigned)gy, (unsigned)gz),
                     warps, 0, NULL, params);
}

/* ---- block and named barriers -------------------------------------------------------------- */

typedef struct ts_test_barrier_params {
    int *sums;
    int rounds;
    int named;
} ts_test_barrier_params;

TS_KERNEL(ts_test_barrier_kernel, TS_MAX_WARPS_PER_BLOCK, ts_test_barrier_params, p) {
    volatile int *slots = (volatile int *)ts_shared_base();
    const int warp = ts_warp_id(), warps = ts_num_warps();
    const int half = warps / 2;
    const int group = p->named ? (warp >= half) : 0;
    const int first = p->named ? group * half : 0;
    const int count = p->named ? (group ? warps - half : half) : warps;
    int sum = 0;
    for (int round = 0; round < p->rounds; ++round) {
        if (ts_lane_id() == 0) slots[warp] = (round + 1) * (warp + 1);
        if (p->named) ts_sync_named(group, count); else ts_sync_block();
        for (int w = first; w < first + count; ++w) sum += slots[w];
        /* Nobody may overwrite a slot before every warp of the group has read it. */
        if (p->named) ts_sync_named(group, count); else ts_sync_block();
    }
    if (ts_lane_id() == 0) p->sums[(long long)ts_block_x() * warps + warp] = sum;
}

TS_EXTERN_C ts_status ts_test_barrier_exchange(int *sums, int blocks, int warps, int rounds,
                                               int named) {
    ts_test_barrier_params params;
    params.sums = sums;
    params.rounds = rounds;
    params.named = named;
    return TS_LAUNCH(ts_test_barrier_kernel, ts_grid_1d((unsigned)blocks), warps,
                     (size_t)warps * sizeof(int), NULL, params);
}

/* ---- handoffs through named-barrier arrivals --------------------------------------------------- */

typedef struct ts_test_handoff_params {
    int *out;
    int rounds;
} ts_test_handoff_params;

/* The first half of the warps (writers) and the second (readers) take turns on one shared slot per
 * warp: writers fill it, arrive at barrier 0 and wait at 1; readers wait at 0, copy the slot out,
 * and arrive at 1. The two barriers count every warp, the arrivals of one half releasing the other. */
TS_KERNEL(ts_test_handoff_kernel, TS_MAX_WARPS_PER_BLOCK, ts_test_handoff_params, p) {
    int *slot = (int *)ts_shared_base();
    const int warps = ts_num_warps(), half = warps / 2, w = ts_warp_id();
    for (int r = 0; r < p->rounds; ++r) {
        if (w < half) {
            if (ts_lane_id() == 0) slot[w] = (ts_block_x() * 1000 + r) * 64 + w;
            ts_sync_warp();
            ts_arrive_named(0, warps);
            ts_sync_named(1, warps);
        } else {
            ts_sync_named(0, warps);
            const int v = slot[w - half];
            if (ts_lane_id() == 0) p->out[((long long)ts_block_x() * p->rounds + r) * half + (w - half)] = v;
            ts_arrive_named(1, warps);
        }
    }
}

TS_EXTERN_C ts_status ts_test_named_handoff(int *out, int blocks, int warps, int rounds) {
    ts_test_handoff_params params;
    params.out = out;
    params.rounds = rounds;
    return TS_LAUNCH(ts_test_handoff_kernel, ts_grid_1d((unsigned)blocks), warps, (size_t)warps * sizeof(int),
                     NULL, params);
}

/* ---- transaction barrier pipeline ------------------------------------------------------------ */

typedef struct ts_test_tbar_params {
    float *dst;
    const float *src;
    int chunks, chunk_floats, stages, mode;
} ts_test_tbar_params;

TS_KERNEL(ts_test_tbar_kernel, TS_MAX_WARPS_PER_BLOCK, ts_test_tbar_params, p) {
    const int stages = p->stages, n = p->chunk_floats;
    const unsigned bytes = (unsigned)n * (unsigned)sizeof(float);
    float *ring = (float *)ts_shared_base();
    ts_tbar *full = (ts_tbar *)(ring + (long long)stages * n);
    ts_tbar *empty = full + stages;
    const int consumers = ts_num_warps() - 1;
    if (ts_warp_id() == 0) {
        for (int s = 0; s < stages; ++s) {
            ts_tbar_init(&full[s], 1);
            ts_tbar_init(&empty[s], consumers);
        }
    }
    ts_sync_block();
    if (ts_warp_id() == 0) {
        for (int t = 0; t < p->chunks; ++t) {
            const int s = t % stages;
            /* Stage s is free once the consumers have released its previous fill. */
            if (t >= stages) ts_tbar_wait(&empty[s], ((t / stages) - 1) & 1);
            float *buf = ring + (long long)s * n;
            const float *src = p->src + (long long)t * n;
            if (p->mode == 0) {
                ts_tbar_expect_bytes(&full[s], bytes);
                ts_copy_async_g2s(buf, src, bytes, &full[s]);
            } else if (p->mode == 3) {
                for (int i = ts_lane_id(); i < n; i += TS_WARP_LANES) buf[i] = src[i];
                ts_tbar_arrive(&full[s]);
            } else {
                if (p->mode == 1) ts_tbar_expect_bytes(&full[s], bytes);
                for (int i = ts_lane_id(); i < n; i += TS_WARP_LANES) buf[i] = src[i];
                ts_fence_block();
                ts_tbar_complete_bytes(&full[s], bytes);
                if (p->mode == 2) ts_tbar_expect_bytes(&full[s], bytes);
            }
        }
    } else {
        const int c = ts_warp_id() - 1;
        for (int t = 0; t < p->chunks; ++t) {
            const int s = t % stages;
            ts_tbar_wait(&full[s], (t / stages) & 1);
            const float *buf = ring + (long long)s * n;
            float *dst = p->dst + (long long)t * n;
            for (int i = ts_lane_id(); i < n; i += TS_WARP_LANES)
                if (i % consumers == c) dst[i] = 2.0f * buf[i];
            ts_tbar_arrive(&empty[s]);
        }
    }
}

TS_EXTERN_C ts_status ts_test_tbar_pipeline(float *dst, const float *src, int chunks,
                                            int chunk_floats, int stages, int warps, int mode) {
    ts_test_tbar_params params;
    params.dst = dst;
    params.src = src;
    params.chunks = chunks;
    params.chunk_floats = chunk_floats;
    params.stages = stages;
    params.mode = mode;
    const size_t shared =
        (size_t)stages * (size_t)chunk_floats * sizeof(float) + 2 * (size_t)stages * sizeof(ts_tbar);
    return TS_LAUNCH(ts_test_tbar_kernel, ts_grid_1d(1), warps, shared, NULL, params);
}

/* ---- deadlock ------------------------------------------------------------------------------- */

typedef struct ts_test_deadlock_params {
    int unused;
} ts_test_deadlock_params;

TS_KERNEL(ts_test_deadlock_kernel, TS_MAX_WARPS_PER_BLOCK, ts_test_deadlock_params, p) {
    (void)p;
    if (ts_warp_id() != 0) ts_sync_block();
}

TS_EXTERN_C ts_status ts_test_deadlock(int warps) {
    ts_test_deadlock_params params;
    params.unused = 0;
    return TS_LAUNCH(ts_test_deadlock_kernel, ts_grid_1d(1), warps, 0, NULL, params);
}
