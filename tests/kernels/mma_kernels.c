/* Kernels that test the warp-scope mma ops (ops/mma.h): one warp loads A and B from global memory
 * into register tiles, runs one transposition form in one mode, and stores the fp32 result.
 * Loads and stores are written here per element through the tiles' index functions
 * (ts_rt_elem_row/col) rather than with ops/memory.h, so these tests depend on the layouts and
 * on the mma ops alone. Every combination is its own kernel with its tile types fixed, as a real
 * kernel would have them, so that the register report of each one means something. */
#include "backends/backend.h"
#include "ops/mma.h"
#include "tests/kernels/mma_kernels.h"

typedef struct ts_mma_test_params {
    float *d;
    const unsigned short *a;
    const unsigned short *b;
    const float *c;
    int lda, ldb, ldd;         /* row strides, elements */
    long long a_step, b_step;  /* elements from one K block of A (B) to the next */
} ts_mma_test_params;

/* A 16-bit tile from a row-major matrix, pair by pair into the tile's words. */
TS_DEVICE void ts_mma_test_load16(unsigned *words, ts_rt_desc d, const unsigned short *src,
                                   int ld) {
    const int lane = ts_lane_id();
    TS_UNROLL
    for (int w = 0; w < TS_RT_DESC_ELEMS(d) / 2; ++w) {
        const unsigned lo =
            src[ts_rt_elem_row(d, lane, 2 * w) * ld + ts_rt_elem_col(d, lane, 2 * w)];
        const unsigned hi =
            src[ts_rt_elem_row(d, lane, 2 * w + 1) * ld + ts_rt_elem_col(d, lane, 2 * w + 1)];
        words[w] = lo | hi << 16;
    }
}

TS_DEVICE void ts_mma_test_load32(float *x, ts_rt_desc d, const float *src, int ld) {
    const int lane = ts_lane_id();
    TS_UNROLL
    for (int e = 0; e < TS_RT_DESC_ELEMS(d); ++e)
        x[e] = src[ts_rt_elem_row(d, lane, e) * ld + ts_rt_elem_col(d, lane, e)];
}

TS_DEVICE void ts_mma_test_store32(float *dst, int ld, const float *x, ts_rt_desc d) {
    const int lane = ts_lane_id();
    TS_UNROLL
    for (int e = 0; e < TS_RT_DESC_ELEMS(d); ++e)
        dst[ts_rt_elem_row(d, lane, e) * ld + ts_rt_elem_col(d, lane, e)] = x[e];
}

/* The first op of a kernel, by mode; later K blocks always accumulate into d in place. */
#define TS_MMA_TEST_FIRST_ACC(form, DT, d, a, b, p)                                                \
    {                                                                                              \
        DT c_;                                                                                     \
        ts_mma_test_load32((float *)TS_RT_DATA(&c_), TS_RT_DESC(&c_), (p)->c, (p)->ldd);          \
        ts_mma_##form(d, a, b, &c_);                                                               \
    }
#define TS_MMA_TEST_FIRST_INPLACE(form, DT, d, a, b, p)                                            \
    {                                                                                              \
        ts_mma_test_load32((float *)TS_RT_DATA(d), TS_RT_DESC(d), (p)->c, (p)->ldd);               \
        ts_mma_##form(d, a, b, d);                                                                 \
    }
#define TS_MMA_TEST_FIRST_OVERWRITE(form, DT, d, a, b, p) { ts_mm_##form(d, a, b); }

/* One kernel and its launcher: DT the fp32 result tile, AT and BT the operand tiles of one K
 * block, ksteps K blocks. */
#define TS_MMA_TEST_DEFINE(form, dt, shape, mode, ksteps, DT, AT, BT)                              \
    TS_KERNEL(ts_mma_test_##form##_##dt##_##shape##_##mode, 1, ts_mma_test_params, p) {            \
        DT d;                                                                                      \
        AT a;                                                                                      \
        BT b;                                                                                      \
        for (int s = 0; s < (ksteps); ++s) {                                                       \
            ts_mma_test_load16((unsigned *)TS_RT_DATA(&a), TS_RT_DESC(&a), p->a + s * p->a_step,  \
                               p->lda);                                                            \
            ts_mma_test_load16((unsigned *)TS_RT_DATA(&b), TS_RT_DESC(&b), p->b + s * p->b_step,  \
                               p->ldb);                                                            \
            if (s == 0) TS_MMA_TEST_FIRST_##mode(form, DT, &d, &a, &b, p)                          \
            else ts_mma_##form(&d, &a, &b, &d);                                                    \
        }                                                                                          \
        ts_mma_test_store32(p->d, p->ldd, (const float *)TS_RT_CDATA(&d), TS_RT_DESC(&d));        \
    }                                                                                              \
    static ts_status ts_mma_test_##form##_##dt##_##shape##_##mode##_launch(                        \
        const ts_mma_test_params *in) {                                                            \
        ts_mma_test_params params = *in;                                                           \
        return TS_LAUNCH(ts_mma_test_##form##_##dt##_##shape##_##mode, ts_grid_1d(1), 1, 0, NULL,  \
                         params);                                                                  \
    }

/* The four forms of one shape M x N with K blocks of KC, and the two that need no N x KC tile. */
#define TS_MMA_TEST_FORMS4(X, dt, shape, mode, ksteps, M, N, KC)                                   \
    X(AB, dt, shape, mode, ksteps, ts_rt_f32_##M##x##N, ts_rt_##dt##_##M##x##KC,                   \
      ts_rt_##dt##_##KC##x##N##_col)                                                               \
    X(ABt, dt, shape, mode, ksteps, ts_rt_f32_##M##x##N, ts_rt_##dt##_##M##x##KC,                  \
      ts_rt_##dt##_##N##x##KC)                                                                     \
    X(AtB, dt, shape, mode, ksteps, ts_rt_f32_##M##x##N, ts_rt_##dt##_##KC##x##M##_col,            \
      ts_rt_##dt##_##KC##x##N##_col)                                                               \
    X(AtBt, dt, shape, mode, ksteps, ts_rt_f32_##M##x##N, ts_rt_##dt##_##KC##x##M##_col,           \
      ts_rt_##dt##_##N##x##KC)
#define TS_MMA_TEST_FORMS2(X, dt, shape, mode, ksteps, M, N, KC)                                   \
    X(AB, dt, shape, mode, ksteps, ts_rt_f32_##M##x##N, ts_rt_##dt##_##M##x##KC,                   \
      ts_rt_##dt##_##KC##x##N##_col)                                                               \
    X(AtB, dt, shape, mode, ksteps, ts_rt_f32_##M##x##N, ts_rt_##dt##_##KC##x##M##_col,            \
      ts_rt_##dt##_##KC##x##N##_col)

/* Every kernel. A separate accumulator tile only where two fp32 tiles fit next to the operands
 * in the 255 registers a lane of a 32-lane warp has (the larger shapes would spill); 16x256 has
 * no 256x16 B^T tile type. */
#define TS_MMA_TEST_DTYPE(X, dt)                                                                   \
    TS_MMA_TEST_FORMS4(X, dt, s16x16x16, ACC, 1, 16, 16, 16)                                       \
    TS_MMA_TEST_FORMS4(X, dt, s16x16x16, INPLACE, 1, 16, 16, 16)                                   \
    TS_MMA_TEST_FORMS4(X, dt, s16x16x16, OVERWRITE, 1, 16, 16, 16)                                 \
    TS_MMA_TEST_FORMS4(X, dt, s32x64x32, ACC, 1, 32, 64, 32)                                       \
    TS_MMA_TEST_FORMS4(X, dt, s32x64x32, INPLACE, 1, 32, 64, 32)                                   \
    TS_MMA_TEST_FORMS4(X, dt, s32x64x32, OVERWRITE, 1, 32, 64, 32)                                 \
    TS_MMA_TEST_FORMS4(X, dt, s64x64x64, INPLACE, 4, 64, 64, 16)                                   \
    TS_MMA_TEST_FORMS4(X, dt, s64x64x64, OVERWRITE, 4, 64, 64, 16)                                 \
    TS_MMA_TEST_FORMS2(X, dt, s16x256x16, INPLACE, 1, 16, 256, 16)                                 \
    TS_MMA_TEST_FORMS2(X, dt, s16x256x16, OVERWRITE, 1, 16, 256, 16)
#define TS_MMA_TEST_ALL(X) TS_MMA_TEST_DTYPE(X, bf16) TS_MMA_TEST_DTYPE(X, fp16)

TS_MMA_TEST_ALL(TS_MMA_TEST_DEFINE)

/* ---- dispatch ------------------------------------------------------------------------------ */

typedef ts_status (*ts_mma_test_launcher)(const ts_mma_test_params *);

#define TS_MMA_TEST_FORM_AB TS_TEST_MMA_AB
#define TS_MMA_TEST_FORM_ABt TS_TEST_MMA_ABT
#define TS_MMA_TEST_FORM_AtB TS_TEST_MMA_ATB
#define TS_MMA_TEST_FORM_AtBt TS_TEST_MMA_ATBT
#define TS_MMA_TEST_DT_bf16 TS_TEST_MMA_BF16
#define TS_MMA_TEST_DT_fp16 TS_TEST_MMA_FP16
#define TS_MMA_TEST_SHAPE_s16x16x16 TS_TEST_MMA_16x16x16
#define TS_MMA_TEST_SHAPE_s32x64x32 TS_TEST_MMA_32x64x32
#define TS_MMA_TEST_SHAPE_s64x64x64 TS_TEST_MMA_64x64x64
#define TS_MMA_TEST_SHAPE_s16x256x16 TS_TEST_MMA_16x256x16
#define TS_MMA_TEST_MODE_ACC TS_TEST_MMA_ACC
#define TS_MMA_TEST_MODE_INPLACE TS_TEST_MMA_ACC_INPLACE
#define TS_MMA_TEST_MODE_OVERWRITE TS_TEST_MMA_OVERWRITE

#define TS_MMA_TEST_CASE(form, dt, shape, mode, ksteps, DT, AT, BT)                                \
    if (shape_ == TS_MMA_TEST_SHAPE_##shape && form_ == TS_MMA_TEST_FORM_##form &&                 \
        dtype_ == TS_MMA_TEST_DT_##dt && mode_ == TS_MMA_TEST_MODE_##mode)                         \
        return ts_mma_test_##form##_##dt##_##shape##_##mode##_launch;

static ts_mma_test_launcher ts_mma_test_lookup(int shape_, int form_, int dtype_, int mode_) {
    TS_MMA_TEST_ALL(TS_MMA_TEST_CASE)
    return NULL;
}

TS_EXTERN_C ts_status ts_test_mma_dims(int shape, int *m, int *n, int *k) {
    static const int dims[TS_TEST_MMA_SHAPES][3] = {
        {16, 16, 16}, {32, 64, 32}, {64, 64, 64}, {16, 256, 16}};
    if (shape < 0 || shape >= TS_TEST_MMA_SHAPES) return TS_ERROR_INVALID_ENUM;
    if (!m || !n || !k) return TS_ERROR_NULL_POINTER;
    *m = dims[shape][0];
    *n = dims[shape][1];
    *k = dims[shape][2];
    return TS_SUCCESS;
}

static int ts_mma_test_enums_ok(int shape, int form, int dtype, int mode) {
    return shape >= 0 && shape < TS_TEST_MMA_SHAPES && form >= 0 && form < TS_TEST_MMA_FORMS &&
           dtype >= 0 && dtype < TS_TEST_MMA_DTYPES && mode >= 0 && mode < TS_TEST_MMA_MODES;
}

TS_EXTERN_C int ts_test_mma_available(int shape, int form, int dtype, int mode) {
    return ts_mma_test_enums_ok(shape, form, dtype, mode) &&
           ts_mma_test_lookup(shape, form, dtype, mode) != NULL;
}

TS_EXTERN_C ts_status ts_test_mma(int shape, int form, int dtype, int mode, float *d,
                                  const unsigned short *a, const unsigned short *b,
                                  const float *c) {
    if (!ts_mma_test_enums_ok(shape, form, dtype, mode)) return TS_ERROR_INVALID_ENUM;
    const ts_mma_test_launcher launch = ts_mma_test_lookup(shape, form, dtype, mode);
    if (!launch) return TS_ERROR_UNSUPPORTED;
    if (!d || !a || !b || (mode != TS_TEST_MMA_OVERWRITE && !c)) return TS_ERROR_NULL_POINTER;
    int m, n, k;
    const ts_status s = ts_test_mma_dims(shape, &m, &n, &k);
    if (s != TS_SUCCESS) return s;
    /* The K extent of one op: 64x64x64 runs four ops of K = 16. */
    const int kc = shape == TS_TEST_MMA_64x64x64 ? 16 : k;
    const int at = form == TS_TEST_MMA_ATB || form == TS_TEST_MMA_ATBT;
    const int bt = form == TS_TEST_MMA_ABT || form == TS_TEST_MMA_ATBT;
    ts_mma_test_params params;
    params.d = d;
    params.a = a;
    params.b = b;
    params.c = c;
    /* A (m x k) steps by columns, A^T (k x m) by rows; B (k x n) by rows, B^T (n x k) by
     * columns. */
    params.lda = at ? m : k;
    params.ldb = bt ? k : n;
    params.ldd = n;
    params.a_step = at ? (long long)kc * m : kc;
    params.b_step = bt ? kc : (long long)kc * n;
    return launch(&params);
}
