/* The launcher of center_rows.c, for the program that calls it (plain C on every backend). */
#ifndef CENTER_ROWS_H
#define CENTER_ROWS_H

#include <tessera/tessera.h>

#ifdef __cplusplus
extern "C" {
#endif

/* y[r][c] = (x[r][c] - mean of row r of x) * scale for a rows x cols fp32 matrix, both row-major
 * and dense, in device memory. TS_ERROR_NULL_POINTER, TS_ERROR_INVALID_SIZE (rows or cols below
 * 1), TS_ERROR_SIZE_OVERFLOW (more rows than one launch covers), or the launch's status. */
ts_status center_rows_f32(float *y, const float *x, int rows, int cols, float scale, ts_stream stream);

#ifdef __cplusplus
}
#endif

#endif
