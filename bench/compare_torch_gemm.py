#!/usr/bin/env python3
"""Times Tessera's ts_gemm_ex (with its split-K workspace, as tessera-bench gemm-decode) at decoding's
shapes against PyTorch's F.linear and torch.matmul (cuBLAS underneath), in one process:
libtessera.so is loaded through ctypes and runs on the same torch tensors. The sweep is
tessera-bench gemm-decode's: M in {1, 2, 4, 8, 16, 32, 64, 128, 256} against the projections of
Llama-3 8B (N x K = 4096 x 4096, 14336 x 4096, 4096 x 14336, 1024 x 4096) and 70B (8192 x 8192,
28672 x 8192, 8192 x 28672, 1024 x 8192), the weight N x K as nn.Linear stores it (trans_b = 1),
bf16. The protocol is tessera-bench's: random normal inputs, warm-up, the median of at least 20
timed runs with CUDA events, the L2 flushed before every run, the three implementations interleaved.
Each point reports TFLOP/s, the TB/s of weights read, and the limit: the weights' bytes over the
DRAM's peak (limit_ms; TESSERA_BENCH_DRAM_TBPS overrides the peak PyTorch reports). Prints one JSON
object per line with the keys of tessera-bench --json (commit and build from the library's
ts_build_info); the baseline is F.linear, and matmul_value / ratio_matmul report torch.matmul.

    python3 bench/compare_torch_gemm.py --lib build/gpu/core/libtessera.so [--quick]

--self-test runs ts_gemm_ex through the same bindings on a host-backend build, with numpy arrays and
a numpy reference, at the small sizes of both paths of few rows (GEMV for M <= 8, the skinny
kernels above): it checks the bindings on a machine without a GPU.
"""
import ctypes
import json
import os
import sys

from torch_timing import (start_driver, driver_arguments, parse_driver_arguments, self_test_build_record,
                          time_interleaved, writeback_charged)

TS_DTYPE_BF16 = 2
TS_NO_TRANS, TS_TRANS = 0, 1

SHAPES = [("8B", 4096, 4096), ("8B", 14336, 4096), ("8B", 4096, 14336), ("8B", 1024, 4096),
          ("70B", 8192, 8192), ("70B", 28672, 8192), ("70B", 8192, 28672), ("70B", 1024, 8192)]
MS = [1, 2, 4, 8, 16, 32, 64, 128, 256]


def load_library(path):
    lib = ctypes.CDLL(path)
    P, LL, I, F = ctypes.c_void_p, ctypes.c_longlong, ctypes.c_int, ctypes.c_float
    lib.ts_gemm_ex.restype = I
    lib.ts_gemm_ex.argtypes = [I, I, I, I, I, F, P, I, LL, P, I, LL, F, P, I, LL, P, ctypes.c_size_t, P]
    lib.ts_gemm_workspace_size.restype = I
    lib.ts_gemm_workspace_size.argtypes = [ctypes.POINTER(ctypes.c_size_t)]
    lib.ts_status_string.restype = ctypes.c_char_p
    lib.ts_status_string.argtypes = [I]
    lib.ts_gemm_explain.restype = I
    lib.ts_gemm_explain.argtypes = [I, I, I, I, I, ctypes.c_char_p, ctypes.c_size_t]
    return lib


def plan(lib, m, n, k):
    """ts_gemm_explain's sentence for linear()'s product: the kernel and split it runs."""
    buf = ctypes.create_string_buffer(256)
    status = lib.ts_gemm_explain(TS_NO_TRANS, TS_TRANS, m, n, k, buf, len(buf))
    if status != 0:
        raise RuntimeError("ts_gemm_explain: " + lib.ts_status_string(status).decode())
    return buf.value.decode()


def workspace_bytes(lib):
    n = ctypes.c_size_t()
    status = lib.ts_gemm_workspace_size(ctypes.byref(n))
    if status != 0:
        raise RuntimeError("ts_gemm_workspace_size: " + lib.ts_status_string(status).decode())
    return n.value


def linear(lib, m, n, k, x, w, out, ws, ws_bytes, stream):
    """out (M x N) = x (M x K) w^T, w N x K: ts_gemm_ex(NO_TRANS, TRANS), bf16, leading dimensions
    packed; ws: the split-K workspace (ws_bytes of it, zeroed before its first use)."""
    status = lib.ts_gemm_ex(TS_NO_TRANS, TS_TRANS, m, n, k, 1.0, x, TS_DTYPE_BF16, k, w, TS_DTYPE_BF16, k, 0.0, out,
                            TS_DTYPE_BF16, n, ws, ws_bytes, stream)
    if status != 0:
        raise RuntimeError("ts_gemm_ex: " + lib.ts_status_string(status).decode())


def dram_peak(props):
    """Bytes/s: TESSERA_BENCH_DRAM_TBPS, else memory clock (kHz, double data rate) x bus width, else 0."""
    env = float(os.environ.get("TESSERA_BENCH_DRAM_TBPS", "0") or 0)
    if env > 0:
        return env * 1e12
    clock = getattr(props, "memory_clock_rate", 0) or 0
    bus = getattr(props, "memory_bus_width", 0) or 0
    return 2.0 * clock * 1e3 * bus / 8 if clock and bus else 0.0


def self_test(lib_path):
    """Host backend: numpy arrays are 'device' memory. bf16 is rounded to nearest even in numpy."""
    import numpy as np
    lib = load_library(lib_path)
    rng = np.random.default_rng()

    def bf16(x):
        bits = np.ascontiguousarray(x, dtype=np.float32).view(np.uint32)
        bits = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16
        return bits.astype(np.uint16)

    def unbf16(bits):
        return (bits.astype(np.uint32) << 16).view(np.float32).astype(np.float64)

    def aligned(shape):
        """A uint16 array whose data starts on 16 bytes (ts_gemm's alignment), poisoned (NaN)."""
        count = int(np.prod(shape))
        raw = np.full(count + 8, 0xFFFF, dtype=np.uint16)
        skip = (-raw.ctypes.data % 16) // 2
        return raw[skip:skip + count].reshape(shape)

    ws_bytes = workspace_bytes(lib)
    ws_raw = np.zeros(ws_bytes + 16, dtype=np.uint8)
    ws = ws_raw.ctypes.data + (-ws_raw.ctypes.data % 16)
    failures = 0
    # M <= 8 runs on GEMV, 9 and 16 on the skinny kernels; K and N multiples of 8 (ts_gemm's
    # leading dimensions), N of 4 rows and more.
    for m, n, k in ((1, 40, 64), (3, 72, 1000), (8, 24, 520), (9, 40, 136), (16, 64, 64)):
        x, w = aligned((m, k)), aligned((n, k))
        x[:] = bf16(rng.standard_normal((m, k)))
        w[:] = bf16(rng.standard_normal((n, k)))
        out = aligned((m, n))
        linear(lib, m, n, k, x.ctypes.data, w.ctypes.data, out.ctypes.data, ws, ws_bytes, None)
        ref = unbf16(x) @ unbf16(w).T
        err = np.abs(unbf16(out) - ref).max() / max(np.abs(ref).max(), 1e-30)
        # M <= 8 against these few weight rows is GEMV; more rows the 16-wide skinny tiles.
        how = plan(lib, m, n, k)
        ok = err < 1e-2 and how.startswith("GEMV" if m <= 8 else "C^T on the skinny 128 x 16 tiles")
        print(f"self-test ts_gemm_ex {m} x {n} x {k} (weights N x K): largest |C - reference| / max |reference| "
              f"{err:.3g}, {how}{'' if ok else '  FAILED'}")
        failures += not ok
    return failures + self_test_build_record(lib, "host")


def main():
    parser = driver_arguments(__doc__, reps=20, warmup=3)
    parser.add_argument("--quick", action="store_true", help="M in {1, 8, 32} on the 8B shapes only")
    args = parse_driver_arguments(parser)
    if args.self_test:
        return self_test(args.lib)

    torch, lib, record, props, flush, date = start_driver(args, load_library)
    import torch.nn.functional as F
    peak = dram_peak(props)
    shapes = SHAPES[:4] if args.quick else SHAPES
    ms = [1, 8, 32] if args.quick else MS
    stream = torch.cuda.current_stream().cuda_stream
    ws_bytes = workspace_bytes(lib)
    ws = torch.zeros(max(ws_bytes, 1), dtype=torch.uint8, device="cuda")

    for model, n, k in shapes:
        w = torch.randn(n, k, dtype=torch.bfloat16, device="cuda")
        for m in ms:
            x = torch.randn(m, k, dtype=torch.bfloat16, device="cuda")
            out = torch.empty(m, n, dtype=torch.bfloat16, device="cuda")
            runs = {
                "tessera": lambda: linear(lib, m, n, k, x.data_ptr(), w.data_ptr(), out.data_ptr(), ws.data_ptr(),
                                          ws_bytes, stream),
                "F.linear": lambda: F.linear(x, w),
                "matmul": lambda: torch.matmul(x, w.t()),
            }
            times = time_interleaved(torch, runs, flush, args.reps, args.warmup)
            ref = F.linear(x, w)
            runs["tessera"]()
            torch.cuda.synchronize()
            diff = ((out.float() - ref.float()).abs().max() / ref.float().abs().max().clamp_min(1e-30)).item()
            flops, weights = 2.0 * m * n * k, 2.0 * n * k
            tflops = {name: flops / (t * 1e9) for name, t in times.items()}
            limit_ms = weights / peak * 1e3 if peak > 0 else None
            print(json.dumps({
                "bench": "gemm-decode", "backend": "cuda", "device": props.name,
                "params": {"M": m, "N": n, "K": k, "model": model, "layout": "NT", "dtype": "bf16",
                           "workspace": 1, "plan": plan(lib, m, n, k), "ms": times["tessera"],
                           "weights_TBps": weights / (times["tessera"] * 1e9),
                           "limit_ms": limit_ms,
                           "limit_fraction": limit_ms / times["tessera"] if limit_ms else None,
                           "baseline_ms": times["F.linear"],
                           "writeback": "charged" if writeback_charged() else "not charged"},
                "metric": "TFLOP/s", "value": tflops["tessera"],
                "baseline": "F.linear", "baseline_value": tflops["F.linear"],
                "ratio": tflops["tessera"] / tflops["F.linear"], "date": date,
                "matmul_value": tflops["matmul"], "ratio_matmul": tflops["tessera"] / tflops["matmul"],
                "max_rel_diff_vs_linear": diff, **record}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
