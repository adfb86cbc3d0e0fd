/* Element types of tiles. A tile's dtype and layout are part of its type name and are read back by
 * the ops as compile-time constants (the size of a tag member), so that one op serves every tile
 * type without C++ templates. 16-bit elements are kept as raw bits; arithmetic happens in fp32. */
#ifndef TESSERA_TILES_DTYPES_H
#define TESSERA_TILES_DTYPES_H

#include "backends/backend.h"

/* TS_DTYPE_F32, TS_DTYPE_BF16 and TS_DTYPE_FP16 are the public ts_dtype values (tessera.h). */

#define TS_DTYPE_BYTES(dtype) ((dtype) == TS_DTYPE_F32 ? 4 : 2)

typedef struct ts_bf16 {
    unsigned short bits;
} ts_bf16;

typedef struct ts_fp16 {
    unsigned short bits;
} ts_fp16;

#endif
