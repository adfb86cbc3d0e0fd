/* The norms' rows instances of one 16-bit dtype (norm.c, norm_rows_variant.h): rows of 256, 512 and
 * 768 columns, each where it is whole chunks of every lane (kernels/common/rowwise_plan.h:
 * ts_rowwise_row_chunks; 512 alone on HIP's 64-lane warps), named TS_NORM_ROWS_PREFIX##COLS, built
 * for TS_NORM_ROWS_BLOCKS blocks an SM (768: TS_NORM_ROWS768_BLOCKS). Included once per dtype after
 * defining TS_ROWWISE_DTYPE and TS_NORM_ROWS_PREFIX. */
#if 256 % (TS_WV_CHUNK * TS_WARP_LANES) == 0
#define TS_NORM_ROWS_COLS 256
#define TS_NORM_ROWS_INSTANCE_BLOCKS TS_NORM_ROWS_BLOCKS
#define TS_NORM_ROWS_NAME TS_CAT(TS_NORM_ROWS_PREFIX, 256)
#include "kernels/norm/norm_rows_variant.h"
#undef TS_NORM_ROWS_NAME
#undef TS_NORM_ROWS_COLS
#undef TS_NORM_ROWS_INSTANCE_BLOCKS
#endif
#define TS_NORM_ROWS_COLS 512
#define TS_NORM_ROWS_INSTANCE_BLOCKS TS_NORM_ROWS_BLOCKS
#define TS_NORM_ROWS_NAME TS_CAT(TS_NORM_ROWS_PREFIX, 512)
#include "kernels/norm/norm_rows_variant.h"
#undef TS_NORM_ROWS_NAME
#undef TS_NORM_ROWS_COLS
#undef TS_NORM_ROWS_INSTANCE_BLOCKS
#if 768 % (TS_WV_CHUNK * TS_WARP_LANES) == 0
#define TS_NORM_ROWS_COLS 768
#define TS_NORM_ROWS_INSTANCE_BLOCKS TS_NORM_ROWS768_BLOCKS
#define TS_NORM_ROWS_NAME TS_CAT(TS_NORM_ROWS_PREFIX, 768)
#include "kernels/norm/norm_rows_variant.h"
#undef TS_NORM_ROWS_NAME
#undef TS_NORM_ROWS_COLS
#undef TS_NORM_ROWS_INSTANCE_BLOCKS
#endif
