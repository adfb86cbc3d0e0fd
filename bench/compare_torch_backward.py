#!/usr/bin/env python3
"""Times Tessera's attention backward against the backward of PyTorch's scaled_dot_product_attention
with its cuDNN and flash backends, in one process: libtessera.so is loaded through ctypes and runs
on the same torch tensors. Each implementation's forward runs once, untimed (Tessera's gives O and
the log-sum-exp its backward takes; PyTorch's keeps what its own backward needs); then the backward
alone is timed, with the protocol of tessera-bench (bench/torch_timing.py): random normal inputs,
warm-up, the median of at least 20 runs with CUDA events, the L2 flushed before every run, the three
implementations interleaved. Tessera is timed twice in the same rounds, one line each, params.dq
naming the call as tessera-bench's lines do: "default" (ts_attention_backward_ex with flags 0: dQ by
fp32 atomics at D = 128 without the causal mask, the deterministic form elsewhere) and
"deterministic" (TS_ATTENTION_DETERMINISTIC). TFLOP/s count the backward's five products, 10 B H N^2 D, 2.5x the
forward's, halved when causal. Prints one JSON object per line, with the keys of tessera-bench
--json, and each point's largest difference of dQ, dK and dV from cuDNN's, relative to the largest
element of cuDNN's.

    python3 bench/compare_torch_backward.py --lib build/gpu/core/libtessera.so [--quick]

--self-test runs Tessera's forward and backward through the same bindings on a host-backend build,
with numpy arrays and a numpy reference of the gradients: it checks the bindings on a machine
without a GPU.
"""
import ctypes
import json
import math
import sys

from torch_timing import (attention_sweep, driver_arguments, parse_driver_arguments, self_test_build_record,
                          start_driver, time_interleaved)

TS_DTYPE_BF16 = 2
TS_ATTENTION_DETERMINISTIC = 1
FORMS = {"default": 0, "deterministic": TS_ATTENTION_DETERMINISTIC}


class AttentionShape(ctypes.Structure):
    _fields_ = [(name, ctypes.c_int) for name in
                ("batch", "heads_q", "heads_kv", "seq_q", "seq_kv", "head_dim")]


def load_library(path):
    lib = ctypes.CDLL(path)
    strides = ctypes.POINTER(ctypes.c_longlong)
    ptr = ctypes.c_void_p
    lib.ts_attention_forward.restype = ctypes.c_int
    lib.ts_attention_forward.argtypes = [
        ctypes.POINTER(AttentionShape), ctypes.c_int, ptr, strides, ptr, strides, ptr, strides,
        ptr, strides, ptr, ctypes.c_float, ctypes.c_int, ptr]
    lib.ts_attention_backward_ex.restype = ctypes.c_int
    lib.ts_attention_backward_ex.argtypes = [
        ctypes.POINTER(AttentionShape), ctypes.c_int, ptr, strides, ptr, strides, ptr, strides, ptr, strides,
        ptr, strides, ptr, ptr, strides, ptr, strides, ptr, strides, ctypes.c_float, ctypes.c_int,
        ctypes.c_uint, ptr, ctypes.c_size_t, ptr]
    lib.ts_attention_backward_workspace_size.restype = ctypes.c_int
    lib.ts_attention_backward_workspace_size.argtypes = [ctypes.POINTER(AttentionShape),
                                                         ctypes.POINTER(ctypes.c_size_t)]
    lib.ts_status_string.restype = ctypes.c_char_p
    lib.ts_status_string.argtypes = [ctypes.c_int]
    return lib


def check(lib, name, status):
    if status != 0:
        raise RuntimeError(name + ": " + lib.ts_status_string(status).decode())


def workspace_bytes(lib, shape):
    n = ctypes.c_size_t(0)
    check(lib, "ts_attention_backward_workspace_size", lib.ts_attention_backward_workspace_size(ctypes.byref(shape),
                                                                                               ctypes.byref(n)))
    return n.value


class Tessera:
    """Tessera's forward and backward on one (B, H, N, D) problem whose tensors share strides."""

    def __init__(self, lib, shape, strides, scale, causal, stream):
        self.lib, self.shape, self.scale, self.causal, self.stream = lib, shape, scale, causal, stream
        self.s = (ctypes.c_longlong * 3)(*strides)

    def forward(self, q, k, v, o, lse):
        s = self.s
        check(self.lib, "ts_attention_forward",
              self.lib.ts_attention_forward(ctypes.byref(self.shape), TS_DTYPE_BF16, q, s, k, s, v, s, o, s, lse,
                                            self.scale, self.causal, self.stream))

    def backward(self, flags, q, k, v, o, d_o, lse, dq, dk, dv, ws, ws_bytes):
        s = self.s
        check(self.lib, "ts_attention_backward_ex",
              self.lib.ts_attention_backward_ex(ctypes.byref(self.shape), TS_DTYPE_BF16, q, s, k, s, v, s, o, s,
                                                d_o, s, lse, dq, s, dk, s, dv, s, self.scale, self.causal, flags,
                                                ws, ws_bytes, self.stream))


def backward_runs(torch, lib, b, h, n, d, causal):
    """One bf16 problem (B, H, N, D): the backward calls by name, and the gradients each leaves."""
    import torch.nn.functional as F
    from torch.nn.attention import SDPBackend, sdpa_kernel

    q, k, v, d_o = (torch.randn(b, h, n, d, dtype=torch.bfloat16, device="cuda") for _ in range(4))
    o = torch.empty_like(q)
    lse = torch.empty(b, h, n, dtype=torch.float32, device="cuda")
    scale = 1.0 / math.sqrt(d)
    shape = AttentionShape(b, h, h, n, n, d)
    ws = torch.empty(workspace_bytes(lib, shape), dtype=torch.uint8, device="cuda")
    t = Tessera(lib, shape, q.stride()[:3], scale, causal, torch.cuda.current_stream().cuda_stream)
    t.forward(q.data_ptr(), k.data_ptr(), v.data_ptr(), o.data_ptr(), lse.data_ptr())
    grads = {}

    def tessera(form):
        dq, dk, dv = grads[form] = tuple(torch.empty_like(q) for _ in range(3))

        def run():
            t.backward(FORMS[form], q.data_ptr(), k.data_ptr(), v.data_ptr(), o.data_ptr(), d_o.data_ptr(),
                       lse.data_ptr(), dq.data_ptr(), dk.data_ptr(), dv.data_ptr(), ws.data_ptr(), ws.numel())
        return run

    def backend(name, kind):
        qq, kk, vv = (x.detach().clone().requires_grad_(True) for x in (q, k, v))
        with sdpa_kernel(kind):
            out = F.scaled_dot_product_attention(qq, kk, vv, is_causal=bool(causal), scale=scale)

        def run():
            with sdpa_kernel(kind):
                grads[name] = torch.autograd.grad(out, (qq, kk, vv), d_o, retain_graph=True)
        return run

    runs = {**{form: tessera(form) for form in FORMS}, "cuDNN": backend("cuDNN", SDPBackend.CUDNN_ATTENTION),
            "flash": backend("flash", SDPBackend.FLASH_ATTENTION)}
    return runs, grads


def self_test(lib_path):
    """Host backend: numpy arrays are 'device' memory. bf16 is rounded to nearest even by hand."""
    import numpy as np
    lib = load_library(lib_path)
    rng = np.random.default_rng()
    b, h, n, d = 1, 2, 70, 128  # D = 128: the default form is the atomic one without the causal mask

    def bf16(x):
        bits = np.ascontiguousarray(x, dtype=np.float32).view(np.uint32)
        bits = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16
        return bits.astype(np.uint16)

    def unbf16(bits):
        return (bits.astype(np.uint32) << 16).view(np.float32).astype(np.float64)

    q, k, v, d_o = (bf16(rng.standard_normal((b, h, n, d))) for _ in range(4))
    o = np.zeros((b, h, n, d), dtype=np.uint16)
    lse = np.zeros((b, h, n), dtype=np.float32)
    shape = AttentionShape(b, h, h, n, n, d)
    ws = np.zeros(workspace_bytes(lib, shape) // 4 + 4, dtype=np.float32)
    ws_at = (ws.ctypes.data + 15) // 16 * 16
    scale = 1.0 / math.sqrt(d)
    for causal, form in ((c, f) for c in (0, 1) for f in FORMS):
        dq, dk, dv = (np.full((b, h, n, d), 0xFFFF, dtype=np.uint16) for _ in range(3))
        t = Tessera(lib, shape, (h * n * d, n * d, d), scale, causal, None)
        t.forward(q.ctypes.data, k.ctypes.data, v.ctypes.data, o.ctypes.data, lse.ctypes.data)
        t.backward(FORMS[form], q.ctypes.data, k.ctypes.data, v.ctypes.data, o.ctypes.data, d_o.ctypes.data, lse.ctypes.data,
                   dq.ctypes.data, dk.ctypes.data, dv.ctypes.data, ws_at, workspace_bytes(lib, shape))
        Q, K, V, dO = (unbf16(x) for x in (q, k, v, d_o))
        s = np.einsum("bhid,bhjd->bhij", Q, K) * scale
        if causal:
            s = np.where(np.triu(np.ones((n, n), dtype=bool), 1), -np.inf, s)
        p = np.exp(s - s.max(axis=-1, keepdims=True))
        p /= p.sum(axis=-1, keepdims=True)
        O = np.einsum("bhij,bhjd->bhid", p, V)
        ref_dv = np.einsum("bhij,bhid->bhjd", p, dO)
        dp = np.einsum("bhid,bhjd->bhij", dO, V)
        ds = p * (dp - (dO * O).sum(axis=-1, keepdims=True)) * scale
        ref_dq = np.einsum("bhij,bhjd->bhid", ds, K)
        ref_dk = np.einsum("bhij,bhid->bhjd", ds, Q)
        errs = [np.linalg.norm(unbf16(g) - r) / np.linalg.norm(r)
                for g, r in ((dq, ref_dq), (dk, ref_dk), (dv, ref_dv))]
        print(f"self-test causal={causal} {form}: relative errors dQ {errs[0]:.3g} dK {errs[1]:.3g} dV {errs[2]:.3g}")
        if not all(e < 1e-2 for e in errs):
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
        runs, grads = backward_runs(torch, lib, b, h, n, d, causal)
        ms = time_interleaved(torch, runs, flush, args.reps, args.warmup)
        for run in runs.values():
            run()
        torch.cuda.synchronize()
        flops = 10.0 * b * h * n * n * d * (0.5 if causal else 1.0)
        tflops = {name: flops / (t * 1e9) for name, t in ms.items()}
        for form in FORMS:
            diff = max(((g.float() - r.float()).abs().max() / r.float().abs().max().clamp_min(1e-30)).item()
                       for g, r in zip(grads[form], grads["cuDNN"]))
            print(json.dumps({
                "bench": "attention-backward", "backend": "cuda", "device": props.name,
                "params": {"B": b, "H": h, "N": n, "D": d, "causal": causal, "dtype": "bf16", "dq": form},
                "metric": "TFLOP/s", "value": tflops[form],
                "baseline": "cuDNN", "baseline_value": tflops["cuDNN"],
                "ratio": tflops[form] / tflops["cuDNN"], "date": date,
                "flash_value": tflops["flash"], "ratio_flash": tflops[form] / tflops["flash"],
                "max_rel_diff_vs_cudnn": diff, **record}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
