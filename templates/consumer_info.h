/* What the producer-consumer template (templates/producer_consumer.h) tells a consumer warpgroup
 * about its place in the task sequence when the kernel asks for a barrier of its own
 * (TS_PC_CONSUMER_BARRIER): a kernel declares the hooks before it includes the template, so the
 * type they use lives here. */
#ifndef TESSERA_TEMPLATES_CONSUMER_INFO_H
#define TESSERA_TEMPLATES_CONSUMER_INFO_H

#include "backends/backend.h"

typedef struct ts_pc_consumer {
    ts_tbar *bar;        /* the warpgroup's own barrier, arrival count 1 */
    long long next_task; /* the task it takes after this one, or -1 after its last */
    int round;           /* tasks it has started before this one: with one completed phase of
                            bar per task, this task's phase has parity round & 1 */
    float *scratch;      /* TS_PC_CONSUMER_SCRATCH floats of shared memory of its own (NULL with none) */
    int live;            /* the stages of this task it computes: P_consumer_iters with
                            TS_PC_CONSUMER_ITERS, else all of them */
} ts_pc_consumer;

#endif
