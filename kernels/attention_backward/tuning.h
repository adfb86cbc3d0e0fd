/* Attention backward's launch numbers per architecture, one section each (the backend names the
 * architecture: backends/<name>/backend.h). Why each number: docs/attention-backward.md. None is
 * measured yet: they are the shapes FlashAttention-2/3 use, cut to what fits each architecture's
 * registers and shared memory (the sm_90a build's ptxas report and the gfx942/gfx90a resource
 * report, scripts/gates.sh).
 *   TS_ATTN_BWD_CONSUMERS_D64, _D128  consumer warpgroups of a block (64 rows each) in both main
 *                                     kernels: keys a dK/dV task holds, query rows a dQ task holds
 *   TS_ATTN_BWD_STAGES                pipeline stages of both main kernels
 *   TS_ATTN_BWD_BQ_D64, _D128         query rows a stage of the dK/dV kernel: 32 or 64
 *   TS_ATTN_BWD_BK_D64, _D128         keys a stage of the dQ kernel: 32, 64 or 128
 *   TS_ATTN_BWD_DQ_ATOMIC             1: the dK/dV kernel has the atomic form of dQ (its shared dS^T
 *                                     and dQ tiles fit beside the stages); 0: only the deterministic
 *                                     form (the dQ kernel)
 * A test source may define TS_ATTN_BWD_TUNING_CDNA to take CDNA's table on any backend, so that the
 * host runs CDNA's tiles on CDNA's schedule (tests/kernels/attention_backward_pingpong_kernels.c). */
#ifndef TESSERA_KERNELS_ATTENTION_BACKWARD_TUNING_H
#define TESSERA_KERNELS_ATTENTION_BACKWARD_TUNING_H

#if (defined(TS_ARCH_SM90A) || defined(TS_ARCH_HOST)) && !defined(TS_ATTN_BWD_TUNING_CDNA)
/* Two consumers: a dK/dV consumer holds dK and dV of its 64 keys (two 16 x D fp32 tiles a warp)
 * beside S^T and dP^T of a stage, which at D = 128 is most of the 232 registers a consumer thread
 * has with two consumers. Query tiles of 64 rows (FlashAttention-3's Br at D = 128); the dQ kernel
 * holds dQ (16 x D a warp) beside S and dP of its keys, 64 of them at D = 128 and 128 at D = 64. */
#define TS_ATTN_BWD_CONSUMERS_D64 2
#define TS_ATTN_BWD_CONSUMERS_D128 2
#define TS_ATTN_BWD_STAGES 2
#define TS_ATTN_BWD_BQ_D64 64
#define TS_ATTN_BWD_BQ_D128 64
#define TS_ATTN_BWD_BK_D64 128
#define TS_ATTN_BWD_BK_D128 64
#define TS_ATTN_BWD_DQ_ATOMIC 1
#elif defined(TS_ARCH_CDNA) || defined(TS_ATTN_BWD_TUNING_CDNA)
/* 64 KiB of LDS: one consumer (the ping-pong schedule), one stage. At D = 128 a consumer's K and V
 * (dK/dV kernel) or Q and dO (dQ kernel) take 32 KiB, so a stage holds 32 rows. */
#define TS_ATTN_BWD_CONSUMERS_D64 1
#define TS_ATTN_BWD_CONSUMERS_D128 1
#define TS_ATTN_BWD_STAGES 1
#define TS_ATTN_BWD_BQ_D64 64
#define TS_ATTN_BWD_BQ_D128 32
#define TS_ATTN_BWD_BK_D64 64
#define TS_ATTN_BWD_BK_D128 32
/* The dS^T and dQ tiles of the atomic form would not fit beside a stage and the consumer's K and V. */
#define TS_ATTN_BWD_DQ_ATOMIC 0
#else
#error "no attention backward tuning for this architecture (kernels/attention_backward/tuning.h)"
#endif

#endif
