/* The Based linear-attention kernel on the producer-consumer template, for bf16. Included once by
 * based.c after defining TS_BASED_NAME (the kernel's prefix).
 *
 * A task runs one head's sequence in chunks of 64 rows; a stage holds the chunk's q and k (64 x 16)
 * and v (64 x TS_BASED_COLS for each consumer). Per chunk, each consumer warpgroup (warp w owning
 * the chunk's rows 16 w .. 16 w + 15):
 *   1. intra-chunk: S = q k^T (one 64 x 64 x 16 product), A = 1 + s + s^2 / 2 with s = scale S,
 *      masked causally to 0, and O = A V (A from registers);
 *   2. inter-chunk (chunks after the first): O += phi(q) KV, group by group, phi(q) formed in
 *      registers and KV read from the consumer's shared copy of the state (bf16), written at the
 *      end of the last chunk;
 *   3. with normalize, the denominator: the row sums of A plus phi(q) . Z, Z = sum of phi(k) over
 *      the earlier chunks, through Z1 = sum k and Z2 = sum k k^T (phi(q) . Z = P + s1 q.Z1 +
 *      (s1^2 / 2) q^T Z2 q, P the earlier keys' count, s1 = scale);
 *   4. the state update (all but the last chunk): phi(k) of the chunk into shared memory, KV +=
 *      phi(k)^T V into the fp32 accumulators, Z1 and Z2 by warp products, then the new state to
 *      the shared bf16 copy for the next chunk;
 *   5. O (divided by the denominator) goes to global memory from registers.
 * Two named barriers a chunk order the warpgroup's shared writes (phi(k), the state copy) before
 * the products that read them. */

#define TS_BASED_FN(name) TS_CAT(TS_BASED_NAME, TS_CAT(_, name))
#define TS_BASED_RT_O TS_CAT(ts_rt_f32_16x, TS_BASED_COLS)
#define TS_BASED_RT_O16 TS_CAT(ts_rt_bf16_16x, TS_BASED_COLS)
#define TS_BASED_ST_V TS_CAT(ts_st_bf16_64x, TS_BASED_COLS)

typedef struct TS_BASED_FN(input) {
    ts_st_bf16_64x16 q, k;
    TS_BASED_ST_V v[TS_BASED_CONSUMERS];
} TS_BASED_FN(input);

/* A consumer's shared area: the chunk's phi(k), one 64 x 64 tile a group (the A^T operand of the
 * state update), and the state in bf16 (the B operand of phi(q) KV), group g's features in rows. */
typedef struct TS_BASED_FN(output) {
    ts_st_bf16_64x64 phik[TS_BASED_GROUPS];
    TS_BASED_ST_V kvs[TS_BASED_GROUPS];
} TS_BASED_FN(output);

#define TS_BASED_STAGE_BYTES (2u * 64u * 16u * 2u + TS_BASED_CONSUMERS * 64u * TS_BASED_COLS * 2u)
#define TS_BASED_OUTPUT_BYTES (TS_BASED_GROUPS * (64u * 64u + 64u * TS_BASED_COLS) * 2u)
TS_STATIC_ASSERT(sizeof(TS_BASED_FN(input)) == TS_BASED_STAGE_BYTES &&
                     sizeof(TS_BASED_FN(output)) == TS_BASED_OUTPUT_BYTES,
                 "the shared-memory budget below counts the stage and output types");
TS_STATIC_ASSERT(TS_BASED_STAGES * TS_BASED_STAGE_BYTES + TS_BASED_CONSUMERS * TS_BASED_OUTPUT_BYTES + 1024u <=
                     TS_MAX_SHARED_BYTES,
                 "the Based stages and state do not fit in shared memory (kernels/based/tuning.h)");

typedef ts_based_task TS_BASED_FN(task);

typedef struct TS_BASED_FN(consumer) {
    /* The state of the consumer's columns, fp32: group g's 64 features x TS_BASED_COLS columns,
     * the warp's 16 features of each. */
    TS_BASED_RT_O kv[TS_BASED_GROUPS];
    /* For the denominator, each warp's own copy: Z2 = sum k k^T and Z1 = every row sum k. */
    ts_rt_f32_16x16 z2, z1;
} TS_BASED_FN(consumer);

TS_DEVICE long long TS_BASED_FN(tasks)(const ts_based_params *p) { return p->tasks; }

TS_DEVICE int TS_BASED_FN(setup)(const ts_based_params *p, long long task, ts_based_task *t) {
    return ts_based_setup(p, task, t);
}

TS_DEVICE void TS_BASED_FN(load)(const ts_based_params *p, const ts_based_task *t, TS_BASED_FN(input) *in,
                                 ts_tbar *full, int iter) {
    ts_tbar_expect_bytes(full, TS_ASYNC_BYTES(&in->q) + TS_ASYNC_BYTES(&in->k) +
                                   TS_BASED_CONSUMERS * TS_ASYNC_BYTES(&in->v[0]));
    ts_async_load(&in->q, &p->q, t->b, t->h, iter, 0, full);
    ts_async_load(&in->k, &p->k, t->b, t->h, iter, 0, full);
    TS_UNROLL
    for (int c = 0; c < TS_BASED_CONSUMERS; ++c)
        ts_async_load(&in->v[c], &p->v, t->b, t->h, iter, t->col_tile + c, full);
}

TS_DEVICE void TS_BASED_FN(init)(const ts_based_params *p, const ts_based_task *t, TS_BASED_FN(consumer) *c,
                                 TS_BASED_FN(output) *out, int consumer) {
    (void)p, (void)t, (void)out, (void)consumer;
    TS_UNROLL
    for (int g = 0; g < TS_BASED_GROUPS; ++g) ts_zero(&c->kv[g]);
    ts_zero(&c->z2);
    ts_zero(&c->z1);
}

/* Group g of phi(x) for the warp's 16 rows (row0 ..) of a 64 x 16 tile x: group 0 is
 * [s1 x, 1, 0 ...], groups 1..4 s2 x_a x_b (based_common.h). */
TS_DEVICE void TS_BASED_FN(features)(ts_rt_f32_16x64 *f, const ts_st_bf16_64x16 *x, int row0, int g, float s1,
                                     float s2) {
    if (g == 0) {
        ts_rt_bf16_16x16 x16;
        ts_rt_f32_16x16 x32, one;
        ts_load_s2r_at(&x16, x, row0, 0);
        ts_convert(&x32, &x16);
        ts_mul_scalar(&x32, &x32, s1);
        ts_iota_cols(&one, 0.0f);
        ts_eq_scalar(&one, &one, 0.0f);
        ts_zero(f);
        ts_rt_set_cols(f, &x32, 0);
        ts_rt_set_cols(f, &one, 16);
    } else {
        ts_load_outer_s2r(f, x, row0, 4 * (g - 1), s2);
    }
}

/* 1 + s + s^2 / 2 of s = scale * x: the Taylor kernel phi(q) . phi(k) of one score. */
#define TS_BASED_TAYLOR(x) (1.0f + (x) * scale * (1.0f + 0.5f * (x) * scale))

TS_DEVICE void TS_BASED_FN(compute)(const ts_based_params *p, const ts_based_task *t, TS_BASED_FN(consumer) *c,
                                    const TS_BASED_FN(input) *in, TS_BASED_FN(output) *out, int iter,
                                    int consumer) {
    const int warp = ts_warp_in_group(), row0 = 16 * warp;
    const float scale = p->scale;
    const TS_BASED_ST_V *v = &in->v[consumer];

    /* 1. Within the chunk: the quadratic form, causal (key j <= query i). Keys past the sequence
     * lie past every query row that is stored, so the causal mask covers them. */
    ts_rt_f32_16x64 a;
    ts_wg_mm_ABt(&a, &in->q, &in->k);
    TS_MAP(&a, &a, TS_BASED_TAYLOR);
    ts_causal_mask(&a, &a, row0, 0, 0.0f);
    ts_rowvec_f32_16 den;
    ts_row_sum(&den, &a);
    TS_BASED_RT_O o;
    {
        ts_rt_bf16_16x64 a16;
        ts_convert(&a16, &a);
        ts_wg_mm_AB_rs(&o, &a16, v);
    }

    /* 2. and 3. The earlier chunks, through the state as the last chunk left it. */
    if (iter > 0) {
        TS_UNROLL
        for (int g = 0; g < TS_BASED_GROUPS; ++g) {
            ts_rt_f32_16x64 f;
            ts_rt_bf16_16x64 f16;
            TS_BASED_FN(features)(&f, &in->q, row0, g, scale, 0.5f * scale * scale);
            ts_convert(&f16, &f);
            ts_wg_mma_AB_rs(&o, &f16, &out->kvs[g]);
        }
        if (p->normalize) {
            /* phi(q) . Z = P + scale q.Z1 + (scale^2 / 2) q^T Z2 q, as rows of
             * q * (Z1 + (scale / 2) q Z2) summed (Z2 is symmetric: q Z2 = q Z2^T). */
            ts_rt_bf16_16x16 q16, z2b;
            ts_rt_f32_16x16 q32, w;
            ts_rowvec_f32_16 inter;
            ts_load_s2r_at(&q16, &in->q, row0, 0);
            ts_convert(&q32, &q16);
            ts_convert(&z2b, &c->z2);
            ts_mm_ABt(&w, &q16, &z2b);
            ts_fma_scalar(&w, &w, 0.5f * scale, &c->z1);
            ts_mul(&w, &w, &q32);
            ts_row_sum(&inter, &w);
            ts_rv_fma_scalar(&den, &inter, scale, &den);
            ts_rv_add_scalar(&den, &den, (float)iter * (float)TS_BASED_CHUNK);
        }
    }

    /* 4. The chunk into the state, unless it is the last. */
    if (iter + 1 < p->chunks) {
        TS_UNROLL
        for (int g = 0; g < TS_BASED_GROUPS; ++g) {
            ts_rt_f32_16x64 f;
            ts_rt_bf16_16x64 f16;
            TS_BASED_FN(features)(&f, &in->k, row0, g, 1.0f, 1.0f);
            ts_convert(&f16, &f);
            ts_store_r2s_at(&out->phik[g], &f16, row0, 0);
        }
        /* Every warp is past its reads of the state copy (step 2) and has written its rows of
         * phi(k): publish them to the tensor cores. */
        ts_async_fence_shared();
        ts_sync_named(consumer, 4);
        TS_UNROLL
        for (int g = 0; g < TS_BASED_GROUPS; ++g) ts_wg_mma_AtB(&c->kv[g], &out->phik[g], v);
        if (p->normalize) {
            ts_rt_bf16_64x16_col kc, ones;
            ts_rt_f32_64x16_col ones32;
            ts_load_s2r(&kc, &in->k);
            ts_fill(&ones32, 1.0f);
            ts_convert(&ones, &ones32);
            ts_mma_AtB(&c->z2, &kc, &kc, &c->z2);
            ts_mma_AtB(&c->z1, &ones, &kc, &c->z1);
        }
        TS_UNROLL
        for (int g = 0; g < TS_BASED_GROUPS; ++g) {
            TS_BASED_RT_O16 kb;
            ts_convert(&kb, &c->kv[g]);
            ts_store_r2s_at(&out->kvs[g], &kb, row0, 0);
        }
        /* The new state copy is complete before the next chunk's products read it, and every
         * warp's update has read phi(k) before the next chunk overwrites it. */
        ts_async_fence_shared();
        ts_sync_named(consumer, 4);
    }

    /* 5. The chunk's rows out; the denominator is at least half the keys' count, never 0. */
    if (p->normalize) ts_div_row(&o, &o, &den);
    TS_BASED_RT_O16 o16;
    ts_convert(&o16, &o);
    ts_store_r2g(&p->o, &o16, t->b, t->h, iter * (TS_BASED_CHUNK / 16) + warp, t->col_tile + consumer);
}

TS_DEVICE void TS_BASED_FN(store)(const ts_based_params *p, const ts_based_task *t, TS_BASED_FN(consumer) *c,
                                  TS_BASED_FN(output) *out, int consumer) {
    (void)p, (void)t, (void)c, (void)out, (void)consumer;
}

TS_DEVICE void TS_BASED_FN(finish)(const ts_based_params *p, TS_BASED_FN(consumer) *c, TS_BASED_FN(output) *out,
                                   int consumer) {
    (void)p, (void)c, (void)out, (void)consumer;
}

#define TS_PC_KERNEL TS_BASED_FN(kernel)
#define TS_PC_PARAMS ts_based_params
#define TS_PC_HOOK(name) TS_BASED_FN(name)
#define TS_PC_STAGES TS_BASED_STAGES
#define TS_PC_CONSUMERS TS_BASED_CONSUMERS
/* Hopper's 64K registers of a block of 128 (producer) + 128 x consumers threads. */
#if TS_BASED_CONSUMERS == 3
#define TS_PC_PRODUCER_REGS 32
#define TS_PC_CONSUMER_REGS 160
#else
#define TS_PC_PRODUCER_REGS 40
#define TS_PC_CONSUMER_REGS 232
#endif
/* compute's products are all complete when it returns (the synchronous forms). */
#define TS_PC_COMPUTE_WAITS 1
#include "templates/producer_consumer.h"

#undef TS_BASED_TAYLOR
#undef TS_BASED_STAGE_BYTES
#undef TS_BASED_OUTPUT_BYTES
#undef TS_BASED_RT_O
#undef TS_BASED_RT_O16
#undef TS_BASED_ST_V
#undef TS_BASED_NAME
