/* Test helpers; see test_support.h. */
#include "support/test_support.h"

#include <math.h>
#include <time.h>
#include <unistd.h>

int ts_test_device_available(void) {
    int count = 0;
    return ts_device_count(&count) == TS_SUCCESS && count > 0;
}

int ts_test_on_gpu(void) {
    ts_backend b = TS_BACKEND_HOST;
    return ts_get_backend(&b) == TS_SUCCESS && b != TS_BACKEND_HOST;
}

int ts_test_on_hip(void) {
    ts_backend b = TS_BACKEND_HOST;
    return ts_get_backend(&b) == TS_SUCCESS && b == TS_BACKEND_HIP;
}

uint64_t ts_test_fresh_seed(void) {
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    return ((uint64_t)t.tv_sec * 1000000007ull) ^ (uint64_t)t.tv_nsec ^ ((uint64_t)getpid() << 32);
}

static uint64_t ts_test_next(uint64_t *state) {
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

double ts_test_uniform(uint64_t *state) { return (double)(ts_test_next(state) >> 11) * 0x1.0p-53; }

/* A Box-Muller transform's radius and angle from two uniform draws: r cos t and r sin t are two
 * independent standard normal draws. */
static double ts_test_box_muller(uint64_t *state, double *angle) {
    double u1 = ts_test_uniform(state), u2 = ts_test_uniform(state);
    if (u1 < 1e-300) u1 = 1e-300;
    *angle = 6.283185307179586 * u2;
    return sqrt(-2.0 * log(u1));
}

double ts_test_normal(uint64_t *state) {
    double t;
    const double r = ts_test_box_muller(state, &t);
    return r * cos(t);
}

void ts_test_normal_pair(uint64_t *state, double *first, double *second) {
    double t;
    const double r = ts_test_box_muller(state, &t);
    *first = r * cos(t);
    *second = r * sin(t);
}

void ts_test_fill_normal(float *x, size_t n, uint64_t *state) {
    size_t i = 0;
    for (; i + 2 <= n; i += 2) {
        double p, q;
        ts_test_normal_pair(state, &p, &q);
        x[i] = (float)p;
        x[i + 1] = (float)q;
    }
    if (i < n) x[i] = (float)ts_test_normal(state);
}

void *ts_test_device_copy(const void *host, size_t bytes) {
    void *d = NULL;
    if (ts_malloc(&d, bytes) != TS_SUCCESS) return NULL;
    ts_status s = host ? ts_memcpy(d, host, bytes, TS_MEMCPY_HOST_TO_DEVICE) : ts_memset(d, 0xFF, bytes);
    if (s != TS_SUCCESS) {
        (void)ts_free(d);
        return NULL;
    }
    return d;
}

ts_status ts_test_copy_back(void *host, const void *device, size_t bytes) {
    return ts_memcpy(host, device, bytes, TS_MEMCPY_DEVICE_TO_HOST);
}
