/* Decode attention's launch numbers per architecture, one section each (the backend names the
 * architecture: backends/<name>/backend.h). Why each number: docs/decode.md; the sm_90a section's
 * blocks an SM is measured (an H100), the rest are the first choices their lines explain, to be
 * settled by `tessera-bench attention-decode` (scripts/gpu-ab.sh for A/B runs of tuning.h edits).
 *   TS_DECODE_WARPS             warps a block; they take turns through the block's key range and
 *                               merge their results at its end (D / TS_DECODE_WARPS a multiple of 16)
 *   TS_DECODE_KEYS_D64, _D128   keys a warp takes a step (16 or 32; a plain number, pasted into tile
 *                               names); a block's step is TS_DECODE_WARPS times that
 *   TS_DECODE_BLOCKS_PER_SM     blocks the split count aims at per SM (or CU, or host worker)
 *   TS_DECODE_MIN_SPLIT_KEYS    the fewest keys a split takes (rounded up to a block's step)
 *   TS_DECODE_MAX_SPLITS        the most splits of one sequence (the combine reads them all)
 *   TS_DECODE_COMBINE_BATCH     splits whose partial results the combine loads at once */
#ifndef TESSERA_KERNELS_ATTENTION_DECODE_TUNING_H
#define TESSERA_KERNELS_ATTENTION_DECODE_TUNING_H

#if defined(TS_ARCH_SM90A)
/* Four warps, each with a step's 16-byte loads (8 KiB of K and V) in flight while it computes the
 * last step; the registers each block's warps hold (docs/decode.md gives ptxas's count) let
 * several blocks share an SM. A step of 16 keys at D = 128 and 32 at D = 64 reads the same 8 KiB. */
#define TS_DECODE_WARPS 4
#define TS_DECODE_KEYS_D64 32
#define TS_DECODE_KEYS_D128 16
/* Two blocks an SM, as many as the split kernel's registers let one SM hold: the splits fill one
 * wave, each twice as long as at four (measured: docs/decode.md, "Tuning per architecture"). */
#define TS_DECODE_BLOCKS_PER_SM 2
/* A split's partial result is 16 x D fp32: 256 keys read 16 times its bytes of K and V. */
#define TS_DECODE_MIN_SPLIT_KEYS 256
#define TS_DECODE_MAX_SPLITS 128
#define TS_DECODE_COMBINE_BATCH 4
#elif defined(TS_ARCH_CDNA)
/* Wave64: the same block of four waves; a wave's stage is half a CUDA warp's per lane. 64 KiB of
 * LDS holds the four waves' stages (32 KiB at D = 128) with room for a second block. 304 CUs on the
 * MI300X take fewer blocks each for the same number of splits. */
#define TS_DECODE_WARPS 4
#define TS_DECODE_KEYS_D64 32
#define TS_DECODE_KEYS_D128 16
#define TS_DECODE_BLOCKS_PER_SM 2
#define TS_DECODE_MIN_SPLIT_KEYS 256
#define TS_DECODE_MAX_SPLITS 128
#define TS_DECODE_COMBINE_BATCH 4
#elif defined(TS_ARCH_HOST)
/* Hopper's block and steps, so that the host tests run the kernels the H200 runs; short splits and
 * many blocks a worker, so that the tests' sequences of a few hundred keys cross many splits and
 * the combine's batches run partly filled. */
#define TS_DECODE_WARPS 4
#define TS_DECODE_KEYS_D64 32
#define TS_DECODE_KEYS_D128 16
#define TS_DECODE_BLOCKS_PER_SM 16
#define TS_DECODE_MIN_SPLIT_KEYS 64
#define TS_DECODE_MAX_SPLITS 128
#define TS_DECODE_COMBINE_BATCH 4
#else
#error "no decode attention tuning for this architecture (kernels/attention_decode/tuning.h)"
#endif

#endif
