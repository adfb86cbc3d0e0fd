"""Writes torch.compile's kernels for LayerNorm + residual and RMSNorm + residual (bf16, the shape of
bench/compare_torch_memory.py's 65536 x 1024 point unless --rows/--cols say otherwise) to one tarball:
every file Inductor's Triton cache holds for them (.source, .ttir, .ttgir, .llir, .ptx, .cubin,
.json with the launch configuration). For reading their SASS next to Tessera's and for racing the
cubin against Tessera's kernels (bench/probes/norm_race.cu).
  usage (on the GPU machine): python3 bench/probes/dump_torch_compile.py OUT.tgz [--rows R --cols C]
The functions are the driver's: h = x + r, then F.layer_norm / F.rms_norm of h (eps 1e-5), returning
both, compiled with dynamic=False."""
import argparse
import glob
import os
import tarfile

import torch
import torch.nn.functional as F


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out")
    parser.add_argument("--rows", type=int, default=65536)
    parser.add_argument("--cols", type=int, default=1024)
    args = parser.parse_args()
    rows, cols = args.rows, args.cols
    x = torch.randn(rows, cols, device="cuda", dtype=torch.bfloat16)
    r = torch.randn_like(x)
    w = torch.randn(cols, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(cols, device="cuda", dtype=torch.bfloat16)

    def layernorm():
        h = x + r
        return F.layer_norm(h, (cols,), w, b, 1e-5), h

    def rmsnorm():
        h = x + r
        return F.rms_norm(h, (cols,), w, 1e-5), h

    for fn in (layernorm, rmsnorm):
        compiled = torch.compile(fn, dynamic=False)
        for _ in range(3):
            compiled()
    torch.cuda.synchronize()
    from torch._inductor.runtime.cache_dir_utils import cache_dir

    files = [f for f in glob.glob(os.path.join(cache_dir(), "triton", "**", "*"), recursive=True)
             if os.path.isfile(f) and "triton_" in os.path.basename(f)]
    with tarfile.open(args.out, "w:gz") as tar:
        for f in files:
            tar.add(f, arcname=os.path.relpath(f, cache_dir()))
    for f in sorted(files):
        print(os.path.getsize(f), os.path.relpath(f, cache_dir()))


if __name__ == "__main__":
    main()
