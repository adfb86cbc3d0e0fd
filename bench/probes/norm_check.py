"""Checks ts_layernorm and ts_rmsnorm (bf16, with the residual, its output, a weight and a bias) of a
libtessera.so on the GPU against a float64 PyTorch reference, outputs poisoned with NaN first: a
quick check of a build's norms at given shapes where the CUDA test binaries are not at hand (the
PyTorch driver times them but does not check them). One line a shape and kernel; exits 1 on a miss.
    python3 bench/probes/norm_check.py --lib build/shared/core/libtessera.so [--shapes 4097x384,3x640]"""
import argparse
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from compare_torch_memory import call, load_library, norm_desc, parse_shapes  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--lib", required=True)
    ap.add_argument("--shapes", default="4097x384,4097x640,4099x896,3x384,1x896")
    args = ap.parse_args()
    import torch

    lib = load_library(args.lib)
    torch.manual_seed(1)
    failed = 0
    for rows, cols in parse_shapes(args.shapes):
        for kind in ("ts_layernorm", "ts_rmsnorm"):
            x = torch.randn(rows, cols, device="cuda", dtype=torch.bfloat16) + 0.3
            r = torch.randn(rows, cols, device="cuda", dtype=torch.bfloat16)
            w = torch.randn(cols, device="cuda", dtype=torch.bfloat16)
            b = torch.randn(cols, device="cuda", dtype=torch.bfloat16)
            out = torch.full((rows, cols), float("nan"), device="cuda", dtype=torch.bfloat16)
            ro = torch.full((rows, cols), float("nan"), device="cuda", dtype=torch.bfloat16)
            call(lib, kind, norm_desc(rows, cols, x.data_ptr(), r.data_ptr(), ro.data_ptr(), w.data_ptr(),
                                      b.data_ptr(), out.data_ptr()))
            torch.cuda.synchronize()
            s = (x.double() + r.double()).to(torch.bfloat16).double()  # the residual sum, rounded to bf16
            c = s - s.mean(-1, keepdim=True) if kind == "ts_layernorm" else s
            ref = c / torch.sqrt((c * c).mean(-1, keepdim=True) + 1e-5) * w.double() + b.double()
            err = ((out.double() - ref).abs() / (1 + ref.abs())).max().item()
            err_sum = (ro.double() - s).abs().max().item()
            ok = err < 2e-2 and err_sum == 0.0  # NaN compares false: an unwritten output fails
            failed += not ok
            print("check %-13s %6dx%-4d max rel err %.2e  residual_out err %.1e  %s"
                  % (kind, rows, cols, err, err_sum, "ok" if ok else "FAIL"))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
