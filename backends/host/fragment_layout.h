/* Where each element of a 16x16 register subtile lives on the host backend: a warp is one thread
 * that holds the whole subtile, row-major. Element i (0..255). */
#ifndef TESSERA_BACKENDS_HOST_FRAGMENT_LAYOUT_H
#define TESSERA_BACKENDS_HOST_FRAGMENT_LAYOUT_H

#include "backends/common.h"

#define TS_HOST_RT_SUB_ELEMS 256

TS_LAYOUT_FN int ts_host_rt_row(int lane, int i) { return (void)lane, i >> 4; }
TS_LAYOUT_FN int ts_host_rt_col(int lane, int i) { return (void)lane, i & 15; }

#endif
