/* The rows instances of a row-wise family for one dtype (kernels/common/rowwise_rows.h): rows of
 * 256, 512, 768 and 1536 columns, each where it is whole chunks of every lane (rowwise_plan.h:
 * ts_rowwise_row_chunks; 512 and 1536 alone on HIP's 64-lane warps) and, for 768 and 1536, only for a
 * 16-bit dtype; fp32 rows of 512 (a 16-bit slice's bytes) where TS_ROWWISE_ROWS_F32_512. Each is the
 * family's rows variant included once, named TS_ROWWISE_ROWS_PREFIX##COLS. Included after defining:
 *   TS_ROWWISE_ROWS_VARIANT       the family's rows variant header, as a quoted path
 *   TS_ROWWISE_ROWS_PREFIX        the kernels' name before the columns
 *   TS_ROWWISE_DTYPE              the input dtype (TS_DTYPE_...)
 *   TS_ROWWISE_ROWS_16BIT         1 for a 16-bit dtype
 *   TS_ROWWISE_ROWS_BLOCKS        blocks per SM of rows of 256 and 512 columns
 *   TS_ROWWISE_ROWS_F32_512_BLOCKS  with an fp32 dtype, of rows of 512 (TS_ROWWISE_ROWS_F32_512)
 *   TS_ROWWISE_ROWS768_BLOCKS     blocks per SM of rows of 768 (six chunks a lane of each vector)
 *                                 and TS_ROWWISE_ROWS1536_BLOCKS of rows of 1536 (the same chunks,
 *                                 one row: a strip of weight and bias each with no repeats)
 * A rows variant reads TS_ROWWISE_ROWS_NAME, TS_ROWWISE_ROWS_COLS and TS_ROWWISE_ROWS_MIN_BLOCKS,
 * which this header leaves undefined after. */
#if 256 % (TS_WV_CHUNK * TS_WARP_LANES) == 0
#define TS_ROWWISE_ROWS_COLS 256
#define TS_ROWWISE_ROWS_NAME TS_CAT(TS_ROWWISE_ROWS_PREFIX, 256)
#define TS_ROWWISE_ROWS_MIN_BLOCKS TS_ROWWISE_ROWS_BLOCKS
#include TS_ROWWISE_ROWS_VARIANT
#undef TS_ROWWISE_ROWS_COLS
#undef TS_ROWWISE_ROWS_NAME
#undef TS_ROWWISE_ROWS_MIN_BLOCKS
#endif
#if TS_ROWWISE_ROWS_16BIT
#define TS_ROWWISE_ROWS_COLS 512
#define TS_ROWWISE_ROWS_NAME TS_CAT(TS_ROWWISE_ROWS_PREFIX, 512)
#define TS_ROWWISE_ROWS_MIN_BLOCKS TS_ROWWISE_ROWS_BLOCKS
#include TS_ROWWISE_ROWS_VARIANT
#undef TS_ROWWISE_ROWS_COLS
#undef TS_ROWWISE_ROWS_NAME
#undef TS_ROWWISE_ROWS_MIN_BLOCKS
#if 768 % (TS_WV_CHUNK * TS_WARP_LANES) == 0
#define TS_ROWWISE_ROWS_COLS 768
#define TS_ROWWISE_ROWS_NAME TS_CAT(TS_ROWWISE_ROWS_PREFIX, 768)
#define TS_ROWWISE_ROWS_MIN_BLOCKS TS_ROWWISE_ROWS768_BLOCKS
#include TS_ROWWISE_ROWS_VARIANT
#undef TS_ROWWISE_ROWS_COLS
#undef TS_ROWWISE_ROWS_NAME
#undef TS_ROWWISE_ROWS_MIN_BLOCKS
#endif
/* One row of 1536 a strip: the six chunks a lane of two rows of 768 (three on HIP). */
#define TS_ROWWISE_ROWS_COLS 1536
#define TS_ROWWISE_ROWS_NAME TS_CAT(TS_ROWWISE_ROWS_PREFIX, 1536)
#define TS_ROWWISE_ROWS_MIN_BLOCKS TS_ROWWISE_ROWS1536_BLOCKS
#include TS_ROWWISE_ROWS_VARIANT
#undef TS_ROWWISE_ROWS_COLS
#undef TS_ROWWISE_ROWS_NAME
#undef TS_ROWWISE_ROWS_MIN_BLOCKS
#elif TS_ROWWISE_ROWS_F32_512
#define TS_ROWWISE_ROWS_COLS 512
#define TS_ROWWISE_ROWS_NAME TS_CAT(TS_ROWWISE_ROWS_PREFIX, 512)
#define TS_ROWWISE_ROWS_MIN_BLOCKS TS_ROWWISE_ROWS_F32_512_BLOCKS
#include TS_ROWWISE_ROWS_VARIANT
#undef TS_ROWWISE_ROWS_COLS
#undef TS_ROWWISE_ROWS_NAME
#undef TS_ROWWISE_ROWS_MIN_BLOCKS
#endif
