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

/* Heads (batch x query head pairs) per causal group: at least 16, and enough that a group holds
 * four rounds of the grid, so that alternating rounds can even the blocks out; at most all of them.
 * Host code, for the launcher. */
static inline int ts_attn_group_heads(long long heads, int q_tiles, int step) {
    long long g = (4LL * step + q_tiles - 1) / q_tiles;
    if (g < 16) g = 16;
    if (g > heads) g = heads;
    return g < 1 ? 1 : (int)g;
}

/* Task `task` of `tasks` (= heads x q_tiles): its head (batch x query head, head-major) and query
 * tile. group_heads and step as above; any values >= 1 give each (head, tile) exactly one task. */
TS_LAYOUT_FN void ts_attn_task_tile(long long task, long long tasks, int q_tiles, int causal, int group_heads,
                                    int step, long long *head, int *q_tile) {
    if (!causal) {
        *head = task / q_tiles;
        *q_tile = (int)(task % q_tiles);
        return;
    }
    const long long heads = tasks / q_tiles, per_group = (long long)group_heads * q_tiles;
    const long long g = task / per_group;
    long long local = task % per_group;
    const long long g_heads = heads - g * group_heads < group_heads ? heads - g * group_heads : group_heads;
    const long long round = local / step;
    if ((round & 1) && (round + 1) * step <= g_heads * q_tiles) local = round * step + (step - 1 - local % step);
    *head = g * group_heads + local % g_heads;
    *q_tile = q_tiles - 1 - (int)(local / g_heads);
}

#endif
