/* Tests softmax_cross_entropy.c's kernels against a double-precision reference on fresh random
 * logits: every dtype, at small ragged vocabularies with padded and unaligned strides, in place and
 * not, with a scale a row or the mean's, the loss alone, a target out of range; on a GPU also at
 * GPT-2's vocabulary (8 x 1024 tokens x 50257, padded to 50304, in place as llm.c calls it) and at
 * Llama 3's (128256), timed. Columns past the vocabulary are checked untouched. Prints a line per
 * case with its largest errors; exits 0 when all pass, and also, saying so, where the backend has no
 * device. */
#include "port_check.h"

#include "softmax_cross_entropy.h"

/* A case: rows x vocab, rows `stride` apart; in place or into another buffer (or none: the loss
 * alone); a scale a row or NULL (1 / rows); row 0's target out of range. */
typedef struct xent_case {
    long long rows;
    int vocab;
    long long stride;
    int in_place, no_grad, row_dloss, bad_target, timed;
} xent_case;

typedef struct xent_call {
    void *dlogits;
    const void *logits;
    float *loss;
    const float *dloss;
    const int *targets;
    xent_case c;
    ts_dtype dtype;
} xent_call;

static ts_status call_xent(void *ctx) {
    const xent_call *k = (const xent_call *)ctx;
    return softmax_cross_entropy(k->dlogits, k->logits, k->dtype, k->c.stride, k->loss, k->dloss, k->targets, k->c.rows,
                                 k->c.vocab, NULL);
}

static int run_case(xent_case c, ts_dtype dt) {
    const size_t b = port_dtype_bytes(dt), rows = (size_t)c.rows, vocab = (size_t)c.vocab, n = rows * (size_t)c.stride;
    void *hx = port_random(dt, n, 0.0, 6.0), *hd = malloc(n * b);
    float *hloss = (float *)malloc(rows * sizeof(float)), *hdl = (float *)malloc(rows * sizeof(float));
    int *ht = (int *)malloc(rows * sizeof(int));
    void *dx = NULL, *dd = NULL, *dloss = NULL, *ddl = NULL, *dt_ = NULL;
    int ok = 0;
    if (!hx || !hd || !hloss || !hdl || !ht) goto done;
    for (size_t r = 0; r < rows; ++r) {
        ht[r] = r == 0 && c.bad_target ? -1 : (int)((port_uniform() + 1.0) * 0.5 * (double)vocab) % c.vocab;
        if (r % 7 == 1) ht[r] = c.vocab - 1; /* the last column, in the last strip */
        hdl[r] = (float)((1.25 + 0.5 * port_uniform()) / (double)rows);
    }
    memset(hd, 0x7f, n * b); /* poison: columns past the vocabulary must stay as they are */
    dx = port_to_device(hx, n * b);
    dd = c.in_place || c.no_grad ? NULL : port_to_device(hd, n * b);
    dloss = port_to_device(hdl, rows * sizeof(float)); /* overwritten with the loss */
    ddl = port_to_device(hdl, rows * sizeof(float));
    dt_ = port_to_device(ht, rows * sizeof(int));
    if (!dx || (!c.in_place && !c.no_grad && !dd) || !dloss || !ddl || !dt_) goto done;
    xent_call k = {c.no_grad ? NULL : c.in_place ? dx : dd, dx, (float *)dloss, c.row_dloss ? (const float *)ddl : NULL,
                   (const int *)dt_, c, dt};
    ts_status s = call_xent(&k);
    if (s == TS_SUCCESS) s = ts_device_synchronize();
    if (s == TS_SUCCESS) s = ts_memcpy(hloss, dloss, rows * sizeof(float), TS_MEMCPY_DEVICE_TO_HOST);
    if (s == TS_SUCCESS && !c.no_grad) s = ts_memcpy(hd, k.dlogits, n * b, TS_MEMCPY_DEVICE_TO_HOST);
    if (s != TS_SUCCESS) {
        fprintf(stderr, "softmax_cross_entropy %s %lldx%d: %s\n", port_dtype_name(dt), c.rows, c.vocab,
                ts_status_string(s));
        goto done;
    }
    /* fp32 exponentials and sums (2^-16 of the loss, of each probability), then the gradient rounded
     * once to the dtype (a unit of its last place; fp16's subnormal steps). */
    const double rel = dt == TS_DTYPE_BF16 ? 0x1p-7 : dt == TS_DTYPE_FP16 ? 0x1p-10 : 0x1p-21;
    const double tiny = dt == TS_DTYPE_FP16 ? 0x1p-24 : 0.0;
    double worst_loss = 0.0, worst_grad = 0.0, worst_ratio = 0.0;
    long long untouched = 0;
    for (size_t r = 0; r < rows; ++r) {
        const char *x = (const char *)hx + r * (size_t)c.stride * b, *g = (const char *)hd + r * (size_t)c.stride * b;
        double max = -INFINITY, sum = 0.0;
        for (size_t j = 0; j < vocab; ++j) max = fmax(max, port_get(x, dt, j));
        for (size_t j = 0; j < vocab; ++j) sum += exp(port_get(x, dt, j) - max);
        const int t = ht[r], valid = t >= 0 && t < c.vocab;
        const double want = valid ? log(sum) + max - port_get(x, dt, (size_t)t) : NAN;
        double err = valid ? fabs(hloss[r] - want) : hloss[r] != hloss[r] ? 0.0 : INFINITY; /* NaN wanted */
        if (err != err) err = INFINITY;
        if (err > worst_loss) worst_loss = err;
        if (err / (0x1p-16 * (1.0 + (valid ? fabs(want) : 0.0))) > worst_ratio)
            worst_ratio = err / (0x1p-16 * (1.0 + (valid ? fabs(want) : 0.0)));
        if (c.no_grad) continue;
        const double d = c.row_dloss ? hdl[r] : 1.0 / (double)rows;
        for (size_t j = 0; j < (size_t)c.stride; ++j) {
            if (j >= vocab) { /* the logits themselves in place, else the poison */
                untouched += c.in_place ? memcmp(g + j * b, x + j * b, b) != 0 : (unsigned char)g[j * b] != 0x7f;
                continue;
            }
            const double p = exp(port_get(x, dt, j) - max) / sum, grad = (p - ((int)j == t)) * d;
            const double got = port_get(g, dt, j), e = got == got ? fabs(got - grad) : INFINITY;
            const double tol = rel * fabs(grad) + 0x1p-16 * p * fabs(d) + tiny;
            if (e > worst_grad) worst_grad = e;
            if (e / tol > worst_ratio) worst_ratio = e / tol;
        }
    }
    ok = worst_ratio <= 1.0 && untouched == 0;
    port_note_ratio(worst_ratio);
    printf("softmax_cross_entropy %s %5lld x %-6d stride %-6lld%s%s%s: largest error loss %.3g, dlogits %.3g "
           "(%.2f of tolerance)%s %s",
           port_dtype_name(dt), c.rows, c.vocab, c.stride, c.no_grad ? " loss only" : c.in_place ? " in place" : "",
           c.row_dloss ? " dloss/row" : "", c.bad_target ? " target -1" : "", worst_loss, worst_grad, worst_ratio,
           untouched ? ", padding written" : "", ok ? "ok" : "WRONG");
    if (ok && c.timed) {
        /* In place, as llm.c: each run turns the previous run's gradient into the next one's logits,
         * values in [-1, 1] whose softmax is as costly. Bytes: the logits read once, the gradient
         * written once (the second pass's reads hit L2). */
        const double ms = port_median_ms(call_xent, &k, 20);
        const double bytes = 2.0 * (double)b * (double)rows * (double)vocab;
        printf(", %.4f ms median of 20, %.2f TB/s", ms, bytes / (ms * 1e-3) / 1e12);
        if (ms < 0) ok = 0;
    }
    printf("\n");
done:
    ts_free(dx);
    ts_free(dd);
    ts_free(dloss);
    ts_free(ddl);
    ts_free(dt_);
    free(hx);
    free(hd);
    free(hloss);
    free(hdl);
    free(ht);
    return ok;
}

/* The launcher's refusals, each a status a wrong call must get. */
static int check_statuses(void) {
    _Alignas(16) char buf[64] = {0};
    void *p = buf;
    float *l = (float *)p;
    const int *t = (const int *)p;
    const ts_dtype bf = TS_DTYPE_BF16;
    const int ok = softmax_cross_entropy(p, NULL, bf, 8, l, NULL, t, 1, 8, NULL) == TS_ERROR_NULL_POINTER &&
                   softmax_cross_entropy(p, p, bf, 8, NULL, NULL, t, 1, 8, NULL) == TS_ERROR_NULL_POINTER &&
                   softmax_cross_entropy(p, p, bf, 8, l, NULL, NULL, 1, 8, NULL) == TS_ERROR_NULL_POINTER &&
                   softmax_cross_entropy(p, p, (ts_dtype)7, 8, l, NULL, t, 1, 8, NULL) == TS_ERROR_INVALID_ENUM &&
                   softmax_cross_entropy(p, p, bf, 8, l, NULL, t, 0, 8, NULL) == TS_ERROR_INVALID_SIZE &&
                   softmax_cross_entropy(p, p, bf, 4, l, NULL, t, 1, 8, NULL) == TS_ERROR_INVALID_VALUE &&
                   softmax_cross_entropy(buf + 1, p, bf, 8, l, NULL, t, 1, 8, NULL) == TS_ERROR_MISALIGNED &&
                   softmax_cross_entropy(p, p, bf, 1 << 25, l, NULL, t, 1, (1 << 24) + 1, NULL) ==
                       TS_ERROR_UNSUPPORTED;
    if (!ok) fprintf(stderr, "softmax_cross_entropy: a wrong call was not refused with its status\n");
    return ok;
}

int main(void) {
    int gpu = 0;
    const int present = port_device("softmax_cross_entropy", &gpu);
    if (present <= 0) return present < 0;
    printf("softmax_cross_entropy: seed %u (PORT_SEED repeats it)\n", port_seed());
    const xent_case small[] = {
        {1, 1, 1, 0, 0, 1, 0, 0},          /* one column */
        {3, 7, 7, 1, 0, 0, 0, 0},          /* unaligned rows, element by element */
        {5, 1000, 1000, 0, 0, 1, 1, 0},    /* a partial strip; row 0's target out of range */
        {17, 2055, 2056, 1, 0, 1, 0, 0},   /* padded as llm.c's Vp, in place */
        {4, 5000, 5003, 0, 0, 0, 0, 0},    /* unaligned stride */
        {2, 16385, 16392, 0, 0, 1, 0, 0},  /* more strips than warps */
        {6, 3000, 3008, 0, 1, 0, 0, 0},    /* the loss alone */
    };
    const xent_case large[] = {
        {8192, 50257, 50304, 1, 0, 0, 0, 1}, /* GPT-2: 8 x 1024 tokens, in place, timed */
        {1024, 128256, 128256, 0, 0, 1, 0, 1}, /* Llama 3's vocabulary */
    };
    const ts_dtype dtypes[] = {TS_DTYPE_BF16, TS_DTYPE_FP16, TS_DTYPE_F32};
    int ok = check_statuses(), cases = 0, passed = 0;
    for (int d = 0; d < 3; ++d) {
        for (size_t i = 0; i < sizeof small / sizeof small[0]; ++i, ++cases) passed += run_case(small[i], dtypes[d]);
        for (size_t i = 0; gpu && i < sizeof large / sizeof large[0]; ++i, ++cases) {
            xent_case c = large[i];
            if (dtypes[d] != TS_DTYPE_BF16 && c.rows > 1024) c.rows = 1024; /* bf16 is llm.c's; the rest shorter */
            passed += run_case(c, dtypes[d]);
        }
    }
    printf("softmax_cross_entropy: %d of %d cases passed, largest error %.2f of its tolerance%s\n", passed, cases,
           port_worst_ratio, ok ? "" : ", a status check FAILED");
    return ok && passed == cases ? 0 : 1;
}
