/* Host side of the Hopper tile copies: ts_async_desc_make encodes a TMA tensor map for a global
 * layout (four dimensions: cols, rows, heads, batch, innermost first) whose box is one column
 * chunk of the shared tile, tile_rows x (sw / element size) with sw the tile's swizzle width
 * (ts_cuda_st_swizzle_bytes), swizzled the same way and zero-filling out-of-bounds elements.
 * cuTensorMapEncodeTiled is a driver function: it is fetched through the runtime
 * (cudaGetDriverEntryPointByVersion), so libtessera does not link libcuda. Built like a kernel
 * source (a generated .cu wrapper) so that it sees the same types as the kernels. */
#include <cuda.h>
#include <cudaTypedefs.h>
#include <string.h>

#include "backends/cuda/shared_layout.h"
#include "backends/tma.h"

TS_STATIC_ASSERT(sizeof(CUtensorMap) == sizeof(ts_cuda_tensor_map),
                 "ts_cuda_tensor_map mirrors CUtensorMap");

static ts_status ts_cuda_encode_tiled(PFN_cuTensorMapEncodeTiled_v12000 *fn) {
    void *p = NULL;
    enum cudaDriverEntryPointQueryResult found = cudaDriverEntryPointSymbolNotFound;
    const cudaError_t err =
        cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &p, 12000, cudaEnableDefault, &found);
    if (err != cudaSuccess) {
        (void)cudaGetLastError();
        return err == cudaErrorNoDevice || err == cudaErrorInsufficientDriver ? TS_ERROR_NO_DEVICE
                                                                              : TS_ERROR_UNSUPPORTED;
    }
    if (found != cudaDriverEntryPointSuccess || p == NULL) return TS_ERROR_UNSUPPORTED;
    *fn = (PFN_cuTensorMapEncodeTiled_v12000)p;
    return TS_SUCCESS;
}

TS_EXTERN_C ts_status ts_async_desc_make(ts_async_desc *d, const ts_gl *g, int tile_rows,
                                         int tile_cols, int dtype) {
    ts_status status = ts_async_desc_check(d, g, tile_rows, tile_cols, dtype);
    if (status != TS_SUCCESS) return status;

    const int bytes = TS_DTYPE_BYTES(dtype);
    const int sw = ts_cuda_st_swizzle_bytes(tile_cols * bytes);
    /* A dimension of one index never moves, so its stride is free: give it a dense value (rounded
     * up to the 16 bytes the driver wants) rather than whatever the layout holds. */
    const cuuint64_t row_stride = g->rows > 1 ? (cuuint64_t)g->stride_row * bytes
                                              : ((cuuint64_t)g->cols * bytes + 15) / 16 * 16;
    const cuuint64_t head_stride =
        g->heads > 1 ? (cuuint64_t)g->stride_head * bytes : row_stride * (cuuint64_t)g->rows;
    const cuuint64_t batch_stride =
        g->batch > 1 ? (cuuint64_t)g->stride_batch * bytes : head_stride * (cuuint64_t)g->heads;

    const cuuint64_t dims[4] = {(cuuint64_t)g->cols, (cuuint64_t)g->rows, (cuuint64_t)g->heads,
                                (cuuint64_t)g->batch};
    const cuuint64_t strides[3] = {row_stride, head_stride, batch_stride};
    const cuuint32_t box[4] = {(cuuint32_t)(sw / bytes), (cuuint32_t)tile_rows, 1, 1};
    const cuuint32_t element_strides[4] = {1, 1, 1, 1};
    const CUtensorMapDataType type = dtype == TS_DTYPE_BF16   ? CU_TENSOR_MAP_DATA_TYPE_BFLOAT16
                                     : dtype == TS_DTYPE_FP16 ? CU_TENSOR_MAP_DATA_TYPE_FLOAT16
                                                              : CU_TENSOR_MAP_DATA_TYPE_FLOAT32;
    const CUtensorMapSwizzle swizzle = sw == 128  ? CU_TENSOR_MAP_SWIZZLE_128B
                                       : sw == 64 ? CU_TENSOR_MAP_SWIZZLE_64B
                                                  : CU_TENSOR_MAP_SWIZZLE_32B;

    PFN_cuTensorMapEncodeTiled_v12000 encode = NULL;
    status = ts_cuda_encode_tiled(&encode);
    if (status != TS_SUCCESS) return status;
    CUtensorMap map; /* 64-byte aligned by its type, wherever the caller's d lies */
    memset(&map, 0, sizeof map);
    const CUresult r = encode(&map, type, 4, g->ptr, dims, strides, box, element_strides,
                              CU_TENSOR_MAP_INTERLEAVE_NONE, swizzle, CU_TENSOR_MAP_L2_PROMOTION_L2_128B,
                              CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    if (r != CUDA_SUCCESS) return r == CUDA_ERROR_INVALID_VALUE ? TS_ERROR_INVALID_VALUE : TS_ERROR_RUNTIME;

    memset(d, 0, sizeof *d);
    memcpy(&d->map, &map, sizeof map);
    d->gl = *g;
    d->tile_rows = tile_rows;
    d->tile_cols = tile_cols;
    d->dtype = dtype;
    d->chunk_cols = sw / bytes;
    return TS_SUCCESS;
}
