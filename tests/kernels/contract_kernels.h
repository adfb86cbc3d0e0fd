/* Launchers of the kernels that exercise the backend contract directly (ids, barriers, named
 * barriers, the transaction barrier and asynchronous copies), built for whichever backend the
 * tests are built for. Pointers are device memory. */
#ifndef TESSERA_TESTS_CONTRACT_KERNELS_H
#define TESSERA_TESTS_CONTRACT_KERNELS_H

#include <tessera/tessera.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The backend's lanes per warp and warps per block, for tests compiled as plain C. */
int ts_test_warp_lanes(void);
int ts_test_max_warps(void);

/* Fields each warp records about itself. */
enum {
    TS_TEST_ID_BX, TS_TEST_ID_BY, TS_TEST_ID_BZ, TS_TEST_ID_GX, TS_TEST_ID_GY, TS_TEST_ID_GZ,
    TS_TEST_ID_WARP, TS_TEST_ID_NUM_WARPS, TS_TEST_ID_WARPGROUP, TS_TEST_ID_WARP_IN_GROUP,
    TS_TEST_ID_LANE_SUM, TS_TEST_ID_VISITS, TS_TEST_ID_FIELDS
};

/* records: gx*gy*gz*warps*TS_TEST_ID_FIELDS ints, zeroed by the caller; each warp adds its
 * fields at (linear block * warps + warp) and counts its visits. */
ts_status ts_test_ids(int *records, int gx, int gy, int gz, int warps);

/* Each of `rounds` rounds: warp w writes (round + 1) * (w + 1) to shared memory, the block
 * synchronizes, every warp adds up all slots. sums: blocks*warps ints. If named is nonzero the
 * warps split into two halves, each exchanging only within its half through named barrier 0
 * (first half) or 1 (second half). */
ts_status ts_test_barrier_exchange(int *sums, int blocks, int warps, int rounds, int named);

/* Writers (the first warps/2 warps) hand a value per round to the readers through shared memory,
 * signalling with ts_arrive_named and waiting with ts_sync_named; out[(block * rounds + r) * half +
 * i] receives (block * 1000 + r) * 64 + i. */
ts_status ts_test_named_handoff(int *out, int blocks, int warps, int rounds);

/* A producer warp streams `chunks` chunks of `chunk_floats` floats from src through a ring of
 * `stages` shared buffers guarded by transaction barriers; warps-1 consumer warps write 2*x of
 * every element to dst. mode 0: ts_copy_async_g2s; mode 1: ordinary stores then
 * ts_tbar_complete_bytes after the bytes were announced; mode 2: bytes completed before they are
 * announced (the phase's byte count goes below zero first); mode 3: ordinary stores then a plain
 * arrival, no bytes counted (the barrier as a producer-consumer flag). One block. */
ts_status ts_test_tbar_pipeline(float *dst, const float *src, int chunks, int chunk_floats,
                                int stages, int warps, int mode);

/* A warp that skips the block barrier: warps-1 warps wait at ts_sync_block forever. Used to show
 * that the host runtime reports TS_ERROR_DEADLOCK; never launched on a GPU. */
ts_status ts_test_deadlock(int warps);

#ifdef __cplusplus
}
#endif

#endif
