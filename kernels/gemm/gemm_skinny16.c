/* The skinny GEMM (kernels/gemm/gemm_skinny_kernels.h) with tiles 16 columns wide: products of at
 * most 16 rows. */
#define TS_GEMM_SKINNY 16
#include "kernels/gemm/gemm_skinny_kernels.h"
