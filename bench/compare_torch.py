#!/usr/bin/env python3
"""Times Tessera's attention forward against PyTorch's scaled_dot_product_attention with its cuDNN
and flash backends, in one process: libtessera.so is loaded through ctypes and runs on the same
torch tensors. The protocol is tessera-bench's: random normal inputs, warm-up, the median of at
least 20 timed runs with CUDA events, the L2 flushed before every run, the three implementations
interleaved. Prints one JSON object per line, with the keys of tessera-bench --json (commit and build from the library's ts_build_info).

    python3 bench/compare_torch.py --lib build/gpu/core/libtessera.so [--quick]

--self-test runs Tessera's attention through the same bindings on a host-backend build, with
numpy arrays and a numpy reference: it checks the bindings on a machine without a GPU.
"""
import ctypes
import json
import math
import sys

from torch_timing import (attention_sweep, driver_arguments, parse_driver_arguments, self_test_build_record,
                          start_driver, time_interleaved, writeback_charged)

TS_DTYPE_BF16 = 2
TS_DTYPE_F32 = 1


class AttentionShape(ctypes.Structure):
    _fields_ = [(name, ctypes.c_int) for name in
                ("batch", "heads_q", "heads_kv", "seq_q", "seq_kv", "head_dim")]


def load_library(path):
    lib = ctypes.CDLL(path)
    lib.ts_attention_forward.restype = ctypes.c_int
    strides = ctypes.POINTER(ctypes.c_longlong)
    lib.ts_attention_forward.argtypes = [
        ctypes.POINTER(AttentionShape), ctypes.c_int,
        ctypes.c_void_p, strides, ctypes.c_void_p, strides, ctypes.c_void_p, strides,
        ctypes.c_void_p, strides, ctypes.c_void_p, ctypes.c_float, ctypes.c_int, ctypes.c_void_p]
    lib.ts_status_string.restype = ctypes.c_char_p
    lib.ts_status_string.argtypes = [ctypes.c_int]
    return lib


def call_attention(lib, shape, dtype, q, k, v, o, lse, strides_q, strides_kv, scale, causal, stream):
    sq = (ctypes.c_longlong * 3)(*strides_q)
    skv = (ctypes.c_longlong * 3)(*strides_kv)
    status = lib.ts_attention_forward(ctypes.byref(shape), dtype, q, sq, k, skv, v, skv, o, sq, lse,
                                      scale, causal, stream)
    if status != 0:
        raise RuntimeError("ts_attention_forward: " + lib.ts_status_string(status).decode())


def attention_runs(torch, lib, b, h, n, d, causal):
    """One bf16 problem (B, H, N, D), random normal inputs: the calls that run it, by name (Tessera's,
    which writes o, and SDPA's with its cuDNN and flash backends, which return their output), and o."""
    import torch.nn.functional as F
    from torch.nn.attention import SDPBackend, sdpa_kernel

    q, k, v = (torch.randn(b, h, n, d, dtype=torch.bfloat16, device="cuda") for _ in range(3))
    o = torch.empty_like(q)
    lse = torch.empty(b, h, n, dtype=torch.float32, device="cuda")
    scale = 1.0 / math.sqrt(d)
    strides = q.stride()[:3]
    shape = AttentionShape(b, h, h, n, n, d)
    stream = torch.cuda.current_stream().cuda_stream

    def tessera():
        call_attention(lib, shape, TS_DTYPE_BF16, q.data_ptr(), k.data_ptr(), v.data_ptr(),
                       o.data_ptr(), lse.data_ptr(), strides, strides, scale, causal, stream)

    def backend(kind):
        def run():
            with sdpa_kernel(kind):
                return F.scaled_dot_product_attention(q, k, v, is_causal=bool(causal), scale=scale)
        return run

    return {"tessera": tessera, "cuDNN": backend(SDPBackend.CUDNN_ATTENTION),
            "flash": backend(SDPBackend.FLASH_ATTENTION)}, o


def self_test(lib_path):
    """Host backend: numpy arrays are 'device' memory. bf16 is emulated by truncating fp32."""
    import numpy as np
    lib = load_library(lib_path)
    rng = np.random.default_rng()
    b, h, n, d = 1, 2, 70, 64

    def bf16(x):
        bits = np.ascontiguousarray(x, dtype=np.float32).view(np.uint32)
        bits = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16
        return bits.astype(np.uint16)

    def unbf16(bits):
        return (bits.astype(np.uint32) << 16).view(np.float32).astype(np.float64)

    q, k, v = (bf16(rng.standard_normal((b, h, n, d))) for _ in range(3))
    o = np.full((b, h, n, d), 0xFFFF, dtype=np.uint16)
    lse = np.full((b, h, n), np.nan, dtype=np.float32)
    strides = (h * n * d, n * d, d)
    shape = AttentionShape(b, h, h, n, n, d)
    scale = 1.0 / math.sqrt(d)
    for causal in (0, 1):
        call_attention(lib, shape, TS_DTYPE_BF16, q.ctypes.data, k.ctypes.data, v.ctypes.data,
                       o.ctypes.data, lse.ctypes.data, strides, strides, scale, causal, None)
        s = np.einsum("bhid,bhjd->bhij", unbf16(q), unbf16(k)) * scale
        if causal:
            s = np.where(np.triu(np.ones((n, n), dtype=bool), 1), -np.inf, s)
        m = s.max(axis=-1, keepdims=True)
        p = np.exp(s - m)
        ref = np.einsum("bhij,bhjd->bhid", p / p.sum(axis=-1, keepdims=True), unbf16(v))
        ref_lse = (m[..., 0] + np.log(p.sum(axis=-1)))
        err = np.abs(unbf16(o) - ref).max()
        lse_err = np.abs(lse - ref_lse).max()
        print(f"self-test causal={causal}: largest |O - reference| {err:.3g}, |lse - reference| {lse_err:.3g}")
        if not (err < 3e-2 and lse_err < 1e-3):
            return 1
    return self_test_build_record(lib, "host")


def main():
    parser = driver_arguments(__doc__, reps=20, warmup=3)
    parser.add_argument("--quick", action="store_true", help="the two B16 H16 N4096 D128 points only")
    args = parse_driver_arguments(parser)
    if args.self_test:
        return self_test(args.lib)

    torch, lib, record, props, flush, date = start_driver(args, load_library)

    shapes = attention_sweep(args.quick)

    for b, h, n, d, causal in shapes:
        runs, o = attention_runs(torch, lib, b, h, n, d, causal)
        ms = time_interleaved(torch, runs, flush, args.reps, args.warmup)
        ref = runs["cuDNN"]()
        runs["tessera"]()
        torch.cuda.synchronize()
        diff = ((o.float() - ref.float()).abs().max() / ref.float().abs().max().clamp_min(1e-30)).item()
        flops = 4.0 * b * h * n * n * d * (0.5 if causal else 1.0)
        tflops = {name: flops / (t * 1e9) for name, t in ms.items()}
        print(json.dumps({
            "bench": "attention", "backend": "cuda", "device": props.name,
            "params": {"B": b, "H": h, "N": n, "D": d, "causal": causal, "dtype": "bf16",
                       "writeback": "charged" if writeback_charged() else "not charged"},
            "metric": "TFLOP/s", "value": tflops["tessera"],
            "baseline": "cuDNN", "baseline_value": tflops["cuDNN"],
            "ratio": tflops["tessera"] / tflops["cuDNN"], "date": date,
            "flash_value": tflops["flash"], "ratio_flash": tflops["tessera"] / tflops["flash"],
            "max_rel_diff_vs_cudnn": diff, **record}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
