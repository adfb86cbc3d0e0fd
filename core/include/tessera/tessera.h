/* Tessera public C API: status codes, devices, memory, streams, events, the launch planner and
 * the library's kernels. One header for every backend (host, cuda, hip); a plain C11 program
 * includes it and links libtessera. Every function returns a ts_status and never prints, exits
 * or aborts. Every argument is checked before any work starts, in shared code, so that each
 * backend returns the same status; docs/contract.md states the contract this header's functions
 * share: sizes and their overflow, which buffers may overlap, handles, threads, and what stays
 * undefined (above all, buffers smaller than their arguments say, which no check can see). */
#ifndef TESSERA_TESSERA_H
#define TESSERA_TESSERA_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TESSERA_VERSION_MAJOR 0
#define TESSERA_VERSION_MINOR 1
#define TESSERA_VERSION_PATCH 0

/* ---- status ------------------------------------------------------------------------------ */

typedef enum ts_status {
    TS_SUCCESS = 0,
    TS_ERROR_NULL_POINTER,        /* a required pointer argument is NULL */
    TS_ERROR_INVALID_SIZE,        /* a size, count or dimension is zero or negative */
    TS_ERROR_SIZE_OVERFLOW,       /* sizes whose product or index range overflows */
    TS_ERROR_INVALID_ENUM,        /* an enum argument holds no known value */
    TS_ERROR_INVALID_VALUE,       /* an argument is out of its documented range, buffers overlap that
                                   * must not, or a handle is not live (host backend) */
    TS_ERROR_MISALIGNED,          /* a pointer or leading dimension breaks a stated alignment */
    TS_ERROR_INVALID_DEVICE,      /* a device ordinal that does not exist */
    TS_ERROR_NO_DEVICE,           /* the backend found no device */
    TS_ERROR_UNSUPPORTED,         /* valid, but this backend or device cannot serve it */
    TS_ERROR_OUT_OF_MEMORY,       /* an allocation failed */
    TS_ERROR_RESOURCES,           /* a launch asks for more threads/shared memory than a block may have */
    TS_ERROR_LAUNCH_FAILED,       /* the backend refused or failed a kernel launch */
    TS_ERROR_DEADLOCK,            /* host backend: a kernel's warps waited past the deadlock timeout */
    TS_ERROR_NOT_READY,           /* an event or stream has not completed yet */
    TS_ERROR_RUNTIME,             /* any other error reported by the backend runtime */
    TS_ERROR_UNGUARDED_ATOMIC,    /* host backend: a kernel's atomic outside TS_ONE_LANE, which every lane of a GPU warp would repeat */
    TS_STATUS_COUNT_              /* number of status codes; not a status */
} ts_status;

/* A short, static, human-readable description; never NULL, also for unknown values. */
const char *ts_status_string(ts_status status);

/* ---- element types ------------------------------------------------------------------------- */

typedef enum ts_dtype {
    TS_DTYPE_F32 = 1,
    TS_DTYPE_BF16 = 2,
    TS_DTYPE_FP16 = 3
} ts_dtype;

/* ---- backends and devices ------------------------------------------------------------------ */

typedef enum ts_backend {
    TS_BACKEND_HOST = 0,
    TS_BACKEND_CUDA = 1,
    TS_BACKEND_HIP = 2
} ts_backend;

/* Which backend this build of the library was compiled for. */
ts_status ts_get_backend(ts_backend *backend);
/* "host", "cuda" or "hip" in *name (static storage). */
ts_status ts_backend_name(ts_backend backend, const char **name);
/* What this library was built from, for records of results (static storage; either may be NULL,
 * not both): *commit the source tree's commit, e.g. "763c82f1a2b3", "763c82f1a2b3-dirty" or
 * "unknown"; *options a one-line JSON object of the build's options (backend, build_type, targets,
 * c_compiler, c_flags, device_compiler, device_flags, sanitize, kernel_flags). */
ts_status ts_build_info(const char **commit, const char **options);

typedef struct ts_device_props {
    char name[256];                 /* e.g. "NVIDIA H200", "AMD Instinct MI300X", "host (4 threads)" */
    char arch[32];                  /* "sm_90a", "gfx942", "gfx90a", "host" */
    ts_backend backend;
    int sm_count;                   /* SMs (NVIDIA), CUs (AMD), worker threads (host) */
    int warp_lanes;                 /* 32, 64, or 1 on host (a warp is one thread) */
    int partitions_per_sm;          /* schedulers (NVIDIA) or SIMDs (AMD) that split the register file */
    int max_threads_per_block;
    int max_warps_per_sm;           /* resident warps (waves) an SM can hold */
    int max_blocks_per_sm;          /* resident blocks an SM can hold */
    int regs_per_sm;                /* 32-bit registers per SM, all lanes together */
    int max_regs_per_thread;
    int reg_alloc_unit;             /* per-thread register counts are rounded up to a multiple of this */
    size_t shared_mem_per_block;    /* the most dynamic shared memory one block may ask for */
    size_t shared_mem_per_sm;
    size_t shared_mem_reserved_per_block; /* taken by the system from the SM's pool for each block */
    size_t l2_bytes;
    size_t global_mem_bytes;
    int clock_khz;                  /* 0 where unknown */
    int memory_clock_khz;           /* 0 where unknown */
    int memory_bus_bits;            /* 0 where unknown */
} ts_device_props;

ts_status ts_device_count(int *count);
ts_status ts_device_get_props(int device, ts_device_props *props);
/* The kernels keep the properties of each device they ran on; ts_device_set has them queried
 * afresh by the next launch. */
ts_status ts_device_set(int device);
ts_status ts_device_get(int *device);
ts_status ts_device_synchronize(void);

/* ---- memory -------------------------------------------------------------------------------- */

typedef enum ts_memcpy_kind {
    TS_MEMCPY_HOST_TO_HOST = 0,
    TS_MEMCPY_HOST_TO_DEVICE = 1,
    TS_MEMCPY_DEVICE_TO_HOST = 2,
    TS_MEMCPY_DEVICE_TO_DEVICE = 3,
    TS_MEMCPY_DEFAULT = 4           /* direction inferred from the pointers (unified addressing) */
} ts_memcpy_kind;

/* Device memory, at least 256-byte aligned. bytes == 0 is TS_ERROR_INVALID_SIZE; above 2^48,
 * TS_ERROR_SIZE_OVERFLOW. */
ts_status ts_malloc(void **ptr, size_t bytes);
/* Frees what ts_malloc returned. ts_free(NULL) is TS_SUCCESS, as free(NULL) is. Any other pointer
 * (freed already, pointing into an allocation, not from ts_malloc) is TS_ERROR_INVALID_VALUE on
 * the host backend; CUDA and HIP report it as their runtime does (a pointer their allocator did
 * not return: TS_ERROR_INVALID_VALUE). */
ts_status ts_free(void *ptr);

/* ---- streams and events -------------------------------------------------------------------- */

/* NULL is the default stream. On the host backend work runs when it is submitted. A stream or
 * event is live from its create to its destroy; the host backend refuses any other handle with
 * TS_ERROR_INVALID_VALUE (a second destroy, a destroyed event recorded). On CUDA and HIP a
 * ts_stream is the runtime's stream (cudaStream_t, hipStream_t: one made elsewhere may be
 * passed), and a destroyed handle is undefined there. */
typedef struct ts_stream_opaque *ts_stream;
typedef struct ts_event_opaque *ts_event;

ts_status ts_stream_create(ts_stream *stream);
ts_status ts_stream_destroy(ts_stream stream);
ts_status ts_stream_synchronize(ts_stream stream);

/* dst and src must not overlap (TS_ERROR_INVALID_VALUE); bytes above 2^48: TS_ERROR_SIZE_OVERFLOW. */
ts_status ts_memcpy(void *dst, const void *src, size_t bytes, ts_memcpy_kind kind);
ts_status ts_memcpy_async(void *dst, const void *src, size_t bytes, ts_memcpy_kind kind, ts_stream stream);
ts_status ts_memset(void *dst, int value, size_t bytes);
ts_status ts_memset_async(void *dst, int value, size_t bytes, ts_stream stream);

ts_status ts_event_create(ts_event *event);
ts_status ts_event_destroy(ts_event event);
ts_status ts_event_record(ts_event event, ts_stream stream);
ts_status ts_event_synchronize(ts_event event);
/* Milliseconds between two recorded events. */
ts_status ts_event_elapsed_ms(float *ms, ts_event start, ts_event end);

/* ---- launch planner ------------------------------------------------------------------------ */

typedef struct ts_kernel_resources {
    int warps_per_block;
    int regs_per_thread;            /* 0 means "unknown": registers are not taken as a limit */
    size_t shared_mem_per_block;    /* dynamic + static bytes */
} ts_kernel_resources;

typedef enum ts_plan_limiter {
    TS_LIMIT_WARPS = 0,             /* resident warps (threads) per SM */
    TS_LIMIT_REGISTERS = 1,
    TS_LIMIT_SHARED_MEMORY = 2,
    TS_LIMIT_BLOCKS = 3             /* the hardware cap on resident blocks per SM */
} ts_plan_limiter;

typedef struct ts_launch_plan {
    int blocks_per_sm;              /* resident blocks an SM holds at once */
    ts_plan_limiter limiter;        /* the resource that sets blocks_per_sm */
    int resident_warps_per_sm;      /* blocks_per_sm * warps_per_block */
    double occupancy;               /* resident_warps_per_sm / max_warps_per_sm */
    long long grid_blocks;
    long long blocks_per_wave;      /* sm_count * blocks_per_sm */
    long long waves;                /* ceil(grid_blocks / blocks_per_wave) */
    long long last_wave_blocks;     /* blocks in the last wave */
    double last_wave_fill;          /* last_wave_blocks / blocks_per_wave */
    double wave_efficiency;         /* grid_blocks / (waves * blocks_per_wave) */
    long long busiest_sm_blocks;    /* ceil(grid_blocks / sm_count): blocks the most loaded SM runs */
    double sm_balance;              /* grid_blocks / (sm_count * busiest_sm_blocks) */
    double predicted_efficiency;    /* for blocks that each fill an SM's throughput: sm_balance */
    long long persistent_grid;      /* blocks for a persistent kernel: one full wave */
} ts_launch_plan;

/* Plans a launch of grid_blocks blocks. Returns TS_ERROR_RESOURCES when one block cannot fit an SM
 * (too many warps, registers or shared memory); plan is then untouched. */
ts_status ts_plan_launch(const ts_device_props *device, const ts_kernel_resources *kernel,
                         long long grid_blocks, ts_launch_plan *plan);
/* A one-paragraph explanation of a plan, NUL-terminated and truncated to fit buffer_size. plan is
 * the one ts_plan_launch made for this device, kernel and its grid_blocks: any other plan is
 * TS_ERROR_INVALID_VALUE. */
ts_status ts_plan_explain(const ts_device_props *device, const ts_kernel_resources *kernel,
                          const ts_launch_plan *plan, char *buffer, size_t buffer_size);
ts_status ts_plan_limiter_name(ts_plan_limiter limiter, const char **name);

/* ---- first kernels ------------------------------------------------------------------------- */

/* The compute-bound kernel of the hardware-model puzzles: grid_blocks blocks of threads_per_block
 * threads (a multiple of the device's warp_lanes, at most 1024; on the host backend a warp is one
 * thread, so 1 to 32). Each warp owns 256 floats of data (8 per lane on CUDA, 4 on HIP) and
 * advances each as an independent chain x = fmaf(x, a, b), `iterations` times, in place. data holds
 * grid_blocks * (threads_per_block / warp_lanes) * 256 floats and is 16-byte aligned. */
ts_status ts_puzzle_fma(float *data, long long grid_blocks, int threads_per_block, int iterations,
                        float a, float b, ts_stream stream);
/* Resources of that kernel for the launch planner. */
ts_status ts_puzzle_fma_resources(int threads_per_block, ts_kernel_resources *resources);

/* C = A + B for fp32 matrices of rows x cols with leading dimensions (in elements), through
 * global -> shared -> registers -> global in 16x16 tiles; any rows, cols >= 1, each matrix within
 * 2^46 elements of its first ((rows - 1) * ld + cols, else TS_ERROR_SIZE_OVERFLOW). C may be A or
 * B exactly (the same pointer and leading dimension); otherwise it shares no byte with either
 * (TS_ERROR_INVALID_VALUE). */
ts_status ts_tile_add_f32(float *c, const float *a, const float *b, int rows, int cols,
                          int ldc, int lda, int ldb, ts_stream stream);

/* ---- GEMM ---------------------------------------------------------------------------------- */

typedef enum ts_trans {
    TS_NO_TRANS = 0,   /* the matrix as stored */
    TS_TRANS = 1       /* its transpose */
} ts_trans;

/* C = alpha * op(A) * op(B) + beta * C, all matrices row-major in device memory.
 *   op(A) is M x K: A is stored M x K (TS_NO_TRANS) or K x M (TS_TRANS), leading dimension lda;
 *   op(B) is K x N: B is stored K x N (TS_NO_TRANS) or N x K (TS_TRANS), leading dimension ldb;
 *   C is M x N with leading dimension ldc.
 * A and B are both bf16 or both fp16; C is bf16, fp16 or fp32; accumulation is fp32. Any M, N,
 * K >= 1. Leading dimensions are at least the stored row length and multiples of 8 elements, and
 * A, B and C are 16-byte aligned (the tensor-memory copies need 16-byte strides): otherwise
 * TS_ERROR_MISALIGNED. Each stored matrix lies within 2^46 elements of its first, and leading
 * dimensions are at most 2^31 (else TS_ERROR_SIZE_OVERFLOW). C shares no byte with A or B
 * (TS_ERROR_INVALID_VALUE; A and B may overlap each other). With beta == 0, C is only written (it
 * may hold anything, NaN included).
 * Products of at most 8 rows with A as stored (trans_a = TS_NO_TRANS, as in decoding) run on
 * GEMV kernels that read B once, in 16-byte loads, each used for every row of A (docs/gemm.md),
 * except 5 to 8 rows against many weight rows stored N x K (4096 or more on sm_90a), which are
 * faster on the 16-wide tiles below; other products of at most 64 rows are computed transposed,
 * C^T = op(B)^T op(A)^T, on tiles 16 (M <= 16) or 64 columns of M wide instead of 256 columns of
 * N. Where the tiles of C are too few for the SMs, their K ranges are split over several SMs
 * (split-K, as ts_gemm_ex says), the pieces' partial results in scratch memory the library takes
 * for the call from a pool it keeps for each device, in stream order: calls on different streams
 * never share it, and a stream capture records it as the graph's allocation nodes. The pool keeps
 * what it has taken until the process ends: ts_gemm_workspace_size() bytes (16.5 MiB on the H200)
 * for each call in flight at once on different streams. Where none can be had, the tiles run
 * whole (the same bounds on C, other roundings). ts_gemm_ex with a workspace of the caller's
 * takes nothing from the pool. */
ts_status ts_gemm(ts_trans trans_a, ts_trans trans_b, int m, int n, int k, float alpha,
                  const void *a, ts_dtype a_type, long long lda,
                  const void *b, ts_dtype b_type, long long ldb,
                  float beta, void *c, ts_dtype c_type, long long ldc, ts_stream stream);

/* ts_gemm with a workspace, which lets a tile of C be computed in pieces of its K range on several
 * SMs. Split-K: where the tiles of C are too few for the SMs (at most a quarter as many as the
 * GPU's 2-SM clusters, with K of 1024 or more; on the H200 M <= 256 with N = 4096), each tile's K
 * range is cut into four or more pieces, up to clusters / tiles, of at least 256 columns of A
 * each (two or more where M >= 128 fills the tiles' rows: half the clusters or fewer, as 256 x
 * 8192 on the H200), and a second kernel adds the pieces' results in a fixed order: the products
 * of few rows, as in decoding (docs/results.md). workspace: device memory of at
 * least ts_gemm_workspace_size() bytes, 16-byte aligned, of any contents (a call reads only the
 * partial results its own pieces write); calls that share a workspace must run one after the
 * other (the same stream). NULL runs as ts_gemm (the library's scratch). Too small: TS_ERROR_INVALID_SIZE. The bytes of it
 * a call uses (ts_gemm_workspace_size()) share none with A, B or C (TS_ERROR_INVALID_VALUE). */
ts_status ts_gemm_ex(ts_trans trans_a, ts_trans trans_b, int m, int n, int k, float alpha,
                     const void *a, ts_dtype a_type, long long lda,
                     const void *b, ts_dtype b_type, long long ldb,
                     float beta, void *c, ts_dtype c_type, long long ldc,
                     void *workspace, size_t workspace_bytes, ts_stream stream);
/* The workspace ts_gemm_ex needs on the current device: a few tens of MiB at most (a tile's
 * partial results for each block of the GPU's persistent grid; 16.5 MiB on the H200). */
ts_status ts_gemm_workspace_size(size_t *bytes);
/* How ts_gemm_ex runs a product of this shape and transpose form on the current device, in one
 * sentence, NUL-terminated and truncated to fit buffer_size: the kernel (GEMV; C^T on the skinny
 * tiles 16, 64 or 128 columns of M wide; the 128 x 256 tiles), its tiles, and the pieces each
 * tile's K range is cut into, added in thread-block clusters or by a second kernel from the
 * workspace (ts_gemm: the library's scratch, without which the tiles run whole). The dtypes do not
 * change the plan. trans_a, trans_b: TS_ERROR_INVALID_ENUM as ts_gemm_ex; m, n or k below 1,
 * buffer_size 0: TS_ERROR_INVALID_SIZE; buffer NULL: TS_ERROR_NULL_POINTER. */
ts_status ts_gemm_explain(ts_trans trans_a, ts_trans trans_b, int m, int n, int k, char *buffer, size_t buffer_size);

/* ---- attention ----------------------------------------------------------------------------- */

typedef struct ts_attention_shape {
    int batch;      /* B */
    int heads_q;    /* query heads H */
    int heads_kv;   /* key/value heads; divides heads_q (grouped-query; 1 for multi-query) */
    int seq_q;      /* query rows N_q */
    int seq_kv;     /* key/value rows N_kv */
    int head_dim;   /* D: 64 or 128 */
} ts_attention_shape;

/* O = softmax(scale * Q K^T [+ causal mask]) V, per (batch, query head); query head h reads
 * key/value head h / (heads_q / heads_kv). Q and O are (B, H, N_q, D), K and V (B, H_kv, N_kv, D),
 * all of one dtype (bf16 or fp16), the last dimension contiguous; strides[0..2] are the batch,
 * head and row strides in elements, multiples of 8, and the pointers 16-byte aligned. The strides
 * may nest in any order, (B, H, N, D) or (B, N, H, D) memory alike (Q, K and V may point into one
 * fused projection output), as long as no two elements overlap (else TS_ERROR_INVALID_VALUE); each
 * tensor lies within 2^46 elements of its first (else TS_ERROR_SIZE_OVERFLOW). O and lse share no
 * byte with Q, K, V or each other (TS_ERROR_INVALID_VALUE); Q, K and V may overlap. The softmax
 * runs in fp32. scale > 0 with scale * log2(e) a finite float (below about 2.36e38), else
 * TS_ERROR_INVALID_VALUE; scores whose scaled value overflows fp32 give NaN. causal (0 or 1) masks
 * key j > query i, aligned at the top left as PyTorch's is_causal. lse, if not NULL, receives for
 * each (b, h, i) the natural log of the row's sum of exp(scale * q.k) over the unmasked keys,
 * contiguous (B, H, N_q) fp32, for a backward pass. Any N_q, N_kv >= 1; B x H x (N_q in tiles of
 * 64 to 192 rows, by backend and D) below 2^30, else TS_ERROR_SIZE_OVERFLOW. */
ts_status ts_attention_forward(const ts_attention_shape *shape, ts_dtype dtype, const void *q,
                               const long long q_strides[3], const void *k, const long long k_strides[3],
                               const void *v, const long long v_strides[3], void *o,
                               const long long o_strides[3], float *lse, float scale, int causal,
                               ts_stream stream);

/* ---- decode attention over a paged key-value cache (docs/decode.md) -------------------------- */

/* One decode step: N_q query rows of each of B sequences (N_q = 1 for plain decoding, more for
 * speculative tokens) against the keys and values of each sequence held in fixed-size pages. */
typedef struct ts_attention_decode_desc {
    int batch;      /* sequences B */
    int heads_q;    /* query heads Hq */
    int heads_kv;   /* key/value heads Hkv; divides heads_q (grouped-query; 1 for multi-query) */
    int queries;    /* N_q: query rows a sequence, 1 .. 16 (TS_ERROR_UNSUPPORTED above) */
    int head_dim;   /* D: 64 or 128 (TS_ERROR_UNSUPPORTED otherwise) */
    int page_size;  /* tokens a page: a multiple of 16 from 16 to 256 */
    int num_pages;  /* pages in each of k_cache and v_cache */
    int max_pages;  /* block-table entries a sequence; max_pages x page_size at most 2^30 */
    float scale;    /* > 0, scale * log2(e) finite, e.g. 1 / sqrt(D) */
    int causal;     /* 1: query row i of N_q sees keys < seq_len - N_q + 1 + i (bottom right); 0: all */
} ts_attention_decode_desc;

/* The workspace ts_attention_decode needs for desc on the current device (the split count follows
 * its SM count): desc checked as ts_attention_decode checks it. */
ts_status ts_attention_decode_workspace_size(const ts_attention_decode_desc *desc, size_t *bytes);

/* O = softmax(scale * Q K^T [+ causal mask]) V per sequence b, query head h and query row i, over
 * the sequence's seq_lens[b] keys, with query head h reading key/value head h / (Hq / Hkv).
 *   q, out       (B, Hq, N_q, D) contiguous, dtype (bf16 or fp16), 16-byte aligned
 *   k_cache,     [num_pages][Hkv][page_size][D] contiguous, dtype, 16-byte aligned: a page holds
 *   v_cache      page_size tokens, each head's tokens contiguous (a page's keys of one head are
 *                page_size x D consecutive elements)
 *   block_table  int32 [B][max_pages] on the device: token t of sequence b lies in page
 *                block_table[b][t / page_size], slot t % page_size; entries past the sequence are
 *                not read
 *   seq_lens     int32 [B] on the device: keys of each sequence, 0 .. max_pages x page_size
 *   lse          NULL, or fp32 (B, Hq, N_q) contiguous: the natural log of each row's sum of
 *                exp(scale q.k) over its keys
 * fp32 softmax and accumulation. A row that sees no key (seq_len 0, or under the causal mask a
 * row with seq_len - N_q + 1 + i <= 0) gives zeros and lse -inf. Values on the device are not
 * checked: seq_lens are taken clamped to [0, max_pages x page_size], and a block-table entry
 * outside [0, num_pages) reads zeros in place of its page (never memory outside the cache).
 * workspace: device memory of at least ts_attention_decode_workspace_size() bytes (else
 * TS_ERROR_INVALID_SIZE), 16-byte aligned; calls that share one run one after the other (the same
 * stream). Statuses: TS_ERROR_NULL_POINTER, TS_ERROR_INVALID_ENUM (dtype), TS_ERROR_UNSUPPORTED
 * (fp32, D, N_q), TS_ERROR_INVALID_SIZE (a size <= 0), TS_ERROR_INVALID_VALUE (heads that do not
 * divide, page_size, scale, causal), TS_ERROR_MISALIGNED, TS_ERROR_SIZE_OVERFLOW (a tensor past 2^46
 * elements, max_pages x page_size past 2^30, Hq / Hkv x N_q past 2^20, B x Hkv x row tiles of 16
 * past 2^24), TS_ERROR_NO_DEVICE, and TS_ERROR_INVALID_VALUE where out, lse or the bytes of the
 * workspace the call uses share a byte with any other tensor of the call (q, the caches, the block
 * table and seq_lens may overlap one another). */
ts_status ts_attention_decode(const ts_attention_decode_desc *desc, ts_dtype dtype, const void *q,
                              const void *k_cache, const void *v_cache, const int *block_table,
                              const int *seq_lens, void *out, float *lse, void *workspace,
                              size_t workspace_bytes, ts_stream stream);
/* The gradients of ts_attention_forward: dQ, dK and dV from Q, K, V, the forward's output O and
 * log-sum-exp lse, and dO, the gradient of the loss with respect to O (docs/attention-backward.md).
 * The shape, dtype, scale, causal flag and tensor layouts are the forward's: Q, O, dO and dQ are
 * (B, H, N_q, D), K, V, dK and dV (B, H_kv, N_kv, D), all of one dtype (bf16 or fp16), the last
 * dimension contiguous, strides in elements, multiples of 8, pointers 16-byte aligned; lse is the
 * forward's, (B, H, N_q) contiguous fp32, 4-byte aligned. With grouped-query heads, dK and dV of a
 * key-value head are summed over the query heads that read it. The gradients are accumulated in
 * fp32 and rounded once to the dtype. At D = 128 without the causal mask dQ is summed over the key
 * blocks with fp32 atomics (the faster form there), so its last bits may differ from call to call
 * (dK and dV do not); elsewhere, and always with ts_attention_backward_ex's
 * TS_ATTENTION_DETERMINISTIC, every call gives the same bits (docs/attention-backward.md).
 * workspace: device memory of at least ts_attention_backward_workspace_size(shape) bytes, 16-byte
 * aligned, that nothing else uses during the call (NULL: TS_ERROR_NULL_POINTER; too small:
 * TS_ERROR_INVALID_SIZE; misaligned: TS_ERROR_MISALIGNED). dQ, dK, dV and the workspace's bytes
 * share none with one another or with Q, K, V, O, dO and lse (TS_ERROR_INVALID_VALUE); the inputs
 * may overlap. Statuses otherwise as ts_attention_forward's: B x H x ceil(N_q / 64) and
 * B x H_kv x ceil(N_kv / 64) below 2^30, else TS_ERROR_SIZE_OVERFLOW. */
ts_status ts_attention_backward(const ts_attention_shape *shape, ts_dtype dtype, const void *q,
                                const long long q_strides[3], const void *k, const long long k_strides[3],
                                const void *v, const long long v_strides[3], const void *o,
                                const long long o_strides[3], const void *d_o, const long long do_strides[3],
                                const float *lse, void *dq, const long long dq_strides[3], void *dk,
                                const long long dk_strides[3], void *dv, const long long dv_strides[3], float scale,
                                int causal, void *workspace, size_t workspace_bytes, ts_stream stream);
/* ts_attention_backward with flags. 0: ts_attention_backward's choice: at D = 128 without the causal
 * mask the atomic form, dQ summed over the key blocks inside the dK/dV kernel with fp32 atomics (five
 * matrix products; dQ's last bits may differ run to run, dK and dV are the same bits as the
 * deterministic form's); elsewhere the deterministic form, where the atomic form measured no faster.
 * TS_ATTENTION_DETERMINISTIC: the deterministic form at every shape, dQ by a kernel of its own in a
 * fixed order, without atomics (seven matrix products, 8 bytes of workspace a query row): every
 * call gives the same bits. Where the architecture has no atomic form (CDNA: tuning in
 * kernels/attention_backward/tuning.h), both are the deterministic form. Any other bit:
 * TS_ERROR_INVALID_VALUE (after the checks of the other arguments). */
#define TS_ATTENTION_DETERMINISTIC 1u
ts_status ts_attention_backward_ex(const ts_attention_shape *shape, ts_dtype dtype, const void *q,
                                   const long long q_strides[3], const void *k, const long long k_strides[3],
                                   const void *v, const long long v_strides[3], const void *o,
                                   const long long o_strides[3], const void *d_o, const long long do_strides[3],
                                   const float *lse, void *dq, const long long dq_strides[3], void *dk,
                                   const long long dk_strides[3], void *dv, const long long dv_strides[3],
                                   float scale, int causal, unsigned flags, void *workspace, size_t workspace_bytes,
                                   ts_stream stream);
/* The workspace either form needs for a shape, per query row (rounded up to 64 rows) of each
 * (batch, query head): 8 bytes (the rows' log-sum-exp and D), and at D = 128 4 D more for the atomic
 * form's fp32 dQ sums (a call in the deterministic form, causal or with TS_ATTENTION_DETERMINISTIC,
 * uses the first 8 bytes a row; an architecture without the atomic form asks for those 8 only).
 * Needs no device; the shape's statuses are the call's. */
ts_status ts_attention_backward_workspace_size(const ts_attention_shape *shape, size_t *bytes);

/* ---- fused memory-bound kernels: LayerNorm, RMSNorm, rotary embedding, softmax ---------------- */
/* docs/memory-bound.md describes these. Tensors live in device memory; the last dimension is
 * contiguous and rows are `stride` elements apart. Pointers must be aligned to their element size
 * (else TS_ERROR_MISALIGNED); full speed needs 16-byte aligned pointers and row strides that are
 * multiples of 16 bytes, other layouts take a slower element-wise path. A matrix of rows x stride
 * elements beyond 2^60 is TS_ERROR_SIZE_OVERFLOW. An output shares no byte with another tensor of
 * the call (TS_ERROR_INVALID_VALUE), except where a function lets it be its input exactly: the
 * same pointer, dtype and stride (in place). Inputs may overlap one another. */

/* Largest row the norms take (TS_ERROR_UNSUPPORTED above it; 8192 on HIP), and the longest softmax
 * row held in registers: the softmax takes longer rows too (up to 2^30 columns), reading them twice. */
#define TS_ROWWISE_MAX_COLS 16384

/* LayerNorm and RMSNorm over the last dimension of a rows x cols matrix, with the optional
 * pre-norm residual add:
 *     h = x (+ residual), rounded to dtype          residual_out = h   (when residual_out != NULL)
 *     LayerNorm: y = (h - mean(h)) / sqrt(var(h) + eps) * weight + bias
 *     RMSNorm:   y = h / sqrt(mean(h^2) + eps) * weight + bias
 * Statistics are fp32 (two-pass variance, biased as in PyTorch). weight and bias are optional
 * (NULL: 1 and 0), cols elements of param_dtype. x, residual and residual_out are of dtype; y of
 * out_dtype; each of bf16, fp16, fp32. out may be x (in place: out_dtype == dtype and the same
 * stride), and residual_out may be residual (the same stride); no output shares a byte with any
 * other tensor of the call otherwise (TS_ERROR_INVALID_VALUE). */
typedef struct ts_norm_desc {
    long long rows;                 /* >= 1 */
    int cols;                       /* 1 .. TS_ROWWISE_MAX_COLS */
    ts_dtype dtype;                 /* x, residual, residual_out */
    ts_dtype out_dtype;             /* out */
    ts_dtype param_dtype;           /* weight, bias (ignored when both are NULL) */
    const void *x;
    long long x_stride;             /* elements between rows, >= cols */
    const void *residual;           /* NULL: no residual add */
    long long residual_stride;
    void *residual_out;             /* NULL: the sum is not stored; needs residual */
    long long residual_out_stride;
    const void *weight;             /* NULL: 1 */
    const void *bias;               /* NULL: 0 */
    void *out;
    long long out_stride;
    float eps;                      /* >= 0 and finite, e.g. 1e-5 */
} ts_norm_desc;

ts_status ts_layernorm(const ts_norm_desc *desc, ts_stream stream);
ts_status ts_rmsnorm(const ts_norm_desc *desc, ts_stream stream);

/* Row softmax over the last dimension: y[r][c] = exp(scale x[r][c] - m) / sum over the row, in
 * fp32, the maximum m subtracted first so that any finite input (and -inf, which gives 0) is safe.
 * With causal = 1 the matrix is taken as a stack of score matrices of causal_rows query rows each:
 * row r is query i = r % causal_rows, and its columns c > i + causal_offset are masked (weight 0).
 * causal_offset 0 aligns the mask at the top left (PyTorch's is_causal), cols - causal_rows at the
 * bottom right; any causal_rows >= 1 and any causal_offset are taken. A row whose every column is
 * masked comes out all zeros. out may be x (in place: out_dtype == dtype and the same stride),
 * else shares no byte with it (TS_ERROR_INVALID_VALUE). */
typedef struct ts_softmax_desc {
    long long rows;                 /* >= 1 */
    int cols;                       /* 1 .. 2^30 (TS_ERROR_SIZE_OVERFLOW above) */
    ts_dtype dtype;                 /* x */
    ts_dtype out_dtype;             /* out */
    const void *x;
    long long x_stride;             /* >= cols */
    void *out;                      /* may be x (same dtype and stride) */
    long long out_stride;
    float scale;                    /* > 0, scale * log2(e) finite (below about 2.36e38); 1 for a plain softmax */
    int causal;                     /* 0 or 1 */
    long long causal_rows;          /* >= 1 when causal */
    long long causal_offset;        /* any value when causal (beyond cols or -causal_rows: the same as there) */
} ts_softmax_desc;

ts_status ts_softmax(const ts_softmax_desc *desc, ts_stream stream);

/* Rotary position embedding applied to Q and K in one call. */
typedef enum ts_rotary_layout {
    TS_ROTARY_BNHD = 0,             /* (batch, seq, heads, head_dim) */
    TS_ROTARY_BHND = 1              /* (batch, heads, seq, head_dim) */
} ts_rotary_layout;

typedef enum ts_rotary_convention {
    TS_ROTARY_ROTATE_HALF = 0,      /* pairs (i, i + D/2): GPT-NeoX, Llama */
    TS_ROTARY_INTERLEAVED = 1       /* pairs (2i, 2i + 1): GPT-J, RoFormer */
} ts_rotary_convention;

/* Largest head dimension ts_rotary takes; head_dim is 32, 64, 128 or 256. */
#define TS_ROTARY_MAX_HEAD_DIM 256

/* For token n (position p = n + position_offset) and frequency i in 0 .. D/2-1, each pair (a, b)
 * of a head becomes (a cos - b sin, b cos + a sin) with cos, sin of angle_i(p):
 *   from a table: cos_table[p * D/2 + i], sin_table[p * D/2 + i], fp32, table_rows rows;
 *   computed (both tables NULL): angle = fp32(p) * inv_freq_i in fp32, with
 *   inv_freq_i = fp32(theta_base^(-2i/D)), as PyTorch models compute it.
 * q and k are dtype (bf16, fp16, fp32) in `layout`, dense unless q_strides / k_strides give the
 * {batch, seq, head} strides in elements (the last dimension contiguous); outputs use their input's
 * strides and may be the inputs (in place). Otherwise no output shares a byte with q, k, the other
 * output or the table rows the call reads (TS_ERROR_INVALID_VALUE); Q and K may interleave in one
 * buffer, a fused projection's output rotated in place, as long as they share no element.
 * heads_k = 0 (with k, k_out NULL) rotates Q alone. */
typedef struct ts_rotary_desc {
    int batch, seq, heads_q, heads_k, head_dim;
    ts_dtype dtype;
    ts_rotary_layout layout;
    ts_rotary_convention convention;
    const void *q;
    void *q_out;
    const long long *q_strides;     /* NULL: dense in layout */
    const void *k;
    void *k_out;
    const long long *k_strides;     /* NULL: dense in layout */
    const float *cos_table;         /* NULL (with sin_table NULL): computed from theta_base */
    const float *sin_table;
    long long table_rows;           /* >= seq + position_offset when tables are given */
    float theta_base;               /* > 0 and finite when computed, e.g. 10000 */
    long long position_offset;      /* >= 0; seq + position_offset <= 2^24 (else TS_ERROR_SIZE_OVERFLOW) */
} ts_rotary_desc;

ts_status ts_rotary(const ts_rotary_desc *desc, ts_stream stream);

/* ---- Based linear attention ------------------------------------------------------------------ */

typedef struct ts_based_shape {
    int batch;       /* B */
    int heads;       /* H (q, k and v alike) */
    int seq;         /* N: any N >= 1 */
    int feature_dim; /* q and k: 16 */
    int head_dim;    /* v and out: 64 */
} ts_based_shape;

/* Causal linear attention with Based's feature map, the second-order Taylor expansion of exp:
 * phi(x) = [1, x, vec(x x^T) / sqrt 2] of x = sqrt(scale) q (or k), so that
 * phi(q) . phi(k) = 1 + s + s^2 / 2 with s = scale * q.k (Based's TaylorExp is scale = 1/4,
 * 1 / sqrt(feature_dim)). Per (batch, head), row i:
 *   normalize = 0:  out_i = sum_{j <= i} (phi(q_i) . phi(k_j)) v_j
 *   normalize = 1:  out_i = that sum / sum_{j <= i} phi(q_i) . phi(k_j)   (each term >= 1/2)
 * Q and K are (B, H, N, 16), V and out (B, H, N, 64), all bf16 (fp16, fp32: TS_ERROR_UNSUPPORTED;
 * other feature or head dimensions: TS_ERROR_UNSUPPORTED), the last dimension contiguous;
 * strides[0..2] are the batch, head and row strides in elements, multiples of 8, pointers 16-byte
 * aligned (else TS_ERROR_MISALIGNED); the strides may nest in any order without two elements
 * overlapping (else TS_ERROR_INVALID_VALUE), each tensor within 2^46 elements of its first, and
 * B x H x (tasks a head: 1 on Hopper and the host, 4 on CDNA) below 2^31 (else
 * TS_ERROR_SIZE_OVERFLOW). out shares no byte with Q, K or V (TS_ERROR_INVALID_VALUE); Q, K and V
 * may overlap. scale > 0 and finite, normalize 0 or 1 (else TS_ERROR_INVALID_VALUE). The state
 * is accumulated in fp32 and read by the tensor cores in bf16 (docs/based.md). */
ts_status ts_based_forward(const ts_based_shape *shape, ts_dtype dtype, const void *q, const long long q_strides[3],
                           const void *k, const long long k_strides[3], const void *v,
                           const long long v_strides[3], void *out, const long long out_strides[3], float scale,
                           int normalize, ts_stream stream);

#ifdef __cplusplus
}
#endif

#endif
