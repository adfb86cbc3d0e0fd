/* Attention's launch numbers per architecture, one section each (the backend names the
 * architecture: backends/<name>/backend.h). Why each number: docs/attention.md; the runs behind
 * them: docs/attention.md ("Where the numbers come from").
 *   TS_ATTN_CONSUMERS_D64, _D128  consumer warpgroups of a block (64 query rows each), 1 to 3
 *   TS_ATTN_STAGES                pipeline stages, where they fit (attention_variant.h runs one
 *                                 fewer where they do not)
 *   TS_ATTN_BN_D64, _D128         keys a stage: multiples of 16 from 64 to 256 (a plain number,
 *                                 pasted into tile names)
 *   TS_ATTN_OVERLAP_D64, _D128    1: a stage's softmax runs beside the last stage's P V (needs the
 *                                 warp-specialized template schedule)
 *   TS_ATTN_LONG_KEYS             non-causal D = 128 calls over at least this many keys run a
 *                                 second kernel of TS_ATTN_BN_D128_LONG keys a stage; 0: no such
 *                                 kernel
 *   TS_ATTN_ALTERNATE_ROUNDS      1: the causal task order's rounds alternate direction
 *                                 (task_order.h) */
#ifndef TESSERA_KERNELS_ATTENTION_TUNING_H
#define TESSERA_KERNELS_ATTENTION_TUNING_H

#if defined(TS_ARCH_SM90A) || defined(TS_ARCH_HOST)
/* Three consumers at D = 64 keep the tensor cores fed while two run their softmax; at D = 128
 * three do not fit 160 registers a thread with the overlap, and without it ran slower. Four at
 * D = 64 spill. The runs behind these numbers: docs/attention.md ("Where the numbers come from"). */
#define TS_ATTN_CONSUMERS_D64 3
#define TS_ATTN_CONSUMERS_D128 2
/* Four stages ran slower at D = 64; D = 128 has room for three. */
#define TS_ATTN_STAGES 3
#define TS_ATTN_BN_D64 128
#define TS_ATTN_BN_D128 128
/* D = 64 runs faster without the overlap. */
#define TS_ATTN_OVERLAP_D64 0
#define TS_ATTN_OVERLAP_D128 1
/* 176 keys a stage (two stages) do less work per key and win from 8192 keys on; shorter sequences,
 * where a 176-key tile pads a power of two, keep 128. */
#define TS_ATTN_LONG_KEYS 8192
#define TS_ATTN_BN_D128_LONG 176
#define TS_ATTN_ALTERNATE_ROUNDS 1
#elif defined(TS_ARCH_CDNA)
/* 64 KiB of LDS: one consumer warpgroup and one stage of 64 keys; the ping-pong schedule, so no
 * overlap; no wider stage fits, so no long-sequence kernel. The alternating rounds' arithmetic,
 * live beside the accumulators, cost the gfx942 fp16 D = 128 kernel its second wave per SIMD. */
#define TS_ATTN_CONSUMERS_D64 1
#define TS_ATTN_CONSUMERS_D128 1
#define TS_ATTN_STAGES 1
#define TS_ATTN_BN_D64 64
#define TS_ATTN_BN_D128 64
#define TS_ATTN_OVERLAP_D64 0
#define TS_ATTN_OVERLAP_D128 0
#define TS_ATTN_LONG_KEYS 0
#define TS_ATTN_BN_D128_LONG TS_ATTN_BN_D128
#define TS_ATTN_ALTERNATE_ROUNDS 0
#else
#error "no attention tuning for this architecture (kernels/attention/tuning.h)"
#endif

#endif
