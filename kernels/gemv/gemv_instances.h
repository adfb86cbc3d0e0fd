/* The GEMV instances of one operand dtype (gemv_variant.h): both weight layouts, M buckets 1, 2, 4
 * and 8, named ts_gemv_<dtype>_<nt|nn>_m<bucket>. Included by gemv.c once per dtype, after
 * defining TS_GEMV_DT (bf16 or fp16, for the names) and TS_GEMV_DTYPE. */
#define TS_GEMV_NAME TS_CAT(TS_CAT(ts_gemv_, TS_GEMV_DT), _nt_m1)
#define TS_GEMV_MB 1
#define TS_GEMV_NN 0
#include "kernels/gemv/gemv_variant.h"
#define TS_GEMV_NAME TS_CAT(TS_CAT(ts_gemv_, TS_GEMV_DT), _nt_m2)
#define TS_GEMV_MB 2
#define TS_GEMV_NN 0
#include "kernels/gemv/gemv_variant.h"
#define TS_GEMV_NAME TS_CAT(TS_CAT(ts_gemv_, TS_GEMV_DT), _nt_m4)
#define TS_GEMV_MB 4
#define TS_GEMV_NN 0
#include "kernels/gemv/gemv_variant.h"
#define TS_GEMV_NAME TS_CAT(TS_CAT(ts_gemv_, TS_GEMV_DT), _nt_m8)
#define TS_GEMV_MB 8
#define TS_GEMV_NN 0
#include "kernels/gemv/gemv_variant.h"
#define TS_GEMV_NAME TS_CAT(TS_CAT(ts_gemv_, TS_GEMV_DT), _nn_m1)
#define TS_GEMV_MB 1
#define TS_GEMV_NN 1
#include "kernels/gemv/gemv_variant.h"
#define TS_GEMV_NAME TS_CAT(TS_CAT(ts_gemv_, TS_GEMV_DT), _nn_m2)
#define TS_GEMV_MB 2
#define TS_GEMV_NN 1
#include "kernels/gemv/gemv_variant.h"
#define TS_GEMV_NAME TS_CAT(TS_CAT(ts_gemv_, TS_GEMV_DT), _nn_m4)
#define TS_GEMV_MB 4
#define TS_GEMV_NN 1
#include "kernels/gemv/gemv_variant.h"
#define TS_GEMV_NAME TS_CAT(TS_CAT(ts_gemv_, TS_GEMV_DT), _nn_m8)
#define TS_GEMV_MB 8
#define TS_GEMV_NN 1
#include "kernels/gemv/gemv_variant.h"
