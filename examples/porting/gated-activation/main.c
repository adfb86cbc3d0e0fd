/* Tests gated_activation.c's kernels against a double-precision reference on fresh random inputs:
 * every dtype and activation, at small ragged shapes with padded and unaligned strides, x and g in
 * one tensor as ggml fuses them, in place, with and without biases; on a GPU also at 4096 x 11008
 * (a 7B model's MLP), timed. Padding past each row is checked untouched. Prints a line per case with
 * its largest error; exits 0 when all pass, and also, saying so, where the backend has no device. */
#include "port_check.h"

#include "gated_activation.h"

static const char *const act_names[] = {"swiglu", "geglu", "geglu_erf"};

static double act_ref(glu_activation act, double x) {
    if (act == GLU_SWIGLU) return x / (1.0 + exp(-x));
    if (act == GLU_GEGLU) return 0.5 * x * (1.0 + tanh(0.7978845608028654 * (x + 0.044715 * x * x * x)));
    return 0.5 * x * (1.0 + erf(x / sqrt(2.0)));
}

/* A case: rows x cols; x, g and out strides (0: x and g are halves of one tensor of 2 * cols
 * columns, as ggml's fused projection; out == x when in_place); the biases present or not. */
typedef struct glu_case {
    long long rows;
    int cols;
    long long xs, gs, os;
    int in_place, bx, bg, timed;
} glu_case;

typedef struct glu_call {
    void *out;
    const void *x, *g, *bx, *bg;
    glu_case c;
    long long xs, gs;
    ts_dtype dtype;
    glu_activation act;
} glu_call;

static ts_status call_glu(void *ctx) {
    const glu_call *k = (const glu_call *)ctx;
    return gated_activation(k->out, k->c.os, k->x, k->xs, k->g, k->gs, k->bx, k->bg, k->dtype, k->act, k->c.rows,
                            k->c.cols, NULL);
}

static int run_case(glu_case c, ts_dtype dt, glu_activation act) {
    const size_t b = port_dtype_bytes(dt), rows = (size_t)c.rows, cols = (size_t)c.cols;
    const int fused = c.xs == 0;
    const long long xs = fused ? 2 * c.cols : c.xs, gs = fused ? 2 * c.cols : c.gs;
    if (c.in_place) c.os = xs;
    const size_t nx = rows * (size_t)xs, ng = fused ? 0 : rows * (size_t)gs, no = c.in_place ? 0 : rows * (size_t)c.os;
    void *hx = port_random(dt, nx, 0.0, 4.0), *hg = port_random(dt, ng, 0.0, 4.0), *ho = malloc((no ? no : nx) * b);
    void *hbx = port_random(dt, cols, 0.0, 1.0), *hbg = port_random(dt, cols, 0.5, 1.0);
    void *dx = NULL, *dg = NULL, *dout = NULL, *dbx = NULL, *dbg = NULL;
    int ok = 0;
    if (!hx || !hg || !ho || !hbx || !hbg) goto done;
    memset(ho, 0x7f, (no ? no : nx) * b); /* poison: padding must stay as it is */
    dx = port_to_device(hx, nx * b);
    dg = fused ? NULL : port_to_device(hg, ng * b);
    dout = c.in_place ? dx : port_to_device(ho, no * b);
    dbx = c.bx ? port_to_device(hbx, cols * b) : NULL;
    dbg = c.bg ? port_to_device(hbg, cols * b) : NULL;
    if (!dx || (!fused && !dg) || !dout || (c.bx && !dbx) || (c.bg && !dbg)) goto done;
    glu_call k = {dout, dx, fused ? (const char *)dx + cols * b : dg, dbx, dbg, c, xs, gs, dt, act};
    ts_status s = call_glu(&k);
    if (s == TS_SUCCESS) s = ts_device_synchronize();
    if (s == TS_SUCCESS) s = ts_memcpy(ho, dout, (no ? no : nx) * b, TS_MEMCPY_DEVICE_TO_HOST);
    if (s != TS_SUCCESS) {
        fprintf(stderr, "gated_activation %s %s %lldx%d: %s\n", act_names[act], port_dtype_name(dt), c.rows, c.cols,
                ts_status_string(s));
        goto done;
    }
    /* fp32 arithmetic, then one rounding to the dtype: a unit of its last place, plus fp32's
     * absolute error of GELU's 1 + erf / 1 + tanh near -1 and of SiLU, scaled by both factors. */
    const double rel = dt == TS_DTYPE_BF16 ? 0x1p-7 : dt == TS_DTYPE_FP16 ? 0x1p-10 : 0x1p-21;
    const double tiny = dt == TS_DTYPE_FP16 ? 0x1p-24 : 0.0; /* fp16's subnormal steps */
    double worst = 0.0, worst_ratio = 0.0;
    long long untouched = 0;
    for (size_t r = 0; r < rows; ++r)
        for (size_t j = 0; j < (size_t)c.os; ++j) {
            const size_t at = r * (size_t)c.os + j;
            if (j >= cols) { /* padding: the input's own values in place, else the poison */
                const int kept = c.in_place ? memcmp((char *)ho + at * b, (char *)hx + at * b, b) == 0
                                            : ((unsigned char *)ho)[at * b] == 0x7f;
                untouched += !kept;
                continue;
            }
            const double a = port_get(hx, dt, r * (size_t)xs + j) + (c.bx ? port_get(hbx, dt, j) : 0.0);
            const double g = port_get(fused ? hx : hg, dt, r * (size_t)gs + j + (fused ? cols : 0)) +
                             (c.bg ? port_get(hbg, dt, j) : 0.0);
            const double want = act_ref(act, a) * g, got = port_get(ho, dt, at);
            const double tol = rel * fabs(want) + 0x1p-20 * (1 + fabs(a)) * (1 + fabs(g)) + tiny;
            const double err = got == got ? fabs(got - want) : INFINITY; /* NaN: the worst */
            if (err > worst) worst = err;
            if (err / tol > worst_ratio) worst_ratio = err / tol;
        }
    ok = worst_ratio <= 1.0 && untouched == 0;
    port_note_ratio(worst_ratio);
    printf("gated_activation %-9s %s %5lld x %-5d%s%s%s%s: largest error %.3g (%.2f of tolerance)%s %s",
           act_names[act], port_dtype_name(dt), c.rows, c.cols, fused ? " fused" : "", c.in_place ? " in-place" : "",
           c.bx ? " +bx" : "", c.bg ? " +bg" : "", worst, worst_ratio, untouched ? ", padding written" : "",
           ok ? "ok" : "WRONG");
    if (ok && c.timed) {
        const double ms = port_median_ms(call_glu, &k, 20);
        const double bytes = (double)b * (3.0 * (double)rows * (double)cols + 2.0 * (double)cols);
        printf(", %.4f ms median of 20, %.2f TB/s", ms, bytes / (ms * 1e-3) / 1e12);
        if (ms < 0) ok = 0;
    }
    printf("\n");
done:
    if (dout != dx) ts_free(dout);
    ts_free(dx);
    ts_free(dg);
    ts_free(dbx);
    ts_free(dbg);
    free(hx);
    free(hg);
    free(ho);
    free(hbx);
    free(hbg);
    return ok;
}

/* The launcher's refusals, each a status a wrong call must get. */
static int check_statuses(void) {
    _Alignas(16) char buf[64] = {0};
    void *p = buf;
    const int ok = gated_activation(NULL, 8, p, 8, p, 8, NULL, NULL, TS_DTYPE_BF16, GLU_SWIGLU, 1, 8, NULL) ==
                       TS_ERROR_NULL_POINTER &&
                   gated_activation(p, 8, p, 8, p, 8, NULL, NULL, TS_DTYPE_BF16, (glu_activation)3, 1, 8, NULL) ==
                       TS_ERROR_INVALID_ENUM &&
                   gated_activation(p, 8, p, 8, p, 8, NULL, NULL, (ts_dtype)0, GLU_SWIGLU, 1, 8, NULL) ==
                       TS_ERROR_INVALID_ENUM &&
                   gated_activation(p, 8, p, 8, p, 8, NULL, NULL, TS_DTYPE_BF16, GLU_SWIGLU, 0, 8, NULL) ==
                       TS_ERROR_INVALID_SIZE &&
                   gated_activation(p, 8, p, 4, p, 8, NULL, NULL, TS_DTYPE_BF16, GLU_SWIGLU, 1, 8, NULL) ==
                       TS_ERROR_INVALID_VALUE &&
                   gated_activation(p, 8, buf + 1, 8, p, 8, NULL, NULL, TS_DTYPE_BF16, GLU_SWIGLU, 1, 8, NULL) ==
                       TS_ERROR_MISALIGNED;
    if (!ok) fprintf(stderr, "gated_activation: a wrong call was not refused with its status\n");
    return ok;
}

int main(void) {
    int gpu = 0;
    const int present = port_device("gated_activation", &gpu);
    if (present <= 0) return present < 0;
    printf("gated_activation: seed %u (PORT_SEED repeats it)\n", port_seed());
    const glu_case small[] = {
        {1, 1, 1, 1, 1, 0, 1, 1, 0},                 /* one element */
        {3, 7, 7, 7, 7, 0, 1, 0, 0},                 /* unaligned rows, element by element */
        {19, 520, 520, 520, 520, 0, 1, 1, 0},        /* aligned, a partial last strip */
        {37, 1000, 1008, 1024, 1003, 0, 0, 1, 0},    /* padded strides, out unaligned */
        {33, 768, 0, 0, 768, 0, 1, 1, 0},            /* x and g halves of one tensor */
        {20, 1536, 1536, 1536, 0, 1, 1, 1, 0},       /* out = x */
        {5, 513, 520, 513, 513, 0, 0, 0, 0},         /* no biases */
    };
    const glu_case large[] = {
        {4096, 11008, 11008, 11008, 11008, 0, 1, 1, 1}, /* a 7B model's MLP, timed */
        {1000, 4097, 0, 0, 4104, 0, 1, 1, 0},           /* fused, ragged, padded out */
    };
    const ts_dtype dtypes[] = {TS_DTYPE_BF16, TS_DTYPE_FP16, TS_DTYPE_F32};
    int ok = check_statuses(), cases = 0, passed = 0;
    for (int d = 0; d < 3; ++d)
        for (int a = 0; a < 3; ++a) {
            for (size_t i = 0; i < sizeof small / sizeof small[0]; ++i, ++cases)
                passed += run_case(small[i], dtypes[d], (glu_activation)a);
            for (size_t i = 0; gpu && i < sizeof large / sizeof large[0]; ++i, ++cases)
                passed += run_case(large[i], dtypes[d], (glu_activation)a);
        }
    printf("gated_activation: %d of %d cases passed, largest error %.2f of its tolerance%s\n", passed, cases,
           port_worst_ratio, ok ? "" : ", a status check FAILED");
    return ok && passed == cases ? 0 : 1;
}
