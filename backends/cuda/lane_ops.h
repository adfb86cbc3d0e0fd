/* Lane-level operations the tile ops are built on, for CUDA: shuffles across a warp's lanes and
 * packed conversions between fp32 and the 16-bit formats (cvt.rn.bf16x2 / f16x2). */
#ifndef TESSERA_BACKENDS_CUDA_LANE_OPS_H
#define TESSERA_BACKENDS_CUDA_LANE_OPS_H

#include "backends/cuda/backend.h"

TS_DEVICE float ts_shfl_xor_f32(float v, int lane_mask) { return __shfl_xor_sync(0xffffffffu, v, lane_mask); }
TS_DEVICE float ts_shfl_f32(float v, int src_lane) { return __shfl_sync(0xffffffffu, v, src_lane); }
TS_DEVICE unsigned ts_shfl_u32(unsigned v, int src_lane) { return __shfl_sync(0xffffffffu, v, src_lane); }
TS_DEVICE unsigned ts_shfl_xor_u32(unsigned v, int lane_mask) { return __shfl_xor_sync(0xffffffffu, v, lane_mask); }

/* 2^x in one MUFU.EX2 (relative error about 2^-22, subnormal results flushed to 0, 2^-inf = 0):
 * exp2f adds a range check and two multiplies around it for subnormal results. */
TS_DEVICE float ts_exp2_approx(float x) {
    float y;
    asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
    return y;
}

/* lo in the low half, hi in the high half, as the matrix instructions read a pair. */
TS_DEVICE unsigned ts_pack_bf16x2(float lo, float hi) {
    unsigned r;
    asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(hi), "f"(lo));
    return r;
}
TS_DEVICE unsigned ts_pack_fp16x2(float lo, float hi) {
    unsigned r;
    asm("cvt.rn.f16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(hi), "f"(lo));
    return r;
}
TS_DEVICE float ts_unpack_bf16(unsigned short bits) { return __uint_as_float((unsigned)bits << 16); }
/* The bf16 in the low (high = 0) or high half of a word as fp32, written out as an instruction at
 * each call, as fp16's conversion is. With plain shifts the compiler made one fp32 value of a word's
 * element for all of a kernel's passes, live from the first use to the last: the norms' long-row
 * kernel held its row so in fp32 besides the packed words (167 registers; with this 106, as fp16's,
 * and RMSNorm + residual bf16 40960x1600 3.75 -> 4.02 TB/s on the H200). */
TS_DEVICE float ts_unpack_bf16_at_use(unsigned word, int high) {
    unsigned r;
    if (high)
        asm("and.b32 %0, %1, 0xffff0000;" : "=r"(r) : "r"(word));
    else
        asm("shl.b32 %0, %1, 16;" : "=r"(r) : "r"(word));
    return __uint_as_float(r);
}
TS_DEVICE float ts_unpack_fp16(unsigned short bits) {
    float f;
    asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(bits));
    return f;
}

/* ldmatrix: a warp loads four 8x8 matrices of 16-bit elements from shared memory, each lane
 * giving the address of one 16-byte row (lanes 8m .. 8m+7 for matrix m) and receiving in
 * register m the pair its fragment holds. The four matrices of a 16x16 subtile, in the order
 * (rows 0-7, cols 0-7), (rows 8-15, cols 0-7), (rows 0-7, cols 8-15), (rows 8-15, cols 8-15), give
 * exactly the row layout's four words; with .trans, a row-major tile gives the col layout's. */
#define TS_HAVE_LDMATRIX 1

/* stmatrix (sm_90): the inverse of ldmatrix, the same lanes giving the same rows' addresses. */
#define TS_HAVE_STMATRIX 1

TS_DEVICE void ts_stmatrix_x4(void *row_address, const unsigned *words, int trans) {
    const unsigned addr = ts_cuda_smem_addr(row_address);
    if (trans)
        asm volatile("stmatrix.sync.aligned.m8n8.x4.trans.shared.b16 [%0], {%1, %2, %3, %4};" ::"r"(addr),
                     "r"(words[0]), "r"(words[1]), "r"(words[2]), "r"(words[3])
                     : "memory");
    else
        asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1, %2, %3, %4};" ::"r"(addr), "r"(words[0]),
                     "r"(words[1]), "r"(words[2]), "r"(words[3])
                     : "memory");
}

TS_DEVICE void ts_ldmatrix_x4(unsigned *words, const void *row_address, int trans) {
    const unsigned addr = ts_cuda_smem_addr(row_address);
    if (trans)
        asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];"
                     : "=r"(words[0]), "=r"(words[1]), "=r"(words[2]), "=r"(words[3])
                     : "r"(addr));
    else
        asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
                     : "=r"(words[0]), "=r"(words[1]), "=r"(words[2]), "=r"(words[3])
                     : "r"(addr));
}

/* ---- for ops/math.h, ops/one_lane.h and the checks of ops/memory.h ---------------------------- */

/* 1 / sqrt(x) in one MUFU.RSQ (at most 2 ulp from the rounded result). */
TS_DEVICE float ts_rsqrt_f32(float x) { return rsqrtf(x); }

/* TS_ONE_LANE { ... }: the statement runs in lane 0 only (every lane reaches it). A one-pass loop,
 * as on the host, where it also marks the region (backends/host/lane_ops.h). */
#define TS_ONE_LANE for (int ts_one_lane_open_ = ts_lane_id() == 0; ts_one_lane_open_; ts_one_lane_open_ = 0)

/* An atomic add each lane makes with its own value, for lane-level code. */
TS_DEVICE int ts_lane_atomic_add_i32(int *ptr, int value) { return atomicAdd(ptr, value); }

/* Adds to an fp32 word of global memory, relaxed and device-wide, each lane its own value. */
TS_DEVICE void ts_lane_atomic_add_f32(float *ptr, float value) { atomicAdd(ptr, value); }

/* A GPU has no channel for a contract violation found in a kernel (the host fails the launch): the
 * caller goes on with a harmless result. No trap: a trap on a divergent path serializes every wgmma
 * of the kernel (ptxas C7520). */
TS_DEVICE void ts_fail_launch(ts_status status) { (void)status; }

#endif
