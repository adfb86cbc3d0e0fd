/* Adds two matrices with Tessera's tile-add kernel and checks the result: allocation, copies,
 * a launch and error handling through the public C API. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <tessera/tessera.h>

#include "example_util.h"

int main(void) {
    enum { ROWS = 100, COLS = 70 };
    const size_t bytes = (size_t)ROWS * COLS * sizeof(float);
    EXIT_IF_NO_DEVICE();
    float *a = malloc(bytes), *b = malloc(bytes), *c = malloc(bytes);
    if (!a || !b || !c) return 1;
    for (int i = 0; i < ROWS * COLS; ++i) {
        a[i] = (float)(i % 97) * 0.5f;
        b[i] = (float)(i % 89) * -0.25f;
    }
    float *da, *db, *dc;
    CHECK(ts_malloc((void **)&da, bytes));
    CHECK(ts_malloc((void **)&db, bytes));
    CHECK(ts_malloc((void **)&dc, bytes));
    CHECK(ts_memcpy(da, a, bytes, TS_MEMCPY_HOST_TO_DEVICE));
    CHECK(ts_memcpy(db, b, bytes, TS_MEMCPY_HOST_TO_DEVICE));
    CHECK(ts_tile_add_f32(dc, da, db, ROWS, COLS, COLS, COLS, COLS, NULL));
    CHECK(ts_memcpy(c, dc, bytes, TS_MEMCPY_DEVICE_TO_HOST));
    double worst = 0.0;
    for (int i = 0; i < ROWS * COLS; ++i) worst = fmax(worst, fabs((double)c[i] - ((double)a[i] + b[i])));
    printf("tile add %dx%d: largest error %g\n", ROWS, COLS, worst);
    CHECK(ts_free(da));
    CHECK(ts_free(db));
    CHECK(ts_free(dc));
    free(a);
    free(b);
    free(c);
    return worst == 0.0 ? 0 : 1;
}
