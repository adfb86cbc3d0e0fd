/* The order of attention's tasks (batch x query head x query tile, one block each) in a persistent
 * grid whose block c runs tasks c, c + step, c + 2 step, ... Plain C, for the kernels and the tests.
 *
 * Without the causal mask every task costs the same, and tasks go head after head, so that the
 * blocks running at once share a few heads' keys and values in L2. Under the causal mask a task
 * costs its query tile's position (tile q visits q + 1 key tiles), and a head-after-head order,
 * longest tile first, leaves a block with the longest tiles of many heads where the grid and the
 * head's tile count fall out of step: at N = 16384 (128 tiles a head, a grid of 132) the busiest
 * block had 1.57 times the average work. So causal tasks go in groups of heads, longest tile first
 * across the group's heads, and the group's rounds of `step` tasks alternate direction: a block
 * that takes one of a round's longest tasks takes one of the next round's shortest. The heads of a
 * group run together, each with several tasks streaming its keys and values at once. */
#ifndef TESSERA_KERNELS_ATTENTION_TASK_ORDER_H
#define TESSERA_KERNELS_ATTENTION_TASK_ORDER_H

#include "backends/common.h"

/* 1 (default): a group's rounds alternate direction. On CDNA (ping-pong schedule) the reversal's
 * arithmetic, live beside the accumulators where the schedule follows the load cursor, took the
 * fp16 D = 128 kernel from 224 + 32 to 225 + 32 registers and its occupancy from two waves to one;
 * there the rounds keep one direction (the groups stay). */
#ifndef TS_ATTN_ALTERNATE_ROUNDS
#if defined(TS_PREFERS_PINGPONG)
#define TS_ATTN_ALTERNATE_ROUNDS 0
#else
#define TS_ATTN_ALTERNATE_ROUNDS 1
#endif
#endif

/* Heads (batch x query head pairs) per causal group: at least 16, and enough that a group holds
 * four rounds of the grid, so that alternating rounds can even the blocks out; at most all of them.
 * Host code, for the launcher. */
static inline int ts_attn_group_heads(long long heads, int q_tiles, int step) {
    long long g = (4LL * step + q_tiles - 1) / q_tiles;
    if (g < 16) g = 16;
    return (int)(g < heads ? g : heads); /* heads >= 1 */
}

/* Task `task` of heads x q_tiles: its head (batch x query head, head-major) and query tile.
 * group_heads and step as above; any values >= 1 give each (head, tile) exactly one task. Within a
 * group the arithmetic is 32-bit: a group holds at most max(16 q_tiles, 4 step + q_tiles) tasks
 * (ts_attn_group_heads), far below 2^31 for any sequence TMA can address. */
TS_LAYOUT_FN void ts_attn_task_tile(long long task, long long heads, int q_tiles, int causal, int group_heads,
                                    int step, long long *head, int *q_tile) {
    if (!causal) {
        *head = task / q_tiles;
        *q_tile = (int)(task % q_tiles);
        return;
    }
    const long long per_group = (long long)group_heads * q_tiles;
    const long long g = task / per_group;
    int local = (int)(task - g * per_group);
    const int g_heads = heads - g * group_heads < group_heads ? (int)(heads - g * group_heads) : group_heads;
#if TS_ATTN_ALTERNATE_ROUNDS
    const int round = local / step;
    if ((round & 1) && (round + 1) * step <= g_heads * q_tiles) local = (2 * round + 1) * step - 1 - local;
#else
    (void)step;
#endif
    *head = g * group_heads + local % g_heads;
    *q_tile = q_tiles - 1 - local / g_heads;
}

#endif
