/* Host side of the tile copies on backends without a copy engine (host, CDNA): the descriptor is
 * the global layout and the tile shape, after the same argument checks as on Hopper, so that a
 * launcher behaves alike on every backend. Built like a kernel source so that it sees the same
 * types as the kernels. */
#include <string.h>

#include "backends/tma.h"

TS_EXTERN_C ts_status ts_async_desc_make(ts_async_desc *d, const ts_gl *g, int tile_rows,
                                         int tile_cols, int dtype) {
    const ts_status status = ts_async_desc_check(d, g, tile_rows, tile_cols, dtype);
    if (status != TS_SUCCESS) return status;
    memset(d, 0, sizeof *d);
    d->gl = *g;
    d->tile_rows = tile_rows;
    d->tile_cols = tile_cols;
    d->dtype = dtype;
    return TS_SUCCESS;
}
