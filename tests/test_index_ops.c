/* The index ops (ops/index.h) through the layout models, on the CPU, for every backend's layouts:
 * the element indices ts_iota_rows / ts_iota_cols give (tiles/register_tile.h's ts_rt_elem_row /
 * ts_rt_elem_col over backends/<name>/fragment_layout.h) cover each element of a tile exactly once,
 * and for an fp32 accumulator they are where the vendors document its registers; a register
 * vector's slots (ts_rv_iota) name the rows and columns of the tile elements a broadcast gives them;
 * a warp vector's positions (ts_wv_iota) are where the loads put each element, at 32 and 64 lanes,
 * in both layouts. The kernels' own results, against double, are in tests/test_tile_math.c.
 *
 * Sources of the documented placements: the PTX ISA's "Matrix Fragments for mma.m16n8k16" (C/D, .f32:
 * row = groupID + 8 for c2 and c3, col = threadID_in_group * 2 + (i & 1); a 16x16 subtile is two
 * n8 fragments side by side), AMD's matrix instruction calculator for v_mfma_f32_16x16x16 (C/D:
 * lane 16 * floor(i / 4) + j, register i % 4 holds row i, column j), and tiles/warp_vector.h (a
 * contiguous chunk q of lane l holds elements 8 (q * lanes + l) ... + 7; a split one holds two
 * quads, at 8 * lanes * q + 4 * l and 4 * lanes further).
 *
 * Plain C: only the layout headers, so this runs in every backend's build. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "backends/cuda/fragment_layout.h"
#include "backends/hip/fragment_layout.h"
#include "backends/host/fragment_layout.h"
#include "tiles/warp_vector_layout.h"

/* One backend's layout functions, as backends/fragment_layout.h selects them for a build. */
typedef struct {
    const char *name;
    int lanes, sub_elems;
    int (*row)(int layout, int bytes, int lane, int i);
    int (*col)(int layout, int bytes, int lane, int i);
    int (*rv_row_slot)(int layout, int bytes, int i);
    int (*rv_row_of_slot)(int layout, int bytes, int lane, int s);
    int (*rv_row_slots)(int layout, int bytes);
    int (*rv_col_slot)(int layout, int bytes, int i);
    int (*rv_col_of_slot)(int layout, int bytes, int lane, int s);
    int (*rv_col_slots)(int layout, int bytes);
} backend_layout;

static const backend_layout backends[] = {
    {"cuda", 32, TS_CUDA_RT_SUB_ELEMS, ts_cuda_rt_row, ts_cuda_rt_col, ts_cuda_rv_row_slot, ts_cuda_rv_row_of_slot,
     ts_cuda_rv_row_slots, ts_cuda_rv_col_slot, ts_cuda_rv_col_of_slot, ts_cuda_rv_col_slots},
    {"hip", 64, TS_HIP_RT_SUB_ELEMS, ts_hip_rt_row, ts_hip_rt_col, ts_hip_rv_row_slot, ts_hip_rv_row_of_slot,
     ts_hip_rv_row_slots, ts_hip_rv_col_slot, ts_hip_rv_col_of_slot, ts_hip_rv_col_slots},
    {"host", 1, TS_HOST_RT_SUB_ELEMS, ts_host_rt_row, ts_host_rt_col, ts_host_rv_row_slot, ts_host_rv_row_of_slot,
     ts_host_rv_row_slots, ts_host_rv_col_slot, ts_host_rv_col_of_slot, ts_host_rv_col_slots},
};
enum { BACKENDS = sizeof backends / sizeof backends[0] };

static const int shapes[][2] = {{16, 16}, {32, 64}, {64, 32}, {16, 128}, {64, 16}};
enum { SHAPES = sizeof shapes / sizeof shapes[0] };

/* ts_iota_rows / ts_iota_cols of element e of a lane (ops/index.h, through tiles/register_tile.h's
 * ts_rt_elem_row / ts_rt_elem_col): the subtile's place in the tile plus the layout's place in the
 * subtile. */
static int iota_row(const backend_layout *b, int cols, int layout, int lane, int e) {
    const int s = e / b->sub_elems, i = e % b->sub_elems;
    return (s / (cols / 16)) * 16 + b->row(layout, 4, lane, i);
}
static int iota_col(const backend_layout *b, int cols, int layout, int lane, int e) {
    const int s = e / b->sub_elems, i = e % b->sub_elems;
    return (s % (cols / 16)) * 16 + b->col(layout, 4, lane, i);
}

/* The documented (row, col) of register i of lane l in a 16x16 fp32 accumulator subtile. */
static void documented_accumulator(const char *name, int lane, int i, int *row, int *col) {
    if (strcmp(name, "cuda") == 0) {
        const int half = i >> 2, c = i & 3;
        *row = (lane >> 2) + (c >= 2 ? 8 : 0);
        *col = 8 * half + 2 * (lane & 3) + (c & 1);
    } else if (strcmp(name, "hip") == 0) {
        *row = 4 * (lane / 16) + i;
        *col = lane % 16;
    } else { /* host: one lane, row-major (docs/design.md) */
        *row = i / 16;
        *col = i % 16;
    }
}

Test(index_ops, tile_indices_cover_every_element_once_in_every_layout) {
    for (int bi = 0; bi < BACKENDS; ++bi)
        for (int layout = TS_LAYOUT_ROW; layout <= TS_LAYOUT_COL; ++layout)
            for (int si = 0; si < SHAPES; ++si) {
                const backend_layout *b = &backends[bi];
                const int R = shapes[si][0], C = shapes[si][1];
                const int elems = (R / 16) * (C / 16) * b->sub_elems;
                int *seen = calloc((size_t)R * C, sizeof(int));
                for (int lane = 0; lane < b->lanes; ++lane)
                    for (int e = 0; e < elems; ++e) {
                        const int r = iota_row(b, C, layout, lane, e), c = iota_col(b, C, layout, lane, e);
                        cr_assert(r >= 0 && r < R && c >= 0 && c < C, "%s layout %d %dx%d: lane %d element %d at (%d, %d)",
                                  b->name, layout, R, C, lane, e, r, c);
                        seen[r * C + c] += 1;
                    }
                for (int i = 0; i < R * C; ++i)
                    cr_assert_eq(seen[i], 1, "%s layout %d %dx%d: (%d, %d) indexed %d times", b->name, layout, R, C, i / C,
                                 i % C, seen[i]);
                free(seen);
            }
}

Test(index_ops, accumulator_indices_are_where_the_vendors_put_the_registers) {
    for (int bi = 0; bi < BACKENDS; ++bi) {
        const backend_layout *b = &backends[bi];
        for (int lane = 0; lane < b->lanes; ++lane)
            for (int e = 0; e < 4 * b->sub_elems; ++e) { /* a 32x32 tile: four subtiles */
                int r, c;
                documented_accumulator(b->name, lane, e % b->sub_elems, &r, &c);
                const int s = e / b->sub_elems;
                r += (s / 2) * 16;
                c += (s % 2) * 16;
                cr_assert_eq(iota_row(b, 32, TS_LAYOUT_ROW, lane, e), r, "%s lane %d element %d", b->name, lane, e);
                cr_assert_eq(iota_col(b, 32, TS_LAYOUT_ROW, lane, e), c, "%s lane %d element %d", b->name, lane, e);
            }
    }
}

/* ts_rv_iota fills slot s of a block with the block's index of ts_rv_index_of_slot; a broadcast
 * (ops/reductions.h) gives element i the slot ts_rv_row_slot(i) (col): so a broadcast row vector
 * index must be the element's row (column) index in every lane, which is what lets a per-row
 * target vector be compared with an index tile (ts_eq_row). */
Test(index_ops, vector_indices_match_the_tile_elements_they_broadcast_to) {
    for (int bi = 0; bi < BACKENDS; ++bi)
        for (int layout = TS_LAYOUT_ROW; layout <= TS_LAYOUT_COL; ++layout) {
            const backend_layout *b = &backends[bi];
            for (int lane = 0; lane < b->lanes; ++lane)
                for (int i = 0; i < b->sub_elems; ++i) {
                    const int rs = b->rv_row_slot(layout, 4, i), cs = b->rv_col_slot(layout, 4, i);
                    cr_assert(rs < b->rv_row_slots(layout, 4) && cs < b->rv_col_slots(layout, 4), "%s: slot in use",
                              b->name);
                    cr_assert_eq(b->rv_row_of_slot(layout, 4, lane, rs), b->row(layout, 4, lane, i),
                                 "%s layout %d lane %d element %d: row vector slot", b->name, layout, lane, i);
                    cr_assert_eq(b->rv_col_of_slot(layout, 4, lane, cs), b->col(layout, 4, lane, i),
                                 "%s layout %d lane %d element %d: column vector slot", b->name, layout, lane, i);
                }
        }
}

/* ts_wv_iota gives element j of chunk k of a lane the position TS_WV_POS(TS_WV_CHUNK_START(k, lane,
 * split), j, split); the loads put there the element at this offset of the strip (tiles/warp_vector.h). */
static int documented_wv_position(int k, int lane, int j, int split, int lanes) {
    if (!split) return 8 * (k * lanes + lane) + j;
    return 8 * lanes * k + 4 * lane + (j < 4 ? j : 4 * lanes + (j - 4));
}

Test(index_ops, warp_vector_positions_are_where_the_loads_put_the_elements) {
    const int lane_counts[] = {1, 32, 64}, lengths[] = {512, 1024, 4096};
    for (int li = 0; li < 3; ++li)
        for (int split = 0; split < 2; ++split)
            for (int ei = 0; ei < 3; ++ei) {
                const int lanes = lane_counts[li], E = lengths[ei], chunks = E / (8 * lanes);
                int *seen = calloc((size_t)E, sizeof(int));
                for (int lane = 0; lane < lanes; ++lane)
                    for (int k = 0; k < chunks; ++k)
                        for (int j = 0; j < TS_WV_CHUNK; ++j) {
                            const int pos = TS_WV_POS(TS_WV_CHUNK_START(k, lane, split, lanes), j, split, lanes);
                            cr_assert_eq(pos, documented_wv_position(k, lane, j, split, lanes),
                                         "%d lanes, split %d: lane %d chunk %d element %d", lanes, split, lane, k, j);
                            cr_assert(pos >= 0 && pos < E);
                            seen[pos] += 1;
                        }
                for (int e = 0; e < E; ++e)
                    cr_assert_eq(seen[e], 1, "%d lanes, split %d, %d elements: position %d held %d times", lanes, split, E, e,
                                 seen[e]);
                free(seen);
            }
}

/* The checks have teeth: a layout with two elements swapped between rows fails the documented
 * placement, and a strip position off by one fails the loads' placement. */
Test(index_ops, a_wrong_index_fails) {
    const backend_layout *b = &backends[0];
    int r, c, mismatches = 0;
    for (int lane = 0; lane < b->lanes; ++lane)
        for (int i = 0; i < b->sub_elems; ++i) {
            documented_accumulator(b->name, lane, i ^ 2, &r, &c); /* c0 <-> c2: rows 8 apart */
            mismatches += iota_row(b, 16, TS_LAYOUT_ROW, lane, i) != r;
        }
    cr_assert(mismatches > 0);
    mismatches = 0;
    for (int split = 0; split < 2; ++split)
        for (int lane = 0; lane < 32; ++lane)
            for (int j = 0; j < TS_WV_CHUNK; ++j) /* neighbouring elements swapped */
                mismatches += TS_WV_POS(TS_WV_CHUNK_START(1, lane, split, 32), j ^ 1, split, 32) !=
                              documented_wv_position(1, lane, j, split, 32);
    cr_assert_eq(mismatches, 2 * 32 * TS_WV_CHUNK);
}
