/* Which rows of a row softmax run on the stream instances and how those stage them
 * (kernels/softmax/softmax.c, softmax_stream_variant.h). ts_softmax takes ts_softmax_stream_defaults();
 * the tests pass other limits to ts_softmax_with_stream_limits, so that rows of any length take each
 * stream path on every backend, the host's included, not only rows too long for a block's registers.
 * Internal to the library and its tests: not in tessera.h. */
#ifndef TESSERA_KERNELS_SOFTMAX_STREAM_H
#define TESSERA_KERNELS_SOFTMAX_STREAM_H

#include <stddef.h>

#include <tessera/tessera.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ts_softmax_stream_limits {
    int min_cols;            /* rows of at least this many columns stream (rows longer than a block's
                                registers hold always do) */
    int staged;              /* 0: no row is staged in shared memory (staging exists where the
                                backend's bulk copy does: kernels/softmax/tuning.h, TS_SOFTMAX_STAGED) */
    size_t staged_max_bytes; /* the most shared memory a block of a wholly staged row takes; longer
                                rows are staged in part */
    int partial_blocks;      /* > 0: blocks an SM of a row staged in part; 0: one or two, by its length */
} ts_softmax_stream_limits;

ts_softmax_stream_limits ts_softmax_stream_defaults(void);
ts_status ts_softmax_with_stream_limits(const ts_softmax_desc *desc, const ts_softmax_stream_limits *limits,
                                        ts_stream stream);

#ifdef __cplusplus
}
#endif

#endif
