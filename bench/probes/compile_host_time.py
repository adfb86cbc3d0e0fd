"""How long a torch.compile'd function's call takes on the host, against the GPU sleep the drivers
put before each timed run (bench/torch_timing.py: LEAD_CYCLES) to cover it: RMSNorm + residual
65536x1024 bf16, compiled as bench/compare_torch_memory.py compiles it, 40 calls after a sleep of
each lead given; per lead the host time of the call (perf_counter around it) and the span the CUDA
events time. Where the call outlasts the lead, the events time the host too and the span grows.
    python3 bench/probes/compile_host_time.py [--leads 200000,2000000]
Results: bench/results/nvidia-h200-2026-12-02-driver-lead-time.txt (section 1)."""
import argparse
import statistics
import time

import torch
import torch.nn.functional as F


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--leads", default="200000,2000000", help="GPU clock cycles, comma-separated")
    parser.add_argument("--calls", type=int, default=40)
    args = parser.parse_args()
    rows, cols = 65536, 1024
    x = torch.randn(rows, cols, dtype=torch.bfloat16, device="cuda")
    r = torch.randn_like(x)
    w = torch.randn(cols, dtype=torch.bfloat16, device="cuda")

    def eager():
        h = x + r
        return F.rms_norm(h, (cols,), w, 1e-5), h

    compiled = torch.compile(eager, dynamic=False)
    for _ in range(5):
        compiled()
    torch.cuda.synchronize()
    for lead in (int(v) for v in args.leads.split(",")):
        host, span = [], []
        for _ in range(args.calls):
            torch.cuda._sleep(lead)
            start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            t0 = time.perf_counter()
            compiled()
            t1 = time.perf_counter()
            stop.record()
            stop.synchronize()
            host.append((t1 - t0) * 1e6)
            span.append(start.elapsed_time(stop) * 1e3)
        print("lead %d cycles: compile host call median %.1f us max %.1f us; event time median %.1f us max %.1f"
              % (lead, statistics.median(host), max(host), statistics.median(span), max(span)), flush=True)


if __name__ == "__main__":
    main()
