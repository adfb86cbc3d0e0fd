/* One instance of a row-wise kernel family for 16-bit rows of whole chunks longer than a slice and
 * at most TS_ROWWISE_LONG_ROW_LIMIT columns, a row a one-warp block (templates/rowwise.h:
 * ts_rowwise_long_row_plan). The plan of a slice a warp spreads such a row over two warps, the
 * second partly empty, with a block barrier for each reduction: RMSNorm + residual bf16 40960x1600
 * and 57344x1152 ran there at 0.93x and 0.75x torch.compile on the H200. Here one warp holds the
 * whole row in TS_ROWWISE_LONG_ROW_LIMIT elements' registers, the last chunks of some lanes past
 * the row: the one-slice rows' settings (rowwise_one_warp_row.h) with a longer slice and rows of
 * any such length. Included after defining:
 *   TS_ROWWISE_INSTANCE_VARIANT       the variant header, as a quoted path
 *   TS_ROWWISE_DTYPE                  the input dtype (a 16-bit TS_DTYPE_...)
 *   TS_ROWWISE_LONG_ROW_NAME          the kernel (its launcher: NAME_launch, over a plan of
 *                                     ts_rowwise_long_row_plan)
 *   TS_ROWWISE_LONG_ROW_BLOCKS        blocks per SM
 *   TS_ROWWISE_LONG_ROW_LIMIT         the longest row it holds, its slice (rowwise_plan.h:
 *                                     TS_ROWWISE_LONG_ROW_COLS, or TS_ROWWISE_LONG_ROW_NARROW_COLS
 *                                     / _MID_COLS for a narrow / middle instance, at
 *                                     TS_WARP_LANES)
 * and leaves none of the TS_ROWWISE_* settings it defines behind. */
#define TS_ROWWISE_NAME TS_ROWWISE_LONG_ROW_NAME
#define TS_ROWWISE_BLOCK_WARPS_MAX 1
#define TS_ROWWISE_MIN_BLOCKS TS_ROWWISE_LONG_ROW_BLOCKS
#define TS_ROWWISE_SHORT 1
#define TS_ROWWISE_WHOLE 1
#define TS_ROWWISE_ONE_WARP_ROW 1
#define TS_ROWWISE_LONG_ROW TS_ROWWISE_LONG_ROW_LIMIT
/* Its rows are whole chunks (the launcher checks it): the plain loads, stores and reductions take
 * them so (ops/warp_vector.h: TS_WV_ROWS_WHOLE_CHUNKS), with no element-by-element paths (with them
 * the norms' kernel was 2.5x the instructions and ran at 0.53-0.92x torch.compile on the H200,
 * bench/results/nvidia-h200-2026-12-03-long-rows.txt). */
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
