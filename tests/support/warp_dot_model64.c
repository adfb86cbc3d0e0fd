/* The warp model of warp_dot_model.h at 64 lanes (CDNA's waves). */
#define TS_MODEL_LANES 64
#include "tests/support/warp_dot_model_impl.h"
