/* The two instances of a row-wise kernel family (kernels/common/rowwise.h) for one input dtype:
 * NAME, for rows of any length this backend takes, in blocks of up to TS_ROWWISE_MAX_WARPS warps;
 * and NAME_short, for rows of up to TS_ROWWISE_SHORT_WARPS slices, in blocks of at most that many
 * warps built for TS_ROWWISE_INSTANCE_SHORT_BLOCKS blocks per SM. Each is the family's variant
 * header included once; their launchers are NAME_launch and NAME_short_launch. Included once per
 * dtype after defining:
 *   TS_ROWWISE_INSTANCE_VARIANT       the variant header, as a quoted path
 *   TS_ROWWISE_INSTANCE_NAME          NAME
 *   TS_ROWWISE_INSTANCE_DTYPE         the input dtype (TS_DTYPE_...)
 *   TS_ROWWISE_INSTANCE_SHORT_BLOCKS  blocks per SM of the short instance
 * A variant header reads TS_ROWWISE_NAME, TS_ROWWISE_DTYPE, TS_ROWWISE_BLOCK_WARPS_MAX (its block
 * size limit), TS_ROWWISE_MIN_BLOCKS (TS_KERNEL_RESIDENT) and TS_ROWWISE_SHORT (1 in the short
 * instance, which a family may specialize further), and defines nothing it leaves behind. */
#define TS_ROWWISE_NAME TS_ROWWISE_INSTANCE_NAME
#define TS_ROWWISE_DTYPE TS_ROWWISE_INSTANCE_DTYPE
#define TS_ROWWISE_BLOCK_WARPS_MAX TS_ROWWISE_MAX_WARPS
#define TS_ROWWISE_MIN_BLOCKS 1
#define TS_ROWWISE_SHORT 0
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
#undef TS_ROWWISE_BLOCK_WARPS_MAX
#undef TS_ROWWISE_MIN_BLOCKS
#undef TS_ROWWISE_SHORT
#undef TS_ROWWISE_DTYPE

#undef TS_ROWWISE_INSTANCE_NAME
#undef TS_ROWWISE_INSTANCE_DTYPE
