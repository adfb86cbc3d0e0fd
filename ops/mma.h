/* Warp-scope matrix multiply-accumulate on register tiles, destination first, fp32 accumulation
 * from bf16 or fp16 operands (both the same dtype), in the four transposition forms:
 *
 *   ts_mma_AB(d, a, b, c)    d = a * b + c      a: M x K row,  b: K x N col
 *   ts_mma_ABt(d, a, b, c)   d = a * b^T + c    a: M x K row,  b: N x K row (holds B^T)
 *   ts_mma_AtB(d, a, b, c)   d = a^T * b + c    a: K x M col (holds A^T),  b: K x N col
 *   ts_mma_AtBt(d, a, b, c)  d = a^T * b^T + c  a: K x M col,  b: N x K row
 *
 * d and c are M x N fp32 row-layout tiles; d may be c (accumulate in place). ts_mm_AB(d, a, b)
 * and the other ts_mm_* forms overwrite d with the product. Operands are pointers to tiles.
 *
 * Shapes, dtypes and layouts come from the tiles' types and are checked at compile time: a
 * mismatch does not compile. Each form is one loop over 16x16x16 subtile products with constant
 * bounds, fully unrolled, so the tiles stay in registers; the subtile product is the backend's
 * (backends/mma.h): an accumulator in the row layout is what every backend's instruction produces,
 * and the layout of an operand tile says whether it holds the matrix or its transpose. */
#ifndef TESSERA_OPS_MMA_H
#define TESSERA_OPS_MMA_H

#include "backends/mma.h"
#include "tiles/register_tile.h"

/* d (m x n) = a * b (+ c if accumulate) over k, all multiples of 16. a is in a_layout: row, an
 * M x K tile of A; col, a K x M tile of A^T. b is in b_layout: col, a K x N tile of B; row, an
 * N x K tile of B^T. Tiles are their flat storage (TS_RT_DATA); c is NULL when not accumulating,
 * so that a destination not yet written is never passed as an input. */
TS_DEVICE void ts_mma_tiles(float *d, const float *c, int accumulate, const unsigned *a,
                            int a_layout, const unsigned *b, int b_layout, int m, int n, int k,
                            int dtype) {
    const int words = TS_RT_SUB_ELEMS / 2;
    const int msub = m / 16, nsub = n / 16, ksub = k / 16;
    TS_UNROLL
    for (int mi = 0; mi < msub; ++mi) {
        TS_UNROLL
        for (int ni = 0; ni < nsub; ++ni) {
            float *dsub = d + (mi * nsub + ni) * TS_RT_SUB_ELEMS;
            const float *csub =
                accumulate ? c + (mi * nsub + ni) * TS_RT_SUB_ELEMS : (const float *)0;
            TS_UNROLL
            for (int ki = 0; ki < ksub; ++ki) {
                const unsigned *asub =
                    a + (a_layout == TS_LAYOUT_ROW ? mi * ksub + ki : ki * msub + mi) * words;
                const unsigned *bsub =
                    b + (b_layout == TS_LAYOUT_COL ? ki * nsub + ni : ni * ksub + ki) * words;
                /* The first k step reads the accumulator input, the later ones d itself. */
                ts_mma_sub16(dsub, ki == 0 ? csub : dsub, ki == 0 ? accumulate : 1, asub,
                             a_layout, bsub, b_layout, dtype == TS_DTYPE_BF16);
            }
        }
    }
}

/* The compile-time checks of one form. a_m, a_k, b_k, b_n are the tiles' extents along M, K, K
 * and N as the form reads them. */
#define TS_MMA_CHECK_(op, d, a, b, c, a_layout, b_layout, a_m, a_k, b_k, b_n)                      \
    TS_STATIC_ASSERT(TS_RT_DTYPE(d) == TS_DTYPE_F32 && TS_RT_LAYOUT(d) == TS_LAYOUT_ROW,           \
                     op ": d must be an fp32 row-layout tile");                                    \
    TS_STATIC_ASSERT(TS_RT_DTYPE(c) == TS_DTYPE_F32 && TS_RT_LAYOUT(c) == TS_LAYOUT_ROW,           \
                     op ": c must be an fp32 row-layout tile");                                    \
    TS_STATIC_ASSERT(TS_RT_ROWS(c) == TS_RT_ROWS(d) && TS_RT_COLS(c) == TS_RT_COLS(d),             \
                     op ": c must have the shape of d");                                           \
    TS_STATIC_ASSERT(TS_RT_DTYPE(a) == TS_DTYPE_BF16 || TS_RT_DTYPE(a) == TS_DTYPE_FP16,           \
                     op ": a must be a bf16 or fp16 tile");                                        \
    TS_STATIC_ASSERT(TS_RT_DTYPE(b) == TS_RT_DTYPE(a), op ": a and b must have the same dtype");   \
    TS_STATIC_ASSERT(TS_RT_LAYOUT(a) == (a_layout),                                                \
                     op ": a has the wrong layout (A: row, A^T: col)");                            \
    TS_STATIC_ASSERT(TS_RT_LAYOUT(b) == (b_layout),                                                \
                     op ": b has the wrong layout (B: col, B^T: row)");                            \
    TS_STATIC_ASSERT((a_m) == TS_RT_ROWS(d), op ": a and d disagree on M");                        \
    TS_STATIC_ASSERT((b_n) == TS_RT_COLS(d), op ": b and d disagree on N");                        \
    TS_STATIC_ASSERT((a_k) == (b_k), op ": a and b disagree on K")

/* cdata: c's storage, or NULL for the overwrite forms. */
#define TS_MMA_FORM_(op, d, a, b, c, cdata, accumulate, a_layout, b_layout, a_m, a_k, b_k, b_n)    \
    do {                                                                                           \
        TS_MMA_CHECK_(op, d, a, b, c, a_layout, b_layout, a_m, a_k, b_k, b_n);                     \
        ts_mma_tiles((float *)TS_RT_DATA(d), (cdata), (accumulate),                                \
                     (const unsigned *)TS_RT_CDATA(a), (a_layout),                                 \
                     (const unsigned *)TS_RT_CDATA(b), (b_layout), TS_RT_ROWS(d), TS_RT_COLS(d),   \
                     (a_k), TS_RT_DTYPE(a));                                                       \
    } while (0)

#define TS_MMA_CIN_(c) ((const float *)TS_RT_CDATA(c))
#define TS_MMA_NO_CIN_ ((const float *)0)

#define ts_mma_AB(d, a, b, c)                                                                      \
    TS_MMA_FORM_("ts_mma_AB", d, a, b, c, TS_MMA_CIN_(c), 1, TS_LAYOUT_ROW, TS_LAYOUT_COL,         \
                 TS_RT_ROWS(a), TS_RT_COLS(a), TS_RT_ROWS(b), TS_RT_COLS(b))
#define ts_mma_ABt(d, a, b, c)                                                                     \
    TS_MMA_FORM_("ts_mma_ABt", d, a, b, c, TS_MMA_CIN_(c), 1, TS_LAYOUT_ROW, TS_LAYOUT_ROW,        \
                 TS_RT_ROWS(a), TS_RT_COLS(a), TS_RT_COLS(b), TS_RT_ROWS(b))
#define ts_mma_AtB(d, a, b, c)                                                                     \
    TS_MMA_FORM_("ts_mma_AtB", d, a, b, c, TS_MMA_CIN_(c), 1, TS_LAYOUT_COL, TS_LAYOUT_COL,        \
                 TS_RT_COLS(a), TS_RT_ROWS(a), TS_RT_ROWS(b), TS_RT_COLS(b))
#define ts_mma_AtBt(d, a, b, c)                                                                    \
    TS_MMA_FORM_("ts_mma_AtBt", d, a, b, c, TS_MMA_CIN_(c), 1, TS_LAYOUT_COL, TS_LAYOUT_ROW,       \
                 TS_RT_COLS(a), TS_RT_ROWS(a), TS_RT_COLS(b), TS_RT_ROWS(b))

/* The overwrite forms: d stands in for c in the checks; nothing is read from it. */
#define ts_mm_AB(d, a, b)                                                                          \
    TS_MMA_FORM_("ts_mm_AB", d, a, b, d, TS_MMA_NO_CIN_, 0, TS_LAYOUT_ROW, TS_LAYOUT_COL,          \
                 TS_RT_ROWS(a), TS_RT_COLS(a), TS_RT_ROWS(b), TS_RT_COLS(b))
#define ts_mm_ABt(d, a, b)                                                                         \
    TS_MMA_FORM_("ts_mm_ABt", d, a, b, d, TS_MMA_NO_CIN_, 0, TS_LAYOUT_ROW, TS_LAYOUT_ROW,         \
                 TS_RT_ROWS(a), TS_RT_COLS(a), TS_RT_COLS(b), TS_RT_ROWS(b))
#define ts_mm_AtB(d, a, b)                                                                         \
    TS_MMA_FORM_("ts_mm_AtB", d, a, b, d, TS_MMA_NO_CIN_, 0, TS_LAYOUT_COL, TS_LAYOUT_COL,         \
                 TS_RT_COLS(a), TS_RT_ROWS(a), TS_RT_ROWS(b), TS_RT_COLS(b))
#define ts_mm_AtBt(d, a, b)                                                                        \
    TS_MMA_FORM_("ts_mm_AtBt", d, a, b, d, TS_MMA_NO_CIN_, 0, TS_LAYOUT_COL, TS_LAYOUT_ROW,        \
                 TS_RT_COLS(a), TS_RT_ROWS(a), TS_RT_COLS(b), TS_RT_ROWS(b))

#endif
