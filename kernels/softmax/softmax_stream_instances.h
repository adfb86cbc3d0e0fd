/* The stream instances of one kind (kernels/softmax/softmax_stream_variant.h) for the three input
 * dtypes: ts_softmax_bf16_KIND, ts_softmax_fp16_KIND and ts_softmax_f32_KIND, their launchers NAME_launch.
 * Included by softmax.c after defining TS_SOFTMAX_STREAM_STAGED (0 or 1), TS_SOFTMAX_STREAM_KIND
 * (stream or staged) and the kernels' bound, TS_SOFTMAX_STREAM_BOUND_WARPS (the most warps a block
 * has) and TS_SOFTMAX_STREAM_BOUND_BLOCKS (the blocks an SM it is built for), all of which it
 * undefines. */
#define TS_SOFTMAX_STREAM_NAME TS_CAT(ts_softmax_bf16_, TS_SOFTMAX_STREAM_KIND)
#define TS_SOFTMAX_STREAM_DTYPE TS_DTYPE_BF16
#include "kernels/softmax/softmax_stream_variant.h"
#undef TS_SOFTMAX_STREAM_NAME
#undef TS_SOFTMAX_STREAM_DTYPE
#define TS_SOFTMAX_STREAM_NAME TS_CAT(ts_softmax_fp16_, TS_SOFTMAX_STREAM_KIND)
#define TS_SOFTMAX_STREAM_DTYPE TS_DTYPE_FP16
#include "kernels/softmax/softmax_stream_variant.h"
#undef TS_SOFTMAX_STREAM_NAME
#undef TS_SOFTMAX_STREAM_DTYPE
#define TS_SOFTMAX_STREAM_NAME TS_CAT(ts_softmax_f32_, TS_SOFTMAX_STREAM_KIND)
#define TS_SOFTMAX_STREAM_DTYPE TS_DTYPE_F32
#include "kernels/softmax/softmax_stream_variant.h"
#undef TS_SOFTMAX_STREAM_NAME
#undef TS_SOFTMAX_STREAM_DTYPE
#undef TS_SOFTMAX_STREAM_KIND
#undef TS_SOFTMAX_STREAM_STAGED
#undef TS_SOFTMAX_STREAM_BOUND_WARPS
#undef TS_SOFTMAX_STREAM_BOUND_BLOCKS
