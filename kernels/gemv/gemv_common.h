/* What every GEMV instance shares: the kernel parameters and the names of the instances. An
 * instance is one operand dtype, one weight layout and one bucket of M (1, 2, 4 or 8 rows of A,
 * the accumulators' compile-time size: M = 3 runs the 4-row instance with its fourth row neither
 * read nor computed); gemv_variant.h is its kernel, gemv_instances.h the list of one dtype's. */
#ifndef TESSERA_KERNELS_GEMV_COMMON_H
#define TESSERA_KERNELS_GEMV_COMMON_H

#include "backends/backend.h"
#include "kernels/gemv/gemv.h"
#include "kernels/gemv/tuning.h"
#include "ops/warp_dot.h"

TS_STATIC_ASSERT(TS_GEMV_NN_BAND_LANES >= 1 && TS_GEMV_NN_BAND_LANES <= TS_WARP_LANES &&
                     (TS_GEMV_NN_BAND_LANES & (TS_GEMV_NN_BAND_LANES - 1)) == 0,
                 "TS_GEMV_NN_BAND_LANES: a power of two up to the warp's lanes");
TS_STATIC_ASSERT(TS_GEMV_NT_ROWS == 4, "the rows form's accumulator types (ops/warp_dot.h) have 4 weight rows");

/* One GEMV call: C (M x N) = alpha * A (M x K) op(B) + beta * C, B stored N x K (the rows form) or
 * K x N (the cols form). Leading dimensions in elements. */
typedef struct ts_gemv_params {
    const void *a, *b;
    void *c;
    long long lda, ldb, ldc;
    int m, n, k;
    int c_dtype;
    float alpha, beta;
    int vec;        /* A and B 16-byte aligned, leading dimensions multiples of 8: 16-byte loads */
    int band_lanes; /* the cols form: a block's band of columns, in lanes of 8 columns */
} ts_gemv_params;

typedef ts_status (*ts_gemv_launcher)(const ts_gemv_params *, ts_stream);

/* The buckets of M: instance b takes M up to TS_GEMV_BUCKET_M(b). */
#define TS_GEMV_BUCKETS 4
#define TS_GEMV_BUCKET_M(b) (1 << (b))

#endif
