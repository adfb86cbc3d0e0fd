/* Rotary embedding (ts_rotary) against a double-precision reference: both layouts, both
 * conventions, tables and computed angles, position offsets, head dimensions 32 to 256, head counts
 * that leave strips partly filled, K with other heads than Q or no K, padded strides, bf16 / fp16
 * / fp32, in place; and every error path. Outputs are poisoned first. On a GPU the same checks run
 * at larger sizes. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>

#include "support/dtype_io.h"
#include "support/test_support.h"

typedef struct {
    int b, n, hq, hk, d;
    ts_dtype dt;
    ts_rotary_layout layout;
    ts_rotary_convention conv;
    int table;
    long long offset;
    int pad; /* extra elements per (token, head) row: custom strides */
    int in_place;
} rope_case;

/* Strides {batch, seq, head} of a (B, N, H, D) or (B, H, N, D) tensor with rows of D + pad. */
static void strides_of(const rope_case *c, int h, long long s[3]) {
    const long long row = c->d + c->pad;
    if (c->layout == TS_ROTARY_BNHD) {
        s[2] = row, s[1] = h * row, s[0] = (long long)c->n * h * row;
    } else {
        s[1] = row, s[2] = (long long)c->n * row, s[0] = (long long)h * c->n * row;
    }
}

static void check_rope(rope_case c) {
    uint64_t seed = ts_test_fresh_seed(), st = seed;
    const size_t eb = ts_test_dtype_bytes(c.dt);
    const int half = c.d / 2;
    const long long table_rows = c.n + c.offset + 3;
    long long sq[3], sk[3];
    strides_of(&c, c.hq, sq);
    strides_of(&c, c.hk > 0 ? c.hk : 1, sk);
    const size_t nq = (size_t)c.b * sq[0], nk = (size_t)c.b * sk[0];
    void *q = malloc(nq * eb), *k = malloc(nk * eb), *qo = malloc(nq * eb), *ko = malloc(nk * eb);
    float *ct = malloc(sizeof(float) * table_rows * half), *stab = malloc(sizeof(float) * table_rows * half);
    cr_assert(q && k && qo && ko && ct && stab);
    for (size_t i = 0; i < nq; ++i) ts_test_put(q, c.dt, i, ts_test_normal(&st));
    for (size_t i = 0; i < nk; ++i) ts_test_put(k, c.dt, i, ts_test_normal(&st));
    for (long long i = 0; i < table_rows * half; ++i) {
        const double a = 6.283185307179586 * ts_test_uniform(&st);
        ct[i] = (float)cos(a), stab[i] = (float)sin(a);
    }
    void *dq = ts_test_device_copy(q, nq * eb), *dk = ts_test_device_copy(k, nk * eb);
    void *dqo = c.in_place ? dq : ts_test_device_copy(NULL, nq * eb), *dko = c.in_place ? dk : ts_test_device_copy(NULL, nk * eb);
    float *dct = ts_test_device_copy(ct, sizeof(float) * table_rows * half);
    float *dst = ts_test_device_copy(stab, sizeof(float) * table_rows * half);
    cr_assert(dq && dk && dqo && dko && dct && dst);
    const ts_rotary_desc desc = {
        .batch = c.b, .seq = c.n, .heads_q = c.hq, .heads_k = c.hk, .head_dim = c.d, .dtype = c.dt,
        .layout = c.layout, .convention = c.conv, .q = dq, .q_out = dqo, .q_strides = c.pad ? sq : NULL,
        .k = c.hk ? dk : NULL, .k_out = c.hk ? dko : NULL, .k_strides = c.pad ? sk : NULL,
        .cos_table = c.table ? dct : NULL, .sin_table = c.table ? dst : NULL, .table_rows = table_rows,
        .theta_base = 10000.0f, .position_offset = c.offset,
    };
    cr_assert_eq(ts_rotary(&desc, NULL), TS_SUCCESS);
    cr_assert_eq(ts_device_synchronize(), TS_SUCCESS);
    cr_assert_eq(ts_test_copy_back(qo, dqo, nq * eb), TS_SUCCESS);
    cr_assert_eq(ts_test_copy_back(ko, dko, nk * eb), TS_SUCCESS);
    const double tol = ts_test_tol(c.dt);
    for (int which = 0; which < (c.hk ? 2 : 1); ++which) {
        const void *in = which ? k : q, *out = which ? ko : qo;
        const long long *s = which ? sk : sq;
        const int heads = which ? c.hk : c.hq;
        for (int b = 0; b < c.b; ++b)
            for (int n = 0; n < c.n; ++n)
                for (int h = 0; h < heads; ++h) {
                    const size_t base = (size_t)(b * s[0] + n * s[1] + h * s[2]);
                    const long long pos = n + c.offset;
                    for (int i = 0; i < half; ++i) {
                        double co, si;
                        if (c.table) {
                            co = ct[pos * half + i], si = stab[pos * half + i];
                        } else {
                            const float inv = (float)pow(10000.0, -2.0 * i / c.d);
                            const float angle = (float)pos * inv;
                            co = cos(angle), si = sin(angle);
                        }
                        const int ia = c.conv == TS_ROTARY_INTERLEAVED ? 2 * i : i;
                        const int ib = c.conv == TS_ROTARY_INTERLEAVED ? 2 * i + 1 : i + half;
                        const double a = ts_test_get(in, c.dt, base + ia), bb = ts_test_get(in, c.dt, base + ib);
                        const double ra = a * co - bb * si, rb = bb * co + a * si;
                        const double ga = ts_test_get(out, c.dt, base + ia), gb = ts_test_get(out, c.dt, base + ib);
                        cr_assert_leq(fabs(ga - ra), tol * (1.0 + fabs(ra)), "%c(%d,%d,%d)[%d]: %g vs %g (seed %llu)",
                                      which ? 'k' : 'q', b, n, h, ia, ga, ra, (unsigned long long)seed);
                        cr_assert_leq(fabs(gb - rb), tol * (1.0 + fabs(rb)), "%c(%d,%d,%d)[%d]: %g vs %g (seed %llu)",
                                      which ? 'k' : 'q', b, n, h, ib, gb, rb, (unsigned long long)seed);
                    }
                    if (!c.in_place)
                        cr_assert(ts_test_is_poison((const unsigned char *)out + (base + c.d) * eb, c.pad * eb),
                                  "padding written");
                }
    }
    cr_assert_eq(ts_free(dq), TS_SUCCESS);
    cr_assert_eq(ts_free(dk), TS_SUCCESS);
    if (!c.in_place) {
        cr_assert_eq(ts_free(dqo), TS_SUCCESS);
        cr_assert_eq(ts_free(dko), TS_SUCCESS);
    }
    cr_assert_eq(ts_free(dct), TS_SUCCESS);
    cr_assert_eq(ts_free(dst), TS_SUCCESS);
    free(q), free(k), free(qo), free(ko), free(ct), free(stab);
}

static const ts_dtype BF = TS_DTYPE_BF16, FP = TS_DTYPE_FP16, F32 = TS_DTYPE_F32;
static const ts_rotary_layout BNHD = TS_ROTARY_BNHD, BHND = TS_ROTARY_BHND;
static const ts_rotary_convention HALF = TS_ROTARY_ROTATE_HALF, INTER = TS_ROTARY_INTERLEAVED;

Test(rotary, layouts_conventions_tables) {
    TS_TEST_REQUIRE_DEVICE();
    const int n = ts_test_on_gpu() ? 333 : 5, hq = ts_test_on_gpu() ? 12 : 3;
    const ts_rotary_layout layouts[2] = {BNHD, BHND};
    const ts_rotary_convention convs[2] = {HALF, INTER};
    for (int l = 0; l < 2; ++l)
        for (int v = 0; v < 2; ++v)
            for (int t = 0; t < 2; ++t) check_rope((rope_case){2, n, hq, 1, 128, BF, layouts[l], convs[v], t, 7, 0, 0});
}

Test(rotary, head_dims_and_dtypes) {
    TS_TEST_REQUIRE_DEVICE();
    const int n = ts_test_on_gpu() ? 200 : 3;
    const int dims[4] = {32, 64, 128, 256};
    const ts_dtype dts[3] = {BF, FP, F32};
    for (int i = 0; i < 4; ++i)
        for (int t = 0; t < 3; ++t) {
            check_rope((rope_case){1, n, 5, 3, dims[i], dts[t], BNHD, HALF, t != 1, 0, 0, 0});
            check_rope((rope_case){2, n, 17, 2, dims[i], dts[t], BHND, INTER, t == 1, 2, 0, 0});
        }
}

Test(rotary, q_only_offsets_strides_in_place) {
    TS_TEST_REQUIRE_DEVICE();
    const int n = ts_test_on_gpu() ? 1000 : 6;
    check_rope((rope_case){2, n, 4, 0, 64, BF, BNHD, HALF, 1, 0, 0, 0});
    check_rope((rope_case){1, n, 8, 2, 128, F32, BNHD, HALF, 0, 1000, 0, 0}); /* angles up to 1000 rad */
    check_rope((rope_case){2, n, 3, 3, 64, FP, BHND, INTER, 1, 11, 8, 0});    /* padded rows: element path */
    check_rope((rope_case){1, n, 6, 6, 128, BF, BNHD, HALF, 0, 0, 3, 0});     /* odd strides */
    check_rope((rope_case){2, n, 4, 2, 128, BF, BHND, HALF, 1, 5, 0, 1});
    check_rope((rope_case){1, n, 32, 8, 128, BF, BNHD, INTER, 0, 3, 0, 1});
    check_rope((rope_case){2, n, 2, 30, 64, BF, BHND, HALF, 1, 0, 0, 1}); /* in place, head-major, more K heads than Q */
}

/* Heads that fill every strip of a warp's round (4 strips of 512 / D heads), 16-byte aligned rows
 * and a table: the cases the whole instance takes (kernels/rotary/rotary_variant.h), beside each the
 * same with padded rows, which it leaves to the general kernel. */
Test(rotary, whole_strips) {
    TS_TEST_REQUIRE_DEVICE();
    const int n = ts_test_on_gpu() ? 300 : 3;
    const int dims[3] = {64, 128, 256}, heads[3] = {32, 16, 8};
    for (int i = 0; i < 3; ++i) {
        check_rope((rope_case){2, n, 2 * heads[i], heads[i], dims[i], BF, BNHD, HALF, 1, 5, 0, 0});
        check_rope((rope_case){2, n, heads[i], heads[i], dims[i], FP, BHND, INTER, 1, 0, 0, 0});
        check_rope((rope_case){1, n, heads[i], 0, dims[i], BF, BHND, HALF, 1, 2, 0, 1});
        check_rope((rope_case){2, n, heads[i], heads[i], dims[i], BF, BNHD, HALF, 1, 0, 8, 0}); /* padded rows */
    }
}

/* (B, H, N, D) with N a multiple of 512 / D, heads in fours and the whole instance's alignment:
 * the cases its token-rows kernel takes (kernels/rotary/rotary_variant.h), where the chunks of a
 * strip are different positions; GQA's fewer K heads, an offset into the table, in place, Q alone. */
Test(rotary, token_rows) {
    TS_TEST_REQUIRE_DEVICE();
    const int dims[4] = {32, 64, 128, 256};
    for (int i = 0; i < 4; ++i) {
        const int run = 512 / dims[i], n = run * (ts_test_on_gpu() ? 37 : 2);
        check_rope((rope_case){2, n, 8, 4, dims[i], BF, BHND, HALF, 1, 7, 0, 0});
        check_rope((rope_case){1, n, 4, 4, dims[i], FP, BHND, INTER, 1, 0, 0, 0});
        check_rope((rope_case){2, n, 4, 0, dims[i], BF, BHND, INTER, 1, 3, 0, 1});
        check_rope((rope_case){1, n + run / 2, 4, 4, dims[i], BF, BHND, HALF, 1, 0, 0, 0}); /* part strips: not taken */
    }
}

Test(rotary, bad_arguments) {
    static unsigned short buf[1 << 14] __attribute__((aligned(16)));
    static float tab[1 << 12] __attribute__((aligned(16)));
    const ts_rotary_desc ok = {.batch = 1, .seq = 4, .heads_q = 2, .heads_k = 1, .head_dim = 64, .dtype = BF,
                               .layout = BNHD, .convention = HALF, .q = buf, .q_out = buf, .k = buf, .k_out = buf,
                               .cos_table = tab, .sin_table = tab, .table_rows = 4, .theta_base = 10000.0f};
    ts_rotary_desc d;
    const long long bad_head[3] = {4 * 2 * 64, 2 * 64, 32};   /* heads overlap */
    const long long overlap[3] = {4 * 2 * 64, 64, 64};        /* tokens and heads overlap */
    const long long zero[3] = {0, 128, 64};
    const long long huge[3] = {1LL << 40, 128, 64};
    cr_assert_eq(ts_rotary(NULL, NULL), TS_ERROR_NULL_POINTER);
    /* The valid descriptor, and its Q-only form, run on device copies of the buffers (the checks
     * below never reach a kernel, so host memory serves them, device or not). */
    if (ts_test_device_available()) {
        void *dbuf = ts_test_device_copy(buf, sizeof buf);
        float *dtab = ts_test_device_copy(tab, sizeof tab);
        cr_assert(dbuf && dtab);
        d = ok;
        d.q = d.q_out = dbuf; /* in place; K in place apart from Q (an output may not overlap another tensor) */
        d.k = d.k_out = (unsigned short *)dbuf + 4096;
        d.cos_table = d.sin_table = dtab;
        cr_assert_eq(ts_rotary(&d, NULL), TS_SUCCESS);
        d.heads_k = 0;
        d.k = NULL;
        d.k_out = NULL;
        cr_assert_eq(ts_rotary(&d, NULL), TS_SUCCESS);
        cr_assert_eq(ts_device_synchronize(), TS_SUCCESS);
        cr_assert_eq(ts_free(dbuf), TS_SUCCESS);
        cr_assert_eq(ts_free(dtab), TS_SUCCESS);
    }
#define EXPECT(change, status)                                                                     \
    do {                                                                                           \
        d = ok;                                                                                    \
        change;                                                                                    \
        cr_assert_eq(ts_rotary(&d, NULL), status, #change);                                        \
    } while (0)
    EXPECT(d.q = NULL, TS_ERROR_NULL_POINTER);
    EXPECT(d.q_out = NULL, TS_ERROR_NULL_POINTER);
    EXPECT(d.k = NULL, TS_ERROR_NULL_POINTER);
    EXPECT(d.k_out = NULL, TS_ERROR_NULL_POINTER);
    EXPECT(d.sin_table = NULL, TS_ERROR_NULL_POINTER);
    EXPECT(d.cos_table = NULL, TS_ERROR_NULL_POINTER);
    EXPECT(d.dtype = (ts_dtype)0, TS_ERROR_INVALID_ENUM);
    EXPECT(d.layout = (ts_rotary_layout)2, TS_ERROR_INVALID_ENUM);
    EXPECT(d.convention = (ts_rotary_convention)-1, TS_ERROR_INVALID_ENUM);
    EXPECT(d.batch = 0, TS_ERROR_INVALID_SIZE);
    EXPECT(d.seq = -1, TS_ERROR_INVALID_SIZE);
    EXPECT(d.heads_q = 0, TS_ERROR_INVALID_SIZE);
    EXPECT(d.heads_k = -1, TS_ERROR_INVALID_SIZE);
    EXPECT(d.head_dim = 0, TS_ERROR_INVALID_SIZE);
    EXPECT(d.head_dim = 96, TS_ERROR_UNSUPPORTED);
    EXPECT(d.head_dim = 512, TS_ERROR_UNSUPPORTED);
    EXPECT(d.head_dim = 16, TS_ERROR_UNSUPPORTED);
    EXPECT(d.position_offset = -1, TS_ERROR_INVALID_VALUE);
    EXPECT(d.table_rows = 3, TS_ERROR_INVALID_VALUE);
    EXPECT((d.position_offset = 1), TS_ERROR_INVALID_VALUE); /* position 4 is past the table */
    EXPECT((d.cos_table = d.sin_table = NULL, d.theta_base = 0.0f), TS_ERROR_INVALID_VALUE);
    EXPECT((d.cos_table = d.sin_table = NULL, d.theta_base = NAN), TS_ERROR_INVALID_VALUE);
    EXPECT((d.cos_table = d.sin_table = NULL, d.seq = 1 << 24, d.position_offset = 1), TS_ERROR_SIZE_OVERFLOW);
    EXPECT(d.q = (char *)buf + 1, TS_ERROR_MISALIGNED);
    EXPECT(d.k_out = (char *)buf + 1, TS_ERROR_MISALIGNED);
    EXPECT((d.dtype = F32, d.q_out = (char *)buf + 2), TS_ERROR_MISALIGNED);
    EXPECT(d.cos_table = (const float *)((const char *)tab + 2), TS_ERROR_MISALIGNED);
    EXPECT(d.q_strides = bad_head, TS_ERROR_INVALID_VALUE);
    EXPECT(d.q_strides = overlap, TS_ERROR_INVALID_VALUE);
    EXPECT(d.q_strides = zero, TS_ERROR_INVALID_VALUE);
    EXPECT((d.batch = 1 << 20, d.q_strides = huge), TS_ERROR_SIZE_OVERFLOW);
#undef EXPECT
}
