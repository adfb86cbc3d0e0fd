/* Warp vectors: a strip of E consecutive elements held by one warp in fp32 registers, the tile of
 * the memory-bound kernels (norms, softmax, rotary embedding), where a warp owns whole rows rather
 * than 16-row matrix fragments. The strip is cut in chunks of TS_WV_CHUNK = 8 elements (16 bytes
 * of a 16-bit tensor, 32 of an fp32 one); chunk q belongs to lane q % TS_WARP_LANES as its chunk
 * number q / TS_WARP_LANES. So each vector load of the warp reads TS_WARP_LANES * 16 consecutive
 * bytes, and E is the same on every backend: a lane holds E / (8 * TS_WARP_LANES) chunks (4 of
 * ts_wv_f32_1024 on CUDA, 2 on HIP, 128 on the host, where a warp is one thread).
 *
 * A strip may also be several short rows laid end to end (ops/warp_vector.h): rows of a
 * power-of-two length that is a multiple of 8 (ts_wv_load_rows), or wide rows of whole chunks of
 * every lane (ts_wv_load_wide_rows), so that no chunk straddles two rows.
 *
 * Layouts. In the contiguous layout (the default, above) a lane's chunk is 8 consecutive elements,
 * which is one 16-byte access of a 16-bit dtype but two of a 4-byte one, each of which would touch
 * half of 32 different 32-byte sectors: on the H200 an fp32 row then costs the L2 twice the
 * requests of its bytes. In the split layout (TS_WV_SPLIT) chunk q of lane l holds two quads of 4
 * elements, at 8 * lanes * q + 4 * l and 4 * lanes further, so that every 16-byte access of the warp
 * reads 16 * lanes consecutive bytes of an fp32 strip (and a 16-bit strip is read 8 bytes a lane).
 * The layout is part of the vector's type (its layout_tag); ops between vectors require the same
 * layout, and TS_WV_CHUNK_START / TS_WV_POS give any element's place in the strip. With one lane
 * (the host backend) the two layouts coincide.
 *
 * Names: ts_wv_f32_<E>, E a multiple of 512 (8 elements times 64 lanes, the widest warp).
 * TS_WV_DEFINE(E) makes more; TS_WV_F32(E) is the same type unnamed, TS_WV_F32_LAYOUT(E, split)
 * the same in either layout. */
#ifndef TESSERA_TILES_WARP_VECTOR_H
#define TESSERA_TILES_WARP_VECTOR_H

#include "tiles/dtypes.h"
#include "tiles/warp_vector_layout.h"

/* The vector of E elements as an unnamed struct type, for lengths no name is defined for (a strip
 * of two rows of 768, templates/rowwise_rows.h); layout_tag's size is 1 + split. */
#define TS_WV_F32_LAYOUT(E, split)                                                                 \
    struct {                                                                                       \
        float v[(E) / (TS_WV_CHUNK * TS_WARP_LANES)][TS_WV_CHUNK];                                 \
        unsigned char layout_tag[1 + (split)];                                                     \
    }
#define TS_WV_F32(E) TS_WV_F32_LAYOUT(E, TS_WV_CONTIGUOUS)
#define TS_WV_DEFINE(E) typedef TS_WV_F32(E) ts_wv_f32_##E

TS_WV_DEFINE(512);
TS_WV_DEFINE(1024);
TS_WV_DEFINE(2048);
TS_WV_DEFINE(4096);

/* Packed warp vectors: the same strip kept in the stored bits of its dtype, two 16-bit elements
 * to a 32-bit register (one fp32 element to each), so that a 1024-element bf16 strip takes 16
 * registers of a CUDA lane instead of 32. For kernels that read a row once and only need it in
 * fp32 inside reductions and on the way out (ops/warp_vector_packed.h); the element order is the
 * fp32 vector's. TS_WV_PACKED(E, dtype) is the (unnamed) struct type of such a strip; the dtype is
 * read back from the size of its tag. TS_WV_PACKED_LAYOUT(E, dtype, split): the same in either
 * layout (a quad's words follow each other: the first quad's, then the second's). Named:
 * ts_wv_bf16_<E>, ts_wv_fp16_<E>. */
#define TS_WV_PACKED_LAYOUT(E, dtype, split)                                                       \
    struct {                                                                                       \
        unsigned v[(E) / (TS_WV_CHUNK * TS_WARP_LANES)][TS_WV_CHUNK * TS_DTYPE_BYTES(dtype) / 4];  \
        unsigned char dtype_tag[dtype];                                                            \
        unsigned char layout_tag[1 + (split)];                                                     \
    }
#define TS_WV_PACKED(E, dtype) TS_WV_PACKED_LAYOUT(E, dtype, TS_WV_CONTIGUOUS)

typedef TS_WV_PACKED(1024, TS_DTYPE_BF16) ts_wv_bf16_1024;
typedef TS_WV_PACKED(1024, TS_DTYPE_FP16) ts_wv_fp16_1024;

/* Chunks per lane, elements per warp, and the lane's storage as one flat array (chunk k element j
 * at k * TS_WV_CHUNK + j): compile-time constants read from the type. */
#define TS_WV_CHUNKS(x) ((int)(sizeof((x)->v) / sizeof((x)->v[0])))
#define TS_WV_LEN(x) (TS_WV_CHUNKS(x) * TS_WV_CHUNK * TS_WARP_LANES)
#define TS_WV_DATA(x) (&(x)->v[0][0])
#define TS_WV_CDATA(x) ((const float *)&(x)->v[0][0])
/* The vector's layout: TS_WV_CONTIGUOUS or TS_WV_SPLIT; and a's layout where b (and c) have the
 * same, else a compile-time error (an array of negative size), for ops that take several vectors. */
#define TS_WV_LAYOUT_OF(x) ((int)sizeof((x)->layout_tag) - 1)
#define TS_WV_COMMON_LAYOUT(a, b)                                                                  \
    (TS_WV_LAYOUT_OF(a) + 0 * (int)sizeof(char[TS_WV_LAYOUT_OF(a) == TS_WV_LAYOUT_OF(b) ? 1 : -1]))
#define TS_WV_COMMON_LAYOUT3(a, b, c) (TS_WV_COMMON_LAYOUT(a, b) + 0 * TS_WV_COMMON_LAYOUT(a, c))

#endif
