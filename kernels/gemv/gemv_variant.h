/* One GEMV kernel and its launcher, for one operand dtype, weight layout and bucket of M. Included
 * once per instance (gemv_instances.h) after gemv_common.h, after defining:
 *   TS_GEMV_NAME    the kernel's name (its launcher is TS_GEMV_NAME##_launch)
 *   TS_GEMV_DTYPE   TS_DTYPE_BF16 or TS_DTYPE_FP16, the operands' dtype
 *   TS_GEMV_MB      1, 2, 4 or 8: the rows of A the accumulators hold (the call's M is at most this)
 *   TS_GEMV_NN      0: weights N x K (the rows form); 1: weights K x N (the cols form)
 * and undefines those four at its end. The design: docs/gemm.md ("Decode: GEMV").
 *
 * Weights N x K: block b takes weight rows [4b, 4b + 4); its warps take the steps of K in turn
 * (warp w steps w, w + warps, ...), each lane 16 bytes of each weight row a step, used for all of
 * A's rows (ops/warp_dot.h, the rows form); each warp's sums go through shared memory and the
 * block adds them in warp order. Weights K x N: block b takes a band of 8 * band_lanes columns and
 * its warps the steps of K's rows in turn, each lane 16 bytes (8 columns) of each of 8 rows a step
 * (the cols form). Every weight byte is read once, by one lane. */

#if TS_GEMV_NN
#define TS_GEMV_ACC TS_CAT(TS_CAT(ts_wdot_f32_, TS_GEMV_MB), x8)
#define TS_GEMV_WARPS (TS_GEMV_MB == 8 ? TS_GEMV_NN_WARPS_M8 : TS_GEMV_NN_WARPS)
#define TS_GEMV_BLOCKS TS_GEMV_NN_BLOCKS
#else
#define TS_GEMV_ACC TS_CAT(TS_CAT(ts_wdot_f32_, TS_GEMV_NT_ROWS), TS_CAT(x, TS_GEMV_MB))
#define TS_GEMV_WARPS TS_GEMV_NT_WARPS
#define TS_GEMV_BLOCKS TS_GEMV_NT_BLOCKS
#endif

TS_KERNEL_RESIDENT(TS_GEMV_NAME, TS_GEMV_WARPS, TS_GEMV_BLOCKS, ts_gemv_params, p) {
    const int warp = ts_warp_id(), warps = ts_num_warps();
    const unsigned char *a = (const unsigned char *)p->a;
    float *slots = (float *)ts_shared_base();
    TS_GEMV_ACC acc;
    ts_wdot_zero(&acc);
#if TS_GEMV_NN
    const int band_lanes = p->band_lanes, band = band_lanes * TS_WDOT_CHUNK;
    const long long n0 = (long long)ts_block_x() * band, step = ts_wdot_cols_step_rows(band_lanes);
    for (long long k = warp * step; k < p->k; k += warps * step)
        ts_wdot_cols_step(&acc, (const unsigned char *)p->b, p->ldb * 2, a, p->lda * 2, p->m, TS_GEMV_DTYPE, k, p->k,
                          n0, p->n, band_lanes, p->vec);
    const int values = TS_GEMV_MB * band;
    ts_wdot_cols_reduce_store(slots + warp * values, &acc, band_lanes);
    ts_sync_block();
    ts_wdot_block_store((unsigned char *)p->c, p->c_dtype, p->ldc, slots, values, warps, values, band, 0, n0, p->m,
                        p->n, p->alpha, p->beta);
#else
    const long long n0 = (long long)ts_block_x() * TS_GEMV_NT_ROWS;
    const int nr = p->n - n0 < TS_GEMV_NT_ROWS ? (int)(p->n - n0) : TS_GEMV_NT_ROWS;
    const unsigned char *w = (const unsigned char *)p->b + n0 * p->ldb * 2;
    for (long long k = (long long)warp * TS_WDOT_ROWS_STEP; k < p->k; k += (long long)warps * TS_WDOT_ROWS_STEP)
        ts_wdot_rows_step(&acc, w, p->ldb * 2, nr, a, p->lda * 2, p->m, TS_GEMV_DTYPE, k, p->k, p->vec);
    const int values = TS_GEMV_NT_ROWS * TS_GEMV_MB;
    ts_wdot_rows_reduce_store(slots + warp * values, &acc);
    ts_sync_block();
    ts_wdot_block_store((unsigned char *)p->c, p->c_dtype, p->ldc, slots, values, warps, values, TS_GEMV_MB, 1, n0,
                        p->m, p->n, p->alpha, p->beta);
#endif
}

/* The grid (a block for every 4 weight rows, or every band of columns), the warps (no more than
 * K's steps) and the shared memory of the warps' sums. */
static ts_status TS_CAT(TS_GEMV_NAME, _launch)(const ts_gemv_params *params, ts_stream stream) {
    const ts_gemv_params p = *params;
#if TS_GEMV_NN
    const long long band = (long long)p.band_lanes * TS_WDOT_CHUNK, step = ts_wdot_cols_step_rows(p.band_lanes);
    const long long blocks = (p.n + band - 1) / band, values = TS_GEMV_MB * band;
#else
    const long long step = TS_WDOT_ROWS_STEP;
    const long long blocks = (p.n + TS_GEMV_NT_ROWS - 1) / TS_GEMV_NT_ROWS, values = TS_GEMV_NT_ROWS * TS_GEMV_MB;
#endif
    const long long steps = (p.k + step - 1) / step;
    const int warps = steps < TS_GEMV_WARPS ? (int)steps : TS_GEMV_WARPS;
    return TS_LAUNCH(TS_GEMV_NAME, ts_grid_1d((unsigned)blocks), warps, (size_t)(warps * values) * sizeof(float),
                     stream, p);
}

#undef TS_GEMV_ACC
#undef TS_GEMV_WARPS
#undef TS_GEMV_BLOCKS
#undef TS_GEMV_NAME
#undef TS_GEMV_MB
#undef TS_GEMV_NN
