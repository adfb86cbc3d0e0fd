/* The rows instances of a row-wise family's rows variant for one input dtype
 * (templates/rowwise_rows.h), and the lookup of their launchers by row length: 16-bit rows of 256,
 * 512, 768, 1280, 1536 and 1792 columns and fp32 rows of 256 and 512, each where it is whole chunks
 * of every lane (rowwise_plan.h: ts_rowwise_row_chunks; 512 and 1536 alone on CDNA's 64-lane warps),
 * and where the family's variant takes them (TS_ROWWISE_ROWS_QUAD_ROWS) 16-bit rows of whole quad
 * rows (ts_rowwise_row_quads: 384, 640, 896 on CUDA, 256 and 768 on CDNA). Each is the rows variant
 * compiled once, named TS_ROWWISE_ROWS_PREFIX##COLS; the lookup TS_ROWWISE_ROWS_PREFIX##_launcher(cols)
 * returns NULL for a length with no instance, so that the dispatch takes exactly the instances built
 * here. Included once per dtype (templates/rowwise_family.h does it for a family) after defining:
 *   TS_ROWWISE_ROWS_VARIANT       the rows variant header, as a quoted path
 *   TS_ROWWISE_ROWS_PREFIX        the kernels' name before the columns
 *   TS_ROWWISE_DTYPE              the input dtype (TS_DTYPE_...)
 *   TS_ROWWISE_ROWS_16BIT         1 for a 16-bit dtype
 *   TS_ROWWISE_ROWS_QUAD_ROWS     1 where the variant takes quad rows, and then
 *                                 TS_ROWWISE_ROWS_QUAD_BLOCKS, blocks an SM of rows of 384, 640, 896
 *   TS_ROWWISE_ROWS256_BLOCKS, TS_ROWWISE_ROWS512_BLOCKS, TS_ROWWISE_ROWS768_BLOCKS,
 *   TS_ROWWISE_ROWS1280_BLOCKS, TS_ROWWISE_ROWS1536_BLOCKS, TS_ROWWISE_ROWS1792_BLOCKS
 *                                 blocks an SM of the rows of each length (those of a length the
 *                                 dtype or backend has no instance of are not read)
 * A rows variant reads TS_ROWWISE_ROWS_NAME, TS_ROWWISE_ROWS_COLS and TS_ROWWISE_ROWS_MIN_BLOCKS,
 * which this header leaves undefined after. */
#define TS_ROWWISE_ROWS_WHOLE_CHUNKS(cols) ((cols) % (TS_WV_CHUNK * TS_WARP_LANES) == 0)
#define TS_ROWWISE_ROWS_QUADS(cols)                                                                \
    (TS_ROWWISE_ROWS_QUAD_ROWS && TS_ROWWISE_ROWS_16BIT && (cols) % (TS_WV_QUAD * TS_WARP_LANES) == 0)
#define TS_ROWWISE_ROWS_HAS_256 (TS_ROWWISE_ROWS_WHOLE_CHUNKS(256) || TS_ROWWISE_ROWS_QUADS(256))
#define TS_ROWWISE_ROWS_HAS_384 TS_ROWWISE_ROWS_QUADS(384)
#define TS_ROWWISE_ROWS_HAS_512 1
#define TS_ROWWISE_ROWS_HAS_640 TS_ROWWISE_ROWS_QUADS(640)
#define TS_ROWWISE_ROWS_HAS_768 (TS_ROWWISE_ROWS_16BIT && (TS_ROWWISE_ROWS_WHOLE_CHUNKS(768) || TS_ROWWISE_ROWS_QUADS(768)))
#define TS_ROWWISE_ROWS_HAS_896 TS_ROWWISE_ROWS_QUADS(896)
#define TS_ROWWISE_ROWS_HAS_1280 (TS_ROWWISE_ROWS_16BIT && TS_ROWWISE_ROWS_WHOLE_CHUNKS(1280))
#define TS_ROWWISE_ROWS_HAS_1536 TS_ROWWISE_ROWS_16BIT
#define TS_ROWWISE_ROWS_HAS_1792 (TS_ROWWISE_ROWS_16BIT && TS_ROWWISE_ROWS_WHOLE_CHUNKS(1792))

#if TS_ROWWISE_ROWS_HAS_256
#define TS_ROWWISE_ROWS_COLS 256
#define TS_ROWWISE_ROWS_NAME TS_CAT(TS_ROWWISE_ROWS_PREFIX, 256)
#define TS_ROWWISE_ROWS_MIN_BLOCKS TS_ROWWISE_ROWS256_BLOCKS
#include TS_ROWWISE_ROWS_VARIANT
#undef TS_ROWWISE_ROWS_COLS
#undef TS_ROWWISE_ROWS_NAME
#undef TS_ROWWISE_ROWS_MIN_BLOCKS
#endif
#if TS_ROWWISE_ROWS_HAS_384
#define TS_ROWWISE_ROWS_COLS 384
#define TS_ROWWISE_ROWS_NAME TS_CAT(TS_ROWWISE_ROWS_PREFIX, 384)
#define TS_ROWWISE_ROWS_MIN_BLOCKS TS_ROWWISE_ROWS_QUAD_BLOCKS
#include TS_ROWWISE_ROWS_VARIANT
#undef TS_ROWWISE_ROWS_COLS
#undef TS_ROWWISE_ROWS_NAME
#undef TS_ROWWISE_ROWS_MIN_BLOCKS
#endif
#if TS_ROWWISE_ROWS_HAS_512
#define TS_ROWWISE_ROWS_COLS 512
#define TS_ROWWISE_ROWS_NAME TS_CAT(TS_ROWWISE_ROWS_PREFIX, 512)
#define TS_ROWWISE_ROWS_MIN_BLOCKS TS_ROWWISE_ROWS512_BLOCKS
#include TS_ROWWISE_ROWS_VARIANT
#undef TS_ROWWISE_ROWS_COLS
#undef TS_ROWWISE_ROWS_NAME
#undef TS_ROWWISE_ROWS_MIN_BLOCKS
#endif
#if TS_ROWWISE_ROWS_HAS_640
#define TS_ROWWISE_ROWS_COLS 640
#define TS_ROWWISE_ROWS_NAME TS_CAT(TS_ROWWISE_ROWS_PREFIX, 640)
#define TS_ROWWISE_ROWS_MIN_BLOCKS TS_ROWWISE_ROWS_QUAD_BLOCKS
#include TS_ROWWISE_ROWS_VARIANT
#undef TS_ROWWISE_ROWS_COLS
#undef TS_ROWWISE_ROWS_NAME
#undef TS_ROWWISE_ROWS_MIN_BLOCKS
#endif
#if TS_ROWWISE_ROWS_HAS_768
#define TS_ROWWISE_ROWS_COLS 768
#define TS_ROWWISE_ROWS_NAME TS_CAT(TS_ROWWISE_ROWS_PREFIX, 768)
#define TS_ROWWISE_ROWS_MIN_BLOCKS TS_ROWWISE_ROWS768_BLOCKS
#include TS_ROWWISE_ROWS_VARIANT
#undef TS_ROWWISE_ROWS_COLS
#undef TS_ROWWISE_ROWS_NAME
#undef TS_ROWWISE_ROWS_MIN_BLOCKS
#endif
#if TS_ROWWISE_ROWS_HAS_896
#define TS_ROWWISE_ROWS_COLS 896
#define TS_ROWWISE_ROWS_NAME TS_CAT(TS_ROWWISE_ROWS_PREFIX, 896)
#define TS_ROWWISE_ROWS_MIN_BLOCKS TS_ROWWISE_ROWS_QUAD_BLOCKS
#include TS_ROWWISE_ROWS_VARIANT
#undef TS_ROWWISE_ROWS_COLS
#undef TS_ROWWISE_ROWS_NAME
#undef TS_ROWWISE_ROWS_MIN_BLOCKS
#endif
#if TS_ROWWISE_ROWS_HAS_1280
/* One row of 1280 a strip: five chunks a lane (CUDA). */
#define TS_ROWWISE_ROWS_COLS 1280
#define TS_ROWWISE_ROWS_NAME TS_CAT(TS_ROWWISE_ROWS_PREFIX, 1280)
#define TS_ROWWISE_ROWS_MIN_BLOCKS TS_ROWWISE_ROWS1280_BLOCKS
#include TS_ROWWISE_ROWS_VARIANT
#undef TS_ROWWISE_ROWS_COLS
#undef TS_ROWWISE_ROWS_NAME
#undef TS_ROWWISE_ROWS_MIN_BLOCKS
#endif
#if TS_ROWWISE_ROWS_HAS_1536
/* One row of 1536 a strip: the six chunks a lane of two rows of 768 (three on HIP). */
#define TS_ROWWISE_ROWS_COLS 1536
#define TS_ROWWISE_ROWS_NAME TS_CAT(TS_ROWWISE_ROWS_PREFIX, 1536)
#define TS_ROWWISE_ROWS_MIN_BLOCKS TS_ROWWISE_ROWS1536_BLOCKS
#include TS_ROWWISE_ROWS_VARIANT
#undef TS_ROWWISE_ROWS_COLS
#undef TS_ROWWISE_ROWS_NAME
#undef TS_ROWWISE_ROWS_MIN_BLOCKS
#endif
#if TS_ROWWISE_ROWS_HAS_1792
/* One row of 1792 a strip: seven chunks a lane (CUDA). */
#define TS_ROWWISE_ROWS_COLS 1792
#define TS_ROWWISE_ROWS_NAME TS_CAT(TS_ROWWISE_ROWS_PREFIX, 1792)
#define TS_ROWWISE_ROWS_MIN_BLOCKS TS_ROWWISE_ROWS1792_BLOCKS
#include TS_ROWWISE_ROWS_VARIANT
#undef TS_ROWWISE_ROWS_COLS
#undef TS_ROWWISE_ROWS_NAME
#undef TS_ROWWISE_ROWS_MIN_BLOCKS
#endif

/* The launcher of the instance for rows of `cols` columns, or NULL. */
static ts_rowwise_launch_fn TS_CAT(TS_ROWWISE_ROWS_PREFIX, _launcher)(int cols) {
#if TS_ROWWISE_ROWS_HAS_256
    if (cols == 256) return TS_CAT(TS_CAT(TS_ROWWISE_ROWS_PREFIX, 256), _launch);
#endif
#if TS_ROWWISE_ROWS_HAS_384
    if (cols == 384) return TS_CAT(TS_CAT(TS_ROWWISE_ROWS_PREFIX, 384), _launch);
#endif
#if TS_ROWWISE_ROWS_HAS_512
    if (cols == 512) return TS_CAT(TS_CAT(TS_ROWWISE_ROWS_PREFIX, 512), _launch);
#endif
#if TS_ROWWISE_ROWS_HAS_640
    if (cols == 640) return TS_CAT(TS_CAT(TS_ROWWISE_ROWS_PREFIX, 640), _launch);
#endif
#if TS_ROWWISE_ROWS_HAS_768
    if (cols == 768) return TS_CAT(TS_CAT(TS_ROWWISE_ROWS_PREFIX, 768), _launch);
#endif
#if TS_ROWWISE_ROWS_HAS_896
    if (cols == 896) return TS_CAT(TS_CAT(TS_ROWWISE_ROWS_PREFIX, 896), _launch);
#endif
#if TS_ROWWISE_ROWS_HAS_1280
    if (cols == 1280) return TS_CAT(TS_CAT(TS_ROWWISE_ROWS_PREFIX, 1280), _launch);
#endif
#if TS_ROWWISE_ROWS_HAS_1536
    if (cols == 1536) return TS_CAT(TS_CAT(TS_ROWWISE_ROWS_PREFIX, 1536), _launch);
#endif
#if TS_ROWWISE_ROWS_HAS_1792
    if (cols == 1792) return TS_CAT(TS_CAT(TS_ROWWISE_ROWS_PREFIX, 1792), _launch);
#endif
    return NULL;
}

#undef TS_ROWWISE_ROWS_HAS_256
#undef TS_ROWWISE_ROWS_HAS_384
#undef TS_ROWWISE_ROWS_HAS_512
#undef TS_ROWWISE_ROWS_HAS_640
#undef TS_ROWWISE_ROWS_HAS_768
#undef TS_ROWWISE_ROWS_HAS_896
#undef TS_ROWWISE_ROWS_HAS_1280
#undef TS_ROWWISE_ROWS_HAS_1536
#undef TS_ROWWISE_ROWS_HAS_1792
#undef TS_ROWWISE_ROWS_QUADS
#undef TS_ROWWISE_ROWS_WHOLE_CHUNKS
