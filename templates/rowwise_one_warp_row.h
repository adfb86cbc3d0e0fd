/* One instance of a row-wise family's slice variant for rows of one whole, aligned slice in one-warp
 * blocks built for a number of blocks an SM of their own (so with registers of their own, apart from
 * the multi-warp rows'): the whole instance's settings (templates/rowwise_instances.h) with
 * TS_ROWWISE_ONE_WARP_ROW. rowwise_instances.h includes it for a family's NAME_whole_row; a family may
 * include it again for a further instance (kernels/norm/norm.c: the RMSNorm rows' instance).
 * Included after defining:
 *   TS_ROWWISE_INSTANCE_VARIANT       the variant header, as a quoted path
 *   TS_ROWWISE_DTYPE                  the input dtype (TS_DTYPE_...)
 *   TS_ROWWISE_ONE_WARP_ROW_NAME      the kernel (its launcher: NAME_launch)
 *   TS_ROWWISE_ONE_WARP_ROW_BLOCKS    blocks an SM
 * and leaves none of the settings it defines behind. */
#define TS_ROWWISE_NAME TS_ROWWISE_ONE_WARP_ROW_NAME
#define TS_ROWWISE_BLOCK_WARPS_MAX 1
#define TS_ROWWISE_MIN_BLOCKS TS_ROWWISE_ONE_WARP_ROW_BLOCKS
#define TS_ROWWISE_SHORT 1
#define TS_ROWWISE_WHOLE 1
#define TS_ROWWISE_ONE_WARP_ROW 1
#define TS_ROWWISE_LONG_ROW 0
#include TS_ROWWISE_INSTANCE_VARIANT
#undef TS_ROWWISE_NAME
#undef TS_ROWWISE_BLOCK_WARPS_MAX
#undef TS_ROWWISE_MIN_BLOCKS
#undef TS_ROWWISE_SHORT
#undef TS_ROWWISE_WHOLE
#undef TS_ROWWISE_ONE_WARP_ROW
#undef TS_ROWWISE_LONG_ROW
