/* A family's pair of long-row instances (templates/rowwise_long_row.h), bf16 and fp16, of one row
 * length. Included (templates/rowwise_family.h does it) after defining TS_ROWWISE_INSTANCE_VARIANT and
 *   TS_ROWWISE_LONG_ROW_BF16_NAME, TS_ROWWISE_LONG_ROW_FP16_NAME   the two kernels
 *   TS_ROWWISE_LONG_ROW_BLOCKS, TS_ROWWISE_LONG_ROW_LIMIT           as rowwise_long_row.h reads them
 * and undefines those four. */
#define TS_ROWWISE_LONG_ROW_NAME TS_ROWWISE_LONG_ROW_BF16_NAME
#define TS_ROWWISE_DTYPE TS_DTYPE_BF16
#include "templates/rowwise_long_row.h"
#undef TS_ROWWISE_LONG_ROW_NAME
#undef TS_ROWWISE_DTYPE
#define TS_ROWWISE_LONG_ROW_NAME TS_ROWWISE_LONG_ROW_FP16_NAME
#define TS_ROWWISE_DTYPE TS_DTYPE_FP16
#include "templates/rowwise_long_row.h"
#undef TS_ROWWISE_LONG_ROW_NAME
#undef TS_ROWWISE_DTYPE
#undef TS_ROWWISE_LONG_ROW_BF16_NAME
#undef TS_ROWWISE_LONG_ROW_FP16_NAME
#undef TS_ROWWISE_LONG_ROW_BLOCKS
#undef TS_ROWWISE_LONG_ROW_LIMIT
