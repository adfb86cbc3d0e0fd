/* The devices the planner's and the scheduler's tests run on, described by hand from their
 * documentation so that the tests run on any machine. */
#ifndef TESSERA_TESTS_DEVICE_MODELS_H
#define TESSERA_TESTS_DEVICE_MODELS_H

#include <stdio.h>
#include <string.h>

#include <tessera/tessera.h>

/* Hopper (H100 and H200 share the SM): CUDA programming guide, compute capability 9.0 table:
 * 64K 32-bit registers per SM, 255 per thread, 64 resident warps and 32 resident blocks per SM,
 * 1024 threads per block, 228 KiB shared memory per SM of which a block may take 227 KiB, 1 KiB
 * reserved by the system per resident block; registers allocated per warp in units of 256
 * (8 per thread x 32 lanes). */
static inline ts_device_props ts_test_hopper(void)
{
    ts_device_props d;
    memset(&d, 0, sizeof d);
    snprintf(d.name, sizeof d.name, "NVIDIA H200");
    snprintf(d.arch, sizeof d.arch, "sm_90a");
    d.backend = TS_BACKEND_CUDA;
    d.sm_count = 132;
    d.warp_lanes = 32;
    d.partitions_per_sm = 4;
    d.max_threads_per_block = 1024;
    d.max_warps_per_sm = 64;
    d.max_blocks_per_sm = 32;
    d.regs_per_sm = 65536;
    d.max_regs_per_thread = 255;
    d.reg_alloc_unit = 8;
    d.shared_mem_per_block = 232448;
    d.shared_mem_per_sm = 233472;
    d.shared_mem_reserved_per_block = 1024;
    d.l2_bytes = 60u << 20;
    return d;
}

/* CDNA3 MI300X. Sources: ROCm "AMD GPU specifications" table (gfx942: 304 CUs, wavefront 64,
 * 64 KiB LDS, 512 KiB VGPR file per CU = 4 SIMDs x 512 VGPRs x 64 lanes x 4 bytes, so 131072
 * registers); LLVM AMDGPU getMaxWavesPerEU (8 waves per SIMD on gfx90a-class targets, gfx942
 * included: 32 waves per CU) and getMaxWorkGroupsPerCU (one-wave groups: as many as waves, 32;
 * larger groups: at most 16 barriers, which never binds before the 32-wave limit does, so one cap
 * of 32 gives the same answers); 512 VGPRs per thread with AGPRs (gfx90a+ unified file), granule
 * of 8; HIP allows 1024 threads per block. LDS takes no per-block system reserve. */
static inline ts_device_props ts_test_mi300x(void)
{
    ts_device_props d;
    memset(&d, 0, sizeof d);
    snprintf(d.name, sizeof d.name, "AMD Instinct MI300X");
    snprintf(d.arch, sizeof d.arch, "gfx942");
    d.backend = TS_BACKEND_HIP;
    d.sm_count = 304;
    d.warp_lanes = 64;
    d.partitions_per_sm = 4;
    d.max_threads_per_block = 1024;
    d.max_warps_per_sm = 32;
    d.max_blocks_per_sm = 32;
    d.regs_per_sm = 131072;
    d.max_regs_per_thread = 512;
    d.reg_alloc_unit = 8;
    d.shared_mem_per_block = 65536;
    d.shared_mem_per_sm = 65536;
    d.shared_mem_reserved_per_block = 0;
    d.l2_bytes = 4u << 20;
    return d;
}

#endif
