/* Softmax's rows instances of one dtype (softmax.c, softmax_rows_variant.h): rows of 256, 512 and
 * 768 columns, each where it is whole chunks of every lane and fewer bytes than a 16-bit slice
 * (kernels/common/rowwise_plan.h: ts_rowwise_row_chunks; fp32: 256; on HIP's 64-lane warps 16-bit
 * 512 alone), named TS_SOFTMAX_ROWS_PREFIX##COLS, built for TS_SOFTMAX_ROWS_BLOCKS blocks an SM
 * (768: TS_SOFTMAX_ROWS768_BLOCKS). Included once per dtype after defining TS_ROWWISE_DTYPE,
 * TS_SOFTMAX_ROWS_PREFIX and TS_SOFTMAX_ROWS_16BIT (1 for a 16-bit dtype). */
#if 256 % (TS_WV_CHUNK * TS_WARP_LANES) == 0
#define TS_SOFTMAX_ROWS_COLS 256
#define TS_SOFTMAX_ROWS_INSTANCE_BLOCKS TS_SOFTMAX_ROWS_BLOCKS
#define TS_SOFTMAX_ROWS_NAME TS_CAT(TS_SOFTMAX_ROWS_PREFIX, 256)
#include "kernels/softmax/softmax_rows_variant.h"
#undef TS_SOFTMAX_ROWS_NAME
#undef TS_SOFTMAX_ROWS_COLS
#undef TS_SOFTMAX_ROWS_INSTANCE_BLOCKS
#endif
#if TS_SOFTMAX_ROWS_16BIT
#define TS_SOFTMAX_ROWS_COLS 512
#define TS_SOFTMAX_ROWS_INSTANCE_BLOCKS TS_SOFTMAX_ROWS_BLOCKS
#define TS_SOFTMAX_ROWS_NAME TS_CAT(TS_SOFTMAX_ROWS_PREFIX, 512)
#include "kernels/softmax/softmax_rows_variant.h"
#undef TS_SOFTMAX_ROWS_NAME
#undef TS_SOFTMAX_ROWS_COLS
#undef TS_SOFTMAX_ROWS_INSTANCE_BLOCKS
#if 768 % (TS_WV_CHUNK * TS_WARP_LANES) == 0
#define TS_SOFTMAX_ROWS_COLS 768
#define TS_SOFTMAX_ROWS_INSTANCE_BLOCKS TS_SOFTMAX_ROWS768_BLOCKS
#define TS_SOFTMAX_ROWS_NAME TS_CAT(TS_SOFTMAX_ROWS_PREFIX, 768)
#include "kernels/softmax/softmax_rows_variant.h"
#undef TS_SOFTMAX_ROWS_NAME
#undef TS_SOFTMAX_ROWS_COLS
#undef TS_SOFTMAX_ROWS_INSTANCE_BLOCKS
#endif
#endif
