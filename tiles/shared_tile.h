/* Shared tiles: an R x C block of a matrix in shared memory, used by the warps of one block.
 * fp32 shared tiles are row-major with no swizzle; their rows are 64 bytes or more, so a warp's
 * row-wise accesses spread over the banks. Shape is part of the type, read back by TS_ST_ROWS and
 * TS_ST_COLS. */
#ifndef TESSERA_TILES_SHARED_TILE_H
#define TESSERA_TILES_SHARED_TILE_H

#include "backends/backend.h"

#define TS_ST_DEFINE(name, ctype, R, C)                                                            \
    typedef struct ts_st_##name##_##R##x##C {                                                      \
        ctype v[R][C];                                                                             \
    } ts_st_##name##_##R##x##C

#define TS_ST_ROWS(t) ((int)(sizeof((t)->v) / sizeof((t)->v[0])))
#define TS_ST_COLS(t) ((int)(sizeof((t)->v[0]) / sizeof((t)->v[0][0])))

TS_ST_DEFINE(f32, float, 16, 16);
TS_ST_DEFINE(f32, float, 16, 32);
TS_ST_DEFINE(f32, float, 32, 32);
TS_ST_DEFINE(f32, float, 64, 64);

#endif
