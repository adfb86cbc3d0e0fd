/* The layouts of a warp vector's strip (tiles/warp_vector.h) as plain arithmetic with no backend
 * header, so that host code (the tests) can check them at any warp width: which lane holds which
 * elements, in chunks of TS_WV_CHUNK = 8 elements, each two quads of 4. */
#ifndef TESSERA_TILES_WARP_VECTOR_LAYOUT_H
#define TESSERA_TILES_WARP_VECTOR_LAYOUT_H

#define TS_WV_CHUNK 8
/* Elements of a quad, half a chunk (the split layout's unit). */
#define TS_WV_QUAD 4

/* The layouts (tiles/warp_vector.h): the `split` of the vector types and of the macros below. */
#define TS_WV_CONTIGUOUS 0
#define TS_WV_SPLIT 1

/* The strip position of chunk k of lane `lane` (its first element), of element j of a chunk that
 * starts at `start`, and one past the chunk's last element, in a warp of `lanes` lanes. Split is a
 * factor, so that at 0 each folds to the contiguous layout's own arithmetic. */
#define TS_WV_CHUNK_START(k, lane, split, lanes)                                                   \
    (((k) * (lanes) + (lane)) * TS_WV_CHUNK - (split) * (lane) * TS_WV_QUAD)
#define TS_WV_POS(start, j, split, lanes)                                                          \
    ((start) + (j) + (split) * ((j) / TS_WV_QUAD) * (TS_WV_QUAD * (lanes)-TS_WV_QUAD))
#define TS_WV_CHUNK_END(start, split, lanes) ((start) + TS_WV_CHUNK + (split) * (TS_WV_QUAD * (lanes)-TS_WV_QUAD))

#endif
