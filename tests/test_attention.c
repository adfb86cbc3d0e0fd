/* Attention forward against a double-precision reference: ragged sequence lengths, causal and
 * not, grouped-query and multi-query heads, N_q != N_kv, padded strides, head dimensions 64 and
 * 128, bf16 and fp16, sequences long enough for the pipeline to wrap; scores up to about 1e4 before
 * scaling stay finite; row maxima that rise from key tile to key tile; and every error path.
 * Inputs are fresh random normals each run; O and the log-sum-exp are poisoned first. On the CPU,
 * the order the causal tasks run in: each tile once, blocks evenly loaded, heads grouped. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "backends/fragment_layout.h"
#include "backends/half_bits.h"
#include "kernels/attention/task_order.h"
#include "support/test_support.h"
#include "tests/kernels/pingpong_kernels.h"
#include "tests/kernels/pin_kernels.h"
#if defined(TESSERA_BACKEND_HOST)
#include "backends/host/runtime_host.h"
#endif

static unsigned short to_bits(float x, ts_dtype t) {
    return t == TS_DTYPE_BF16 ? ts_bf16_bits_from_f32(x) : ts_fp16_bits_from_f32(x);
}
static double from_bits(unsigned short b, ts_dtype t) {
    return t == TS_DTYPE_BF16 ? ts_f32_from_bf16_bits(b) : ts_f32_from_fp16_bits(b);
}

typedef struct {
    int b, hq, hkv, nq, nkv, d, causal, pad;
    ts_dtype dtype;
    float input_scale; /* multiplies Q and K: large values make scores of about 1e4 */
    int bnhd;          /* 1: memory ordered (B, N, H, D), a token's heads side by side */
    float key_ramp;    /* key j is multiplied by 1 + key_ramp * j / nkv: scores grow along the keys */
    int pingpong_blocks; /* > 0: the D = 64 kernel on the ping-pong schedule, on that many blocks */
} attn_case;

static void check_attention(attn_case c) {
    uint64_t seed = ts_test_fresh_seed(), st = seed;
    const long long row = c.d + c.pad;
    const long long qs[3] = {(long long)c.hq * c.nq * row, c.bnhd ? row : (long long)c.nq * row,
                             c.bnhd ? (long long)c.hq * row : row};
    const long long ks[3] = {(long long)c.hkv * c.nkv * row, c.bnhd ? row : (long long)c.nkv * row,
                             c.bnhd ? (long long)c.hkv * row : row};
    const size_t nq = (size_t)c.b * qs[0], nk = (size_t)c.b * ks[0];
    unsigned short *q = malloc(nq * 2), *k = malloc(nk * 2), *v = malloc(nk * 2), *o = malloc(nq * 2);
    float *lse = malloc(sizeof(float) * c.b * c.hq * c.nq);
    for (size_t i = 0; i < nq; ++i) q[i] = to_bits((float)ts_test_normal(&st) * c.input_scale, c.dtype);
    for (size_t i = 0; i < nk; ++i) {
        const long long key = c.bnhd ? (long long)(i % ks[0]) / ks[2] : (long long)(i % ks[1]) / ks[2];
        const float ramp = 1.0f + c.key_ramp * (float)key / (float)c.nkv;
        k[i] = to_bits((float)ts_test_normal(&st) * c.input_scale * ramp, c.dtype);
    }
    for (size_t i = 0; i < nk; ++i) v[i] = to_bits((float)ts_test_normal(&st), c.dtype);
    void *dq = ts_test_device_copy(q, nq * 2), *dk = ts_test_device_copy(k, nk * 2), *dv = ts_test_device_copy(v, nk * 2);
    void *dout = ts_test_device_copy(NULL, nq * 2);
    float *dlse = ts_test_device_copy(NULL, sizeof(float) * c.b * c.hq * c.nq);
    cr_assert(dq && dk && dv && dout && dlse);
    const ts_attention_shape shape = {c.b, c.hq, c.hkv, c.nq, c.nkv, c.d};
    const float scale = 1.0f / sqrtf((float)c.d);
    const ts_status launched =
        c.pingpong_blocks > 0
            ? ts_test_pingpong_attention(&shape, c.dtype, dq, qs, dk, ks, dv, ks, dout, qs, dlse, scale, c.causal,
                                         c.pingpong_blocks)
            : ts_attention_forward(&shape, c.dtype, dq, qs, dk, ks, dv, ks, dout, qs, dlse, scale, c.causal, NULL);
    cr_assert_eq(launched, TS_SUCCESS);
    cr_assert_eq(ts_device_synchronize(), TS_SUCCESS);
    cr_assert_eq(ts_test_copy_back(o, dout, nq * 2), TS_SUCCESS);
    cr_assert_eq(ts_test_copy_back(lse, dlse, sizeof(float) * c.b * c.hq * c.nq), TS_SUCCESS);

    /* s: a row's scores; p: their exponentials, one exp a key (not one a key and column). */
    double *s = malloc(sizeof(double) * c.nkv), *p = malloc(sizeof(double) * c.nkv), err2 = 0.0, ref2 = 0.0,
           worst = 0.0;
    for (int b = 0; b < c.b; ++b)
        for (int h = 0; h < c.hq; ++h) {
            const int hk = h / (c.hq / c.hkv);
            for (int i = 0; i < c.nq; ++i) {
                const unsigned short *qi = q + b * qs[0] + h * qs[1] + i * qs[2];
                double m = -INFINITY;
                for (int j = 0; j < c.nkv; ++j) {
                    const unsigned short *kj = k + b * ks[0] + hk * ks[1] + j * ks[2];
                    double dot = 0.0;
                    for (int d = 0; d < c.d; ++d) dot += from_bits(qi[d], c.dtype) * from_bits(kj[d], c.dtype);
                    s[j] = (c.causal && j > i) ? -INFINITY : dot * scale;
                    if (s[j] > m) m = s[j];
                }
                double l = 0.0;
                for (int j = 0; j < c.nkv; ++j) {
                    p[j] = s[j] == -INFINITY ? 0.0 : exp(s[j] - m);
                    l += p[j];
                }
                const double ref_lse = m + log(l);
                const float got_lse = lse[((size_t)b * c.hq + h) * c.nq + i];
                cr_assert(isfinite(got_lse), "lse (%d,%d,%d) = %g (seed %llu)", b, h, i, (double)got_lse, (unsigned long long)seed);
                cr_assert_leq(fabs(got_lse - ref_lse), 1e-3 * (1.0 + fabs(ref_lse)), "lse (%d,%d,%d): %g vs %g (seed %llu)", b, h,
                              i, (double)got_lse, ref_lse, (unsigned long long)seed);
                for (int d = 0; d < c.d; ++d) {
                    double ref = 0.0;
                    for (int j = 0; j < c.nkv; ++j)
                        if (s[j] != -INFINITY)
                            ref += p[j] * from_bits(v[b * ks[0] + hk * ks[1] + j * ks[2] + d], c.dtype);
                    ref /= l;
                    const double got = from_bits(o[b * qs[0] + h * qs[1] + i * qs[2] + d], c.dtype);
                    cr_assert(isfinite(got), "O(%d,%d,%d,%d) = %g (seed %llu)", b, h, i, d, got, (unsigned long long)seed);
                    /* P is rounded to 16 bits before the second product, as in FlashAttention. */
                    cr_assert_leq(fabs(got - ref), 3e-2 * (1.0 + fabs(ref)), "O(%d,%d,%d,%d): %g vs %g (seed %llu)", b, h, i, d,
                                  got, ref, (unsigned long long)seed);
                    err2 += (got - ref) * (got - ref);
                    ref2 += ref * ref;
                    if (fabs(got - ref) > worst) worst = fabs(got - ref);
                }
                /* Row padding is never written. */
                for (int d = c.d; d < row; ++d) cr_assert_eq(o[b * qs[0] + h * qs[1] + i * qs[2] + d], 0xFFFF);
            }
        }
    cr_assert_leq(sqrt(err2 / (ref2 + 1e-30)), 1e-2, "relative error %g (largest %g, seed %llu)", sqrt(err2 / (ref2 + 1e-30)),
                  worst, (unsigned long long)seed);
    cr_assert_eq(ts_free(dq), TS_SUCCESS);
    cr_assert_eq(ts_free(dk), TS_SUCCESS);
    cr_assert_eq(ts_free(dv), TS_SUCCESS);
    cr_assert_eq(ts_free(dout), TS_SUCCESS);
    cr_assert_eq(ts_free(dlse), TS_SUCCESS);
    free(q);
    free(k);
    free(v);
    free(o);
    free(lse);
    free(s);
    free(p);
}

Test(attention, ragged_lengths_causal_and_not) {
    TS_TEST_REQUIRE_DEVICE();
    for (int causal = 0; causal < 2; ++causal) {
        check_attention((attn_case){1, 2, 2, 70, 130, 64, causal, 0, TS_DTYPE_BF16, 1.0f, 0, 0.0f, 0});
        check_attention((attn_case){1, 1, 1, 129, 65, 128, causal, 0, TS_DTYPE_BF16, 1.0f, 0, 0.0f, 0});
        check_attention((attn_case){1, 1, 1, 1, 1, 64, causal, 0, TS_DTYPE_BF16, 1.0f, 0, 0.0f, 0});
        /* Key counts a few short of a whole tile of 64 and of 128: the last tile's mask covers
         * only its last columns. */
        check_attention((attn_case){1, 1, 1, 100, 255, 64, causal, 0, TS_DTYPE_BF16, 1.0f, 0, 0.0f, 0});
        check_attention((attn_case){1, 2, 1, 70, 377, 128, causal, 0, TS_DTYPE_BF16, 1.0f, 0, 0.0f, 0});
    }
}

Test(attention, grouped_and_multi_query_heads_fp16_and_padded_strides) {
    TS_TEST_REQUIRE_DEVICE();
    check_attention((attn_case){2, 4, 2, 65, 100, 64, 1, 8, TS_DTYPE_FP16, 1.0f, 0, 0.0f, 0});
    check_attention((attn_case){1, 3, 1, 40, 200, 128, 0, 16, TS_DTYPE_FP16, 1.0f, 0, 0.0f, 0});
    /* (B, N, H, D) memory, as Q, K and V sit in a fused projection's output. */
    check_attention((attn_case){2, 4, 2, 70, 90, 64, 1, 0, TS_DTYPE_BF16, 1.0f, 1, 0.0f, 0});
    check_attention((attn_case){1, 2, 1, 33, 130, 128, 0, 8, TS_DTYPE_FP16, 1.0f, 1, 0.0f, 0});
}

Test(attention, long_sequences_wrap_the_stage_ring) {
    /* Many key tiles per task (of TS_ATTN_BN_D64 / _D128 keys, 64 to 256): the ring of stages wraps several
     * times within one task, with a ragged last tile, causal and not. */
    TS_TEST_REQUIRE_DEVICE();
    check_attention((attn_case){1, 2, 1, 150, 700, 128, 0, 0, TS_DTYPE_BF16, 1.0f, 0, 0.0f, 0});
    check_attention((attn_case){1, 1, 1, 300, 300, 64, 1, 0, TS_DTYPE_FP16, 1.0f, 0, 0.0f, 0});
    /* Several query tiles at D = 128 too, the last one partial whatever the block's rows. */
    check_attention((attn_case){1, 1, 1, 333, 333, 128, 1, 0, TS_DTYPE_BF16, 1.0f, 0, 0.0f, 0});
    /* Past TS_ATTN_LONG_KEYS (8192, kernels/attention/tuning.h) non-causal D = 128 calls take the
     * long-sequence kernel (176 keys a stage on Hopper and the host); a ragged last tile, fp16; and
     * bf16 with grouped heads in (B, N, H, D) memory, padded, with maxima rising over its tiles. */
    check_attention((attn_case){1, 1, 1, 70, 8300, 128, 0, 0, TS_DTYPE_FP16, 1.0f, 0, 0.0f, 0});
    check_attention((attn_case){1, 2, 1, 40, 8200, 128, 0, 8, TS_DTYPE_BF16, 3.0f, 1, 3.0f, 0});
}

#if defined(TESSERA_BACKEND_HOST)
/* The pipeline's protocol with one warp slow (ts_host_set_slow_warp, docs/getting-started.md): the
 * producer, then a warp of the first and of the second consumer warpgroup, sleeping 1 ms before
 * each of its waits, while the ring wraps several times a task; a protocol that let the others run
 * laps ahead of it would deadlock or read a refilled stage here. */
Test(attention, slow_warps_keep_the_protocol) {
    TS_TEST_REQUIRE_DEVICE();
    const int warps[3] = {0, 4, 8};
    for (int i = 0; i < 3; ++i) {
        ts_host_set_slow_warp(0, warps[i], 1000);
        check_attention((attn_case){1, 2, 1, 150, 400, 64, 1, 0, TS_DTYPE_BF16, 1.0f, 0, 0.0f, 0});
        check_attention((attn_case){1, 1, 1, 130, 500, 128, 0, 0, TS_DTYPE_FP16, 1.0f, 0, 0.0f, 0});
    }
    ts_host_set_slow_warp(0, -1, 0);
}
#endif

Test(attention, huge_scores_stay_finite) {
    /* Scores of about 1e4 before scaling: the running maximum keeps every exponent <= 0. */
    TS_TEST_REQUIRE_DEVICE();
    check_attention((attn_case){1, 1, 1, 33, 70, 64, 0, 0, TS_DTYPE_BF16, 12.0f, 0, 0.0f, 0});
    check_attention((attn_case){1, 1, 1, 50, 50, 128, 1, 0, TS_DTYPE_BF16, 9.0f, 0, 0.0f, 0});
}

Test(attention, maxima_rising_from_tile_to_tile) {
    /* Keys grow along the sequence, so that most key tiles raise the row maxima by far more than
     * the slack within which the kernel leaves a maximum (and the output's scale) as it is: a
     * rescale left out, or a maximum kept too long, fails it. */
    TS_TEST_REQUIRE_DEVICE();
    check_attention((attn_case){1, 2, 1, 70, 700, 128, 0, 0, TS_DTYPE_BF16, 3.0f, 0, 3.0f, 0});
    check_attention((attn_case){1, 1, 1, 300, 600, 64, 1, 0, TS_DTYPE_FP16, 3.0f, 0, 3.0f, 0});
}

Test(attention, ping_pong_schedule) {
    /* CDNA's schedule (no producer; the consumers take turns loading) on this backend, D = 64: one
     * or two blocks, so that each loops over many tasks and the ring runs across them; causal, where
     * consumers skip the stages past their diagonal, and the last query tile's idle consumers. */
    TS_TEST_REQUIRE_DEVICE();
    check_attention((attn_case){1, 2, 1, 300, 300, 64, 1, 0, TS_DTYPE_BF16, 1.0f, 0, 0.0f, 2});
    check_attention((attn_case){2, 3, 3, 70, 450, 64, 0, 8, TS_DTYPE_FP16, 1.0f, 0, 0.0f, 1});
    check_attention((attn_case){1, 4, 2, 200, 130, 64, 1, 0, TS_DTYPE_BF16, 1.0f, 1, 0.0f, 2});
}

Test(attention, many_heads_causal_in_groups) {
    /* 18 heads of 3 query tiles, causal: on a device with few blocks (the host backend) every block
     * runs many tasks, through a full group of heads and a partial last one (task_order.h). */
    TS_TEST_REQUIRE_DEVICE();
    check_attention((attn_case){2, 9, 3, 300, 300, 64, 1, 0, TS_DTYPE_BF16, 1.0f, 0, 0.0f, 0});
}

/* ---- the task order (kernels/attention/task_order.h), on the CPU ------------------------------ */

/* The task order's division by a multiply and a shift is exact over its whole range: divisors at and
 * around every power of two and random ones, numerators at the ends of the range, around multiples
 * of the divisor and random. */
Test(attention_order, fast_division_is_exact) {
    uint64_t seed = ts_test_fresh_seed(), st = seed;
    unsigned divisors[200];
    int nd = 0;
    for (int k = 0; k < 31; ++k)
        for (int e = -1; e <= 1; ++e) {
            const long long d = (1LL << k) + e;
            if (d >= 1 && d < (1LL << 31)) divisors[nd++] = (unsigned)d;
        }
    while (nd < 200) divisors[nd++] = 1u + (unsigned)(ts_test_uniform(&st) * 2147483646.0);
    for (int i = 0; i < nd; ++i) {
        const unsigned d = divisors[i];
        const ts_fast_div f = ts_fast_div_make(d);
        unsigned n[64];
        int nn = 0;
        n[nn++] = 0;
        n[nn++] = 2147483647u;
        n[nn++] = 2147483647u - 2147483647u % d;
        for (int j = 1; j <= 8; ++j) {
            const unsigned long long m = (unsigned long long)d * (unsigned long long)(j * 97);
            if (m < 2147483648ULL) {
                n[nn++] = (unsigned)m;
                n[nn++] = (unsigned)m - 1;
            }
        }
        while (nn < 64) n[nn++] = (unsigned)(ts_test_uniform(&st) * 2147483647.0);
        for (int j = 0; j < nn; ++j)
            cr_assert_eq(ts_fast_div_quot(f, n[j]), n[j] / d, "%u / %u: %u (seed %llu)", n[j], d,
                         ts_fast_div_quot(f, n[j]), (unsigned long long)seed);
    }
}

/* Every (head, query tile) comes from exactly one task, for groups that do and do not divide the
 * heads and grids that do and do not divide the tasks, with the causal rounds alternating direction
 * (Hopper, host) or not (CDNA); without the mask the order is head-major. */
Test(attention_order, every_tile_exactly_once) {
    static const int cfg[][4] = {/* heads, q_tiles, group_heads, step */
                                 {1, 1, 1, 1},     {16, 128, 16, 132}, {256, 8, 66, 132}, {18, 3, 16, 5},
                                 {7, 10, 3, 4},    {5, 33, 16, 132},   {40, 17, 16, 13},  {3, 5, 2, 1000},
                                 {32, 64, 16, 132}, {9, 9, 4, 7}};
    for (size_t i = 0; i < sizeof cfg / sizeof cfg[0]; ++i)
        for (int mode = 0; mode < 3; ++mode) {
            const int causal = mode > 0, alternate = mode == 2;
            const int heads = cfg[i][0], q = cfg[i][1], g = cfg[i][2], step = cfg[i][3];
            const long long tasks = (long long)heads * q;
            unsigned char *seen = calloc((size_t)tasks, 1);
            cr_assert_not_null(seen);
            const ts_attn_order order = ts_attn_order_make(heads, q, g, step);
            for (long long t = 0; t < tasks; ++t) {
                unsigned h;
                int qt;
                ts_attn_task_tile(&order, (unsigned)t, causal, alternate, &h, &qt);
                cr_assert(h < (unsigned)heads && qt >= 0 && qt < q, "config %zu task %lld: (%u, %d)", i, t, h, qt);
                cr_assert_eq(seen[h * q + qt]++, 0, "config %zu causal %d alternate %d: (%u, %d) twice", i, causal,
                             alternate, h, qt);
                if (!causal) cr_assert(h == t / q && qt == t % q);
            }
            free(seen);
        }
}

/* Groups of one head and rounds of one task are the head-major order, each head's longest tile
 * first, whether rounds alternate or not. */
Test(attention_order, one_head_groups_are_head_major) {
    const int heads = 5, q = 7;
    const ts_attn_order order = ts_attn_order_make(heads, q, 1, 1);
    for (int alternate = 0; alternate < 2; ++alternate)
        for (long long t = 0; t < heads * q; ++t) {
            unsigned h;
            int qt;
            ts_attn_task_tile(&order, (unsigned)t, 1, alternate, &h, &qt);
            cr_assert(h == t / q && qt == q - 1 - (int)(t % q), "alternate %d task %lld: (%u, %d)", alternate, t, h,
                      qt);
        }
}

/* Work per block under the causal mask (tile q costs q + 1), with block c running tasks c, c +
 * step, ... and the rounds alternating (Hopper's order): the busiest block of the benchmark's causal
 * sweep (a grid of 132) has at most 5% above the average, where a head-major order has up to 57%
 * (N = 16384). And the tasks that run at once (a window of step consecutive tasks) come from at
 * most two groups of heads. */
Test(attention_order, causal_blocks_balanced_and_heads_grouped) {
    static const int sweep[][2] = {{16 * 16, 1024}, {8 * 16, 2048}, {4 * 16, 4096}, {2 * 16, 8192},
                                   {16, 16384},     {16 * 16, 4096}, {1, 16384},    {3, 5000}};
    const int step = 132;
    for (size_t i = 0; i < sizeof sweep / sizeof sweep[0]; ++i) {
        const int heads = sweep[i][0], q = (sweep[i][1] + 127) / 128;
        const int g = ts_attn_group_heads(heads, q, step);
        const ts_attn_order order = ts_attn_order_make(heads, q, g, step);
        const long long tasks = (long long)heads * q;
        long long work[132] = {0}, total = 0;
        for (long long t = 0; t < tasks; ++t) {
            unsigned h;
            int qt;
            ts_attn_task_tile(&order, (unsigned)t, 1, 1, &h, &qt);
            work[t % step] += qt + 1;
            total += qt + 1;
        }
        const long long blocks = tasks < step ? tasks : step;
        long long most = 0;
        for (int c = 0; c < blocks; ++c) most = work[c] > most ? work[c] : most;
        const double ratio = (double)most * (double)blocks / (double)total;
        if (tasks >= 4 * step)
            cr_assert_leq(ratio, 1.05, "%d heads x %d tiles (groups of %d): busiest block %.3f x average", heads, q,
                          g, ratio);
        for (long long w = 0; w + step <= tasks; w += step) {
            long long lo = heads, hi = -1;
            for (long long t = w; t < w + step; ++t) {
                unsigned h;
                int qt;
                ts_attn_task_tile(&order, (unsigned)t, 1, 1, &h, &qt);
                lo = (long long)h < lo ? (long long)h : lo;
                hi = (long long)h > hi ? (long long)h : hi;
            }
            cr_assert_lt(hi / g - lo / g, 2, "%d heads x %d tiles: tasks %lld.. span heads %lld..%lld (groups of %d)",
                         heads, q, w, lo, hi, g);
        }
    }
}

/* ---- the pin that keeps the softmax ahead of the wait for P V (ops/pin.h) --------------------- */

/* Each warp's slot receives the sum of the entries of its vector that lane 0 holds (every entry on
 * the host backend; the backend's fragment layout says which), and the slots around them keep
 * their sentinel. */
Test(attention_pin, stores_lane_zero_sum_in_the_warp_slot) {
    TS_TEST_REQUIRE_DEVICE();
    uint64_t seed = ts_test_fresh_seed(), st = seed;
    float in[64], out[4];
    for (int i = 0; i < 64; ++i) in[i] = (float)ts_test_normal(&st);
    const float sentinel = 1e30f;
    float *d_in = ts_test_device_copy(in, sizeof in), *d_out = ts_test_device_copy(NULL, sizeof out);
    cr_assert(d_in && d_out);
    cr_assert_eq(ts_test_pin(d_in, d_out, sentinel), TS_SUCCESS);
    cr_assert_eq(ts_device_synchronize(), TS_SUCCESS);
    cr_assert_eq(ts_test_copy_back(out, d_out, sizeof out), TS_SUCCESS);
    cr_assert(out[0] == sentinel && out[3] == sentinel, "slots beside the warps' written: %g %g", out[0], out[3]);
    for (int w = 0; w < 2; ++w) {
        double want = 0.0, size = 0.0;
        for (int blk = 0; blk < 2; ++blk)
            for (int s = 0; s < ts_rv_row_slots(TS_LAYOUT_ROW, 4); ++s) {
                const double x = in[32 * w + 16 * blk + ts_rv_row_of_slot(TS_LAYOUT_ROW, 4, 0, s)];
                want += x;
                size += fabs(x);
            }
        cr_assert(fabs(out[1 + w] - want) <= 1e-5 * size, "warp %d: %.9g, want %.9g (seed %llu)", w,
                  out[1 + w], want, (unsigned long long)seed);
    }
    cr_assert_eq(ts_free(d_in), TS_SUCCESS);
    cr_assert_eq(ts_free(d_out), TS_SUCCESS);
}

Test(attention, bad_arguments) {
    unsigned short buf[1024] __attribute__((aligned(16))) = {0};
    void *p = buf;
    const long long st[3] = {64 * 64, 64 * 64, 64};
    const ts_attention_shape ok = {1, 1, 1, 16, 16, 64};
    const ts_dtype B = TS_DTYPE_BF16;
    ts_attention_shape sh = ok;
    cr_assert_eq(ts_attention_forward(NULL, B, p, st, p, st, p, st, p, st, NULL, 1.0f, 0, NULL), TS_ERROR_NULL_POINTER);
    cr_assert_eq(ts_attention_forward(&ok, B, NULL, st, p, st, p, st, p, st, NULL, 1.0f, 0, NULL), TS_ERROR_NULL_POINTER);
    cr_assert_eq(ts_attention_forward(&ok, B, p, st, p, NULL, p, st, p, st, NULL, 1.0f, 0, NULL), TS_ERROR_NULL_POINTER);
    cr_assert_eq(ts_attention_forward(&ok, (ts_dtype)7, p, st, p, st, p, st, p, st, NULL, 1.0f, 0, NULL), TS_ERROR_INVALID_ENUM);
    cr_assert_eq(ts_attention_forward(&ok, TS_DTYPE_F32, p, st, p, st, p, st, p, st, NULL, 1.0f, 0, NULL), TS_ERROR_UNSUPPORTED);
    sh.seq_q = 0;
    cr_assert_eq(ts_attention_forward(&sh, B, p, st, p, st, p, st, p, st, NULL, 1.0f, 0, NULL), TS_ERROR_INVALID_SIZE);
    sh = ok;
    sh.head_dim = 96;
    cr_assert_eq(ts_attention_forward(&sh, B, p, st, p, st, p, st, p, st, NULL, 1.0f, 0, NULL), TS_ERROR_UNSUPPORTED);
    sh = ok;
    sh.heads_q = 3;
    sh.heads_kv = 2;
    cr_assert_eq(ts_attention_forward(&sh, B, p, st, p, st, p, st, p, st, NULL, 1.0f, 0, NULL), TS_ERROR_INVALID_VALUE);
    cr_assert_eq(ts_attention_forward(&ok, B, p, st, p, st, p, st, p, st, NULL, -1.0f, 0, NULL), TS_ERROR_INVALID_VALUE);
    cr_assert_eq(ts_attention_forward(&ok, B, p, st, p, st, p, st, p, st, NULL, NAN, 0, NULL), TS_ERROR_INVALID_VALUE);
    cr_assert_eq(ts_attention_forward(&ok, B, p, st, p, st, p, st, p, st, NULL, 1.0f, 2, NULL), TS_ERROR_INVALID_VALUE);
    const long long short_row[3] = {64 * 64, 64 * 64, 32};
    cr_assert_eq(ts_attention_forward(&ok, B, p, short_row, p, st, p, st, p, st, NULL, 1.0f, 0, NULL), TS_ERROR_INVALID_VALUE);
    /* Two heads whose rows interleave: head h row i at h * 64 + i * 64 overlaps head h + 1's row. */
    sh = ok;
    sh.heads_q = sh.heads_kv = 2;
    const long long interleaved[3] = {4096, 64, 64};
    cr_assert_eq(ts_attention_forward(&sh, B, p, interleaved, p, st, p, st, p, st, NULL, 1.0f, 0, NULL),
                 TS_ERROR_INVALID_VALUE);
    const long long odd[3] = {64 * 68, 64 * 68, 68 + 2};
    cr_assert_eq(ts_attention_forward(&ok, B, p, odd, p, st, p, st, p, st, NULL, 1.0f, 0, NULL), TS_ERROR_MISALIGNED);
    cr_assert_eq(ts_attention_forward(&ok, B, (char *)p + 2, st, p, st, p, st, p, st, NULL, 1.0f, 0, NULL), TS_ERROR_MISALIGNED);
    cr_assert_eq(ts_attention_forward(&ok, B, p, st, p, st, p, st, p, st, (float *)((char *)p + 2), 1.0f, 0, NULL),
                 TS_ERROR_MISALIGNED);
    /* 2^14 x 256 heads of 65536 queries (a layout within 2^46 elements): 2^38 query rows, at least
     * 2^30 tasks of up to 192 rows, past the task order's 32-bit arithmetic; the call stops at its
     * arguments, before any device work or memory access. */
    const ts_attention_shape huge = {1 << 14, 256, 256, 65536, 65536, 128};
    const long long huge_st[3] = {256LL * 65536 * 128, 65536LL * 128, 128};
    cr_assert_eq(ts_attention_forward(&huge, B, p, huge_st, p, huge_st, p, huge_st, p, huge_st, NULL, 1.0f, 0, NULL),
                 TS_ERROR_SIZE_OVERFLOW);
}
