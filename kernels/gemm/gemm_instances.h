/* The eight GEMM kernels of one kind: each operand dtype (bf16, fp16) and transpose form (NN, NT,
 * TN, TT), as gemm_variant.h builds them. Included by gemm.c once per kind after defining
 * TS_GEMM_KIND (appended to each kernel's name: nothing, or _split) and TS_GEMM_SPLIT_K (see
 * gemm_variant.h); leaves both defined. */
#define TS_GEMM_INSTANCE_NAME(form) TS_CAT(TS_CAT(ts_gemm_, form), TS_GEMM_KIND)

#define TS_GEMM_NAME TS_GEMM_INSTANCE_NAME(bf16_nn)
#define TS_GEMM_A_TILE TS_GEMM_A_ST(bf16, 0)
#define TS_GEMM_B_TILE TS_GEMM_B_ST(bf16, 0)
#define TS_GEMM_TRANS_A 0
#define TS_GEMM_TRANS_B 0
#define TS_GEMM_MMA ts_wg_mma_AB_async
#include "kernels/gemm/gemm_variant.h"

#define TS_GEMM_NAME TS_GEMM_INSTANCE_NAME(bf16_nt)
#define TS_GEMM_A_TILE TS_GEMM_A_ST(bf16, 0)
#define TS_GEMM_B_TILE TS_GEMM_B_ST(bf16, 1)
#define TS_GEMM_TRANS_A 0
#define TS_GEMM_TRANS_B 1
#define TS_GEMM_MMA ts_wg_mma_ABt_async
#include "kernels/gemm/gemm_variant.h"

#define TS_GEMM_NAME TS_GEMM_INSTANCE_NAME(bf16_tn)
#define TS_GEMM_A_TILE TS_GEMM_A_ST(bf16, 1)
#define TS_GEMM_B_TILE TS_GEMM_B_ST(bf16, 0)
#define TS_GEMM_TRANS_A 1
#define TS_GEMM_TRANS_B 0
#define TS_GEMM_MMA ts_wg_mma_AtB_async
#include "kernels/gemm/gemm_variant.h"

#define TS_GEMM_NAME TS_GEMM_INSTANCE_NAME(bf16_tt)
#define TS_GEMM_A_TILE TS_GEMM_A_ST(bf16, 1)
#define TS_GEMM_B_TILE TS_GEMM_B_ST(bf16, 1)
#define TS_GEMM_TRANS_A 1
#define TS_GEMM_TRANS_B 1
#define TS_GEMM_MMA ts_wg_mma_AtBt_async
#include "kernels/gemm/gemm_variant.h"

#define TS_GEMM_NAME TS_GEMM_INSTANCE_NAME(fp16_nn)
#define TS_GEMM_A_TILE TS_GEMM_A_ST(fp16, 0)
#define TS_GEMM_B_TILE TS_GEMM_B_ST(fp16, 0)
#define TS_GEMM_TRANS_A 0
#define TS_GEMM_TRANS_B 0
#define TS_GEMM_MMA ts_wg_mma_AB_async
#include "kernels/gemm/gemm_variant.h"

#define TS_GEMM_NAME TS_GEMM_INSTANCE_NAME(fp16_nt)
#define TS_GEMM_A_TILE TS_GEMM_A_ST(fp16, 0)
#define TS_GEMM_B_TILE TS_GEMM_B_ST(fp16, 1)
#define TS_GEMM_TRANS_A 0
#define TS_GEMM_TRANS_B 1
#define TS_GEMM_MMA ts_wg_mma_ABt_async
#include "kernels/gemm/gemm_variant.h"

#define TS_GEMM_NAME TS_GEMM_INSTANCE_NAME(fp16_tn)
#define TS_GEMM_A_TILE TS_GEMM_A_ST(fp16, 1)
#define TS_GEMM_B_TILE TS_GEMM_B_ST(fp16, 0)
#define TS_GEMM_TRANS_A 1
#define TS_GEMM_TRANS_B 0
#define TS_GEMM_MMA ts_wg_mma_AtB_async
#include "kernels/gemm/gemm_variant.h"

#define TS_GEMM_NAME TS_GEMM_INSTANCE_NAME(fp16_tt)
#define TS_GEMM_A_TILE TS_GEMM_A_ST(fp16, 1)
#define TS_GEMM_B_TILE TS_GEMM_B_ST(fp16, 1)
#define TS_GEMM_TRANS_A 1
#define TS_GEMM_TRANS_B 1
#define TS_GEMM_MMA ts_wg_mma_AtBt_async
#include "kernels/gemm/gemm_variant.h"

#undef TS_GEMM_INSTANCE_NAME
