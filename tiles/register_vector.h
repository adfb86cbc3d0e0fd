/* Register vectors: one fp32 value per row (a row vector) or per column (a column vector) of an
 * fp32 register tile, held the way the tile holds its rows or columns: each lane keeps one slot
 * for each distinct row (column) it holds in a 16-row (16-column) block, so broadcasting a vector
 * over a tile and reducing a tile into a vector never index registers at run time.
 *
 * Names: ts_rowvec_f32_<N> (one value for each of the N rows of a row-layout tile),
 * ts_colvec_f32_<N> (one for each of the N columns of a row-layout tile), and _col variants for
 * col-layout tiles. */
#ifndef TESSERA_TILES_REGISTER_VECTOR_H
#define TESSERA_TILES_REGISTER_VECTOR_H

#include "tiles/register_tile.h"

#define TS_AXIS_ROWS 1
#define TS_AXIS_COLS 2

#define TS_RV_STRUCT(tname, axis, layout, N)                                                       \
    typedef struct tname {                                                                         \
        float v[(N) / 16][TS_RV_SLOTS];                                                            \
        unsigned char axis_tag[axis];                                                              \
        unsigned char layout_tag[layout];                                                          \
    } tname

#define TS_RV_DEFINE_ALL(N)                                                                        \
    TS_RV_STRUCT(ts_rowvec_f32_##N, TS_AXIS_ROWS, TS_LAYOUT_ROW, N);                               \
    TS_RV_STRUCT(ts_colvec_f32_##N, TS_AXIS_COLS, TS_LAYOUT_ROW, N);                               \
    TS_RV_STRUCT(ts_rowvec_f32_##N##_col, TS_AXIS_ROWS, TS_LAYOUT_COL, N);                         \
    TS_RV_STRUCT(ts_colvec_f32_##N##_col, TS_AXIS_COLS, TS_LAYOUT_COL, N)

TS_RV_DEFINE_ALL(16);
TS_RV_DEFINE_ALL(32);
TS_RV_DEFINE_ALL(64);
TS_RV_DEFINE_ALL(128);
TS_RV_DEFINE_ALL(256);

#define TS_RV_LEN(x) ((int)(sizeof((x)->v) / sizeof((x)->v[0])) * 16)
#define TS_RV_AXIS(x) ((int)sizeof((x)->axis_tag))
#define TS_RV_LAYOUT(x) ((int)sizeof((x)->layout_tag))
#define TS_RV_DATA(x) (&(x)->v[0][0])
#define TS_RV_CDATA(x) ((const float *)&(x)->v[0][0])

/* Slots in use per 16-element block, and where a slot's row or column is. */
TS_DEVICE int ts_rv_slots(int axis, int layout) {
    return axis == TS_AXIS_ROWS ? ts_rv_row_slots(layout, 4) : ts_rv_col_slots(layout, 4);
}
TS_DEVICE int ts_rv_index_of_slot(int axis, int layout, int lane, int s) {
    return axis == TS_AXIS_ROWS ? ts_rv_row_of_slot(layout, 4, lane, s) : ts_rv_col_of_slot(layout, 4, lane, s);
}
/* Lanes holding the same entry differ only in these lane-id bits. */
TS_DEVICE int ts_rv_shared_lane_bits(int axis, int layout) {
    return axis == TS_AXIS_ROWS ? ts_rt_row_lane_bits(layout, 4) : ts_rt_col_lane_bits(layout, 4);
}

#endif
