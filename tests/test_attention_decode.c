/* Decode attention over a paged key-value cache against a double-precision reference: page sizes 16,
 * 64 and 256 with the pages of each sequence shuffled through the cache; sequences of mixed lengths
 * in one batch (0, 1, shorter than the query rows, not a multiple of the page size, long enough for
 * many splits); grouped-query ratios 1, 4 and 8; 1 to 16 query rows with the causal mask at the
 * bottom right; D = 64 and 128; bf16 and fp16. Key and value slots past each sequence and the
 * unused pages hold NaN, which must not reach the result; O and the log-sum-exp are poisoned and
 * guarded by poisoned bytes past their ends; the result is the same bits in a second run. On the
 * CPU, the split plan's invariants. On a GPU, contexts of 32k keys. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "backends/half_bits.h"
#include "kernels/attention_decode/decode_plan.h"
#include "support/test_support.h"

static unsigned short to_bits(float x, ts_dtype t) {
    return t == TS_DTYPE_BF16 ? ts_bf16_bits_from_f32(x) : ts_fp16_bits_from_f32(x);
}
static double from_bits(unsigned short b, ts_dtype t) {
    return t == TS_DTYPE_BF16 ? ts_f32_from_bf16_bits(b) : ts_f32_from_fp16_bits(b);
}

#define MAX_BATCH 8
#define GUARD 64 /* poisoned elements past the end of O and of the log-sum-exp */

typedef struct {
    int b, hq, hkv, nq, d, page, causal;
    ts_dtype dtype;
    int seq[MAX_BATCH];
    float input_scale; /* multiplies Q and K */
    float key_ramp;    /* key j is multiplied by 1 + key_ramp * j / seq: the maxima rise along the keys */
    int bad_pages;     /* 1: the second page of the first sequence and the third of the last point outside the
                        * cache, which reads as zeros (tessera.h) */
} decode_case;

/* Element e of head h of key j of sequence b, from the cache through the table: zero for a page
 * index outside the cache. */
static double cache_elem(const unsigned short *cache, const int *table, int max_pages, int num_pages, int hkv,
                         int page_size, int d, ts_dtype dtype, int b, int h, int j, int e) {
    const int page = table[b * max_pages + j / page_size];
    if (page < 0 || page >= num_pages) return 0.0;
    return from_bits(cache[(((size_t)page * hkv + h) * page_size + j % page_size) * d + e], dtype);
}

static void check_decode(decode_case c) {
    uint64_t seed = ts_test_fresh_seed(), st = seed;
    const int d = c.d, g = c.hq / c.hkv;
    int max_pages = 1, used = 0;
    for (int b = 0; b < c.b; ++b) {
        const int pages = (c.seq[b] + c.page - 1) / c.page;
        used += pages;
        if (pages > max_pages) max_pages = pages;
    }
    /* Spare pages that no sequence uses, and a slot of every sequence's table past its pages. */
    ++max_pages;
    const int num_pages = used + 3;
    int *perm = malloc(sizeof(int) * num_pages), *table = malloc(sizeof(int) * c.b * max_pages);
    for (int i = 0; i < num_pages; ++i) perm[i] = i;
    for (int i = num_pages - 1; i > 0; --i) {
        const int j = (int)(ts_test_uniform(&st) * (i + 1)), t = perm[i];
        perm[i] = perm[j];
        perm[j] = t;
    }
    int next = 0;
    for (int b = 0; b < c.b; ++b)
        for (int s = 0; s < max_pages; ++s)
            table[b * max_pages + s] = s < (c.seq[b] + c.page - 1) / c.page ? perm[next++] : (s % 2 ? -7 : 1 << 30);

    if (c.bad_pages) {
        table[1] = num_pages + 100;
        table[(c.b - 1) * max_pages + 2] = -5;
    }
    const size_t nq = (size_t)c.b * c.hq * c.nq * d, ncache = (size_t)num_pages * c.hkv * c.page * d;
    unsigned short *q = malloc(nq * 2), *k = malloc(ncache * 2), *v = malloc(ncache * 2);
    unsigned short *o = malloc((nq + GUARD) * 2), *o2 = malloc((nq + GUARD) * 2);
    float *lse = malloc(sizeof(float) * (c.b * c.hq * c.nq + GUARD));
    for (size_t i = 0; i < nq; ++i) q[i] = to_bits((float)ts_test_normal(&st) * c.input_scale, c.dtype);
    /* NaN everywhere, then each sequence's keys and values in their slots. */
    memset(k, 0xFF, ncache * 2);
    memset(v, 0xFF, ncache * 2);
    for (int b = 0; b < c.b; ++b)
        for (int t = 0; t < c.seq[b]; ++t) {
            const int page = table[b * max_pages + t / c.page];
            if (page < 0 || page >= num_pages) continue;
            const float ramp = 1.0f + c.key_ramp * (float)t / (float)c.seq[b];
            for (int h = 0; h < c.hkv; ++h)
                for (int e = 0; e < d; ++e) {
                    const size_t at = (((size_t)page * c.hkv + h) * c.page + t % c.page) * d + e;
                    k[at] = to_bits((float)ts_test_normal(&st) * c.input_scale * ramp, c.dtype);
                    v[at] = to_bits((float)ts_test_normal(&st), c.dtype);
                }
        }

    const ts_attention_decode_desc desc = {c.b, c.hq, c.hkv, c.nq, d, c.page, num_pages, max_pages,
                                           1.0f / sqrtf((float)d), c.causal};
    size_t ws_bytes = 0;
    cr_assert_eq(ts_attention_decode_workspace_size(&desc, &ws_bytes), TS_SUCCESS);
    void *dq = ts_test_device_copy(q, nq * 2), *dk = ts_test_device_copy(k, ncache * 2);
    void *dv = ts_test_device_copy(v, ncache * 2), *dws = ts_test_device_copy(NULL, ws_bytes);
    int *dtable = ts_test_device_copy(table, sizeof(int) * c.b * max_pages);
    int *dseq = ts_test_device_copy(c.seq, sizeof(int) * c.b);
    void *dout = ts_test_device_copy(NULL, (nq + GUARD) * 2);
    float *dlse = ts_test_device_copy(NULL, sizeof(float) * (c.b * c.hq * c.nq + GUARD));
    cr_assert(dq && dk && dv && dws && dtable && dseq && dout && dlse);
    for (int run = 0; run < 2; ++run) {
        cr_assert_eq(ts_attention_decode(&desc, c.dtype, dq, dk, dv, dtable, dseq, dout, dlse, dws, ws_bytes, NULL),
                     TS_SUCCESS);
        cr_assert_eq(ts_device_synchronize(), TS_SUCCESS);
        cr_assert_eq(ts_test_copy_back(run ? o2 : o, dout, (nq + GUARD) * 2), TS_SUCCESS);
    }
    cr_assert_eq(ts_test_copy_back(lse, dlse, sizeof(float) * (c.b * c.hq * c.nq + GUARD)), TS_SUCCESS);
    cr_assert(memcmp(o, o2, nq * 2) == 0, "a second run gave other bits (seed %llu)", (unsigned long long)seed);
    for (int i = 0; i < GUARD; ++i) {
        cr_assert_eq(o[nq + i], 0xFFFF, "O's guard element %d written", i);
        unsigned bits;
        memcpy(&bits, &lse[c.b * c.hq * c.nq + i], 4);
        cr_assert_eq(bits, 0xFFFFFFFFu, "lse's guard element %d written", i);
    }

    /* s: a row's scores; p: their exponentials, one exp a key (not one a key and column). */
    double *s = malloc(sizeof(double) * (c.seq[0] + 1)), *p = malloc(sizeof(double) * (c.seq[0] + 1)), err2 = 0.0,
           ref2 = 0.0, worst = 0.0;
    for (int b = 0; b < c.b; ++b) {
        s = realloc(s, sizeof(double) * (c.seq[b] + 1));
        p = realloc(p, sizeof(double) * (c.seq[b] + 1));
        cr_assert(s && p);
        for (int h = 0; h < c.hq; ++h) {
            const int hk = h / g;
            for (int i = 0; i < c.nq; ++i) {
                const size_t row = ((size_t)b * c.hq + h) * c.nq + i;
                int keys = c.causal ? c.seq[b] - c.nq + 1 + i : c.seq[b];
                if (keys < 0) keys = 0;
                double m = -INFINITY;
                for (int j = 0; j < keys; ++j) {
                    double dot = 0.0;
                    for (int e = 0; e < d; ++e)
                        dot += from_bits(q[row * d + e], c.dtype) *
                               cache_elem(k, table, max_pages, num_pages, c.hkv, c.page, d, c.dtype, b, hk, j, e);
                    s[j] = dot * desc.scale;
                    if (s[j] > m) m = s[j];
                }
                double l = 0.0;
                for (int j = 0; j < keys; ++j) {
                    p[j] = exp(s[j] - m);
                    l += p[j];
                }
                const float got_lse = lse[row];
                if (keys == 0) {
                    cr_assert(got_lse == -INFINITY, "lse (%d,%d,%d) of no key = %g (seed %llu)", b, h, i,
                              (double)got_lse, (unsigned long long)seed);
                } else {
                    const double ref_lse = m + log(l);
                    cr_assert_leq(fabs(got_lse - ref_lse), 1e-3 * (1.0 + fabs(ref_lse)),
                                  "lse (%d,%d,%d): %g vs %g (seed %llu)", b, h, i, (double)got_lse, ref_lse,
                                  (unsigned long long)seed);
                }
                for (int e = 0; e < d; ++e) {
                    double ref = 0.0;
                    for (int j = 0; j < keys; ++j)
                        ref += p[j] *
                               cache_elem(v, table, max_pages, num_pages, c.hkv, c.page, d, c.dtype, b, hk, j, e);
                    if (keys > 0) ref /= l;
                    const double got = from_bits(o[row * d + e], c.dtype);
                    cr_assert(isfinite(got), "O(%d,%d,%d,%d) = %g (seed %llu)", b, h, i, e, got,
                              (unsigned long long)seed);
                    /* P is rounded to 16 bits before its product with V, as in FlashAttention. */
                    cr_assert_leq(fabs(got - ref), 3e-2 * (1.0 + fabs(ref)), "O(%d,%d,%d,%d): %g vs %g (seed %llu)", b,
                                  h, i, e, got, ref, (unsigned long long)seed);
                    err2 += (got - ref) * (got - ref);
                    ref2 += ref * ref;
                    if (fabs(got - ref) > worst) worst = fabs(got - ref);
                }
            }
        }
    }
    cr_assert_leq(sqrt(err2 / (ref2 + 1e-30)), 1e-2, "relative error %g (largest %g, seed %llu)",
                  sqrt(err2 / (ref2 + 1e-30)), worst, (unsigned long long)seed);
    void *bufs[] = {dq, dk, dv, dws, dtable, dseq, dout, dlse};
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; ++i) cr_assert_eq(ts_free(bufs[i]), TS_SUCCESS);
    free(perm);
    free(table);
    free(q);
    free(k);
    free(v);
    free(o);
    free(o2);
    free(lse);
    free(s);
    free(p);
}

Test(attention_decode, pages_of_16_mixed_lengths) {
    TS_TEST_REQUIRE_DEVICE();
    for (int causal = 0; causal < 2; ++causal) {
        /* GQA 4, one query row: lengths 1, one short of a page, past several pages, and 0. */
        check_decode((decode_case){4, 8, 2, 1, 128, 16, causal, TS_DTYPE_BF16, {1, 15, 300, 0}, 1.0f, 0.0f, 0});
        check_decode((decode_case){3, 4, 1, 2, 64, 16, causal, TS_DTYPE_FP16, {33, 16, 129}, 1.0f, 0.0f, 0});
    }
}

Test(attention_decode, pages_of_64_gqa_8_four_queries) {
    TS_TEST_REQUIRE_DEVICE();
    check_decode((decode_case){3, 16, 2, 4, 64, 64, 1, TS_DTYPE_FP16, {200, 5, 1000}, 1.0f, 0.0f, 0});
    check_decode((decode_case){2, 8, 1, 4, 128, 64, 0, TS_DTYPE_BF16, {130, 64}, 1.0f, 0.0f, 0});
}

Test(attention_decode, pages_of_256_one_head_a_group) {
    TS_TEST_REQUIRE_DEVICE();
    check_decode((decode_case){2, 2, 2, 16, 128, 256, 1, TS_DTYPE_BF16, {700, 16}, 1.0f, 0.0f, 0});
    check_decode((decode_case){2, 3, 3, 3, 64, 256, 0, TS_DTYPE_FP16, {257, 511}, 1.0f, 0.0f, 0});
}

Test(attention_decode, every_query_count_causal) {
    /* 1 to 16 query rows with GQA 8 (8 to 128 rows a key-value head, up to 8 row tiles), each
     * row's causal limit one key further than the last's. */
    TS_TEST_REQUIRE_DEVICE();
    for (int nq = 1; nq <= 16; ++nq)
        check_decode((decode_case){1, 8, 1, nq, nq % 2 ? 64 : 128, 16, 1, nq % 3 ? TS_DTYPE_BF16 : TS_DTYPE_FP16,
                                   {37 + 9 * nq}, 1.0f, 0.0f, 0});
}

Test(attention_decode, fewer_keys_than_query_rows) {
    /* Under the causal mask rows 0 .. N_q - seq_len see no key: zeros and lse -inf. */
    TS_TEST_REQUIRE_DEVICE();
    check_decode((decode_case){3, 4, 1, 8, 64, 16, 1, TS_DTYPE_BF16, {3, 0, 8}, 1.0f, 0.0f, 0});
}

Test(attention_decode, many_splits_and_rising_maxima) {
    /* One key-value head over thousands of keys: many splits (kernels/attention_decode/tuning.h),
     * whose maxima rise from split to split and from step to step; large scores stay finite. */
    TS_TEST_REQUIRE_DEVICE();
    check_decode((decode_case){1, 8, 1, 1, 128, 64, 0, TS_DTYPE_BF16, {5000}, 3.0f, 3.0f, 0});
    check_decode((decode_case){2, 4, 4, 2, 64, 16, 1, TS_DTYPE_FP16, {2100, 900}, 6.0f, 0.0f, 0});
}

Test(attention_decode, page_indices_outside_the_cache_read_zeros) {
    /* A block-table entry past the cache and a negative one, inside the sequences: the kernel reads
     * zeros for those pages, never memory outside the cache (ASan watches on the host). */
    TS_TEST_REQUIRE_DEVICE();
    check_decode((decode_case){2, 4, 2, 1, 64, 16, 0, TS_DTYPE_BF16, {80, 60}, 1.0f, 0.0f, 1});
    check_decode((decode_case){2, 8, 1, 2, 128, 16, 1, TS_DTYPE_FP16, {50, 90}, 1.0f, 0.0f, 1});
}

Test(attention_decode, long_contexts_on_a_gpu) {
    /* 32k keys a sequence, GQA 8, one and four query rows: on a GPU only (the host's reference would
     * take minutes). */
    TS_TEST_REQUIRE_DEVICE();
    if (!ts_test_on_gpu()) cr_skip_test("long contexts run on a GPU");
    check_decode((decode_case){2, 32, 4, 1, 128, 64, 0, TS_DTYPE_BF16, {32768, 32000}, 1.0f, 0.0f, 0});
    check_decode((decode_case){1, 16, 2, 4, 64, 256, 1, TS_DTYPE_FP16, {32768}, 1.0f, 0.0f, 0});
}

/* ---- the split plan, on the CPU -------------------------------------------------------------- */

/* Splits cover the capacity with whole block steps, none empty, within the tuning's limits, and
 * more units or a shorter capacity never take more splits. */
Test(attention_decode_plan, splits_cover_the_keys) {
    static const long long units[] = {1, 2, 7, 64, 1000, 100000};
    static const long long caps[] = {1, 16, 100, 1024, 4097, 32768, 131072, 1LL << 30};
    static const int sms[] = {1, 2, 132, 304};
    for (size_t u = 0; u < sizeof units / sizeof units[0]; ++u)
        for (size_t c = 0; c < sizeof caps / sizeof caps[0]; ++c)
            for (size_t m = 0; m < sizeof sms / sizeof sms[0]; ++m)
                for (int d = 64; d <= 128; d += 64) {
                    const ts_decode_plan_limits lim = ts_decode_plan_limits_for(d);
                    int splits, keys;
                    ts_decode_plan(units[u], caps[c], d, sms[m], &splits, &keys);
                    cr_assert(splits >= 1 && splits <= lim.max_splits, "%d splits", splits);
                    cr_assert_eq(keys % lim.block_keys, 0);
                    cr_assert_geq((long long)splits * keys, caps[c]);
                    cr_assert_lt((long long)(splits - 1) * keys, caps[c], "an empty split");
                    cr_assert_leq(splits, (caps[c] + lim.min_split_keys - 1) / lim.min_split_keys);
                    if (u > 0) {
                        int fewer, k2;
                        ts_decode_plan(units[u - 1], caps[c], d, sms[m], &fewer, &k2);
                        cr_assert_geq(fewer, splits);
                    }
                }
}
