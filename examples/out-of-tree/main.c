/* Runs center_rows.c's kernel on fresh random matrices of several shapes (ragged ones among them)
 * and checks every element against a double-precision computation on the CPU. Exits 0 when all
 * agree, and also, saying so, where the machine has no device of the backend (a GPU build on a
 * machine without that GPU). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <tessera/tessera.h>

#include "center_rows.h"

static int check(int rows, int cols, float scale) {
    const size_t n = (size_t)rows * cols, bytes = n * sizeof(float);
    float *x = malloc(bytes), *y = malloc(bytes);
    float *dx = NULL, *dy = NULL;
    int ok = 0;
    if (!x || !y) goto done;
    for (size_t i = 0; i < n; ++i) x[i] = (float)rand() / RAND_MAX * 4.0f - 1.0f;
    ts_status s = ts_malloc((void **)&dx, bytes);
    if (s == TS_SUCCESS) s = ts_malloc((void **)&dy, bytes);
    if (s == TS_SUCCESS) s = ts_memcpy(dx, x, bytes, TS_MEMCPY_HOST_TO_DEVICE);
    if (s == TS_SUCCESS) s = center_rows_f32(dy, dx, rows, cols, scale, NULL);
    if (s == TS_SUCCESS) s = ts_device_synchronize();
    if (s == TS_SUCCESS) s = ts_memcpy(y, dy, bytes, TS_MEMCPY_DEVICE_TO_HOST);
    if (s != TS_SUCCESS) {
        fprintf(stderr, "center_rows %dx%d: %s\n", rows, cols, ts_status_string(s));
        goto done;
    }
    double worst = 0.0;
    for (int r = 0; r < rows; ++r) {
        double mean = 0.0;
        for (int c = 0; c < cols; ++c) mean += x[(size_t)r * cols + c];
        mean /= cols;
        for (int c = 0; c < cols; ++c) {
            const double want = (x[(size_t)r * cols + c] - mean) * scale;
            worst = fmax(worst, fabs(y[(size_t)r * cols + c] - want));
        }
    }
    /* fp32 sums of cols values in [-1, 3): a few ulps of the sum, times the scale. */
    const double tolerance = 1e-6 * (cols + 8) * fabs(scale);
    ok = worst <= tolerance;
    printf("center_rows %5d x %-5d largest error %.3g (tolerance %.3g): %s\n", rows, cols, worst,
           tolerance, ok ? "ok" : "WRONG");
done:
    ts_free(dx);
    ts_free(dy);
    free(x);
    free(y);
    return ok;
}

int main(void) {
    int devices = 0;
    ts_status s = ts_device_count(&devices);
    if (s != TS_SUCCESS) {
        fprintf(stderr, "center_rows: ts_device_count: %s\n", ts_status_string(s));
        return 1;
    }
    if (devices == 0) {
        printf("center_rows: no device for this backend here, nothing run\n");
        return 0;
    }
    const unsigned seed = (unsigned)time(NULL);
    printf("center_rows: seed %u\n", seed);
    srand(seed);
    if (center_rows_f32(NULL, NULL, 4, 4, 1.0f, NULL) != TS_ERROR_NULL_POINTER) {
        fprintf(stderr, "center_rows: a NULL pointer was not refused\n");
        return 1;
    }
    const int shapes[][2] = {{16, 64}, {100, 50}, {37, 200}, {1, 1}, {257, 129}};
    int ok = 1;
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; ++i)
        ok &= check(shapes[i][0], shapes[i][1], i % 2 ? -0.75f : 1.5f);
    return ok ? 0 : 1;
}
