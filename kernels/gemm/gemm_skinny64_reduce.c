/* The reduction of the skinny GEMM with tiles 64 columns wide (kernels/gemm/gemm_skinny_reduce.h). */
#define TS_GEMM_SKINNY 64
#include "kernels/gemm/gemm_skinny_reduce.h"
