/* The slice instances of a row-wise family's variant for one input dtype (templates/rowwise.h), each
 * the variant header compiled once with its settings:
 *   NAME        general: rows of any length this backend takes, in blocks of up to
 *               TS_ROWWISE_MAX_WARPS warps that loop over row groups; any output dtype
 *   NAME_short  rows of up to TS_ROWWISE_SHORT_WARPS slices in one pass, a row group a block, every
 *               output in the input's dtype, built for TS_ROWWISE_INSTANCE_SHORT_BLOCKS blocks an SM
 *   NAME_whole  the short instance where every slice is whole and every matrix and row 16-byte
 *               aligned (rowwise_plan.h: ts_rowwise_plan_whole), so that loads and stores compile
 *               without their element-by-element paths
 *   NAME_whole_row  with TS_ROWWISE_INSTANCE_WHOLE_ROW_BLOCKS > 0: the whole instance for rows of one
 *               slice in one-warp blocks built for that many blocks an SM (rowwise_one_warp_row.h)
 * Their launchers (ts_rowwise_launch_fn) are NAME_launch, NAME_short_launch, ... Included once per
 * dtype (templates/rowwise_family.h does it for a family) after defining:
 *   TS_ROWWISE_INSTANCE_VARIANT       the variant header, as a quoted path
 *   TS_ROWWISE_INSTANCE_NAME          NAME
 *   TS_ROWWISE_INSTANCE_DTYPE         the input dtype (TS_DTYPE_...), a compile-time constant of each
 *                                     instance (docs/row-template.md: why not a run-time value)
 *   TS_ROWWISE_INSTANCE_SHORT_BLOCKS  blocks an SM of the short instance
 *   TS_ROWWISE_INSTANCE_WHOLE_BLOCKS  of the whole instance (optional; default: the short's)
 *   TS_ROWWISE_INSTANCE_WHOLE_ROW_BLOCKS  (optional) above
 * and undefines NAME and DTYPE. A variant reads:
 *   TS_ROWWISE_NAME            its kernel; it defines the launcher TS_ROWWISE_NAME##_launch
 *                              (TS_ROWWISE_LAUNCHER)
 *   TS_ROWWISE_DTYPE           the input dtype
 *   TS_ROWWISE_BLOCK_WARPS_MAX the most warps a block has; TS_ROWWISE_MIN_BLOCKS its
 *                              TS_KERNEL_RESIDENT bound
 *   TS_ROWWISE_SHORT           1 in the one-pass instances (short, whole, one-warp rows, long rows):
 *                              one row group a block, no loop, dtypes the input's
 *   TS_ROWWISE_WHOLE           1 where every row of the block exists, each warp's slice is whole and
 *                              TS_ROWWISE_ASSUME_ALIGNED promises 16-byte alignment
 *   TS_ROWWISE_ONE_WARP_ROW    1 in the one-warp-row instances (a row a one-warp block)
 *   TS_ROWWISE_LONG_ROW        in a long-row instance the longest row it holds (rowwise_long_row.h),
 *                              0 elsewhere; a warp's slice is TS_ROWWISE_SLICE_E
 * and leaves nothing defined behind. */
#define TS_ROWWISE_NAME TS_ROWWISE_INSTANCE_NAME
#define TS_ROWWISE_DTYPE TS_ROWWISE_INSTANCE_DTYPE
#define TS_ROWWISE_BLOCK_WARPS_MAX TS_ROWWISE_MAX_WARPS
#define TS_ROWWISE_MIN_BLOCKS 1
#define TS_ROWWISE_SHORT 0
#define TS_ROWWISE_WHOLE 0
#define TS_ROWWISE_ONE_WARP_ROW 0
#define TS_ROWWISE_LONG_ROW 0
#include TS_ROWWISE_INSTANCE_VARIANT
#undef TS_ROWWISE_NAME
#undef TS_ROWWISE_BLOCK_WARPS_MAX
#undef TS_ROWWISE_MIN_BLOCKS
#undef TS_ROWWISE_SHORT

#define TS_ROWWISE_NAME TS_CAT(TS_ROWWISE_INSTANCE_NAME, _short)
#define TS_ROWWISE_BLOCK_WARPS_MAX TS_ROWWISE_SHORT_WARPS
#define TS_ROWWISE_MIN_BLOCKS TS_ROWWISE_INSTANCE_SHORT_BLOCKS
#define TS_ROWWISE_SHORT 1
#include TS_ROWWISE_INSTANCE_VARIANT
#undef TS_ROWWISE_NAME
#undef TS_ROWWISE_WHOLE
#undef TS_ROWWISE_MIN_BLOCKS

#define TS_ROWWISE_NAME TS_CAT(TS_ROWWISE_INSTANCE_NAME, _whole)
#define TS_ROWWISE_WHOLE 1
#ifdef TS_ROWWISE_INSTANCE_WHOLE_BLOCKS
#define TS_ROWWISE_MIN_BLOCKS TS_ROWWISE_INSTANCE_WHOLE_BLOCKS
#else
#define TS_ROWWISE_MIN_BLOCKS TS_ROWWISE_INSTANCE_SHORT_BLOCKS
#endif
#include TS_ROWWISE_INSTANCE_VARIANT
#undef TS_ROWWISE_NAME
#undef TS_ROWWISE_WHOLE
#undef TS_ROWWISE_MIN_BLOCKS
#undef TS_ROWWISE_BLOCK_WARPS_MAX

#undef TS_ROWWISE_ONE_WARP_ROW
#undef TS_ROWWISE_LONG_ROW
#undef TS_ROWWISE_SHORT

#if defined(TS_ROWWISE_INSTANCE_WHOLE_ROW_BLOCKS) && TS_ROWWISE_INSTANCE_WHOLE_ROW_BLOCKS > 0
#define TS_ROWWISE_ONE_WARP_ROW_NAME TS_CAT(TS_ROWWISE_INSTANCE_NAME, _whole_row)
#define TS_ROWWISE_ONE_WARP_ROW_BLOCKS TS_ROWWISE_INSTANCE_WHOLE_ROW_BLOCKS
#include "templates/rowwise_one_warp_row.h"
#undef TS_ROWWISE_ONE_WARP_ROW_NAME
#undef TS_ROWWISE_ONE_WARP_ROW_BLOCKS
#endif
#undef TS_ROWWISE_DTYPE

#undef TS_ROWWISE_INSTANCE_NAME
#undef TS_ROWWISE_INSTANCE_DTYPE
