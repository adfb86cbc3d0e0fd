/* Decode attention's split plan (kernels/attention_decode/attention_decode.c): how many splits each
 * row tile's keys are cut into, and keys a split, with the limits of the backend's tuning it keeps
 * to. Plain C, so that the tests check the plan of whichever backend the library was built for.
 * Internal to the library and its tests: not in tessera.h. */
#ifndef TESSERA_KERNELS_ATTENTION_DECODE_PLAN_H
#define TESSERA_KERNELS_ATTENTION_DECODE_PLAN_H

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ts_decode_plan_limits {
    int block_keys;     /* keys a block takes a step: a split's keys are a multiple of it */
    int min_split_keys; /* the fewest keys a split takes (before rounding up to a step) */
    int max_splits;     /* the most splits of one sequence */
} ts_decode_plan_limits;

/* The limits for head dimension 64 or 128. */
ts_decode_plan_limits ts_decode_plan_limits_for(int head_dim);

/* Splits aim at the tuning's blocks an SM over all row tiles (at most), from the capacity of a
 * sequence (max_pages x page_size), since the lengths are on the device. units = B x Hkv x row
 * tiles >= 1, 1 <= capacity <= 2^30. */
void ts_decode_plan(long long units, long long capacity, int head_dim, int sms, int *splits, int *split_keys);

#ifdef __cplusplus
}
#endif

#endif
