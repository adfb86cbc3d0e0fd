/* One decode step of an attention layer over a paged key-value cache, from Tessera's kernels, checked
 * against a reference computed here:
 *
 *     q, k, v = x Wq, x Wk, x Wv                  ts_gemm (bf16 out), one new token a sequence
 *     append k and v to each sequence's pages     ts_memcpy_async, a head's row to its page slot
 *     o = attention(q, cache)                     ts_attention_decode
 *
 * Three sequences of different lengths (one empty before this token) share a cache of pages of 16
 * tokens, handed out in no particular order, as a serving engine's allocator leaves them. Grouped-
 * query attention: 8 query heads over 2 key-value heads. The cache layout is
 * [page][kv head][slot][D] (docs/decode.md). Small enough to run in a moment on the host backend. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tessera/tessera.h>

#include "example_util.h"

enum { B = 3, HQ = 8, HKV = 2, D = 64, HID = 256, PAGE = 16, MAX_PAGES = 8, PAGES = B * MAX_PAGES };

/* Element e of token t's head h in a sequence whose pages are table[], in a cache of that layout. */
static size_t cache_at(const int *table, int t, int h, int e) {
    return (((size_t)table[t / PAGE] * HKV + h) * PAGE + t % PAGE) * D + e;
}

int main(void) {
    EXIT_IF_NO_DEVICE();
    unsigned lcg = 47u;
    const int before[B] = {37, 0, 100}; /* tokens cached before this step */
    int lens[B], table[B * MAX_PAGES];
    /* Pages handed out from a shuffled free list. */
    int free_list[PAGES];
    for (int i = 0; i < PAGES; ++i) free_list[i] = (i * 7 + 3) % PAGES;
    for (int b = 0, next = 0; b < B; ++b) {
        lens[b] = before[b] + 1;
        for (int s = 0; s < MAX_PAGES; ++s) table[b * MAX_PAGES + s] = s * PAGE < lens[b] ? free_list[next++] : -1;
    }
    const size_t cache_n = (size_t)PAGES * HKV * PAGE * D;
    unsigned short *x = random_bf16(&lcg, (size_t)B * HID, 0.0, 1.0);
    unsigned short *wq = random_bf16(&lcg, (size_t)HID * HQ * D, 0.0, 0.1);
    unsigned short *wk = random_bf16(&lcg, (size_t)HID * HKV * D, 0.0, 0.1);
    unsigned short *wv = random_bf16(&lcg, (size_t)HID * HKV * D, 0.0, 0.1);
    /* The cached history: random keys and values in the slots of earlier tokens. */
    unsigned short *kc = random_bf16(&lcg, cache_n, 0.0, 1.0), *vc = random_bf16(&lcg, cache_n, 0.0, 1.0);
    unsigned short *q = malloc((size_t)2 * B * HQ * D), *o = malloc((size_t)2 * B * HQ * D);
    if (!x || !wq || !wk || !wv || !kc || !vc || !q || !o) return 1;

    const ts_attention_decode_desc desc = {B, HQ, HKV, 1, D, PAGE, PAGES, MAX_PAGES, 1.0f / sqrtf((float)D), 0};
    size_t ws_bytes = 0;
    CHECK(ts_attention_decode_workspace_size(&desc, &ws_bytes));
    unsigned short *dx = to_device(x, (size_t)2 * B * HID), *dwq = to_device(wq, (size_t)2 * HID * HQ * D);
    unsigned short *dwk = to_device(wk, (size_t)2 * HID * HKV * D), *dwv = to_device(wv, (size_t)2 * HID * HKV * D);
    unsigned short *dq = to_device(NULL, (size_t)2 * B * HQ * D), *dk = to_device(NULL, (size_t)2 * B * HKV * D);
    unsigned short *dv = to_device(NULL, (size_t)2 * B * HKV * D), *dout = to_device(NULL, (size_t)2 * B * HQ * D);
    unsigned short *dkc = to_device(kc, 2 * cache_n), *dvc = to_device(vc, 2 * cache_n);
    int *dtable = to_device(table, sizeof table), *dlens = to_device(lens, sizeof lens);
    void *dws = to_device(NULL, ws_bytes);
    if (!dx || !dwq || !dwk || !dwv || !dq || !dk || !dv || !dout || !dkc || !dvc || !dtable || !dlens || !dws)
        return 1;

    /* The projections: (B, HID) x (HID, heads x D); q comes out as (B, HQ, 1, D). */
    CHECK(ts_gemm(TS_NO_TRANS, TS_NO_TRANS, B, HQ * D, HID, 1.0f, dx, TS_DTYPE_BF16, HID, dwq, TS_DTYPE_BF16, HQ * D,
                  0.0f, dq, TS_DTYPE_BF16, HQ * D, NULL));
    CHECK(ts_gemm(TS_NO_TRANS, TS_NO_TRANS, B, HKV * D, HID, 1.0f, dx, TS_DTYPE_BF16, HID, dwk, TS_DTYPE_BF16, HKV * D,
                  0.0f, dk, TS_DTYPE_BF16, HKV * D, NULL));
    CHECK(ts_gemm(TS_NO_TRANS, TS_NO_TRANS, B, HKV * D, HID, 1.0f, dx, TS_DTYPE_BF16, HID, dwv, TS_DTYPE_BF16, HKV * D,
                  0.0f, dv, TS_DTYPE_BF16, HKV * D, NULL));
    /* The new token (position before[b]) goes to its page slot, one D-row a head. */
    for (int b = 0; b < B; ++b)
        for (int h = 0; h < HKV; ++h) {
            const size_t at = cache_at(table + b * MAX_PAGES, before[b], h, 0);
            CHECK(ts_memcpy_async(dkc + at, dk + ((size_t)b * HKV + h) * D, 2 * D, TS_MEMCPY_DEVICE_TO_DEVICE, NULL));
            CHECK(ts_memcpy_async(dvc + at, dv + ((size_t)b * HKV + h) * D, 2 * D, TS_MEMCPY_DEVICE_TO_DEVICE, NULL));
        }
    CHECK(ts_attention_decode(&desc, TS_DTYPE_BF16, dq, dkc, dvc, dtable, dlens, dout, NULL, dws, ws_bytes, NULL));
    CHECK(ts_device_synchronize());
    CHECK(ts_memcpy(q, dq, (size_t)2 * B * HQ * D, TS_MEMCPY_DEVICE_TO_HOST));
    CHECK(ts_memcpy(o, dout, (size_t)2 * B * HQ * D, TS_MEMCPY_DEVICE_TO_HOST));
    CHECK(ts_memcpy(kc, dkc, 2 * cache_n, TS_MEMCPY_DEVICE_TO_HOST));
    CHECK(ts_memcpy(vc, dvc, 2 * cache_n, TS_MEMCPY_DEVICE_TO_HOST));

    /* The reference: the projections in double (the GEMM rounds each to bf16), then attention in
     * double over the cache as it now stands, with the library's q. */
    double proj_err = 0.0, attn_err = 0.0, scale = 1.0 / sqrt((double)D), s[MAX_PAGES * PAGE];
    for (int b = 0; b < B; ++b) {
        const int *tb = table + b * MAX_PAGES;
        for (int h = 0; h < HKV; ++h)
            for (int e = 0; e < D; ++e) {
                double rk = 0.0, rv = 0.0;
                for (int i = 0; i < HID; ++i) {
                    rk += from_bf16(x[b * HID + i]) * from_bf16(wk[(size_t)i * HKV * D + h * D + e]);
                    rv += from_bf16(x[b * HID + i]) * from_bf16(wv[(size_t)i * HKV * D + h * D + e]);
                }
                proj_err = fmax(proj_err, fabs(from_bf16(kc[cache_at(tb, before[b], h, e)]) - rk) / (1.0 + fabs(rk)));
                proj_err = fmax(proj_err, fabs(from_bf16(vc[cache_at(tb, before[b], h, e)]) - rv) / (1.0 + fabs(rv)));
            }
        for (int h = 0; h < HQ; ++h) {
            const unsigned short *qh = q + ((size_t)b * HQ + h) * D;
            double m = -INFINITY, l = 0.0;
            for (int t = 0; t < lens[b]; ++t) {
                double dot = 0.0;
                for (int e = 0; e < D; ++e) dot += from_bf16(qh[e]) * from_bf16(kc[cache_at(tb, t, h / (HQ / HKV), e)]);
                s[t] = dot * scale;
                m = fmax(m, s[t]);
            }
            for (int t = 0; t < lens[b]; ++t) l += (s[t] = exp(s[t] - m));
            for (int e = 0; e < D; ++e) {
                double ref = 0.0;
                for (int t = 0; t < lens[b]; ++t) ref += s[t] * from_bf16(vc[cache_at(tb, t, h / (HQ / HKV), e)]);
                attn_err = fmax(attn_err, fabs(from_bf16(o[((size_t)b * HQ + h) * D + e]) - ref / l));
            }
        }
    }
    printf("decode step: %d sequences of %d, %d and %d tokens, %d query heads over %d key-value heads, pages of %d\n",
           B, lens[0], lens[1], lens[2], HQ, HKV, PAGE);
    printf("largest error: projections %.3g (relative), attention output %.3g\n", proj_err, attn_err);

    void *bufs[] = {dx, dwq, dwk, dwv, dq, dk, dv, dout, dkc, dvc, dtable, dlens, dws};
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; ++i) CHECK(ts_free(bufs[i]));
    free(x), free(wq), free(wk), free(wv), free(kc), free(vc), free(q), free(o);
    /* bf16 outputs: a few of their roundings (P is rounded to bf16 inside the attention). */
    return proj_err < 2e-2 && attn_err < 2e-2 ? 0 : 1;
}
