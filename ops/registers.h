/* Register budgets of a warpgroup, for warp-specialized kernels: a producer warpgroup that only
 * issues copies gives registers back (ts_set_max_regs_dec) so that consumer warpgroups running the
 * matrix multiplies can take them (ts_set_max_regs_inc). n is a compile-time constant, a multiple
 * of 8 in 24..256, and every warp of the warpgroup makes the call. Hopper (setmaxnreg) acts on it
 * when the kernel has a register cap, which TS_KERNEL gives; AMD and the host have no such thing
 * and ignore it, so the same kernel source runs everywhere. */
#ifndef TESSERA_OPS_REGISTERS_H
#define TESSERA_OPS_REGISTERS_H

#include "backends/warpgroup.h"
#include "tiles/dtypes.h"

#define TS_CHECK_MAX_REGS(n)                                                                       \
    TS_STATIC_ASSERT((n) % 8 == 0 && (n) >= 24 && (n) <= 256,                                     \
                     "a register budget is a multiple of 8 in 24..256")

#define ts_set_max_regs_inc(n)                                                                     \
    do {                                                                                           \
        TS_CHECK_MAX_REGS(n);                                                                      \
        ts_set_max_regs_inc_raw(n);                                                                \
    } while (0)

#define ts_set_max_regs_dec(n)                                                                     \
    do {                                                                                           \
        TS_CHECK_MAX_REGS(n);                                                                      \
        ts_set_max_regs_dec_raw(n);                                                                \
    } while (0)

#endif
