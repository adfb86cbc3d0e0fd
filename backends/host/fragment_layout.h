/* Where each element of a 16x16 register subtile lives on the host backend: a warp is one thread
 * holding the whole subtile, row-major in the row layout and column-major in the col layout.
 * Element i (0..255). */
#ifndef TESSERA_BACKENDS_HOST_FRAGMENT_LAYOUT_H
#define TESSERA_BACKENDS_HOST_FRAGMENT_LAYOUT_H

#include "backends/common.h"

#define TS_HOST_RT_SUB_ELEMS 256
#define TS_HOST_RV_SLOTS 16

TS_LAYOUT_FN int ts_host_rt_row(int layout, int bytes, int lane, int i) {
    (void)bytes, (void)lane;
    return layout == TS_LAYOUT_ROW ? i >> 4 : i & 15;
}
TS_LAYOUT_FN int ts_host_rt_col(int layout, int bytes, int lane, int i) {
    (void)bytes, (void)lane;
    return layout == TS_LAYOUT_ROW ? i & 15 : i >> 4;
}
TS_LAYOUT_FN int ts_host_rt_row_lane_bits(int layout, int bytes) { return (void)layout, (void)bytes, 0; }
TS_LAYOUT_FN int ts_host_rt_col_lane_bits(int layout, int bytes) { return (void)layout, (void)bytes, 0; }

TS_LAYOUT_FN int ts_host_rv_row_slot(int layout, int bytes, int i) {
    return ts_host_rt_row(layout, bytes, 0, i);
}
TS_LAYOUT_FN int ts_host_rv_row_of_slot(int layout, int bytes, int lane, int s) {
    (void)layout, (void)bytes, (void)lane;
    return s;
}
TS_LAYOUT_FN int ts_host_rv_row_slots(int layout, int bytes) { return (void)layout, (void)bytes, 16; }
TS_LAYOUT_FN int ts_host_rv_col_slot(int layout, int bytes, int i) {
    return ts_host_rt_col(layout, bytes, 0, i);
}
TS_LAYOUT_FN int ts_host_rv_col_of_slot(int layout, int bytes, int lane, int s) {
    (void)layout, (void)bytes, (void)lane;
    return s;
}
TS_LAYOUT_FN int ts_host_rv_col_slots(int layout, int bytes) { return (void)layout, (void)bytes, 16; }

TS_LAYOUT_FN int ts_host_rt_transpose_perm(int bytes, int i) {
    (void)bytes;
    return i;
}

TS_LAYOUT_FN int ts_host_rt_lane_of(int layout, int bytes, int r, int c) {
    return (void)layout, (void)bytes, (void)r, (void)c, 0;
}
TS_LAYOUT_FN int ts_host_rt_elem_of(int layout, int bytes, int r, int c) {
    (void)bytes;
    return layout == TS_LAYOUT_ROW ? r * 16 + c : c * 16 + r;
}
TS_LAYOUT_FN int ts_host_rt_same_positions(int layout_a, int bytes_a, int layout_b, int bytes_b) {
    (void)bytes_a, (void)bytes_b;
    return layout_a == layout_b;
}
/* Each 8-column block of a row in one quad of lanes (backends/cuda/fragment_layout.h): never with
 * one lane. */
TS_LAYOUT_FN int ts_host_rt_quad_octets(int layout, int bytes) {
    (void)layout, (void)bytes;
    return 0;
}

#endif
