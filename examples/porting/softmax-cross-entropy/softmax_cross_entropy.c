/* Fused softmax cross-entropy, the loss and the logits' gradient, ported from llm.c's fused
 * classifier (llmc/fused_classifier.cuh: prepare_softmax_blockwide3, fused_classifier_kernel5,
 * fused_classifier). A block takes a row, a token's logits over the vocabulary, and each warp takes
 * strips of XENT_E columns of it (warp vectors, 16-byte accesses). A first pass folds each strip into
 * the lane's online maximum and sum; the warp and then the block combine them; one lane writes the
 * loss. A second pass reads the warp's strips again, from L2, and writes the gradient. One kernel
 * per dtype. */
#include <limits.h>
#include <math.h>

#include "backends/backend.h"
#include "ops/index.h"
#include "ops/one_lane.h"
#include "ops/warp_stream.h"
#include "templates/rowwise.h" /* ts_rowwise_check_matrix, ts_rowwise_dtype_index */

#include "softmax_cross_entropy.h"

#define XENT_WARPS 16
#define XENT_BLOCKS_PER_SM 2 /* two rows in flight an SM; 64 registers a lane on sm_90a */
#define XENT_E 1024          /* columns of a warp's strip */
#define XENT_LOG2E 1.4426950408889634f

typedef struct xent_params {
    const void *logits;
    void *dlogits;
    float *loss;
    const float *dloss;
    const int *targets;
    long long stride;
    int vocab;
    float mean_dloss;
} xent_params;

/* The gradient of strip element x at column c (a user map over two warp vectors). */
#define XENT_GRAD(x, c) ((expf((x)-max) * inv - ((c) == target)) * dloss)

TS_DEVICE void xent_row(const xent_params *p, int dtype) {
    const int warp = ts_warp_id(), vocab = p->vocab, strips = (vocab + XENT_E - 1) / XENT_E;
    const int mine = (strips - warp + XENT_WARPS - 1) / XENT_WARPS; /* strips warp, warp + XENT_WARPS, ... */
    const long long row = ts_block_x(), bytes = TS_DTYPE_BYTES(dtype);
    const unsigned char *x = (const unsigned char *)p->logits + row * p->stride * bytes;
    const int target = p->targets[row];
    /* The target's logit, read before the block's first barrier: after it, warps overwrite logits. */
    const float picked = target >= 0 && target < vocab ? ts_wv_get(x, dtype, target) : NAN;
    ts_wv_f32_1024 v, col;
    float m = -INFINITY, s = 0.0f;
    for (int i = mine - 1; i >= 0; --i) { /* last strips first, so that the second pass finds its first in L2 */
        const int c0 = (warp + i * XENT_WARPS) * XENT_E;
        ts_wv_load(&v, x + c0 * bytes, dtype, vocab - c0);
        ts_wv_fill_from(&v, vocab - c0, -INFINITY);
        ts_stream_strip_online(m, s, &v, XENT_LOG2E);
    }
    float *slots = (float *)ts_shared_base();
    int parity = 0;
    const float max = ts_group_max(ts_wv_warp_combine(m, 2), slots, warp, XENT_WARPS, &parity);
    const float sum = ts_group_sum(ts_wv_warp_combine(m == -INFINITY ? 0.0f : s * exp2f((m - max) * XENT_LOG2E), 0),
                                   slots, warp, XENT_WARPS, &parity);
    if (warp == 0) ts_store_one_f32(&p->loss[row], logf(sum) + max - picked);
    if (!p->dlogits) return;
    const float inv = 1.0f / sum, dloss = p->dloss ? p->dloss[row] : p->mean_dloss;
    unsigned char *dx = (unsigned char *)p->dlogits + row * p->stride * bytes;
    for (int i = 0; i < mine; ++i) {
        const int c0 = (warp + i * XENT_WARPS) * XENT_E;
        ts_wv_load(&v, x + c0 * bytes, dtype, vocab - c0);
        ts_wv_iota(&col, c0);
        TS_WV_MAP2(&v, &v, &col, XENT_GRAD);
        ts_wv_store(dx + c0 * bytes, &v, dtype, vocab - c0);
    }
}

/* A kernel of one dtype, and its launch: a block a row. */
typedef ts_status (*xent_launch_fn)(xent_params p, unsigned rows, ts_stream stream);
#define XENT_KERNEL(name, dtype)                                                                   \
    TS_KERNEL_RESIDENT(name, XENT_WARPS, XENT_BLOCKS_PER_SM, xent_params, p) { xent_row(p, dtype); } \
    static ts_status name##_launch(xent_params p, unsigned rows, ts_stream stream) {               \
        return TS_LAUNCH(name, ts_grid_1d(rows), XENT_WARPS, 2 * XENT_WARPS * sizeof(float), stream, p); \
    }
XENT_KERNEL(xent_bf16, TS_DTYPE_BF16)
XENT_KERNEL(xent_fp16, TS_DTYPE_FP16)
XENT_KERNEL(xent_f32, TS_DTYPE_F32)
static const xent_launch_fn xent_launchers[3] = {xent_bf16_launch, xent_fp16_launch, xent_f32_launch};

TS_EXTERN_C ts_status softmax_cross_entropy(void *dlogits, const void *logits, ts_dtype dtype, long long stride,
                                            float *loss, const float *dloss, const int *targets, long long rows,
                                            int vocab, ts_stream stream) {
    if (!ts_rowwise_dtype_valid(dtype)) return TS_ERROR_INVALID_ENUM;
    if (rows < 1 || vocab < 1) return TS_ERROR_INVALID_SIZE;
    if (!loss || !targets) return TS_ERROR_NULL_POINTER;
    if (rows > INT_MAX || vocab > (1 << 24)) return TS_ERROR_UNSUPPORTED; /* the grid; exact column indices */
    ts_status s;
    if ((s = ts_rowwise_check_matrix(logits, dtype, rows, vocab, stride)) != TS_SUCCESS ||
        (dlogits && (s = ts_rowwise_check_matrix(dlogits, dtype, rows, vocab, stride)) != TS_SUCCESS))
        return s;
    const xent_params p = {logits, dlogits, loss, dloss, targets, stride, vocab, 1.0f / (float)rows};
    return xent_launchers[ts_rowwise_dtype_index(dtype)](p, (unsigned)rows, stream);
}
