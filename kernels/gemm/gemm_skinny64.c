/* The skinny GEMM (kernels/gemm/gemm_skinny_kernels.h) with tiles 64 columns wide: products of at
 * most 64 rows. */
#define TS_GEMM_SKINNY 64
#include "kernels/gemm/gemm_skinny_kernels.h"
