/* The reduction of the skinny GEMM with tiles 16 columns wide (kernels/gemm/gemm_skinny_reduce.h). */
#define TS_GEMM_SKINNY 16
#include "kernels/gemm/gemm_skinny_reduce.h"
