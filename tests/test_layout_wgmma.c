/* The layout model of wgmma, on the CPU for every backend: a C model of
 * wgmma.mma_async.m64nNk16.f32.bf16.bf16 with both operands in shared memory, written from the PTX
 * ISA ("Shared Memory Matrix Layout", "Matrix Descriptor Format", "Register fragment for wgmma
 * D"). It decodes the 64-bit matrix descriptors as the hardware does (start address, leading and
 * stride byte offsets, swizzle mode), finds every element through the documented canonical layouts
 * of 8-row x 16-byte core matrices with the swizzle applied to the address bits, and writes D into
 * the per-thread accumulator registers of the documented fragment. Random bf16 tiles are placed in
 * a byte array by the project's ts_cuda_st_offset, the descriptors come from the project's
 * backends/cuda/wgmma_layout.h (the same functions the GPU ops use, one per k16 step), and D is
 * gathered through the project's CUDA row layout of a 16 x N tile per warp, the tile's floats in
 * storage order being the instruction's registers. The product must match a double-precision
 * reference; wrong descriptors or a wrong layout must not.
 *
 * The register-A variant (wgmma ... d, {a0, a1, a2, a3}, b-desc, ...) is modelled the same way: the
 * model reads each thread's four A registers as the ISA's "Register fragment for wgmma A" (Figure
 * 148) places them, the project fills them from a ts_rt_bf16_16xK tile per warp through its CUDA
 * row layout and ts_cuda_wgmma_a_word, exactly as ts_wg_mma_rs_raw hands them over. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "backends/half_bits.h"
#include "backends/cuda/fragment_layout.h"
#include "backends/cuda/shared_layout.h"
#include "backends/cuda/wgmma_layout.h"
#include "support/test_support.h"

/* ---- the model of the instruction ------------------------------------------------------------ */

/* Shared memory of one block, as the descriptors' 18-bit addresses see it. */
#define SMEM_BYTES (256u * 1024u)
#define THREADS 128

typedef struct model_desc {
    uint32_t start, lbo, sbo, base_offset;
    int mode; /* 0 none, 1 128B, 2 64B, 3 32B */
} model_desc;

/* Bits 13-0, 29-16 and 45-32 hold byte quantities >> 4; bits 51-49 the base offset; 63-62 the
 * swizzle mode. */
static model_desc model_decode(uint64_t d) {
    model_desc f;
    f.start = (uint32_t)(d & 0x3FFFu) << 4;
    f.lbo = (uint32_t)((d >> 16) & 0x3FFFu) << 4;
    f.sbo = (uint32_t)((d >> 32) & 0x3FFFu) << 4;
    f.base_offset = (uint32_t)((d >> 49) & 7u);
    f.mode = (int)(d >> 62);
    return f;
}

/* Bytes of one swizzle row (the atom's width): 128, 64, 32, or 16 (a core-matrix row) unswizzled. */
static uint32_t model_width(int mode) { return mode == 1 ? 128u : mode == 2 ? 64u : mode == 3 ? 32u : 16u; }

/* Swizzle<B,4,3> on the byte address: the 16-byte unit bits [4, 4+B) XOR the bits [7, 7+B), with
 * B = 3, 2, 1 for 128, 64, 32 bytes. The pattern repeats every 1024, 512, 256 bytes from address
 * 0, which is what a base offset of 0 states. */
static uint32_t model_swizzle(uint32_t addr, int mode) {
    const uint32_t mask = mode == 1 ? 7u : mode == 2 ? 3u : mode == 3 ? 1u : 0u;
    return addr ^ (((addr >> 7) & mask) << 4);
}

/* Byte address of element (mn, k), k in 0..15, of a 16-bit operand (T = 8 elements per 16 bytes)
 * in the canonical layouts of the ISA, strides in bytes:
 *   K-major,  no swizzle: ((8,m),(T,2k)) : ((16, SBO), (2, LBO))
 *   K-major,  swizzle w:  ((8,m),(T,2k)) : ((w, SBO),  (2, 16))     K contiguous along a row
 *   MN-major, no swizzle: ((T,m),(8,k))  : ((2, SBO),  (16, LBO))
 *   MN-major, swizzle w:  ((T,w/16,m),(8,k)) : ((2, 16, LBO), (w, SBO))  */
static uint32_t model_addr(model_desc f, int mn_major, int mn, int k) {
    const uint32_t w = model_width(f.mode);
    uint32_t off;
    if (!mn_major) {
        if (f.mode == 0)
            off = (uint32_t)(mn % 8) * 16u + (uint32_t)(mn / 8) * f.sbo + (uint32_t)(k % 8) * 2u +
                  (uint32_t)(k / 8) * f.lbo;
        else
            off = (uint32_t)(mn % 8) * w + (uint32_t)(mn / 8) * f.sbo + (uint32_t)k * 2u;
    } else {
        if (f.mode == 0) {
            off = (uint32_t)(mn % 8) * 2u + (uint32_t)(mn / 8) * f.sbo + (uint32_t)(k % 8) * 16u +
                  (uint32_t)(k / 8) * f.lbo;
        } else {
            const int per_row = (int)w / 2;
            off = (uint32_t)(mn % per_row) * 2u + (uint32_t)(mn / per_row) * f.lbo +
                  (uint32_t)(k % 8) * w + (uint32_t)(k / 8) * f.sbo;
        }
    }
    return model_swizzle(f.start + off, f.mode);
}

/* One wgmma.mma_async.m64nNk16.f32.bf16.bf16 d, desc_a, desc_b, scale_d, 1, 1, trans_a, trans_b:
 * d[t * (n/2) + i] is register i of thread t of the warpgroup. Thread t of warp w = t / 32, lane
 * l = t % 32, register i holds D[16w + l/4 + 8*((i/2)%2)][8*(i/4) + 2*(l%4) + i%2]. Returns 0, or
 * -1 for an access outside shared memory or a descriptor the model does not cover. */
static int model_wgmma(float *d, int n, const uint8_t *smem, uint64_t desc_a, uint64_t desc_b,
                       int scale_d, int trans_a, int trans_b) {
    const model_desc fa = model_decode(desc_a), fb = model_decode(desc_b);
    if (fa.base_offset != 0 || fb.base_offset != 0) return -1;
    for (int t = 0; t < THREADS; ++t) {
        const int w = t / 32, l = t % 32;
        for (int i = 0; i < n / 2; ++i) {
            const int row = 16 * w + l / 4 + 8 * ((i / 2) % 2);
            const int col = 8 * (i / 4) + 2 * (l % 4) + i % 2;
            double sum = 0.0;
            for (int k = 0; k < 16; ++k) {
                const uint32_t pa = model_addr(fa, trans_a, row, k), pb = model_addr(fb, trans_b, col, k);
                if (pa + 2 > SMEM_BYTES || pb + 2 > SMEM_BYTES) return -1;
                const unsigned short ba = (unsigned short)(smem[pa] | smem[pa + 1] << 8);
                const unsigned short bb = (unsigned short)(smem[pb] | smem[pb + 1] << 8);
                sum += (double)ts_f32_from_bf16_bits(ba) * (double)ts_f32_from_bf16_bits(bb);
            }
            float *r = &d[t * (n / 2) + i];
            *r = (scale_d ? *r : 0.0f) + (float)sum;
        }
    }
    return 0;
}

/* ---- the project's side ---------------------------------------------------------------------- */

enum { FORM_AB, FORM_ABT, FORM_ATB, FORM_ATBT };

typedef struct wg_case {
    int n, k, form;
    uint8_t *smem;
    float *a, *b;      /* logical A (64 x K) and B (K x N), the bf16-rounded values */
    uint32_t a_base, b_base;
    int a_rows, a_cols, b_rows, b_cols, a_kmajor, b_kmajor;
    float *d;          /* THREADS x n/2 registers */
    uint64_t seed;
} wg_case;

static uint16_t to_bf16(float x) { return ts_bf16_bits_from_f32(x); }

static void put16(uint8_t *smem, uint32_t at, uint16_t bits) {
    smem[at] = (uint8_t)(bits & 0xFF);
    smem[at + 1] = (uint8_t)(bits >> 8);
}

/* Random A and B, stored in the tiles of the form (A as 64 x K or its K x 64 transpose, B as
 * K x N or its N x K transpose) at 1024-aligned bases, element (r, c) of a tile at byte
 * 2 * ts_cuda_st_offset(r, c) from its base. */
static void case_setup(wg_case *c, int n, int k, int form) {
    memset(c, 0, sizeof *c);
    c->n = n;
    c->k = k;
    c->form = form;
    c->seed = ts_test_fresh_seed();
    uint64_t state = c->seed;
    c->smem = calloc(SMEM_BYTES, 1);
    c->a = malloc(sizeof(float) * 64 * (size_t)k);
    c->b = malloc(sizeof(float) * (size_t)k * (size_t)n);
    c->d = calloc((size_t)THREADS * (size_t)(n / 2), sizeof(float));
    cr_assert(c->smem && c->a && c->b && c->d);
    c->a_kmajor = form == FORM_AB || form == FORM_ABT;
    c->b_kmajor = form == FORM_ABT || form == FORM_ATBT;
    c->a_rows = c->a_kmajor ? 64 : k;
    c->a_cols = c->a_kmajor ? k : 64;
    c->b_rows = c->b_kmajor ? n : k;
    c->b_cols = c->b_kmajor ? k : n;
    c->a_base = 2048; /* not at 0, to exercise the start-address field */
    c->b_base = c->a_base + (uint32_t)((64 * k * 2 + 1023) / 1024 * 1024);
    cr_assert(c->b_base + (uint32_t)(k * n * 2) <= SMEM_BYTES);
    for (int m = 0; m < 64; ++m)
        for (int kk = 0; kk < k; ++kk) {
            const uint16_t bits = to_bf16((float)ts_test_normal(&state));
            c->a[m * k + kk] = ts_f32_from_bf16_bits(bits);
            const int r = c->a_kmajor ? m : kk, col = c->a_kmajor ? kk : m;
            put16(c->smem, c->a_base + 2u * (uint32_t)ts_cuda_st_offset(c->a_rows, c->a_cols, 2, r, col), bits);
        }
    for (int kk = 0; kk < k; ++kk)
        for (int j = 0; j < n; ++j) {
            const uint16_t bits = to_bf16((float)ts_test_normal(&state));
            c->b[kk * n + j] = ts_f32_from_bf16_bits(bits);
            const int r = c->b_kmajor ? j : kk, col = c->b_kmajor ? kk : j;
            put16(c->smem, c->b_base + 2u * (uint32_t)ts_cuda_st_offset(c->b_rows, c->b_cols, 2, r, col), bits);
        }
}

static void case_free(wg_case *c) {
    free(c->smem);
    free(c->a);
    free(c->b);
    free(c->d);
}

/* What may be broken on purpose. */
enum {
    BREAK_NONE,
    BREAK_A_SWIZZLE,   /* A's swizzle mode replaced by another width */
    BREAK_B_SWIZZLE,
    BREAK_A_SBO,       /* A's stride byte offset doubled */
    BREAK_B_LBO,       /* B's leading byte offset halved (MN-major B of several chunks) */
    BREAK_K_STEP,      /* the k step advanced as if the tile were one plain row-major block */
    BREAK_TRANS_B,     /* the transpose flag of B flipped */
    BREAK_LAYOUT       /* D gathered through the col layout instead of the row layout */
};

static uint64_t with_mode(uint64_t desc, int mode) {
    return (desc & ~(3ull << 62)) | ((uint64_t)mode << 62);
}

/* Runs the K/16 steps through the model with the project's descriptors; returns the number of
 * elements that miss the reference (-1 when the model faulted). */
static long run_case(wg_case *c, int breakage) {
    const int steps = c->k / 16;
    int trans_b = !c->b_kmajor;
    if (breakage == BREAK_TRANS_B) trans_b = !trans_b;
    for (int s = 0; s < steps; ++s) {
        /* As the kernels build them: step 0's descriptor, advanced to step s. */
        uint64_t da = ts_cuda_wgmma_desc_step(ts_cuda_wgmma_desc(c->a_base, c->a_rows, c->a_cols, 2, c->a_kmajor, 0),
                                              c->a_rows, c->a_cols, 2, c->a_kmajor, s);
        uint64_t db = ts_cuda_wgmma_desc_step(ts_cuda_wgmma_desc(c->b_base, c->b_rows, c->b_cols, 2, c->b_kmajor, 0),
                                              c->b_rows, c->b_cols, 2, c->b_kmajor, s);
        if (breakage == BREAK_A_SWIZZLE) da = with_mode(da, (int)(da >> 62) == 1 ? 2 : 1);
        if (breakage == BREAK_B_SWIZZLE) db = with_mode(db, (int)(db >> 62) == 1 ? 3 : 1);
        if (breakage == BREAK_A_SBO) {
            const uint32_t sbo = ts_cuda_wgmma_sbo(c->a_rows, c->a_cols, 2, c->a_kmajor);
            da = ts_cuda_wgmma_encode(c->a_base + ts_cuda_wgmma_step_offset(c->a_rows, c->a_cols, 2, c->a_kmajor, s),
                                      ts_cuda_wgmma_lbo(c->a_rows, c->a_cols, 2, c->a_kmajor), 2 * sbo,
                                      (int)(da >> 62));
        }
        if (breakage == BREAK_B_LBO) {
            const uint32_t lbo = ts_cuda_wgmma_lbo(c->b_rows, c->b_cols, 2, c->b_kmajor);
            db = ts_cuda_wgmma_encode(c->b_base + ts_cuda_wgmma_step_offset(c->b_rows, c->b_cols, 2, c->b_kmajor, s),
                                      lbo / 2, ts_cuda_wgmma_sbo(c->b_rows, c->b_cols, 2, c->b_kmajor),
                                      (int)(db >> 62));
        }
        if (breakage == BREAK_K_STEP) {
            /* A row-major block of a_cols columns: step s would start at 32 * s bytes. */
            const uint32_t naive = c->a_kmajor ? 32u * (uint32_t)s : (uint32_t)(16 * s * c->a_cols * 2);
            da = ts_cuda_wgmma_encode(c->a_base + naive, ts_cuda_wgmma_lbo(c->a_rows, c->a_cols, 2, c->a_kmajor),
                                      ts_cuda_wgmma_sbo(c->a_rows, c->a_cols, 2, c->a_kmajor), (int)(da >> 62));
        }
        if (model_wgmma(c->d, c->n, c->smem, da, db, s > 0, !c->a_kmajor, trans_b) != 0) return -1;
    }

    /* Warp w's ts_rt_f32_16xN tile: element e of lane l (subtile e / 8, slot e % 8) is register e. */
    const int layout = breakage == BREAK_LAYOUT ? TS_LAYOUT_COL : TS_LAYOUT_ROW;
    unsigned char *seen = calloc((size_t)64 * (size_t)c->n, 1);
    cr_assert_not_null(seen);
    long misses = 0;
    for (int t = 0; t < THREADS; ++t) {
        const int w = t / 32, lane = t % 32;
        for (int e = 0; e < c->n / 2; ++e) {
            const int sub = e / TS_CUDA_RT_SUB_ELEMS, i = e % TS_CUDA_RT_SUB_ELEMS;
            const int r = 16 * w + ts_cuda_rt_row(layout, 4, lane, i);
            const int col = 16 * sub + ts_cuda_rt_col(layout, 4, lane, i);
            double ref = 0.0, mag = 0.0;
            for (int kk = 0; kk < c->k; ++kk) {
                const double p = (double)c->a[r * c->k + kk] * (double)c->b[kk * c->n + col];
                ref += p;
                mag += fabs(p);
            }
            const double got = c->d[t * (c->n / 2) + e];
            if (!(fabs(got - ref) <= 1e-5 * mag + 1e-6)) ++misses;
            seen[r * c->n + col]++;
        }
    }
    for (int x = 0; x < 64 * c->n; ++x)
        if (seen[x] != 1) ++misses; /* every element of D exactly once */
    free(seen);
    return misses;
}

static const char *form_name(int form) {
    return form == FORM_AB ? "AB" : form == FORM_ABT ? "ABt" : form == FORM_ATB ? "AtB" : "AtBt";
}

static void check_exact(int n, int k, int form) {
    wg_case c;
    case_setup(&c, n, k, form);
    const long misses = run_case(&c, BREAK_NONE);
    cr_assert_eq(misses, 0, "N=%d K=%d %s: %ld elements of D differ from the reference (seed %llu)", n, k,
                 form_name(form), misses, (unsigned long long)c.seed);
    case_free(&c);
}

static void check_broken(int n, int k, int form, int breakage, const char *what) {
    wg_case c;
    case_setup(&c, n, k, form);
    const long misses = run_case(&c, breakage);
    cr_assert(misses != 0, "N=%d K=%d %s: %s still matched the reference (seed %llu)", n, k, form_name(form),
              what, (unsigned long long)c.seed);
    case_free(&c);
}

/* ---- tests ------------------------------------------------------------------------------------ */

Test(layout_wgmma, descriptor_fields_follow_the_isa) {
    /* start 0x1230 -> 0x123, LBO 16 -> 1, SBO 1024 -> 64, 128B swizzle -> 1 in bits 62-63. */
    const uint64_t d = ts_cuda_wgmma_encode(0x1230u, 16u, 1024u, 1);
    cr_assert_eq(d, 0x123ull | (1ull << 16) | (64ull << 32) | (1ull << 62));
    cr_assert_eq(ts_cuda_wgmma_swizzle_mode(128), 1);
    cr_assert_eq(ts_cuda_wgmma_swizzle_mode(64), 2);
    cr_assert_eq(ts_cuda_wgmma_swizzle_mode(32), 3);
    const model_desc f = model_decode(d);
    cr_assert_eq(f.start, 0x1230u);
    cr_assert_eq(f.lbo, 16u);
    cr_assert_eq(f.sbo, 1024u);
    cr_assert_eq(f.base_offset, 0u);
    cr_assert_eq(f.mode, 1);
    /* Only bits 17..4 of an address are encoded. */
    cr_assert_eq(ts_cuda_wgmma_encode(0x40000u + 0x10u, 0, 0, 0) & 0x3FFFu, 1u);
}

Test(layout_wgmma, advanced_descriptor_equals_the_rebuilt_one_across_the_window) {
    /* Every tile shape and direction the kernels use, at 1024-byte aligned starts over the whole
     * 228 KiB of a block, and with a cluster rank in the address bits above the field: step s from
     * step 0 must be the descriptor built for step s, bit for bit. */
    static const int shapes[][2] = {{64, 64}, {64, 128}, {64, 32}, {32, 64}, {128, 64}, {64, 256},
                                    {256, 64}, {32, 256}, {256, 32}, {128, 128}, {16, 64}, {64, 16}};
    long checked = 0;
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; ++i)
        for (int k_major = 0; k_major <= 1; ++k_major) {
            const int rows = shapes[i][0], cols = shapes[i][1];
            const int k = k_major ? cols : rows;
            const uint32_t bytes = (uint32_t)(rows * cols * 2);
            for (uint32_t rank = 0; rank < 4; ++rank)
                for (uint32_t start = 0; start + bytes <= 228u * 1024u; start += 1024u) {
                    const uint32_t addr = (rank << 24) | start;
                    const uint64_t d0 = ts_cuda_wgmma_desc(addr, rows, cols, 2, k_major, 0);
                    for (int s = 0; s < k / 16; ++s) {
                        const uint64_t want = ts_cuda_wgmma_desc(addr, rows, cols, 2, k_major, s);
                        const uint64_t got = ts_cuda_wgmma_desc_step(d0, rows, cols, 2, k_major, s);
                        if (got != want)
                            cr_assert_fail("%dx%d %s-major at 0x%x step %d: %#llx, rebuilt %#llx", rows, cols,
                                     k_major ? "K" : "MN", addr, s, (unsigned long long)got,
                                     (unsigned long long)want);
                        ++checked;
                    }
                }
        }
    cr_assert_gt(checked, 10000);
}

Test(layout_wgmma, project_swizzle_is_the_address_swizzle_of_the_isa) {
    /* Every swizzled tile shape the operands use: ts_cuda_st_offset of a 1024-aligned tile equals
     * Swizzle<B,4,3> applied to the plain chunked address. */
    const int shapes[][2] = {{64, 16}, {64, 32}, {64, 48}, {64, 64}, {64, 128}, {16, 256}, {128, 80}, {32, 192}};
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; ++s) {
        const int rows = shapes[s][0], cols = shapes[s][1];
        const int sw = ts_cuda_st_swizzle_bytes(cols * 2);
        const int mode = ts_cuda_wgmma_swizzle_mode(sw);
        for (int r = 0; r < rows; ++r)
            for (int c = 0; c < cols; ++c) {
                const uint32_t plain = (uint32_t)((c * 2 / sw) * rows * sw + r * sw + (c * 2) % sw);
                cr_assert_eq((uint32_t)ts_cuda_st_offset(rows, cols, 2, r, c) * 2u, model_swizzle(plain, mode),
                             "%dx%d (%d, %d)", rows, cols, r, c);
            }
    }
}

/* The shapes the brief names: K = 64 (four k steps), N = 16, 64, 128, 256, every form. */
Test(layout_wgmma, model_product_matches_for_n16_64_128_256_k64) {
    const int ns[] = {16, 64, 128, 256};
    for (int f = FORM_AB; f <= FORM_ATBT; ++f)
        for (size_t i = 0; i < sizeof ns / sizeof ns[0]; ++i) check_exact(ns[i], 64, f);
}

/* Every swizzle width on both operands: K of 16 (32B), 32 (64B), 48 (three 32B chunks), 128 (two
 * 128B chunks); N of 48, 80, 96 and 144 (32B chunks of an MN-major B), 192 and 240. */
Test(layout_wgmma, model_product_matches_for_every_swizzle_width) {
    const int ks[] = {16, 32, 48, 128};
    const int ns[] = {16, 32, 48, 80, 96, 144, 192, 240};
    for (int f = FORM_AB; f <= FORM_ATBT; ++f) {
        for (size_t i = 0; i < sizeof ks / sizeof ks[0]; ++i) check_exact(64, ks[i], f);
        for (size_t i = 0; i < sizeof ns / sizeof ns[0]; ++i) check_exact(ns[i], 32, f);
    }
}

Test(layout_wgmma, wrong_descriptors_or_layout_do_not_match) {
    for (int f = FORM_AB; f <= FORM_ATBT; ++f) {
        check_broken(64, 64, f, BREAK_A_SWIZZLE, "a wrong swizzle mode of A");
        check_broken(64, 64, f, BREAK_B_SWIZZLE, "a wrong swizzle mode of B");
        check_broken(64, 64, f, BREAK_A_SBO, "a wrong stride byte offset of A");
        check_broken(128, 64, f, BREAK_TRANS_B, "a flipped transpose of B");
        check_broken(64, 64, f, BREAK_LAYOUT, "the col layout for the accumulator");
    }
    /* Several column chunks: K-major A of K = 128, MN-major B of N = 256 (two 128B chunks). */
    check_broken(64, 128, FORM_AB, BREAK_K_STEP, "a k step that ignores the column chunks");
    check_broken(64, 128, FORM_ABT, BREAK_K_STEP, "a k step that ignores the column chunks");
    check_broken(256, 64, FORM_AB, BREAK_B_LBO, "a wrong leading byte offset of an MN-major B");
    check_broken(48, 32, FORM_ATB, BREAK_B_LBO, "a wrong leading byte offset of an MN-major B");
}

/* ---- A from registers ------------------------------------------------------------------------ */

/* One wgmma.mma_async.m64nNk16.f32.bf16.bf16 d, {a0, a1, a2, a3}, desc_b, scale_d, 1, 1, trans_b:
 * a[4 * t + j] is A register j of thread t. The ISA gives a warpgroup's A fragment per warp:
 * warp w = t / 32 supplies rows 16w .. 16w+15, laid out as the A fragment of mma.m16n8k16 (the
 * figure of wgmma's A fragment is that of mma.m16n8k16 per warp). Register j holds elements
 * a_{2j} (low half) and a_{2j+1}; with groupID = lane >> 2 and threadID_in_group = lane % 4,
 * a_i sits at row groupID for i in {0, 1, 4, 5} and groupID + 8 otherwise, and at column
 * threadID_in_group * 2 + (i & 1), plus 8 for i >= 4. D as in model_wgmma. */
static int model_wgmma_rs(float *d, int n, const uint32_t *a, const uint8_t *smem, uint64_t desc_b, int scale_d,
                          int trans_b) {
    const model_desc fb = model_decode(desc_b);
    if (fb.base_offset != 0) return -1;
    float am[64][16];
    unsigned char have[64][16];
    memset(have, 0, sizeof have);
    for (int t = 0; t < THREADS; ++t) {
        const int w = t / 32, l = t % 32, group = l >> 2, tig = l % 4;
        for (int i = 0; i < 8; ++i) {
            const uint32_t reg = a[4 * t + i / 2];
            const uint16_t bits = (uint16_t)(i % 2 ? reg >> 16 : reg & 0xFFFFu);
            const int row = 16 * w + ((i < 2 || (i >= 4 && i < 6)) ? group : group + 8);
            const int col = tig * 2 + (i & 1) + (i >= 4 ? 8 : 0);
            am[row][col] = ts_f32_from_bf16_bits(bits);
            have[row][col]++;
        }
    }
    for (int r = 0; r < 64; ++r)
        for (int c = 0; c < 16; ++c)
            if (have[r][c] != 1) return -1; /* the fragment covers A exactly once */
    for (int t = 0; t < THREADS; ++t) {
        const int w = t / 32, l = t % 32;
        for (int i = 0; i < n / 2; ++i) {
            const int row = 16 * w + l / 4 + 8 * ((i / 2) % 2);
            const int col = 8 * (i / 4) + 2 * (l % 4) + i % 2;
            double sum = 0.0;
            for (int k = 0; k < 16; ++k) {
                const uint32_t pb = model_addr(fb, trans_b, col, k);
                if (pb + 2 > SMEM_BYTES) return -1;
                const unsigned short bb = (unsigned short)(smem[pb] | smem[pb + 1] << 8);
                sum += (double)am[row][k] * (double)ts_f32_from_bf16_bits(bb);
            }
            float *r = &d[t * (n / 2) + i];
            *r = (scale_d ? *r : 0.0f) + (float)sum;
        }
    }
    return 0;
}

/* What may be broken on purpose in the register-A case. */
enum {
    RS_BREAK_NONE,
    RS_BREAK_A_COL_LAYOUT, /* the A tile filled through the col layout */
    RS_BREAK_A_WORD_ORDER, /* registers 1 and 2 swapped: k 8..15 of row g before row g + 8 */
    RS_BREAK_A_STEP,       /* k step s fed from words 2s .. 2s+3, as if a subtile had 4 elements */
    RS_BREAK_TRANS_B       /* the transpose flag of B flipped */
};

/* A (64 x k) lives in the warps' register tiles, B (k x n, or n x k when b_kmajor) in shared
 * memory at a 1024-aligned base. Returns the elements of D that miss the reference (-1 when the
 * model refused the input). */
static long run_rs_case(int n, int k, int b_kmajor, int breakage, uint64_t *seed_out) {
    const uint64_t seed = ts_test_fresh_seed();
    uint64_t state = seed;
    *seed_out = seed;
    const int words = k / 4; /* per lane: (k / 16) subtiles x 8 elements / 2 */
    const int b_rows = b_kmajor ? n : k, b_cols = b_kmajor ? k : n;
    const uint32_t b_base = 3072;
    uint8_t *smem = calloc(SMEM_BYTES, 1);
    float *a = malloc(sizeof(float) * 64 * (size_t)k), *b = malloc(sizeof(float) * (size_t)k * (size_t)n);
    uint32_t *tile = calloc((size_t)THREADS * (size_t)words, sizeof(uint32_t));
    float *d = calloc((size_t)THREADS * (size_t)(n / 2), sizeof(float));
    cr_assert(smem && a && b && tile && d);
    for (int x = 0; x < 64 * k; ++x) a[x] = ts_f32_from_bf16_bits(to_bf16((float)ts_test_normal(&state)));
    for (int kk = 0; kk < k; ++kk)
        for (int j = 0; j < n; ++j) {
            const uint16_t bits = to_bf16((float)ts_test_normal(&state));
            b[kk * n + j] = ts_f32_from_bf16_bits(bits);
            const int r = b_kmajor ? j : kk, c = b_kmajor ? kk : j;
            put16(smem, b_base + 2u * (uint32_t)ts_cuda_st_offset(b_rows, b_cols, 2, r, c), bits);
        }
    /* Warp w's ts_rt_bf16_16xK tile, per lane: element e (subtile e / 8, slot e % 8) in the half
     * e % 2 of word e / 2, as tiles/register_tile.h stores 16-bit tiles. */
    const int layout = breakage == RS_BREAK_A_COL_LAYOUT ? TS_LAYOUT_COL : TS_LAYOUT_ROW;
    for (int t = 0; t < THREADS; ++t) {
        const int w = t / 32, lane = t % 32;
        for (int e = 0; e < 2 * words; ++e) {
            const int sub = e / TS_CUDA_RT_SUB_ELEMS, i = e % TS_CUDA_RT_SUB_ELEMS;
            const int r = 16 * w + ts_cuda_rt_row(layout, 2, lane, i);
            const int c = 16 * sub + ts_cuda_rt_col(layout, 2, lane, i);
            const uint32_t bits = to_bf16(a[r * k + c]);
            tile[t * words + e / 2] |= bits << (16 * (e % 2));
        }
    }
    long misses = 0;
    for (int s = 0; s < k / 16 && misses == 0; ++s) {
        uint32_t regs[THREADS * 4];
        for (int t = 0; t < THREADS; ++t)
            for (int j = 0; j < 4; ++j) {
                int word = ts_cuda_wgmma_a_word(s, j);
                if (breakage == RS_BREAK_A_WORD_ORDER) word = ts_cuda_wgmma_a_word(s, j == 1 ? 2 : j == 2 ? 1 : j);
                if (breakage == RS_BREAK_A_STEP) word = 2 * s + j;
                regs[4 * t + j] = tile[t * words + word];
            }
        const uint64_t db =
            ts_cuda_wgmma_desc_step(ts_cuda_wgmma_desc(b_base, b_rows, b_cols, 2, b_kmajor, 0), b_rows, b_cols, 2, b_kmajor, s);
        const int trans_b = breakage == RS_BREAK_TRANS_B ? b_kmajor : !b_kmajor;
        if (model_wgmma_rs(d, n, regs, smem, db, s > 0, trans_b) != 0) misses = -1;
    }
    if (misses == 0) {
        for (int t = 0; t < THREADS; ++t) {
            const int w = t / 32, lane = t % 32;
            for (int e = 0; e < n / 2; ++e) {
                const int sub = e / TS_CUDA_RT_SUB_ELEMS, i = e % TS_CUDA_RT_SUB_ELEMS;
                const int r = 16 * w + ts_cuda_rt_row(TS_LAYOUT_ROW, 4, lane, i);
                const int col = 16 * sub + ts_cuda_rt_col(TS_LAYOUT_ROW, 4, lane, i);
                double ref = 0.0, mag = 0.0;
                for (int kk = 0; kk < k; ++kk) {
                    const double p = (double)a[r * k + kk] * (double)b[kk * n + col];
                    ref += p;
                    mag += fabs(p);
                }
                if (!(fabs(d[t * (n / 2) + e] - ref) <= 1e-5 * mag + 1e-6)) ++misses;
            }
        }
    }
    free(smem);
    free(a);
    free(b);
    free(tile);
    free(d);
    return misses;
}

static void check_rs_exact(int n, int k, int b_kmajor) {
    uint64_t seed = 0;
    const long misses = run_rs_case(n, k, b_kmajor, RS_BREAK_NONE, &seed);
    cr_assert_eq(misses, 0, "A in registers, N=%d K=%d %s: %ld elements of D differ from the reference (seed %llu)",
                 n, k, b_kmajor ? "ABt" : "AB", misses, (unsigned long long)seed);
}

static void check_rs_broken(int n, int k, int b_kmajor, int breakage, const char *what) {
    uint64_t seed = 0;
    const long misses = run_rs_case(n, k, b_kmajor, breakage, &seed);
    cr_assert(misses != 0, "A in registers, N=%d K=%d %s: %s still matched the reference (seed %llu)", n, k,
              b_kmajor ? "ABt" : "AB", what, (unsigned long long)seed);
}

Test(layout_wgmma, register_a_words_are_the_row_layout_fragment) {
    /* Register j of every lane holds, per the ISA, the pair at row l/4 + 8 (j % 2), columns
     * 2 (l % 4) + 8 (j / 2) + {0, 1} of its k step; the project's word 4s + j holds elements
     * 2j, 2j+1 of subtile s, which its row layout puts exactly there. */
    for (int lane = 0; lane < 32; ++lane)
        for (int j = 0; j < 4; ++j) {
            cr_assert_eq(ts_cuda_wgmma_a_word(3, j), 12 + j);
            for (int h = 0; h < 2; ++h) {
                const int i = 2 * j + h;
                cr_assert_eq(ts_cuda_rt_row(TS_LAYOUT_ROW, 2, lane, i), lane / 4 + 8 * (j % 2), "lane %d i %d", lane, i);
                cr_assert_eq(ts_cuda_rt_col(TS_LAYOUT_ROW, 2, lane, i), 2 * (lane % 4) + h + 8 * (j / 2), "lane %d i %d",
                             lane, i);
            }
        }
}

/* The attention shapes (N = D of 64 and 128 with K = BN of 64 and 128), the widest N, and B in
 * both storage orders at every swizzle width: K of 16 (32B for an N x K B), 32 (64B), 48 (three
 * 32B chunks); N of 48 (three 32B chunks of a K x N B), 80, 144, 256. */
Test(layout_wgmma, register_a_model_product_matches) {
    const int shapes[][2] = {{64, 64}, {128, 64}, {64, 128}, {128, 128}, {256, 64}, {16, 16},
                             {64, 16}, {64, 32},  {64, 48},  {48, 32},   {80, 32},  {144, 32}};
    for (int bk = 0; bk < 2; ++bk)
        for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; ++i) check_rs_exact(shapes[i][0], shapes[i][1], bk);
}

Test(layout_wgmma, register_a_wrong_layouts_do_not_match) {
    for (int bk = 0; bk < 2; ++bk) {
        check_rs_broken(64, 64, bk, RS_BREAK_A_COL_LAYOUT, "A filled through the col layout");
        check_rs_broken(64, 64, bk, RS_BREAK_A_WORD_ORDER, "A registers 1 and 2 swapped");
        check_rs_broken(64, 64, bk, RS_BREAK_A_STEP, "a k step of the wrong words");
        check_rs_broken(128, 64, bk, RS_BREAK_TRANS_B, "a flipped transpose of B");
    }
}
