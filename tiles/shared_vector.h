/* Shared vectors: N values in shared memory, for per-row or per-column statistics and weights
 * that the warps of a block share, in fp32 or in a 16-bit dtype (a bias or weight kept as the
 * tensor stores it; ops convert to fp32 on the way to registers, ops/memory.h). Plain, unswizzled
 * arrays: a vector is read by rows or columns of lanes at once, which spreads over the banks on its
 * own. Names: ts_sv_f32_<N>, ts_sv_bf16_<N>, ts_sv_fp16_<N>; TS_SV_DEFINE(N) makes more. */
#ifndef TESSERA_TILES_SHARED_VECTOR_H
#define TESSERA_TILES_SHARED_VECTOR_H

#include "tiles/dtypes.h"

/* As with shared tiles, the dtype tag overlays the data, so a vector is exactly its data. */
#define TS_SV_STRUCT(tname, storage, dtype, N)                                                     \
    typedef struct tname {                                                                         \
        union {                                                                                    \
            storage v[N];                                                                          \
            unsigned char dtype_tag[dtype];                                                        \
        };                                                                                         \
    } tname

#define TS_SV_DEFINE(N)                                                                            \
    TS_SV_STRUCT(ts_sv_f32_##N, float, TS_DTYPE_F32, N);                                           \
    TS_SV_STRUCT(ts_sv_bf16_##N, unsigned short, TS_DTYPE_BF16, N);                                \
    TS_SV_STRUCT(ts_sv_fp16_##N, unsigned short, TS_DTYPE_FP16, N)

TS_SV_DEFINE(16);
TS_SV_DEFINE(32);
TS_SV_DEFINE(64);
TS_SV_DEFINE(128);
TS_SV_DEFINE(256);
TS_SV_DEFINE(1024);

#define TS_SV_LEN(x) ((int)(sizeof((x)->v) / sizeof((x)->v[0])))
#define TS_SV_DTYPE(x) ((int)sizeof((x)->dtype_tag))
#define TS_SV_DATA(x) ((void *)&(x)->v[0])
#define TS_SV_CDATA(x) ((const void *)&(x)->v[0])

TS_STATIC_ASSERT(sizeof(ts_sv_bf16_64) == 64 * 2, "a shared vector is exactly its data");

#endif
