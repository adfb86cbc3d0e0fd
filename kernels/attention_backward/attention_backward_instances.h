/* The instances of attention backward of one dtype: the dK/dV kernel and the dQ kernel at head
 * dimensions 64 and 128, and where the architecture has it the dK/dV kernel with the atomic form of
 * dQ (dkdv_dq) at 128. Included by attention_backward.c once per dtype after defining
 * TS_ATTN_BWD_KIND_DT (bf16 or fp16, as in tile names) and TS_ATTN_BWD_PREFIX; the names are
 * <prefix><kernel>_<dt>_d<D>. */

#define TS_ATTN_BWD_NAME TS_CAT(TS_ATTN_BWD_PREFIX, TS_CAT(dkdv_, TS_CAT(TS_ATTN_BWD_KIND_DT, _d64)))
#define TS_ATTN_BWD_D 64
#define TS_ATTN_BWD_DT TS_ATTN_BWD_KIND_DT
#define TS_ATTN_BWD_DQ_ADD 0
#include "kernels/attention_backward/dkdv_variant.h"
#undef TS_ATTN_BWD_NAME
#undef TS_ATTN_BWD_D
#undef TS_ATTN_BWD_DT
#undef TS_ATTN_BWD_DQ_ADD

#define TS_ATTN_BWD_NAME TS_CAT(TS_ATTN_BWD_PREFIX, TS_CAT(dkdv_, TS_CAT(TS_ATTN_BWD_KIND_DT, _d128)))
#define TS_ATTN_BWD_D 128
#define TS_ATTN_BWD_DT TS_ATTN_BWD_KIND_DT
#define TS_ATTN_BWD_DQ_ADD 0
#include "kernels/attention_backward/dkdv_variant.h"
#undef TS_ATTN_BWD_NAME
#undef TS_ATTN_BWD_D
#undef TS_ATTN_BWD_DT
#undef TS_ATTN_BWD_DQ_ADD

/* The atomic form of dQ (D = 128), where the architecture has it. */
#if TS_ATTN_BWD_DQ_ATOMIC
#define TS_ATTN_BWD_NAME TS_CAT(TS_ATTN_BWD_PREFIX, TS_CAT(dkdv_dq_, TS_CAT(TS_ATTN_BWD_KIND_DT, _d128)))
#define TS_ATTN_BWD_D 128
#define TS_ATTN_BWD_DT TS_ATTN_BWD_KIND_DT
#define TS_ATTN_BWD_DQ_ADD 1
#include "kernels/attention_backward/dkdv_variant.h"
#undef TS_ATTN_BWD_NAME
#undef TS_ATTN_BWD_D
#undef TS_ATTN_BWD_DT
#undef TS_ATTN_BWD_DQ_ADD
#endif

#define TS_ATTN_BWD_NAME TS_CAT(TS_ATTN_BWD_PREFIX, TS_CAT(dq_, TS_CAT(TS_ATTN_BWD_KIND_DT, _d64)))
#define TS_ATTN_BWD_D 64
#define TS_ATTN_BWD_DT TS_ATTN_BWD_KIND_DT
#include "kernels/attention_backward/dq_variant.h"
#undef TS_ATTN_BWD_NAME
#undef TS_ATTN_BWD_D
#undef TS_ATTN_BWD_DT

#define TS_ATTN_BWD_NAME TS_CAT(TS_ATTN_BWD_PREFIX, TS_CAT(dq_, TS_CAT(TS_ATTN_BWD_KIND_DT, _d128)))
#define TS_ATTN_BWD_D 128
#define TS_ATTN_BWD_DT TS_ATTN_BWD_KIND_DT
#include "kernels/attention_backward/dq_variant.h"
#undef TS_ATTN_BWD_NAME
#undef TS_ATTN_BWD_D
#undef TS_ATTN_BWD_DT
