/* One long-row instance of a row-wise family's slice variant: 16-bit rows of whole chunks longer than
 * a slice and at most TS_ROWWISE_LONG_ROW_LIMIT columns, a row a one-warp block
 * (templates/rowwise.h: ts_rowwise_long_row_plan). The plan of a slice a warp would spread such a row
 * over two warps, the second partly empty, with a block barrier for each reduction; here one warp
 * holds the whole row in TS_ROWWISE_LONG_ROW_LIMIT elements' registers, the last chunks of some
 * lanes past the row: the one-warp-row settings (rowwise_one_warp_row.h) with a longer slice.
 * Included (templates/rowwise_long_row_instances.h does it) after defining:
 *   TS_ROWWISE_INSTANCE_VARIANT   the variant header, as a quoted path
 *   TS_ROWWISE_DTYPE              the input dtype (a 16-bit TS_DTYPE_...)
 *   TS_ROWWISE_LONG_ROW_NAME      the kernel (its launcher NAME_launch takes ts_rowwise_long_row_plan's plan)
 *   TS_ROWWISE_LONG_ROW_BLOCKS    blocks an SM
 *   TS_ROWWISE_LONG_ROW_LIMIT     the longest row it holds, its slice (rowwise_plan.h:
 *                                 TS_ROWWISE_LONG_ROW_COLS, _NARROW_COLS or _MID_COLS at TS_WARP_LANES)
 * and leaves none of the settings it defines behind. */
#define TS_ROWWISE_NAME TS_ROWWISE_LONG_ROW_NAME
#define TS_ROWWISE_BLOCK_WARPS_MAX 1
#define TS_ROWWISE_MIN_BLOCKS TS_ROWWISE_LONG_ROW_BLOCKS
#define TS_ROWWISE_SHORT 1
#define TS_ROWWISE_WHOLE 1
#define TS_ROWWISE_ONE_WARP_ROW 1
#define TS_ROWWISE_LONG_ROW TS_ROWWISE_LONG_ROW_LIMIT
/* Its rows are whole chunks (the launcher checks it): the plain loads, stores and reductions take
 * them so (ops/warp_vector.h: TS_WV_ROWS_WHOLE_CHUNKS), with no element-by-element paths. */
#undef TS_WV_PLAIN_ROWS
#define TS_WV_PLAIN_ROWS TS_WV_ROWS_WHOLE_CHUNKS
#include TS_ROWWISE_INSTANCE_VARIANT
#undef TS_WV_PLAIN_ROWS
#define TS_WV_PLAIN_ROWS 0
#undef TS_ROWWISE_NAME
#undef TS_ROWWISE_BLOCK_WARPS_MAX
#undef TS_ROWWISE_MIN_BLOCKS
#undef TS_ROWWISE_SHORT
#undef TS_ROWWISE_WHOLE
#undef TS_ROWWISE_ONE_WARP_ROW
#undef TS_ROWWISE_LONG_ROW
