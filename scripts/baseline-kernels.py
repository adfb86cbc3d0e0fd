#!/usr/bin/env python3
"""Which kernels the baselines run, and how long each takes: PyTorch's profiler around F.linear
(cuBLAS) at tessera-bench gemm-decode's shapes, SDPA's cuDNN forward and backward at the attention
sweep's points, and cuDNN's decode (one query row against a KV cache) at a few contexts. The kernel
names carry the vendors' choices (tile shape, cluster, split-K or stream-K, separate reduction
kernels) that docs/gemm.md and docs/attention-backward.md ask about. One line per kernel launch:
the case, the kernel's name and its device time in microseconds (the median over the timed calls).

    python3 scripts/baseline-kernels.py [--only gemm|backward|decode] [--calls 5]

Needs a GPU and PyTorch with CUDA; prints nothing else."""
import argparse
import collections
import statistics

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel
from torch.profiler import ProfilerActivity, profile

GEMM_NK = [(4096, 4096), (14336, 4096), (4096, 14336), (1024, 4096), (8192, 8192), (28672, 8192), (8192, 28672),
           (1024, 8192)]
GEMM_MS = [1, 8, 16, 32, 64, 128, 256]
BACKWARD = [(16, 16, 4096, 128), (4, 16, 4096, 64), (16, 16, 1024, 128)]
DECODE = [(1, 64, 8, 1024, 128), (1, 64, 8, 16384, 128), (8, 64, 8, 4096, 64)]


def kernels(run, calls):
    """Each kernel of `run` (warmed up), with the median of its device times over `calls` calls."""
    for _ in range(3):
        run()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(calls):
            run()
        torch.cuda.synchronize()
    times = collections.OrderedDict()
    for e in prof.events():
        if e.device_type == torch.autograd.DeviceType.CUDA:
            times.setdefault(e.name, []).append(e.time_range.elapsed_us())
    return [(name, len(t) // calls, statistics.median(t)) for name, t in times.items()]


def show(case, rows):
    for name, per_call, us in rows:
        print(f"{case} | {per_call} x {us:8.2f} us | {name}")


def gemm(calls):
    for n, k in GEMM_NK:
        w = torch.randn(n, k, device="cuda", dtype=torch.bfloat16)
        for m in GEMM_MS:
            a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
            show(f"linear {m}x{n}x{k}", kernels(lambda: F.linear(a, w), calls))


def backward(calls):
    for causal in (0, 1):
        for b, h, n, d in BACKWARD:
            q, k, v = (torch.randn(b, h, n, d, device="cuda", dtype=torch.bfloat16, requires_grad=True) for _ in range(3))
            do = torch.randn(b, h, n, d, device="cuda", dtype=torch.bfloat16)

            def run():
                with sdpa_kernel(SDPBackend.CUDNN_ATTENTION):
                    o = F.scaled_dot_product_attention(q, k, v, is_causal=bool(causal))
                o.backward(do)

            show(f"cudnn fwd+bwd B{b} H{h} N{n} D{d} causal {causal}", kernels(run, calls))


def decode(calls):
    """As bench/compare_torch_decode.py: cuDNN's own grouped heads where it takes them, else each key-value
    head repeated for its query heads."""
    for b, hq, hkv, ctx, d in DECODE:
        q = torch.randn(b, hq, 1, d, device="cuda", dtype=torch.bfloat16)
        k, v = (torch.randn(b, hkv, ctx, d, device="cuda", dtype=torch.bfloat16) for _ in range(2))
        case = f"cudnn decode B{b} Hq{hq} Hkv{hkv} ctx{ctx} D{d}"
        try:
            def run():
                with sdpa_kernel(SDPBackend.CUDNN_ATTENTION):
                    F.scaled_dot_product_attention(q, k, v, enable_gqa=True)
            run()
        except Exception:  # no grouped heads in this backend: heads repeated
            kr, vr = (t.repeat_interleave(hq // hkv, dim=1) for t in (k, v))
            case += " (heads repeated)"

            def run():
                with sdpa_kernel(SDPBackend.CUDNN_ATTENTION):
                    F.scaled_dot_product_attention(q, kr, vr)
        show(case, kernels(run, calls))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", choices=("gemm", "backward", "decode"))
    ap.add_argument("--calls", type=int, default=5)
    a = ap.parse_args()
    for name, fn in (("gemm", gemm), ("backward", backward), ("decode", decode)):
        if a.only in (None, name):
            fn(a.calls)


if __name__ == "__main__":
    main()
