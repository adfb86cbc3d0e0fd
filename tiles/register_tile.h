/* Register tiles: a warp's R x C block of a matrix held in registers, R and C multiples of 16.
 * The tile is a grid of 16x16 subtiles; each lane holds TS_RT_SUB_ELEMS elements of each subtile
 * in the backend's fragment layout (backends/fragment_layout.h), which kernel code never indexes.
 * Shape is part of the type: ops read it back with TS_RT_ROWS / TS_RT_COLS, which are
 * compile-time constants, so every loop over a tile unrolls. */
#ifndef TESSERA_TILES_REGISTER_TILE_H
#define TESSERA_TILES_REGISTER_TILE_H

#include "backends/backend.h"
#include "backends/fragment_layout.h"

/* Defines ts_rt_<name>_<R>x<C> holding elements of C type `ctype`. */
#define TS_RT_DEFINE(name, ctype, R, C)                                                            \
    typedef struct ts_rt_##name##_##R##x##C {                                                      \
        ctype v[(R) / 16][(C) / 16][TS_RT_SUB_ELEMS];                                              \
    } ts_rt_##name##_##R##x##C

#define TS_RT_ROWS(t) ((int)(sizeof((t)->v) / sizeof((t)->v[0])) * 16)
#define TS_RT_COLS(t) ((int)(sizeof((t)->v[0]) / sizeof((t)->v[0][0])) * 16)
/* Elements of the tile this lane holds. */
#define TS_RT_LANE_ELEMS(t) ((int)(sizeof((t)->v) / sizeof((t)->v[0][0][0])))
/* The lane's elements as one flat array: subtile (r, c) element i is at
 * (r * (COLS/16) + c) * TS_RT_SUB_ELEMS + i. */
#define TS_RT_DATA(t) (&(t)->v[0][0][0])

TS_RT_DEFINE(f32, float, 16, 16);
TS_RT_DEFINE(f32, float, 16, 32);
TS_RT_DEFINE(f32, float, 16, 64);
TS_RT_DEFINE(f32, float, 32, 32);
TS_RT_DEFINE(f32, float, 64, 64);

#endif
