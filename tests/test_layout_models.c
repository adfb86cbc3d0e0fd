/* Layout models: the register-tile fragment layouts of every backend, proven on the CPU against
 * C models of the matrix instructions written from the vendors' documentation.
 *
 * Each model takes per-lane registers as the hardware holds them and computes D = A * B + C with
 * exactly the documented assignment of matrix elements to lanes and registers. The tests scatter
 * random matrices into register tiles through the project's layout functions
 * (backends/<name>/fragment_layout.h), pick the instruction's registers out of the tiles with the
 * permutations the backends use (backends/cuda/mma_layout.h, backends/hip/mma_layout.h), run the
 * model subtile by subtile as ops/mma.h does, gather the result through the layout functions and
 * compare with a product in double precision. Products of 16-bit values are exact, so the only
 * error is fp32 rounding: the tolerance is 1e-5 of sum |a||b| + |c| per element. Tests with a
 * deliberately wrong layout assert that the same check fails, so the check has teeth.
 *
 * Sources of the models:
 *  - NVIDIA PTX ISA, section "Matrix Fragments for mma.m16n8k16 with floating point type"
 *    (.f16 / .bf16 multiplicands, .f32 accumulators), for mma.sync.aligned.m16n8k16.
 *  - AMD Matrix Instruction Calculator (github.com/ROCm/amd_matrix_instruction_calculator), the
 *    register layouts it computes for the CDNA (gfx9 family) MFMA instructions, whose encodings
 *    and operands the AMD Instinct MI300 (CDNA3) ISA reference guide's matrix arithmetic chapter
 *    defines. As the calculator states them, for a single-block M x N x K instruction with
 *    16-bit inputs, A[i][k] is in lane M * floor(k / 4) + i, item k % 4 of the lane's four
 *    16-bit values (register (k % 4) / 2, low half for even k), B[k][j] likewise with j for i;
 *    an fp32 C/D[i][j] fills 4-row groups N lanes wide: with G = 64 / N groups per
 *    register, lane N * (floor(i / 4) % G) + j, register 4 * floor(i / (4G)) + (i % 4), that is
 *    lane 16 * floor(i / 4) + j, register i % 4 for 16x16 and lane 32 * (floor(i / 4) % 2) + j,
 *    register 4 * floor(i / 8) + (i % 4) for 32x32. This covers v_mfma_f32_16x16x16_bf16
 *    (gfx90a: ..._16x16x16bf16_1k), v_mfma_f32_16x16x16_f16 and v_mfma_f32_32x32x8_bf16.
 *  - docs/design.md for the host backend: one lane holds a whole subtile.
 *
 * Plain C: only the layout headers, never backends/backend.h, so this runs in every backend's
 * build. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "backends/cuda/fragment_layout.h"
#include "backends/cuda/mma_layout.h"
#include "backends/hip/fragment_layout.h"
#include "backends/hip/mma_layout.h"
#include "backends/host/fragment_layout.h"
#include "support/test_support.h"

enum { DT_BF16, DT_FP16 };
enum { FORM_AB, FORM_ABT, FORM_ATB, FORM_ATBT };
static const char *const form_names[] = {"AB", "ABt", "AtB", "AtBt"};
static const char *const dt_names[] = {"bf16", "fp16"};

/* ---- 16-bit values ------------------------------------------------------------------------- */

static uint16_t to16(float x, int dt) {
    if (dt == DT_FP16) {
        _Float16 h = (_Float16)x;
        uint16_t b;
        memcpy(&b, &h, sizeof b);
        return b;
    }
    uint32_t u;
    memcpy(&u, &x, sizeof u);
    u += 0x7fffu + ((u >> 16) & 1u); /* round to nearest even; inputs are finite */
    return (uint16_t)(u >> 16);
}

static double from16(uint16_t b, int dt) {
    if (dt == DT_FP16) {
        _Float16 h;
        memcpy(&h, &b, sizeof h);
        return (double)h;
    }
    uint32_t u = (uint32_t)b << 16;
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

/* Item `item` of the 16-bit values held in consecutive 32-bit registers (low half first). */
static uint16_t item16(const uint32_t *regs, int item) {
    return (uint16_t)(regs[item >> 1] >> (16 * (item & 1)));
}

/* ---- mma.sync.aligned.m16n8k16 (PTX ISA) --------------------------------------------------- */

/* "Matrix Fragments for mma.m16n8k16 with floating point type", with
 * groupID = %laneid >> 2 and threadID_in_group = %laneid % 4:
 *  A (.f16/.bf16, a0..a7 in four .f16x2 registers):
 *    row = groupID for a_i where 0 <= i < 2 || 4 <= i < 6, groupID + 8 otherwise
 *    col = threadID_in_group * 2 + (i & 0x1) for i < 4, the same + 8 for i >= 4
 *  B (.f16/.bf16, b0..b3 in two .f16x2 registers):
 *    row = threadID_in_group * 2 + (i & 0x1) for i < 2, the same + 8 for i >= 2
 *    col = groupID
 *  C, D (.f32, c0..c3):
 *    row = groupID for c0 and c1, groupID + 8 for c2 and c3
 *    col = threadID_in_group * 2 + (i & 0x1) */
static void ptx_a_coord(int lane, int i, int *row, int *col) {
    const int group = lane >> 2, tig = lane % 4;
    *row = ((i >= 0 && i < 2) || (i >= 4 && i < 6)) ? group : group + 8;
    *col = tig * 2 + (i & 1) + (i >= 4 ? 8 : 0);
}
static void ptx_b_coord(int lane, int i, int *row, int *col) {
    const int group = lane >> 2, tig = lane % 4;
    *row = tig * 2 + (i & 1) + (i >= 2 ? 8 : 0);
    *col = group;
}
static void ptx_c_coord(int lane, int i, int *row, int *col) {
    const int group = lane >> 2, tig = lane % 4;
    *row = i < 2 ? group : group + 8;
    *col = tig * 2 + (i & 1);
}

/* D (16 x 8) = A (16 x 16) * B (16 x 8) + C, registers per lane as the PTX ISA assigns them. */
static void model_mma_m16n8k16(int dt, const uint32_t a[32][4], const uint32_t b[32][2],
                               const float c[32][4], float d[32][4]) {
    double am[16][16], bm[16][8], cm[16][8];
    int row, col;
    for (int lane = 0; lane < 32; ++lane) {
        for (int i = 0; i < 8; ++i) {
            ptx_a_coord(lane, i, &row, &col);
            am[row][col] = from16(item16(a[lane], i), dt);
        }
        for (int i = 0; i < 4; ++i) {
            ptx_b_coord(lane, i, &row, &col);
            bm[row][col] = from16(item16(b[lane], i), dt);
            ptx_c_coord(lane, i, &row, &col);
            cm[row][col] = c[lane][i];
        }
    }
    for (int lane = 0; lane < 32; ++lane)
        for (int i = 0; i < 4; ++i) {
            ptx_c_coord(lane, i, &row, &col);
            double s = cm[row][col];
            for (int k = 0; k < 16; ++k) s += am[row][k] * bm[k][col];
            d[lane][i] = (float)s;
        }
}

/* ---- MFMA (AMD Matrix Instruction Calculator, CDNA) ---------------------------------------- */

/* Lane and item of an input element of a single-block MFMA with 16-bit inputs and K = 4 per lane:
 * A[i][k] (outer = i) and B[k][j] (outer = j) alike: lane = M * floor(k / 4) + outer,
 * item k % 4. */
static void mfma_in_loc(int m, int outer, int k, int *lane, int *item) {
    *lane = m * (k / 4) + outer;
    *item = k % 4;
}
/* Lane and register of C/D[i][j] (fp32) of a single-block M x N MFMA: rows go in groups of 4,
 * one register per row of a group, N lanes per column group, 64 / N groups side by side. */
static void mfma_out_loc(int n, int i, int j, int *lane, int *reg) {
    const int groups = 64 / n;
    *lane = n * ((i / 4) % groups) + j;
    *reg = 4 * (i / (4 * groups)) + (i % 4);
}

/* v_mfma_f32_16x16x16_bf16 / _f16: D (16 x 16) = A (16 x 16) * B (16 x 16) + C; two 32-bit
 * registers per lane for A and B (four 16-bit values), four for C and D. */
static void model_mfma_16x16x16(int dt, const uint32_t a[64][2], const uint32_t b[64][2],
                                const float c[64][4], float d[64][4]) {
    double am[16][16], bm[16][16];
    int lane, item;
    for (int i = 0; i < 16; ++i)
        for (int k = 0; k < 16; ++k) {
            mfma_in_loc(16, i, k, &lane, &item); /* A[i][k], and B[k][j] for j = i */
            am[i][k] = from16(item16(a[lane], item), dt);
            bm[k][i] = from16(item16(b[lane], item), dt);
        }
    for (int i = 0; i < 16; ++i)
        for (int j = 0; j < 16; ++j) {
            int reg;
            mfma_out_loc(16, i, j, &lane, &reg);
            double s = c[lane][reg];
            for (int k = 0; k < 16; ++k) s += am[i][k] * bm[k][j];
            d[lane][reg] = (float)s;
        }
}

/* v_mfma_f32_32x32x8_bf16: D (32 x 32) = A (32 x 8) * B (8 x 32) + C; two registers per lane for
 * A and B, sixteen for C and D. */
static void model_mfma_32x32x8(int dt, const uint32_t a[64][2], const uint32_t b[64][2],
                               const float c[64][16], float d[64][16]) {
    double am[32][8], bm[8][32];
    int lane, item;
    for (int i = 0; i < 32; ++i)
        for (int k = 0; k < 8; ++k) {
            mfma_in_loc(32, i, k, &lane, &item); /* A[i][k], and B[k][j] for j = i */
            am[i][k] = from16(item16(a[lane], item), dt);
            bm[k][i] = from16(item16(b[lane], item), dt);
        }
    for (int i = 0; i < 32; ++i)
        for (int j = 0; j < 32; ++j) {
            int reg;
            mfma_out_loc(32, i, j, &lane, &reg);
            double s = c[lane][reg];
            for (int k = 0; k < 8; ++k) s += am[i][k] * bm[k][j];
            d[lane][reg] = (float)s;
        }
}

/* ---- host ---------------------------------------------------------------------------------- */

/* The host backend's subtile product as docs/design.md defines its layout: one lane holds the whole
 * 16x16 subtile, A and C/D row-major (element i at row i / 16, column i % 16) and B column-major
 * (element i at row i % 16, column i / 16), as its row and col layouts. */
static void model_host_16x16x16(int dt, const uint32_t a[128], const uint32_t b[128],
                                const float c[256], float d[256]) {
    for (int i = 0; i < 256; ++i) {
        const int row = i / 16, col = i % 16;
        double s = c[i];
        for (int k = 0; k < 16; ++k)
            s += from16(item16(a, row * 16 + k), dt) * from16(item16(b, col * 16 + k), dt);
        d[i] = (float)s;
    }
}

/* ---- one backend's layout, instruction and permutations ------------------------------------ */

typedef struct arch arch;
struct arch {
    const char *name;
    int lanes, sub_elems;
    int (*row)(int layout, int bytes, int lane, int i);
    int (*col)(int layout, int bytes, int lane, int i);
    /* Word of a 16-bit subtile that is A register r / B register r of n-part `half`, element of
     * an fp32 subtile that is C/D register r of `half`. */
    int (*a_word)(int layout, int r);
    int (*b_word)(int layout, int half, int r);
    int (*c_elem)(int half, int r);
    /* d = a * b (+ c) on one subtile through the instruction's model; d may be c. Each operand
     * points at the subtile's registers, lane after lane. */
    void (*sub)(const arch *ar, int dt, float *d, const float *c, int accumulate, const uint32_t *a,
                int a_layout, const uint32_t *b, int b_layout);
};

static void cuda_sub(const arch *ar, int dt, float *d, const float *c, int accumulate,
                     const uint32_t *a, int a_layout, const uint32_t *b, int b_layout) {
    for (int half = 0; half < 2; ++half) {
        uint32_t ra[32][4], rb[32][2];
        float rc[32][4], rd[32][4];
        for (int lane = 0; lane < 32; ++lane) {
            for (int r = 0; r < 4; ++r) {
                ra[lane][r] = a[lane * 4 + ar->a_word(a_layout, r)];
                rc[lane][r] = accumulate ? c[lane * 8 + ar->c_elem(half, r)] : 0.0f;
            }
            for (int r = 0; r < 2; ++r) rb[lane][r] = b[lane * 4 + ar->b_word(b_layout, half, r)];
        }
        model_mma_m16n8k16(dt, ra, rb, rc, rd);
        for (int lane = 0; lane < 32; ++lane)
            for (int r = 0; r < 4; ++r) d[lane * 8 + ar->c_elem(half, r)] = rd[lane][r];
    }
}

static void hip_sub(const arch *ar, int dt, float *d, const float *c, int accumulate,
                    const uint32_t *a, int a_layout, const uint32_t *b, int b_layout) {
    uint32_t ra[64][2], rb[64][2];
    float rc[64][4], rd[64][4];
    for (int lane = 0; lane < 64; ++lane) {
        for (int r = 0; r < 2; ++r) {
            ra[lane][r] = a[lane * 2 + ar->a_word(a_layout, r)];
            rb[lane][r] = b[lane * 2 + ar->b_word(b_layout, 0, r)];
        }
        for (int r = 0; r < 4; ++r)
            rc[lane][r] = accumulate ? c[lane * 4 + ar->c_elem(0, r)] : 0.0f;
    }
    model_mfma_16x16x16(dt, ra, rb, rc, rd);
    for (int lane = 0; lane < 64; ++lane)
        for (int r = 0; r < 4; ++r) d[lane * 4 + ar->c_elem(0, r)] = rd[lane][r];
}

static void host_sub(const arch *ar, int dt, float *d, const float *c, int accumulate,
                     const uint32_t *a, int a_layout, const uint32_t *b, int b_layout) {
    uint32_t ra[128], rb[128];
    float rc[256], rd[256];
    for (int r = 0; r < 128; ++r) {
        ra[r] = a[ar->a_word(a_layout, r)];
        rb[r] = b[ar->b_word(b_layout, 0, r)];
    }
    for (int r = 0; r < 256; ++r) rc[r] = accumulate ? c[ar->c_elem(0, r)] : 0.0f;
    model_host_16x16x16(dt, ra, rb, rc, rd);
    for (int r = 0; r < 256; ++r) d[ar->c_elem(0, r)] = rd[r];
}

static int hip_a_word(int layout, int r) { return ts_hip_mma_a_word(layout, r); }
static int hip_b_word(int layout, int half, int r) {
    return (void)half, ts_hip_mma_b_word(layout, r);
}
static int hip_c_elem(int half, int r) { return (void)half, ts_hip_mma_c_elem(r); }
static int same_word(int layout, int r) { return (void)layout, r; }
static int same_b_word(int layout, int half, int r) { return (void)layout, (void)half, r; }
static int same_elem(int half, int r) { return (void)half, r; }

static const arch cuda_arch = {.name = "cuda",
                               .lanes = 32,
                               .sub_elems = TS_CUDA_RT_SUB_ELEMS,
                               .row = ts_cuda_rt_row,
                               .col = ts_cuda_rt_col,
                               .a_word = ts_cuda_mma_a_word,
                               .b_word = ts_cuda_mma_b_word,
                               .c_elem = ts_cuda_mma_c_elem,
                               .sub = cuda_sub};
static const arch hip_arch = {.name = "hip",
                              .lanes = 64,
                              .sub_elems = TS_HIP_RT_SUB_ELEMS,
                              .row = ts_hip_rt_row,
                              .col = ts_hip_rt_col,
                              .a_word = hip_a_word,
                              .b_word = hip_b_word,
                              .c_elem = hip_c_elem,
                              .sub = hip_sub};
static const arch host_arch = {.name = "host",
                               .lanes = 1,
                               .sub_elems = TS_HOST_RT_SUB_ELEMS,
                               .row = ts_host_rt_row,
                               .col = ts_host_rt_col,
                               .a_word = same_word,
                               .b_word = same_b_word,
                               .c_elem = same_elem,
                               .sub = host_sub};

/* ---- tiles through the project's layout functions ------------------------------------------ */

/* A register tile of R x C is (R/16) * (C/16) subtiles, subtile s = sr * (C/16) + sc, each held
 * lane after lane: 16-bit tiles as words (sub_elems/2 per lane), fp32 tiles as floats. */
static void tile_pos(const arch *ar, int layout, int bytes, int cols, int s, int lane, int i,
                     int *r, int *c) {
    *r = (s / (cols / 16)) * 16 + ar->row(layout, bytes, lane, i);
    *c = (s % (cols / 16)) * 16 + ar->col(layout, bytes, lane, i);
}

/* Scatters an R x C matrix of 16-bit values into a tile. With trans, the tile holds the transpose
 * of src, which is C x R. */
static uint32_t *scatter16(const arch *ar, int layout, int rows, int cols, const uint16_t *src,
                           int trans) {
    const int words = ar->sub_elems / 2, subs = (rows / 16) * (cols / 16);
    uint32_t *t = calloc((size_t)subs * ar->lanes * words, sizeof *t);
    for (int s = 0; s < subs; ++s)
        for (int lane = 0; lane < ar->lanes; ++lane)
            for (int i = 0; i < ar->sub_elems; ++i) {
                int r, c;
                tile_pos(ar, layout, 2, cols, s, lane, i, &r, &c);
                const uint16_t v = trans ? src[(size_t)c * rows + r] : src[(size_t)r * cols + c];
                t[((size_t)s * ar->lanes + lane) * words + i / 2] |= (uint32_t)v << (16 * (i & 1));
            }
    return t;
}

static float *scatter32(const arch *ar, int rows, int cols, const float *src) {
    const int subs = (rows / 16) * (cols / 16);
    float *t = calloc((size_t)subs * ar->lanes * ar->sub_elems, sizeof *t);
    for (int s = 0; s < subs; ++s)
        for (int lane = 0; lane < ar->lanes; ++lane)
            for (int i = 0; i < ar->sub_elems; ++i) {
                int r, c;
                tile_pos(ar, TS_LAYOUT_ROW, 4, cols, s, lane, i, &r, &c);
                t[((size_t)s * ar->lanes + lane) * ar->sub_elems + i] = src[(size_t)r * cols + c];
            }
    return t;
}

static void gather32(const arch *ar, int rows, int cols, const float *t, float *dst) {
    const int subs = (rows / 16) * (cols / 16);
    for (int s = 0; s < subs; ++s)
        for (int lane = 0; lane < ar->lanes; ++lane)
            for (int i = 0; i < ar->sub_elems; ++i) {
                int r, c;
                tile_pos(ar, TS_LAYOUT_ROW, 4, cols, s, lane, i, &r, &c);
                dst[(size_t)r * cols + c] = t[((size_t)s * ar->lanes + lane) * ar->sub_elems + i];
            }
}

/* Random inputs: A (m x k) and B (k x n) in 16-bit, C (m x n) in fp32. */
typedef struct problem {
    int m, n, k, dt;
    uint16_t *a, *b;
    float *c;
    uint64_t seed;
} problem;

static problem make_problem(int m, int n, int k, int dt) {
    problem p;
    p.m = m, p.n = n, p.k = k, p.dt = dt;
    p.seed = ts_test_fresh_seed();
    uint64_t st = p.seed;
    p.a = malloc((size_t)m * k * sizeof *p.a);
    p.b = malloc((size_t)k * n * sizeof *p.b);
    p.c = malloc((size_t)m * n * sizeof *p.c);
    for (int i = 0; i < m; ++i)
        for (int j = 0; j < k; ++j) p.a[i * k + j] = to16((float)ts_test_normal(&st), dt);
    for (int i = 0; i < k; ++i)
        for (int j = 0; j < n; ++j) p.b[i * n + j] = to16((float)ts_test_normal(&st), dt);
    for (int i = 0; i < m * n; ++i) p.c[i] = (float)ts_test_normal(&st);
    return p;
}

static void free_problem(problem *p) { free(p->a), free(p->b), free(p->c); }

/* Largest error of d against A * B (+ C) in double, in units of sum |a||b| + |c|. NaN counts as
 * an infinite error. */
static double scaled_error(const problem *p, const float *d, int accumulate) {
    double worst = 0.0;
    for (int i = 0; i < p->m; ++i)
        for (int j = 0; j < p->n; ++j) {
            double s = accumulate ? p->c[i * p->n + j] : 0.0;
            double scale = accumulate ? fabs(p->c[i * p->n + j]) : 0.0;
            for (int k = 0; k < p->k; ++k) {
                const double x =
                    from16(p->a[i * p->k + k], p->dt) * from16(p->b[k * p->n + j], p->dt);
                s += x;
                scale += fabs(x);
            }
            const double e = fabs(d[i * p->n + j] - s) / (scale > 0.0 ? scale : 1.0);
            if (!(e <= worst)) worst = isnan(e) ? INFINITY : e;
        }
    return worst;
}

/* Runs one form through the tiles and the instruction's model, the way ops/mma.h walks the
 * subtiles: for each output subtile, the k subtiles in order, the first one reading c. Returns
 * the scaled error. */
static double run_form(const arch *ar, const problem *p, int form, int accumulate) {
    const int at = form == FORM_ATB || form == FORM_ATBT,
              bt = form == FORM_ABT || form == FORM_ATBT;
    const int m = p->m, n = p->n, k = p->k;
    const int al = at ? TS_LAYOUT_COL : TS_LAYOUT_ROW, bl = bt ? TS_LAYOUT_ROW : TS_LAYOUT_COL;
    /* a: M x K row tile of A, or K x M col tile of A^T; b: K x N col tile of B, or N x K row
     * tile of B^T. scatter16's trans reads the transposed tile straight from A or B. */
    uint32_t *ta = at ? scatter16(ar, al, k, m, p->a, 1) : scatter16(ar, al, m, k, p->a, 0);
    uint32_t *tb = bt ? scatter16(ar, bl, n, k, p->b, 1) : scatter16(ar, bl, k, n, p->b, 0);
    float *tc = scatter32(ar, m, n, p->c);
    const int msub = m / 16, nsub = n / 16, ksub = k / 16;
    const size_t w16 = (size_t)ar->lanes * (ar->sub_elems / 2),
                 w32 = (size_t)ar->lanes * ar->sub_elems;
    float *td = malloc((size_t)msub * nsub * w32 * sizeof *td);
    for (int mi = 0; mi < msub; ++mi)
        for (int ni = 0; ni < nsub; ++ni) {
            float *dsub = td + (size_t)(mi * nsub + ni) * w32;
            const float *csub = tc + (size_t)(mi * nsub + ni) * w32;
            for (int ki = 0; ki < ksub; ++ki) {
                const uint32_t *asub = ta + (size_t)(at ? ki * msub + mi : mi * ksub + ki) * w16;
                const uint32_t *bsub = tb + (size_t)(bt ? ni * ksub + ki : ki * nsub + ni) * w16;
                ar->sub(ar, p->dt, dsub, ki == 0 ? csub : dsub, ki == 0 ? accumulate : 1, asub, al,
                        bsub, bl);
            }
        }
    float *d = malloc((size_t)m * n * sizeof *d);
    for (int i = 0; i < m * n; ++i) d[i] = NAN;
    gather32(ar, m, n, td, d);
    const double err = scaled_error(p, d, accumulate);
    free(ta), free(tb), free(tc), free(td), free(d);
    return err;
}

#define TOLERANCE 1e-5
/* A wrong layout scrambles the product: its error is of the order of the values themselves. */
#define WRONG_AT_LEAST 0.05

static void check_all_forms(const arch *ar, int m, int n, int k) {
    for (int dt = DT_BF16; dt <= DT_FP16; ++dt)
        for (int form = FORM_AB; form <= FORM_ATBT; ++form)
            for (int accumulate = 0; accumulate <= 1; ++accumulate) {
                problem p = make_problem(m, n, k, dt);
                const double err = run_form(ar, &p, form, accumulate);
                cr_expect(err <= TOLERANCE,
                          "%s %s %s %dx%dx%d accumulate %d: scaled error %g (seed %llu)", ar->name,
                          form_names[form], dt_names[dt], m, n, k, accumulate, err,
                          (unsigned long long)p.seed);
                free_problem(&p);
            }
}

/* ---- the models themselves ----------------------------------------------------------------- */

/* Every element of each documented operand is in exactly one lane and register, and the models
 * compute a product: a transcription error in a model would show here before it could excuse a
 * wrong layout. */
Test(models, documented_fragments_cover_each_element_once) {
    int seen_a[16][16] = {{0}}, seen_b[16][8] = {{0}}, seen_c[16][8] = {{0}};
    for (int lane = 0; lane < 32; ++lane) {
        int r, c;
        for (int i = 0; i < 8; ++i) ptx_a_coord(lane, i, &r, &c), seen_a[r][c]++;
        for (int i = 0; i < 4; ++i) {
            ptx_b_coord(lane, i, &r, &c), seen_b[r][c]++;
            ptx_c_coord(lane, i, &r, &c), seen_c[r][c]++;
        }
    }
    for (int r = 0; r < 16; ++r)
        for (int c = 0; c < 16; ++c) {
            cr_assert_eq(seen_a[r][c], 1, "PTX A (%d,%d)", r, c);
            if (c < 8) {
                cr_assert_eq(seen_b[r][c], 1, "PTX B (%d,%d)", r, c);
                cr_assert_eq(seen_c[r][c], 1, "PTX C (%d,%d)", r, c);
            }
        }
    for (int m = 16; m <= 32; m += 16) {
        const int kk = m == 16 ? 16 : 8, regs = m == 16 ? 4 : 16;
        int in_seen[64][4] = {{0}}, out_seen[64][16] = {{0}};
        for (int i = 0; i < m; ++i)
            for (int k = 0; k < kk; ++k) {
                int lane, item;
                mfma_in_loc(m, i, k, &lane, &item);
                cr_assert(lane >= 0 && lane < 64 && item < 4);
                in_seen[lane][item]++;
            }
        for (int i = 0; i < m; ++i)
            for (int j = 0; j < m; ++j) {
                int lane, reg;
                mfma_out_loc(m, i, j, &lane, &reg);
                cr_assert(lane >= 0 && lane < 64 && reg < regs);
                out_seen[lane][reg]++;
            }
        for (int lane = 0; lane < 64; ++lane) {
            for (int item = 0; item < 4; ++item)
                cr_assert_eq(in_seen[lane][item], 1, "MFMA %d input lane %d item %d", m, lane,
                             item);
            for (int reg = 0; reg < regs; ++reg)
                cr_assert_eq(out_seen[lane][reg], 1, "MFMA %d output lane %d reg %d", m, lane, reg);
        }
    }
}

/* The layout functions of every backend place each lane's elements on distinct positions that
 * fill the 16x16 subtile, in both layouts and both element sizes. */
Test(layouts, every_backend_layout_is_a_bijection) {
    const arch *arches[] = {&cuda_arch, &hip_arch, &host_arch};
    for (int a = 0; a < 3; ++a)
        for (int layout = TS_LAYOUT_ROW; layout <= TS_LAYOUT_COL; ++layout)
            for (int bytes = 2; bytes <= 4; bytes += 2) {
                int seen[16][16] = {{0}};
                const arch *ar = arches[a];
                cr_assert_eq(ar->lanes * ar->sub_elems, 256);
                for (int lane = 0; lane < ar->lanes; ++lane)
                    for (int i = 0; i < ar->sub_elems; ++i) {
                        const int r = ar->row(layout, bytes, lane, i),
                                  c = ar->col(layout, bytes, lane, i);
                        cr_assert(r >= 0 && r < 16 && c >= 0 && c < 16);
                        seen[r][c]++;
                    }
                for (int r = 0; r < 16; ++r)
                    for (int c = 0; c < 16; ++c)
                        cr_assert_eq(seen[r][c], 1, "%s layout %d bytes %d (%d,%d)", ar->name,
                                     layout, bytes, r, c);
            }
}

/* ---- CUDA: mma.sync m16n8k16 --------------------------------------------------------------- */

Test(cuda_mma_sync, all_forms_one_subtile) { check_all_forms(&cuda_arch, 16, 16, 16); }
Test(cuda_mma_sync, all_forms_32x64_k32) { check_all_forms(&cuda_arch, 32, 64, 32); }
Test(cuda_mma_sync, all_forms_64x32_k48) { check_all_forms(&cuda_arch, 64, 32, 48); }

/* ---- HIP: v_mfma_f32_16x16x16 -------------------------------------------------------------- */

Test(hip_mfma_16x16x16, all_forms_one_subtile) { check_all_forms(&hip_arch, 16, 16, 16); }
Test(hip_mfma_16x16x16, all_forms_32x64_k32) { check_all_forms(&hip_arch, 32, 64, 32); }
Test(hip_mfma_16x16x16, all_forms_64x32_k48) { check_all_forms(&hip_arch, 64, 32, 48); }

/* ---- HIP: v_mfma_f32_32x32x8, through a 32x32 layout of its own ---------------------------- */

/* Register tiles are built on 16x16 subtiles, so the 32x32x8 instruction has no tile layout in
 * the project yet. These are the 32x32 layouts it implies, for a 32 x 32 x 32 product in four
 * k steps of 8: a lane of the A tile holds row lane % 32 and, for step s, columns
 * 8s + 4 * (lane / 32) + 0..3 (element 4s + item); the B tile the transpose; the accumulator
 * holds column lane % 32 and rows 8 * (reg / 4) + 4 * (lane / 32) + reg % 4. */
static void l32_in(int lane, int e, int *outer, int *k) {
    *outer = lane % 32;
    *k = 8 * (e / 4) + 4 * (lane / 32) + e % 4;
}
static void l32_acc(int lane, int reg, int *row, int *col) {
    *row = 8 * (reg / 4) + 4 * (lane / 32) + reg % 4;
    *col = lane % 32;
}

static double run_32x32(int dt, int rotate_acc) {
    problem p = make_problem(32, 32, 32, dt);
    uint32_t ta[64][8] = {{0}}, tb[64][8] = {{0}};
    float acc[64][16];
    for (int lane = 0; lane < 64; ++lane) {
        for (int e = 0; e < 16; ++e) {
            int outer, k;
            l32_in(lane, e, &outer, &k);
            ta[lane][e / 2] |= (uint32_t)p.a[outer * 32 + k] << (16 * (e & 1));
            tb[lane][e / 2] |= (uint32_t)p.b[k * 32 + outer] << (16 * (e & 1));
        }
        for (int reg = 0; reg < 16; ++reg) {
            int r, c;
            l32_acc(rotate_acc ? (lane + 32) % 64 : lane, reg, &r, &c);
            acc[lane][reg] = p.c[r * 32 + c];
        }
    }
    for (int s = 0; s < 4; ++s) {
        uint32_t ra[64][2], rb[64][2];
        for (int lane = 0; lane < 64; ++lane)
            for (int w = 0; w < 2; ++w) {
                ra[lane][w] = ta[lane][2 * s + w];
                rb[lane][w] = tb[lane][2 * s + w];
            }
        float next[64][16];
        model_mfma_32x32x8(dt, ra, rb, (const float(*)[16])acc, next);
        memcpy(acc, next, sizeof acc);
    }
    float d[32 * 32];
    for (int i = 0; i < 32 * 32; ++i) d[i] = NAN;
    for (int lane = 0; lane < 64; ++lane)
        for (int reg = 0; reg < 16; ++reg) {
            int r, c;
            l32_acc(rotate_acc ? (lane + 32) % 64 : lane, reg, &r, &c);
            d[r * 32 + c] = acc[lane][reg];
        }
    const double err = scaled_error(&p, d, 1);
    free_problem(&p);
    return err;
}

Test(hip_mfma_32x32x8, product_32x32x32_through_its_32x32_layout) {
    for (int dt = DT_BF16; dt <= DT_FP16; ++dt) {
        const double err = run_32x32(dt, 0);
        cr_expect(err <= TOLERANCE, "%s: scaled error %g", dt_names[dt], err);
    }
}

Test(hip_mfma_32x32x8, accumulator_with_lane_halves_swapped_fails) {
    const double err = run_32x32(DT_BF16, 1);
    cr_expect(err >= WRONG_AT_LEAST, "a wrong accumulator layout went unnoticed: error %g", err);
}

/* ---- host ---------------------------------------------------------------------------------- */

Test(host_layout, all_forms_one_subtile) { check_all_forms(&host_arch, 16, 16, 16); }
Test(host_layout, all_forms_32x64_k32) { check_all_forms(&host_arch, 32, 64, 32); }

/* ---- wrong layouts must fail --------------------------------------------------------------- */

/* CUDA's row layout with the two n8 halves (columns 0-7 and 8-15) swapped. */
static int cuda_swapped_col(int layout, int bytes, int lane, int i) {
    const int c = ts_cuda_rt_col(layout, bytes, lane, i);
    return layout == TS_LAYOUT_ROW ? c ^ 8 : c;
}
/* AMD's 16-bit row layout (the A operand) with its four lane groups rotated by one. */
static int hip_rotated_col(int layout, int bytes, int lane, int i) {
    return layout == TS_LAYOUT_ROW && bytes == 2 ? ts_hip_rt_col(layout, bytes, (lane + 16) % 64, i)
                                                 : ts_hip_rt_col(layout, bytes, lane, i);
}
/* AMD's fp32 accumulator read as its transpose. */
static int hip_transposed_row(int layout, int bytes, int lane, int i) {
    return bytes == 4 ? ts_hip_rt_col(layout, bytes, lane, i)
                      : ts_hip_rt_row(layout, bytes, lane, i);
}
static int hip_transposed_col(int layout, int bytes, int lane, int i) {
    return bytes == 4 ? ts_hip_rt_row(layout, bytes, lane, i)
                      : ts_hip_rt_col(layout, bytes, lane, i);
}
/* The A permutation of the row layout applied to a col-layout A^T as well. */
static int cuda_a_word_unswapped(int layout, int r) { return (void)layout, r; }
/* The B words of the col layout applied to a row-layout B^T as well. */
static int cuda_b_word_unpermuted(int layout, int half, int r) {
    return (void)layout, ts_cuda_mma_b_word(TS_LAYOUT_COL, half, r);
}

static void expect_wrong(const arch *ar, int form, const char *what) {
    problem p = make_problem(32, 32, 32, DT_BF16);
    const double err = run_form(ar, &p, form, 1);
    cr_expect(err >= WRONG_AT_LEAST, "%s went unnoticed in %s: scaled error %g (seed %llu)", what,
              form_names[form], err, (unsigned long long)p.seed);
    free_problem(&p);
}

Test(wrong_layouts, cuda_row_layout_with_n8_halves_swapped_fails) {
    arch ar = cuda_arch;
    ar.col = cuda_swapped_col;
    for (int form = FORM_AB; form <= FORM_ATBT; ++form)
        expect_wrong(&ar, form, "swapped n8 halves");
}

Test(wrong_layouts, hip_a_layout_with_lane_groups_rotated_fails) {
    arch ar = hip_arch;
    ar.col = hip_rotated_col;
    /* Only forms with one row-layout operand: in ABt both operands would permute k the same
     * way, which leaves the product unchanged (rightly so). */
    expect_wrong(&ar, FORM_AB, "rotated lane groups");
    expect_wrong(&ar, FORM_ATBT, "rotated lane groups");
}

Test(wrong_layouts, hip_transposed_accumulator_fails) {
    arch ar = hip_arch;
    ar.row = hip_transposed_row;
    ar.col = hip_transposed_col;
    expect_wrong(&ar, FORM_AB, "a transposed accumulator");
}

Test(wrong_layouts, cuda_forms_without_their_permutation_fail) {
    arch ar = cuda_arch;
    ar.a_word = cuda_a_word_unswapped;
    expect_wrong(&ar, FORM_ATB, "A^T without the bit swap");
    ar = cuda_arch;
    ar.b_word = cuda_b_word_unpermuted;
    expect_wrong(&ar, FORM_ABT, "B^T without its permutation");
}
