/* The reduction of the skinny GEMM with tiles 128 columns wide (kernels/gemm/gemm_skinny_reduce.h). */
#define TS_GEMM_SKINNY 128
#include "kernels/gemm/gemm_skinny_reduce.h"
