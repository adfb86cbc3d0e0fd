/* Consistency of every backend's layout functions, checked on the CPU for all three backends
 * whichever backend this build targets: each layout places every element of a 16x16 subtile
 * exactly once; the inverse functions invert it; the lanes said to share a row (column) are
 * exactly those that do; vector slots name the rows (columns) their elements are in; the transpose
 * permutation maps a row-layout tile onto the col layout of its transpose; and shared-tile offsets
 * are a permutation of the tile's storage. The ops on the GPU use these same functions, so a
 * mistake here is a wrong answer there. */
#include <criterion/criterion.h>
#include <string.h>

#include "backends/cuda/fragment_layout.h"
#include "backends/cuda/shared_layout.h"
#include "backends/hip/fragment_layout.h"
#include "backends/hip/shared_layout.h"
#include "backends/host/fragment_layout.h"
#include "backends/host/shared_layout.h"

typedef struct layout_fns {
    const char *name;
    int lanes, elems, slots_max;
    int (*row)(int, int, int, int);
    int (*col)(int, int, int, int);
    int (*lane_of)(int, int, int, int);
    int (*elem_of)(int, int, int, int);
    int (*row_bits)(int, int);
    int (*col_bits)(int, int);
    int (*row_slot)(int, int, int);
    int (*row_of_slot)(int, int, int, int);
    int (*row_slots)(int, int);
    int (*col_slot)(int, int, int);
    int (*col_of_slot)(int, int, int, int);
    int (*col_slots)(int, int);
    int (*perm)(int, int);
    int (*same)(int, int, int, int);
    int (*st_offset)(int, int, int, int, int);
    int (*quad_octets)(int, int);
} layout_fns;

#define FNS(b, LANES, ELEMS, SLOTS)                                                                \
    static int b##_row(int y, int w, int l, int i) { return ts_##b##_rt_row(y, w, l, i); }         \
    static int b##_col(int y, int w, int l, int i) { return ts_##b##_rt_col(y, w, l, i); }         \
    static int b##_lane_of(int y, int w, int r, int c) { return ts_##b##_rt_lane_of(y, w, r, c); } \
    static int b##_elem_of(int y, int w, int r, int c) { return ts_##b##_rt_elem_of(y, w, r, c); } \
    static int b##_row_bits(int y, int w) { return ts_##b##_rt_row_lane_bits(y, w); }              \
    static int b##_col_bits(int y, int w) { return ts_##b##_rt_col_lane_bits(y, w); }              \
    static int b##_row_slot(int y, int w, int i) { return ts_##b##_rv_row_slot(y, w, i); }         \
    static int b##_row_of_slot(int y, int w, int l, int s) { return ts_##b##_rv_row_of_slot(y, w, l, s); } \
    static int b##_row_slots(int y, int w) { return ts_##b##_rv_row_slots(y, w); }                 \
    static int b##_col_slot(int y, int w, int i) { return ts_##b##_rv_col_slot(y, w, i); }         \
    static int b##_col_of_slot(int y, int w, int l, int s) { return ts_##b##_rv_col_of_slot(y, w, l, s); } \
    static int b##_col_slots(int y, int w) { return ts_##b##_rv_col_slots(y, w); }                 \
    static int b##_perm(int w, int i) { return ts_##b##_rt_transpose_perm(w, i); }                 \
    static int b##_same(int y, int w, int y2, int w2) { return ts_##b##_rt_same_positions(y, w, y2, w2); } \
    static int b##_st(int R, int C, int w, int r, int c) { return ts_##b##_st_offset(R, C, w, r, c); } \
    static int b##_quad(int y, int w) { return ts_##b##_rt_quad_octets(y, w); }                   \
    static const layout_fns b##_fns = {#b, LANES, ELEMS, SLOTS, b##_row, b##_col, b##_lane_of,     \
                                       b##_elem_of, b##_row_bits, b##_col_bits, b##_row_slot,       \
                                       b##_row_of_slot, b##_row_slots, b##_col_slot,                \
                                       b##_col_of_slot, b##_col_slots, b##_perm, b##_same, b##_st,     \
                                       b##_quad};

FNS(cuda, 32, TS_CUDA_RT_SUB_ELEMS, TS_CUDA_RV_SLOTS)
FNS(hip, 64, TS_HIP_RT_SUB_ELEMS, TS_HIP_RV_SLOTS)
FNS(host, 1, TS_HOST_RT_SUB_ELEMS, TS_HOST_RV_SLOTS)

static const layout_fns *all[3] = {&cuda_fns, &hip_fns, &host_fns};
static const int layouts[2] = {TS_LAYOUT_ROW, TS_LAYOUT_COL}, widths[2] = {2, 4};

/* Every (layout, width) of every backend. */
#define FOR_EACH_LAYOUT(f, y, w)                                                                   \
    for (int fi_ = 0; fi_ < 3; ++fi_)                                                              \
        for (int yi_ = 0; yi_ < 2; ++yi_)                                                          \
            for (int wi_ = 0; wi_ < 2; ++wi_)                                                      \
                for (const layout_fns *f = all[fi_]; f; f = 0)                                     \
                    for (int y = layouts[yi_], w = widths[wi_], once_ = 1; once_; once_ = 0)

Test(layouts, each_element_held_exactly_once_and_inverse_agrees) {
    FOR_EACH_LAYOUT(f, y, w) {
        int seen[16][16] = {{0}};
        cr_assert_eq(f->lanes * f->elems, 256);
        for (int l = 0; l < f->lanes; ++l)
            for (int i = 0; i < f->elems; ++i) {
                const int r = f->row(y, w, l, i), c = f->col(y, w, l, i);
                cr_assert(r >= 0 && r < 16 && c >= 0 && c < 16, "%s %d/%d: lane %d elem %d -> (%d,%d)", f->name, y, w, l, i, r, c);
                seen[r][c] += 1;
                cr_assert_eq(f->lane_of(y, w, r, c), l, "%s %d/%d: lane_of(%d,%d)", f->name, y, w, r, c);
                cr_assert_eq(f->elem_of(y, w, r, c), i, "%s %d/%d: elem_of(%d,%d)", f->name, y, w, r, c);
            }
        for (int r = 0; r < 16; ++r)
            for (int c = 0; c < 16; ++c) cr_assert_eq(seen[r][c], 1, "%s %d/%d: (%d,%d) held %d times", f->name, y, w, r, c, seen[r][c]);
    }
}

/* The set of lanes holding row r must be l0 ^ (every subset of the named bits). */
static void check_lane_bits(const layout_fns *f, int y, int w, int by_row) {
    const int bits = by_row ? f->row_bits(y, w) : f->col_bits(y, w);
    for (int idx = 0; idx < 16; ++idx) {
        int holds[64] = {0}, first = -1;
        for (int l = 0; l < f->lanes; ++l)
            for (int i = 0; i < f->elems; ++i)
                if ((by_row ? f->row(y, w, l, i) : f->col(y, w, l, i)) == idx) {
                    holds[l] = 1;
                    if (first < 0) first = l;
                }
        for (int l = 0; l < f->lanes; ++l) {
            const int in_set = ((l ^ first) & ~bits) == 0;
            cr_assert_eq(holds[l], in_set, "%s %d/%d: %s %d, lane %d (first %d, bits %#x)", f->name, y, w,
                         by_row ? "row" : "col", idx, l, first, bits);
        }
    }
}

Test(layouts, lanes_sharing_a_row_or_column_differ_only_in_the_named_bits) {
    FOR_EACH_LAYOUT(f, y, w) {
        check_lane_bits(f, y, w, 1);
        check_lane_bits(f, y, w, 0);
    }
}

Test(layouts, vector_slots_name_the_rows_and_columns_of_their_elements) {
    FOR_EACH_LAYOUT(f, y, w) {
        cr_assert_leq(f->row_slots(y, w), f->slots_max);
        cr_assert_leq(f->col_slots(y, w), f->slots_max);
        for (int l = 0; l < f->lanes; ++l)
            for (int i = 0; i < f->elems; ++i) {
                const int rs = f->row_slot(y, w, i), cs = f->col_slot(y, w, i);
                cr_assert(rs >= 0 && rs < f->row_slots(y, w));
                cr_assert(cs >= 0 && cs < f->col_slots(y, w));
                cr_assert_eq(f->row_of_slot(y, w, l, rs), f->row(y, w, l, i), "%s %d/%d lane %d elem %d", f->name, y, w, l, i);
                cr_assert_eq(f->col_of_slot(y, w, l, cs), f->col(y, w, l, i), "%s %d/%d lane %d elem %d", f->name, y, w, l, i);
            }
    }
}

Test(layouts, transpose_only_renames_registers) {
    for (int fi = 0; fi < 3; ++fi)
        for (int wi = 0; wi < 2; ++wi)
            for (int yi = 0; yi < 2; ++yi) {
                const layout_fns *f = all[fi];
                const int w = widths[wi], y = layouts[yi], other = y == TS_LAYOUT_ROW ? TS_LAYOUT_COL : TS_LAYOUT_ROW;
                for (int l = 0; l < f->lanes; ++l)
                    for (int i = 0; i < f->elems; ++i) {
                        const int j = f->perm(w, i);
                        cr_assert_eq(f->row(other, w, l, j), f->col(y, w, l, i), "%s w%d lane %d elem %d", f->name, w, l, i);
                        cr_assert_eq(f->col(other, w, l, j), f->row(y, w, l, i), "%s w%d lane %d elem %d", f->name, w, l, i);
                    }
            }
}

Test(layouts, same_positions_is_true_exactly_when_positions_agree) {
    for (int fi = 0; fi < 3; ++fi)
        for (int a = 0; a < 4; ++a)
            for (int b = 0; b < 4; ++b) {
                const layout_fns *f = all[fi];
                const int ya = layouts[a / 2], wa = widths[a % 2], yb = layouts[b / 2], wb = widths[b % 2];
                int agree = 1;
                for (int l = 0; l < f->lanes; ++l)
                    for (int i = 0; i < f->elems; ++i)
                        if (f->row(ya, wa, l, i) != f->row(yb, wb, l, i) || f->col(ya, wa, l, i) != f->col(yb, wb, l, i)) agree = 0;
                cr_assert_eq(!!f->same(ya, wa, yb, wb), agree, "%s (%d,%d) vs (%d,%d)", f->name, ya, wa, yb, wb);
            }
}

/* What ts_store_r2g's 16-byte path takes from a layout that claims quad octets: lanes 4k .. 4k+3
 * hold the same rows; lane l's elements i, i + 1 (i even) are columns 2 (l & 3) + 8 (i >> 2) and
 * the next of the row of element i & 3. CUDA's row layout claims it (the H200's attention epilogue
 * stores through that path). */
Test(layouts, quad_octets_hold_where_claimed) {
    int claims = 0;
    FOR_EACH_LAYOUT(f, y, w) {
        if (!f->quad_octets(y, w)) continue;
        ++claims;
        cr_assert_eq(f->elems, 8, "%s %d/%d", f->name, y, w);
        cr_assert_eq(f->lanes % 4, 0, "%s %d/%d", f->name, y, w);
        for (int l = 0; l < f->lanes; ++l)
            for (int i = 0; i < f->elems; i += 2) {
                const int r = f->row(y, w, l, i), c = f->col(y, w, l, i);
                cr_assert_eq(c, 2 * (l & 3) + 8 * (i >> 2), "%s %d/%d lane %d elem %d", f->name, y, w, l, i);
                cr_assert(f->row(y, w, l, i + 1) == r && f->col(y, w, l, i + 1) == c + 1, "%s %d/%d lane %d elem %d", f->name, y, w, l, i);
                cr_assert_eq(r, f->row(y, w, l, i & 3), "%s %d/%d lane %d elem %d", f->name, y, w, l, i);
                cr_assert_eq(r, f->row(y, w, l & ~3, i), "%s %d/%d lane %d elem %d", f->name, y, w, l, i);
            }
    }
    cr_assert(ts_cuda_rt_quad_octets(TS_LAYOUT_ROW, 2));
    cr_assert_eq(claims, 2); /* CUDA's row layout, both widths */
}

Test(layouts, shared_offsets_are_a_permutation_of_the_storage) {
    const int shapes[][2] = {{16, 16}, {16, 32}, {16, 64}, {64, 64}, {32, 128}, {64, 256}, {128, 64}};
    for (int fi = 0; fi < 3; ++fi)
        for (int s = 0; s < 7; ++s)
            for (int wi = 0; wi < 2; ++wi) {
                const int R = shapes[s][0], C = shapes[s][1], w = widths[wi];
                static unsigned char seen[128 * 256];
                memset(seen, 0, sizeof seen);
                for (int r = 0; r < R; ++r)
                    for (int c = 0; c < C; ++c) {
                        const int o = all[fi]->st_offset(R, C, w, r, c);
                        cr_assert(o >= 0 && o < R * C, "%s %dx%d w%d: (%d,%d) -> %d", all[fi]->name, R, C, w, r, c, o);
                        cr_assert_eq(seen[o]++, 0, "%s %dx%d w%d: offset %d used twice", all[fi]->name, R, C, w, o);
                    }
            }
}

/* On Hopper the swizzle must be TMA's: within a 128-byte row chunk, the 16-byte unit u of row r
 * sits at unit u ^ (r % 8). */
Test(layouts, cuda_128_byte_swizzle_is_tmas) {
    for (int r = 0; r < 64; ++r)
        for (int c = 0; c < 64; ++c) {
            const int byte = ts_cuda_st_offset(64, 64, 2, r, c) * 2;
            const int expect = r * 128 + ((((c * 2) / 16) ^ (r % 8)) * 16) + (c * 2) % 16;
            cr_assert_eq(byte, expect, "(%d,%d)", r, c);
        }
}
