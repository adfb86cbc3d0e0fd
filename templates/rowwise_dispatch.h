/* The dispatch ladder of a row-wise family (templates/rowwise.h): which of its instances takes a call,
 * and the launch plan, written once for every family. A family fills a ts_rowwise_call from its
 * checked arguments and passes its launchers for the call's input dtype (templates/rowwise_family.h
 * builds the table); it may refine the choice after (the norms' one-slice rows, kernels/norm/norm.c).
 * Host code. */
#ifndef TESSERA_TEMPLATES_ROWWISE_DISPATCH_H
#define TESSERA_TEMPLATES_ROWWISE_DISPATCH_H

#include <string.h>

#include "templates/rowwise.h"
#include "templates/rowwise_rows.h"

/* A family's launchers for one input dtype; NULL where it has no such instance (fp32 has no long-row
 * ones, CDNA no narrow or middle ones, a family without rows instances no rows lookup). */
typedef struct ts_rowwise_launchers {
    ts_rowwise_launch_fn (*rows)(int cols); /* the rows instance of rows of `cols` columns, or NULL */
    ts_rowwise_launch_fn long_row, long_row_mid, long_row_narrow;
    ts_rowwise_launch_fn whole, short_pass, general;
} ts_rowwise_launchers;

/* What the ladder needs to know of a call. */
typedef struct ts_rowwise_call {
    long long rows;
    int cols;
    int dtype_bytes; /* of the input */
    int uniform;     /* every output and parameter in the input's dtype (the fast instances' one path) */
    int aligned;     /* every matrix and each of its rows 16-byte aligned (ts_rowwise_aligned16) */
} ts_rowwise_call;

typedef enum {
    TS_ROWWISE_ROUTE_ROWS,     /* several rows a warp, or one of one to two slices (rowwise_rows.h) */
    TS_ROWWISE_ROUTE_LONG_ROW, /* a row of one to two slices a one-warp block (rowwise_long_row.h) */
    TS_ROWWISE_ROUTE_WHOLE,    /* the whole instance (rowwise_instances.h) */
    TS_ROWWISE_ROUTE_SHORT,    /* the short instance */
    TS_ROWWISE_ROUTE_GENERAL,  /* the general instance */
} ts_rowwise_route_kind;

typedef struct ts_rowwise_route {
    ts_rowwise_route_kind kind;
    ts_rowwise_launch_fn launch;
    ts_rowwise_plan plan; /* the rows instances need none: zero */
} ts_rowwise_route;

/* The first instance that takes the call:
 *   rows      uniform and aligned, rows of whole chunks or quad rows (ts_rowwise_rows_fit), where the
 *             family has an instance of that length;
 *   long row  uniform and aligned 16-bit rows of one to two slices (ts_rowwise_long_row_plan): the
 *             shortest long-row instance that holds the row (fewer registers past it, more blocks
 *             an SM);
 *   whole     the one-pass plan (ts_rowwise_make_plan) of whole slices, every row group of every
 *             block present (ts_rowwise_plan_whole), aligned;
 *   short     the one-pass plan otherwise; general: the rest.
 * sm_count gives the device's SM count (the general instance's grid cap), asked only once the call
 * reaches the slice instances; its error is returned. */
static inline ts_status ts_rowwise_route_call(const ts_rowwise_call *c, const ts_rowwise_launchers *l,
                                              ts_status (*sm_count)(int *sms), ts_rowwise_route *r) {
    memset(r, 0, sizeof *r);
    if (c->uniform && c->aligned && l->rows && ts_rowwise_rows_fit(c->rows, c->cols, c->dtype_bytes, 1)) {
        r->launch = l->rows(c->cols);
        if (r->launch) {
            r->kind = TS_ROWWISE_ROUTE_ROWS;
            return TS_SUCCESS;
        }
    }
    if (c->uniform && c->aligned && l->long_row && ts_rowwise_long_row_plan(c->rows, c->cols, c->dtype_bytes, &r->plan)) {
        r->kind = TS_ROWWISE_ROUTE_LONG_ROW;
        r->launch = l->long_row_narrow && c->cols <= TS_ROWWISE_LONG_ROW_NARROW_COLS(TS_WARP_LANES) ? l->long_row_narrow
                    : l->long_row_mid && c->cols <= TS_ROWWISE_LONG_ROW_MID_COLS(TS_WARP_LANES)     ? l->long_row_mid
                                                                                                    : l->long_row;
        return TS_SUCCESS;
    }
    int sms = 0;
    const ts_status s = sm_count(&sms);
    if (s != TS_SUCCESS) return s;
    ts_rowwise_make_plan(c->rows, c->cols, c->uniform, sms, &r->plan);
    r->plan.whole = ts_rowwise_plan_whole(c->rows, c->cols, &r->plan) && c->aligned;
    r->kind = r->plan.whole ? TS_ROWWISE_ROUTE_WHOLE : r->plan.one_pass ? TS_ROWWISE_ROUTE_SHORT : TS_ROWWISE_ROUTE_GENERAL;
    r->launch = r->plan.whole ? l->whole : r->plan.one_pass ? l->short_pass : l->general;
    return TS_SUCCESS;
}

#endif
