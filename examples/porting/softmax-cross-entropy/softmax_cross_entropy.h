/* The launcher of softmax_cross_entropy.c, for the program that calls it (plain C on every backend). */
#ifndef SOFTMAX_CROSS_ENTROPY_H
#define SOFTMAX_CROSS_ENTROPY_H

#include <tessera/tessera.h>

#ifdef __cplusplus
extern "C" {
#endif

/* For each row r < rows of logits (vocab columns, rows `stride` elements apart: llm.c's padded Vp),
 * with p = softmax(logits[r]) in fp32:
 *   loss[r] = -log p[targets[r]]
 *   dlogits[r][c] = (p[c] - (c == targets[r])) * dloss[r]   for c < vocab (columns past vocab untouched)
 * logits and dlogits are `dtype` (bf16, fp16, fp32) with the same stride; dlogits may be logits (in
 * place, as llm.c calls it) or NULL (the loss only), and shares no byte with logits otherwise. dloss
 * holds one fp32 scale a row, or is NULL for 1 / rows (the mean loss's gradient). A target outside
 * 0 .. vocab - 1 gives a NaN loss and a gradient without the one-hot. 16-byte accesses need 16-byte
 * aligned logits and a stride of whole 16 bytes (Vp a multiple of 8 for 16-bit logits); anything
 * else is correct but goes element by element. All pointers are device memory.
 * Statuses: TS_ERROR_NULL_POINTER (logits, loss, targets), TS_ERROR_INVALID_ENUM (dtype),
 * TS_ERROR_INVALID_SIZE (rows or vocab below 1), TS_ERROR_INVALID_VALUE (stride below vocab),
 * TS_ERROR_MISALIGNED (a pointer not aligned to its element), TS_ERROR_UNSUPPORTED (more than
 * 2^31 - 1 rows or 2^24 columns), TS_ERROR_SIZE_OVERFLOW, or the launch's. */
ts_status softmax_cross_entropy(void *dlogits, const void *logits, ts_dtype dtype, long long stride, float *loss,
                                const float *dloss, const int *targets, long long rows, int vocab,
                                ts_stream stream);

#ifdef __cplusplus
}
#endif

#endif
