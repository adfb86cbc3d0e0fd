/* Shared tiles: an R x C block of a matrix in shared memory, used by the warps of a block, in the
 * backend's swizzled layout (ts_st_offset: the TMA/wgmma swizzle on Hopper, a bank-conflict-free
 * XOR on CDNA; the host uses Hopper's). R and C are multiples of 16. The element array v is indexed
 * only through ts_st_index, never as v[r][c]. Carve tiles out of shared memory with ts_smem_take
 * (tiles/shared_alloc.h), which keeps each one TS_SHARED_ALIGN-aligned as the swizzle needs.
 *
 * Names: ts_st_<dtype>_<R>x<C>. More shapes are made with TS_ST_DEFINE_ALL(R, C). */
#ifndef TESSERA_TILES_SHARED_TILE_H
#define TESSERA_TILES_SHARED_TILE_H

#include "backends/fragment_layout.h"
#include "tiles/dtypes.h"

/* The dtype tag overlays the data in a union, so a tile is exactly its data: tiles placed one after
 * another in a struct keep the swizzle alignment. The tag is only ever read by sizeof. */
#define TS_ST_STRUCT(tname, storage, dtype, R, C)                                                  \
    typedef struct tname {                                                                         \
        union {                                                                                    \
            storage v[R][C];                                                                       \
            unsigned char dtype_tag[dtype];                                                        \
        };                                                                                         \
    } tname

#define TS_ST_DEFINE_ALL(R, C)                                                                     \
    TS_ST_STRUCT(ts_st_f32_##R##x##C, float, TS_DTYPE_F32, R, C);                                  \
    TS_ST_STRUCT(ts_st_bf16_##R##x##C, unsigned short, TS_DTYPE_BF16, R, C);                       \
    TS_ST_STRUCT(ts_st_fp16_##R##x##C, unsigned short, TS_DTYPE_FP16, R, C)

TS_ST_DEFINE_ALL(16, 16);
TS_ST_DEFINE_ALL(16, 32);
TS_ST_DEFINE_ALL(16, 64);
TS_ST_DEFINE_ALL(16, 128);
TS_ST_DEFINE_ALL(32, 32);
TS_ST_DEFINE_ALL(32, 64);
TS_ST_DEFINE_ALL(32, 128);
TS_ST_DEFINE_ALL(32, 256);
TS_ST_DEFINE_ALL(64, 16);
TS_ST_DEFINE_ALL(64, 32);
TS_ST_DEFINE_ALL(64, 64);
TS_ST_DEFINE_ALL(64, 128);
TS_ST_DEFINE_ALL(64, 256);
TS_ST_DEFINE_ALL(128, 64);
TS_ST_DEFINE_ALL(128, 32);
TS_ST_DEFINE_ALL(128, 128);
TS_ST_DEFINE_ALL(256, 32);
TS_ST_DEFINE_ALL(256, 64);

#define TS_ST_ROWS(t) ((int)(sizeof((t)->v) / sizeof((t)->v[0])))
#define TS_ST_COLS(t) ((int)(sizeof((t)->v[0]) / sizeof((t)->v[0][0])))
#define TS_ST_DTYPE(t) ((int)sizeof((t)->dtype_tag))
#define TS_ST_BYTES(t) TS_DTYPE_BYTES(TS_ST_DTYPE(t))
#define TS_ST_DATA(t) ((void *)&(t)->v[0][0])
#define TS_ST_CDATA(t) ((const void *)&(t)->v[0][0])
/* Bytes of element data, which is also the tile's size. */
#define TS_ST_DATA_BYTES(t) ((int)sizeof((t)->v))

typedef struct ts_st_desc {
    int rows, cols, dtype;
} ts_st_desc;

TS_HOST_DEVICE ts_st_desc ts_st_make_desc(int rows, int cols, int dtype) {
    ts_st_desc d;
    d.rows = rows;
    d.cols = cols;
    d.dtype = dtype;
    return d;
}
#define TS_ST_DESC(t) ts_st_make_desc(TS_ST_ROWS(t), TS_ST_COLS(t), TS_ST_DTYPE(t))

/* Element index of (r, c) in the tile's storage. */
TS_DEVICE int ts_st_index(ts_st_desc d, int r, int c) {
    return ts_st_offset(d.rows, d.cols, TS_DTYPE_BYTES(d.dtype), r, c);
}

TS_STATIC_ASSERT(sizeof(ts_st_bf16_64x64) == 64 * 64 * 2, "a shared tile is exactly its data");

#endif
