/* ts_async_prefetch(desc): warp scope, like the copies of ops/tma.h: the copy engine fetches a
 * descriptor (a TMA tensor map on Hopper) ahead of its first copy, so that a short kernel's first
 * loads do not wait for it. One lane issues it (ts_async_prefetch_desc is per thread); nothing on
 * the backends without a descriptor cache. */
#ifndef TESSERA_OPS_ASYNC_PREFETCH_H
#define TESSERA_OPS_ASYNC_PREFETCH_H

#include "backends/tma.h"

TS_DEVICE void ts_async_prefetch(const ts_async_desc *d) {
    if (ts_lane_id() == 0) ts_async_prefetch_desc(d);
}

#endif
