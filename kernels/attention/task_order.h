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
#include "templates/fast_div.h"

/* Heads (batch x query head pairs) per causal group: at least 16, and enough that a group holds
 * four rounds of the grid, so that alternating rounds can even the blocks out; at most all of them.
 * Host code, for the launcher. */
static inline int ts_attn_group_heads(long long heads, int q_tiles, int step) {
    long long g = (4LL * step + q_tiles - 1) / q_tiles;
    if (g < 16) g = 16;
    return (int)(g < heads ? g : heads); /* heads >= 1 */
}

/* The order's numbers, with their divisions taken once on the host (templates/fast_div.h): a
 * task's head and tile cost a few multiplies instead of 64-bit divisions. heads x q_tiles < 2^30
 * (the launcher checks it), so that every task number and product below fits in 32 bits. */
typedef struct ts_attn_order {
    unsigned q_tiles, group_heads, step;
    unsigned last_group, last_group_heads; /* the last group of heads may hold fewer */
    ts_fast_div by_q_tiles, by_group_tasks, by_step, by_group_heads, by_last_group_heads;
} ts_attn_order;

/* heads >= 1, q_tiles >= 1, heads x q_tiles < 2^30; group_heads and step any values in [1, 2^31). */
TS_LAYOUT_FN ts_attn_order ts_attn_order_make(unsigned heads, unsigned q_tiles, unsigned group_heads, unsigned step) {
    ts_attn_order o;
    if (group_heads > heads) group_heads = heads;
    o.q_tiles = q_tiles;
    o.group_heads = group_heads;
    o.step = step;
    o.last_group = (heads - 1) / group_heads;
    o.last_group_heads = heads - o.last_group * group_heads;
    o.by_q_tiles = ts_fast_div_make(q_tiles);
    o.by_group_tasks = ts_fast_div_make(group_heads * q_tiles);
    o.by_step = ts_fast_div_make(step);
    o.by_group_heads = ts_fast_div_make(group_heads);
    o.by_last_group_heads = ts_fast_div_make(o.last_group_heads);
    return o;
}

/* Task `task` (< heads x q_tiles) of the order: its head (batch x query head, head-major) and query
 * tile; each (head, tile) comes from exactly one task. alternate (a constant of the build:
 * TS_ATTN_ALTERNATE_ROUNDS, tuning.h): whether a causal group's rounds alternate direction. */
TS_LAYOUT_FN void ts_attn_task_tile(const ts_attn_order *o, unsigned task, int causal, int alternate, unsigned *head,
                                    int *q_tile) {
    if (!causal) {
        const unsigned h = ts_fast_div_quot(o->by_q_tiles, task);
        *head = h;
        *q_tile = (int)(task - h * o->q_tiles);
        return;
    }
    const unsigned g = ts_fast_div_quot(o->by_group_tasks, task);
    unsigned local = task - g * o->group_heads * o->q_tiles;
    const int last = g == o->last_group;
    const unsigned g_heads = last ? o->last_group_heads : o->group_heads;
    if (alternate) {
        const unsigned round = ts_fast_div_quot(o->by_step, local);
        if ((round & 1) && (unsigned long long)(round + 1) * o->step <= (unsigned long long)g_heads * o->q_tiles)
            local = (unsigned)((2ull * round + 1) * o->step - 1 - local);
    }
    const unsigned in_head = ts_fast_div_quot_either(last, o->by_last_group_heads, o->by_group_heads, local);
    *head = g * o->group_heads + (local - in_head * g_heads);
    *q_tile = (int)(o->q_tiles - 1 - in_head);
}

#endif
