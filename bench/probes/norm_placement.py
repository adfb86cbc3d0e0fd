"""Whether a memory-bound kernel's speed depends on where its buffers lie: RMSNorm + residual
65536x1024 bf16 (ts_rmsnorm) and a device copy of the same bytes, timed as the drivers time them
(bench/torch_timing.py), with the buffers allocated after a padding allocation of 0, 1, 2, ... times
PAD_MIB MiB, so that each set lies at other addresses. One line a placement: the padding, the
buffers' first address, Tessera's TB/s and the copy's.
    python3 bench/probes/norm_placement.py --lib build/gpu/core/libtessera.so [--placements 8]"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from compare_torch_memory import call, load_library, norm_desc  # noqa: E402
from torch_timing import bench_context, driver_arguments, parse_driver_arguments, time_interleaved  # noqa: E402

PAD_MIB = 96


def main():
    parser = driver_arguments(__doc__, reps=30, warmup=5)
    parser.add_argument("--placements", type=int, default=8)
    args = parse_driver_arguments(parser)
    import torch

    lib = load_library(args.lib)
    _, flush, _ = bench_context(torch)
    rows, cols = 65536, 1024
    nbytes = 2.0 * rows * cols * 4 + 2.0 * cols
    for k in range(args.placements):
        pad = torch.empty(max(1, k * PAD_MIB << 20), dtype=torch.uint8, device="cuda")
        x, r = (torch.randn(rows, cols, dtype=torch.bfloat16, device="cuda") for _ in range(2))
        w = 1 + 0.5 * torch.randn(cols, dtype=torch.bfloat16, device="cuda")
        out, ro = torch.empty_like(x), torch.empty_like(x)
        src = torch.empty(int(nbytes // 2) // 16 * 16, dtype=torch.uint8, device="cuda")
        dst = torch.empty_like(src)
        desc = norm_desc(rows, cols, x.data_ptr(), r.data_ptr(), ro.data_ptr(), w.data_ptr(), None, out.data_ptr())
        stream = torch.cuda.current_stream().cuda_stream
        ms = time_interleaved(torch, {"tessera": lambda: call(lib, "ts_rmsnorm", desc, stream),
                                      "copy": lambda: dst.copy_(src)}, flush, args.reps, args.warmup)
        ref = torch.nn.functional.rms_norm(x + r, (cols,), w, 1e-5)
        call(lib, "ts_rmsnorm", desc, stream)
        torch.cuda.synchronize()
        err = (out.float() - ref.float()).abs().max().item()
        if err > 0.07:
            raise SystemExit("ts_rmsnorm differs from PyTorch by %g" % err)
        print("pad %5d MiB  x at %#x  tessera %.3f TB/s  copy %.3f TB/s" %
              (k * PAD_MIB, x.data_ptr(), nbytes / (ms["tessera"] * 1e9), nbytes / (ms["copy"] * 1e9)), flush=True)
        del pad, x, r, w, out, ro, src, dst
        torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
