/* The skinny GEMM (kernels/gemm/gemm_skinny_kernels.h) with tiles 128 columns wide: products of 65
 * to 128 rows that gemm.c sends here. */
#define TS_GEMM_SKINNY 128
#include "kernels/gemm/gemm_skinny_kernels.h"
