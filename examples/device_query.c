/* Lists the devices Tessera sees and asks the launch planner how a 1024-thread kernel would fill
 * the first one: the smallest useful program against the library. */
#include <stdio.h>

#include <tessera/tessera.h>

#include "example_util.h"

int main(void) {
    ts_backend backend;
    const char *backend_name;
    int count = 0;
    CHECK(ts_get_backend(&backend));
    CHECK(ts_backend_name(backend, &backend_name));
    CHECK(ts_device_count(&count));
    printf("backend %s, %d device(s)\n", backend_name, count);
    for (int d = 0; d < count; ++d) {
        ts_device_props p;
        CHECK(ts_device_get_props(d, &p));
        printf("  %d: %s (%s), %d SMs of %d lanes per warp, %zu KiB shared per block, %zu MiB L2\n",
               d, p.name, p.arch, p.sm_count, p.warp_lanes, p.shared_mem_per_block / 1024,
               p.l2_bytes >> 20);
        ts_kernel_resources k = {.warps_per_block = 1024 / p.warp_lanes > 32 ? 32 : 1024 / p.warp_lanes,
                                 .regs_per_thread = 32,
                                 .shared_mem_per_block = 0};
        ts_launch_plan plan;
        char text[512];
        CHECK(ts_plan_launch(&p, &k, (long long)p.sm_count + 1, &plan));
        CHECK(ts_plan_explain(&p, &k, &plan, text, sizeof text));
        printf("  %s\n", text);
    }
    return 0;
}
