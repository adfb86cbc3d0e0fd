/* The instances of a row-wise kernel family (templates/rowwise.h) for one input dtype:
 * NAME, for rows of any length this backend takes, in blocks of up to TS_ROWWISE_MAX_WARPS warps;
 * NAME_short, for rows of up to TS_ROWWISE_SHORT_WARPS slices, in blocks of at most that many
 * warps built for TS_ROWWISE_INSTANCE_SHORT_BLOCKS blocks per SM; and, where the family asks for it
 * (TS_ROWWISE_INSTANCE_WHOLE), NAME_whole: the short instance for rows of whole slices whose
 * every pointer and stride is 16-byte aligned (rowwise_plan.h: ts_rowwise_plan_whole). Each is the
 * family's variant header included once; their launchers are NAME_launch, NAME_short_launch and
 * NAME_whole_launch; and, where the family asks for it (TS_ROWWISE_INSTANCE_WHOLE_ROW_BLOCKS),
 * NAME_whole_row: the whole instance once more for rows of one slice, in one-warp blocks built for
 * that many blocks per SM (rowwise_one_warp_row.h), its launcher NAME_whole_row_launch. Included once per dtype after defining:
 *   TS_ROWWISE_INSTANCE_VARIANT       the variant header, as a quoted path
 *   TS_ROWWISE_INSTANCE_NAME          NAME
 *   TS_ROWWISE_INSTANCE_DTYPE         the input dtype (TS_DTYPE_...)
 *   TS_ROWWISE_INSTANCE_SHORT_BLOCKS  blocks per SM of the short instance
 *   TS_ROWWISE_INSTANCE_WHOLE         1: the whole instance as well (optional)
 *   TS_ROWWISE_INSTANCE_WHOLE_BLOCKS  blocks per SM of the whole instance (optional; default: the short's)
 *   TS_ROWWISE_INSTANCE_WHOLE_ROW_BLOCKS  > 0: the one-slice whole instance as well (optional)
 * A variant header reads TS_ROWWISE_NAME, TS_ROWWISE_DTYPE, TS_ROWWISE_BLOCK_WARPS_MAX (its block
 * size limit), TS_ROWWISE_MIN_BLOCKS (TS_KERNEL_RESIDENT), TS_ROWWISE_SHORT (1 in the short and
 * whole instances, which a family may specialize further) and TS_ROWWISE_WHOLE (1 in the whole
 * instance: every row group's rows exist, each warp's slice is whole, and TS_ROWWISE_ASSUME_ALIGNED
 * promises 16-byte alignment), TS_ROWWISE_ONE_WARP_ROW (1 in the one-slice whole instance),
 * TS_ROWWISE_LONG_ROW (in a long-row instance, rowwise_long_row.h, the longest row it holds, its
 * warp's slice TS_ROWWISE_SLICE_E), and defines nothing it leaves behind. */
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

#if defined(TS_ROWWISE_INSTANCE_WHOLE) && TS_ROWWISE_INSTANCE_WHOLE
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
#endif
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
