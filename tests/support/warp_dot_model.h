/* A model of a GPU warp on the CPU for the exchanges across lanes of ops/warp_dot.h, which the host
 * backend (a warp of one lane) never runs: the op's own code, compiled with 32 or 64 lanes, each
 * lane a thread, each shuffle through a barrier (warp_dot_model_impl.h). The functions run one op
 * on every lane of the model warp, the lanes' values in, the slots the op writes out. */
#ifndef TESSERA_TESTS_WARP_DOT_MODEL_H
#define TESSERA_TESTS_WARP_DOT_MODEL_H

/* ts_wdot_rows_reduce_store's exchange (ts_wdot_reduce_store_impl) for `values` values a lane:
 * values[lane * values_count + j] in, slots[0 .. values) out. */
void ts_model32_reduce_store(float *slots, const float *values, int count);
void ts_model64_reduce_store(float *slots, const float *values, int count);
/* ts_wdot_cols_reduce_store for M x 8 values a lane (values[lane * 8 M + m * 8 + j]) over bands of
 * band_lanes lanes: slots[0 .. 8 M band_lanes) out. */
void ts_model32_cols_reduce_store(float *slots, const float *values, int m, int band_lanes);
void ts_model64_cols_reduce_store(float *slots, const float *values, int m, int band_lanes);

/* A warp's whole dot products, the steps and the exchange, as a kernel's warp makes them alone:
 * rows form, R weight rows (w, ldw bytes) against M rows of A (a, lda bytes) over K elements, the
 * R x M sums to slots[r * M + m]; cols form, the band of 8 band_lanes columns from n0 of a K x N
 * weight (nend = N) against M rows of A over K rows, to slots[m * 8 band_lanes + column]. dtype
 * TS_DTYPE_BF16 or TS_DTYPE_FP16; vec as the ops take it. */
void ts_model32_rows_dot(float *slots, const void *w, long long ldw, int r, const void *a, long long lda, int m,
                         int dtype, long long k, int vec);
void ts_model64_rows_dot(float *slots, const void *w, long long ldw, int r, const void *a, long long lda, int m,
                         int dtype, long long k, int vec);
void ts_model32_cols_dot(float *slots, const void *w, long long ldw, const void *a, long long lda, int m, int dtype,
                         long long k, long long n0, long long nend, int band_lanes, int vec);
void ts_model64_cols_dot(float *slots, const void *w, long long ldw, const void *a, long long lda, int m, int dtype,
                         long long k, long long n0, long long nend, int band_lanes, int vec);

#endif
