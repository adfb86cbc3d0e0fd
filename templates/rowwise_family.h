/* A row-wise family's instances for the input dtypes bf16, fp16 and fp32, and its launcher table for
 * the dispatch ladder (templates/rowwise_dispatch.h): what a family's source includes once, after
 * defining its names and numbers (P is TS_ROWWISE_FAMILY):
 *   TS_ROWWISE_FAMILY                 the kernels' prefix, e.g. ts_norm: P_bf16, P_bf16_short, ...
 *   TS_ROWWISE_FAMILY_VARIANT         the slice variant, as a quoted path: general, short and whole
 *                                     instances of each dtype, P_<dtype>, P_<dtype>_short,
 *                                     P_<dtype>_whole (templates/rowwise_instances.h)
 *   TS_ROWWISE_FAMILY_SHORT_BLOCKS    blocks an SM of the 16-bit short and whole instances
 *   TS_ROWWISE_FAMILY_F32_SHORT_BLOCKS, TS_ROWWISE_FAMILY_F32_WHOLE_BLOCKS   and of fp32's
 * optional:
 *   TS_ROWWISE_FAMILY_WHOLE_ROW_BLOCKS  > 0: 16-bit one-slice-row instances too, P_<dtype>_whole_row
 *                                     (templates/rowwise_one_warp_row.h), not in the table: the
 *                                     family routes to them itself
 *   TS_ROWWISE_FAMILY_LONG_ROW_BLOCKS, _LONG_ROW_NARROW_BLOCKS, _LONG_ROW_MID_BLOCKS
 *                                     the 16-bit long-row instances of the slice variant,
 *                                     P_<dtype>_long_row, _long_row_narrow and _long_row_mid where
 *                                     this backend has them (templates/rowwise_long_row.h)
 *   TS_ROWWISE_FAMILY_ROWS_VARIANT    the rows variant, as a quoted path: the rows instances
 *                                     P_<dtype>_rows<cols> (templates/rowwise_rows_instances.h), with
 *                                     blocks an SM TS_ROWWISE_FAMILY_ROWS_BLOCKS (16-bit rows of 256
 *                                     and 512), _ROWS768_BLOCKS, _ROWS1280_BLOCKS, _ROWS1536_BLOCKS,
 *                                     _ROWS1792_BLOCKS, _ROWS_QUAD_BLOCKS (384, 640, 896),
 *                                     _ROWS_F32_BLOCKS (fp32 256), _ROWS_F32_512_BLOCKS (fp32 512)
 * Defines static const ts_rowwise_launchers P_launchers[3], indexed by ts_rowwise_dtype_index, and
 * leaves the TS_ROWWISE_FAMILY_* names defined (the family may undefine them). */
#include "templates/rowwise_dispatch.h"

#define TS_ROWWISE_INSTANCE_VARIANT TS_ROWWISE_FAMILY_VARIANT
#define TS_ROWWISE_INSTANCE_SHORT_BLOCKS TS_ROWWISE_FAMILY_SHORT_BLOCKS
#define TS_ROWWISE_INSTANCE_WHOLE_BLOCKS TS_ROWWISE_FAMILY_SHORT_BLOCKS
#ifdef TS_ROWWISE_FAMILY_WHOLE_ROW_BLOCKS
#define TS_ROWWISE_INSTANCE_WHOLE_ROW_BLOCKS TS_ROWWISE_FAMILY_WHOLE_ROW_BLOCKS
#endif
#define TS_ROWWISE_INSTANCE_NAME TS_CAT(TS_ROWWISE_FAMILY, _bf16)
#define TS_ROWWISE_INSTANCE_DTYPE TS_DTYPE_BF16
#include "templates/rowwise_instances.h"
#define TS_ROWWISE_INSTANCE_NAME TS_CAT(TS_ROWWISE_FAMILY, _fp16)
#define TS_ROWWISE_INSTANCE_DTYPE TS_DTYPE_FP16
#include "templates/rowwise_instances.h"
#undef TS_ROWWISE_INSTANCE_SHORT_BLOCKS
#undef TS_ROWWISE_INSTANCE_WHOLE_BLOCKS
#undef TS_ROWWISE_INSTANCE_WHOLE_ROW_BLOCKS
#define TS_ROWWISE_INSTANCE_SHORT_BLOCKS TS_ROWWISE_FAMILY_F32_SHORT_BLOCKS
#define TS_ROWWISE_INSTANCE_WHOLE_BLOCKS TS_ROWWISE_FAMILY_F32_WHOLE_BLOCKS
#define TS_ROWWISE_INSTANCE_NAME TS_CAT(TS_ROWWISE_FAMILY, _f32)
#define TS_ROWWISE_INSTANCE_DTYPE TS_DTYPE_F32
#include "templates/rowwise_instances.h"
#undef TS_ROWWISE_INSTANCE_SHORT_BLOCKS
#undef TS_ROWWISE_INSTANCE_WHOLE_BLOCKS

#ifdef TS_ROWWISE_FAMILY_LONG_ROW_BLOCKS
/* bf16 and fp16, each at the three lengths this backend has (templates/rowwise_plan.h). */
#define TS_ROWWISE_LONG_ROW_BLOCKS TS_ROWWISE_FAMILY_LONG_ROW_BLOCKS
#define TS_ROWWISE_LONG_ROW_LIMIT TS_ROWWISE_LONG_ROW_COLS(TS_WARP_LANES)
#define TS_ROWWISE_LONG_ROW_BF16_NAME TS_CAT(TS_ROWWISE_FAMILY, _bf16_long_row)
#define TS_ROWWISE_LONG_ROW_FP16_NAME TS_CAT(TS_ROWWISE_FAMILY, _fp16_long_row)
#include "templates/rowwise_long_row_instances.h"
#if TS_ROWWISE_HAS_LONG_ROW_NARROW
#define TS_ROWWISE_LONG_ROW_BLOCKS TS_ROWWISE_FAMILY_LONG_ROW_NARROW_BLOCKS
#define TS_ROWWISE_LONG_ROW_LIMIT TS_ROWWISE_LONG_ROW_NARROW_COLS(TS_WARP_LANES)
#define TS_ROWWISE_LONG_ROW_BF16_NAME TS_CAT(TS_ROWWISE_FAMILY, _bf16_long_row_narrow)
#define TS_ROWWISE_LONG_ROW_FP16_NAME TS_CAT(TS_ROWWISE_FAMILY, _fp16_long_row_narrow)
#include "templates/rowwise_long_row_instances.h"
#define TS_ROWWISE_FAMILY_NARROW(name) TS_CAT(name, _long_row_narrow_launch)
#else
#define TS_ROWWISE_FAMILY_NARROW(name) NULL
#endif
#if TS_ROWWISE_HAS_LONG_ROW_MID
#define TS_ROWWISE_LONG_ROW_BLOCKS TS_ROWWISE_FAMILY_LONG_ROW_MID_BLOCKS
#define TS_ROWWISE_LONG_ROW_LIMIT TS_ROWWISE_LONG_ROW_MID_COLS(TS_WARP_LANES)
#define TS_ROWWISE_LONG_ROW_BF16_NAME TS_CAT(TS_ROWWISE_FAMILY, _bf16_long_row_mid)
#define TS_ROWWISE_LONG_ROW_FP16_NAME TS_CAT(TS_ROWWISE_FAMILY, _fp16_long_row_mid)
#include "templates/rowwise_long_row_instances.h"
#define TS_ROWWISE_FAMILY_MID(name) TS_CAT(name, _long_row_mid_launch)
#else
#define TS_ROWWISE_FAMILY_MID(name) NULL
#endif
#define TS_ROWWISE_FAMILY_LONG(name) TS_CAT(name, _long_row_launch)
#else
#define TS_ROWWISE_FAMILY_LONG(name) NULL
#define TS_ROWWISE_FAMILY_NARROW(name) NULL
#define TS_ROWWISE_FAMILY_MID(name) NULL
#endif
#undef TS_ROWWISE_INSTANCE_VARIANT

#ifdef TS_ROWWISE_FAMILY_ROWS_VARIANT
#define TS_ROWWISE_ROWS_VARIANT TS_ROWWISE_FAMILY_ROWS_VARIANT
#define TS_ROWWISE_ROWS_QUAD_ROWS 1
#define TS_ROWWISE_ROWS_QUAD_BLOCKS TS_ROWWISE_FAMILY_ROWS_QUAD_BLOCKS
#define TS_ROWWISE_ROWS256_BLOCKS TS_ROWWISE_FAMILY_ROWS_BLOCKS
#define TS_ROWWISE_ROWS512_BLOCKS TS_ROWWISE_FAMILY_ROWS_BLOCKS
#define TS_ROWWISE_ROWS768_BLOCKS TS_ROWWISE_FAMILY_ROWS768_BLOCKS
#define TS_ROWWISE_ROWS1280_BLOCKS TS_ROWWISE_FAMILY_ROWS1280_BLOCKS
#define TS_ROWWISE_ROWS1536_BLOCKS TS_ROWWISE_FAMILY_ROWS1536_BLOCKS
#define TS_ROWWISE_ROWS1792_BLOCKS TS_ROWWISE_FAMILY_ROWS1792_BLOCKS
#define TS_ROWWISE_ROWS_16BIT 1
#define TS_ROWWISE_DTYPE TS_DTYPE_BF16
#define TS_ROWWISE_ROWS_PREFIX TS_CAT(TS_ROWWISE_FAMILY, _bf16_rows)
#include "templates/rowwise_rows_instances.h"
#undef TS_ROWWISE_ROWS_PREFIX
#undef TS_ROWWISE_DTYPE
#define TS_ROWWISE_DTYPE TS_DTYPE_FP16
#define TS_ROWWISE_ROWS_PREFIX TS_CAT(TS_ROWWISE_FAMILY, _fp16_rows)
#include "templates/rowwise_rows_instances.h"
#undef TS_ROWWISE_ROWS_PREFIX
#undef TS_ROWWISE_DTYPE
#undef TS_ROWWISE_ROWS_16BIT
#undef TS_ROWWISE_ROWS256_BLOCKS
#undef TS_ROWWISE_ROWS512_BLOCKS
#define TS_ROWWISE_ROWS_16BIT 0
#define TS_ROWWISE_ROWS256_BLOCKS TS_ROWWISE_FAMILY_ROWS_F32_BLOCKS
#define TS_ROWWISE_ROWS512_BLOCKS TS_ROWWISE_FAMILY_ROWS_F32_512_BLOCKS
#define TS_ROWWISE_DTYPE TS_DTYPE_F32
#define TS_ROWWISE_ROWS_PREFIX TS_CAT(TS_ROWWISE_FAMILY, _f32_rows)
#include "templates/rowwise_rows_instances.h"
#undef TS_ROWWISE_ROWS_PREFIX
#undef TS_ROWWISE_DTYPE
#undef TS_ROWWISE_ROWS_16BIT
#undef TS_ROWWISE_ROWS256_BLOCKS
#undef TS_ROWWISE_ROWS512_BLOCKS
#undef TS_ROWWISE_ROWS768_BLOCKS
#undef TS_ROWWISE_ROWS1280_BLOCKS
#undef TS_ROWWISE_ROWS1536_BLOCKS
#undef TS_ROWWISE_ROWS1792_BLOCKS
#undef TS_ROWWISE_ROWS_QUAD_BLOCKS
#undef TS_ROWWISE_ROWS_QUAD_ROWS
#undef TS_ROWWISE_ROWS_VARIANT
#define TS_ROWWISE_FAMILY_ROWS(name) TS_CAT(name, _rows_launcher)
#else
#define TS_ROWWISE_FAMILY_ROWS(name) NULL
#endif

/* One dtype's row of the table, in ts_rowwise_launchers' order. */
#define TS_ROWWISE_FAMILY_LAUNCHERS(name)                                                          \
    {TS_ROWWISE_FAMILY_ROWS(name),   TS_ROWWISE_FAMILY_LONG(name),     TS_ROWWISE_FAMILY_MID(name),   \
     TS_ROWWISE_FAMILY_NARROW(name), TS_CAT(name, _whole_launch),      TS_CAT(name, _short_launch),   \
     TS_CAT(name, _launch)}
static const ts_rowwise_launchers TS_CAT(TS_ROWWISE_FAMILY, _launchers)[3] = {
    TS_ROWWISE_FAMILY_LAUNCHERS(TS_CAT(TS_ROWWISE_FAMILY, _bf16)),
    TS_ROWWISE_FAMILY_LAUNCHERS(TS_CAT(TS_ROWWISE_FAMILY, _fp16)),
    {TS_ROWWISE_FAMILY_ROWS(TS_CAT(TS_ROWWISE_FAMILY, _f32)), NULL, NULL, NULL,
     TS_CAT(TS_CAT(TS_ROWWISE_FAMILY, _f32), _whole_launch), TS_CAT(TS_CAT(TS_ROWWISE_FAMILY, _f32), _short_launch),
     TS_CAT(TS_CAT(TS_ROWWISE_FAMILY, _f32), _launch)}};
#undef TS_ROWWISE_FAMILY_LAUNCHERS
#undef TS_ROWWISE_FAMILY_ROWS
#undef TS_ROWWISE_FAMILY_LONG
#undef TS_ROWWISE_FAMILY_NARROW
#undef TS_ROWWISE_FAMILY_MID
