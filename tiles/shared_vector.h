/* Shared vectors: N fp32 values in shared memory, for per-row or per-column statistics and
 * weights that the warps of a block share. Plain, unswizzled arrays: a vector is read by rows or
 * columns of lanes at once, which spreads over the banks on its own. Names: ts_sv_f32_<N>. */
#ifndef TESSERA_TILES_SHARED_VECTOR_H
#define TESSERA_TILES_SHARED_VECTOR_H

#include "tiles/dtypes.h"

#define TS_SV_DEFINE(N)                                                                            \
    typedef struct ts_sv_f32_##N {                                                                 \
        float v[N];                                                                                \
    } ts_sv_f32_##N

TS_SV_DEFINE(16);
TS_SV_DEFINE(32);
TS_SV_DEFINE(64);
TS_SV_DEFINE(128);
TS_SV_DEFINE(256);
TS_SV_DEFINE(1024);

#define TS_SV_LEN(x) ((int)(sizeof((x)->v) / sizeof((x)->v[0])))

#endif
