/* Based linear attention's launch numbers per architecture, one section each (the backend names
 * the architecture: backends/<name>/backend.h). Why each number: docs/based.md. None is measured
 * yet: they are the first configuration that fits each architecture's registers and shared memory.
 *   TS_BASED_CONSUMERS  consumer warpgroups of a block, each with its own state, 1 to 3
 *   TS_BASED_COLS       value/output columns (of 64) a consumer holds state for: 16 or 32 or 64
 *   TS_BASED_STAGES     pipeline stages (chunks of 64 rows of q, k and v in flight)
 * A task is one (batch, head) and TS_BASED_CONSUMERS x TS_BASED_COLS of its 64 value columns, so
 * a head takes 64 / (TS_BASED_CONSUMERS x TS_BASED_COLS) tasks, each running the whole sequence. */
#ifndef TESSERA_KERNELS_BASED_TUNING_H
#define TESSERA_KERNELS_BASED_TUNING_H

/* TS_BASED_TUNING_GIVEN: the including file has defined the three numbers itself, to build another
 * architecture's configuration (tests/kernels/based_pingpong_kernels.c runs CDNA's on the host). */
#if defined(TS_BASED_TUNING_GIVEN)
#elif defined(TS_ARCH_SM90A) || defined(TS_ARCH_HOST)
/* The state of 32 columns (five 64 x 32 fp32 accumulators, 80 registers a thread) leaves room in
 * a consumer's 232 registers for the chunk's scores and features; two consumers cover a head's 64
 * columns in one block, sharing the q and k stages. Stages and the consumers' feature and state
 * tiles take 156 KiB of shared memory. The host mirrors Hopper so its tests run this kernel. */
#define TS_BASED_CONSUMERS 2
#define TS_BASED_COLS 32
#define TS_BASED_STAGES 3
#elif defined(TS_ARCH_CDNA)
/* 64 KiB of LDS: one consumer of 16 columns (the feature tiles alone are 40 KiB) and one stage;
 * a head takes four tasks. */
#define TS_BASED_CONSUMERS 1
#define TS_BASED_COLS 16
#define TS_BASED_STAGES 1
#else
#error "no Based tuning for this architecture (kernels/based/tuning.h)"
#endif

#endif
