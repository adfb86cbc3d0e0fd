/* The warp model of warp_dot_model.h at 32 lanes (CUDA's warps). */
#define TS_MODEL_LANES 32
#include "tests/support/warp_dot_model_impl.h"
