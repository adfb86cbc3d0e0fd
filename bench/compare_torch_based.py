#!/usr/bin/env python3
"""Times Tessera's Based linear attention (ts_based_forward) against two PyTorch references and
against Tessera's softmax attention at the same N, in one process: libtessera.so is loaded through
ctypes and runs on the same torch tensors. The references, written here in PyTorch (fp32 math on
the bf16 inputs), are the quadratic form (the masked (N x N) matrix of 1 + s + s^2/2, batch by
batch) and a chunked form in the style of flash-linear-attention's PyTorch reference (chunks of
64: the quadratic form within a chunk, the exclusive prefix sum of phi(k)^T v across chunks). The
quadratic form is timed only where one batch entry's (H x N x N) matrix stays under 2^31 elements;
elsewhere its fields are null. Softmax attention: ts_attention_forward, causal, head dimension 64,
on (B, H, N, 64) q, k and v. The protocol is tessera-bench's (bench/torch_timing.py). Prints one
JSON object per line, with the keys of tessera-bench --json (commit and build from ts_build_info).

    python3 bench/compare_torch_based.py --lib build/gpu/core/libtessera.so [--quick] [--tokens 131072]

--self-test runs Tessera's Based kernel through the same bindings on a host-backend build, with
numpy arrays, and checks it and the two reference forms (the same code, run on numpy) against
each other: it checks the bindings and the references on a machine without a GPU.
"""
import ctypes
import json
import math
import sys

from torch_timing import (start_driver, driver_arguments, parse_driver_arguments, self_test_build_record,
                          time_interleaved, writeback_charged)

TS_DTYPE_BF16 = 2
FEATURES, HEAD_DIM, CHUNK = 16, 64, 64
SCALE = 0.25  # Based's TaylorExp: 1 / sqrt(FEATURES)
QUADRATIC_LIMIT = 1 << 31  # elements of one batch entry's score matrix


class BasedShape(ctypes.Structure):
    _fields_ = [(name, ctypes.c_int) for name in ("batch", "heads", "seq", "feature_dim", "head_dim")]


class AttentionShape(ctypes.Structure):
    _fields_ = [(name, ctypes.c_int) for name in
                ("batch", "heads_q", "heads_kv", "seq_q", "seq_kv", "head_dim")]


def load_library(path):
    lib = ctypes.CDLL(path)
    strides = ctypes.POINTER(ctypes.c_longlong)
    lib.ts_based_forward.restype = ctypes.c_int
    lib.ts_based_forward.argtypes = [
        ctypes.POINTER(BasedShape), ctypes.c_int, ctypes.c_void_p, strides, ctypes.c_void_p, strides,
        ctypes.c_void_p, strides, ctypes.c_void_p, strides, ctypes.c_float, ctypes.c_int, ctypes.c_void_p]
    lib.ts_attention_forward.restype = ctypes.c_int
    lib.ts_attention_forward.argtypes = [
        ctypes.POINTER(AttentionShape), ctypes.c_int,
        ctypes.c_void_p, strides, ctypes.c_void_p, strides, ctypes.c_void_p, strides,
        ctypes.c_void_p, strides, ctypes.c_void_p, ctypes.c_float, ctypes.c_int, ctypes.c_void_p]
    lib.ts_status_string.restype = ctypes.c_char_p
    lib.ts_status_string.argtypes = [ctypes.c_int]
    return lib


def call_based(lib, b, h, n, q, k, v, o, q_strides, v_strides, normalize, stream):
    sq = (ctypes.c_longlong * 3)(*q_strides)
    sv = (ctypes.c_longlong * 3)(*v_strides)
    shape = BasedShape(b, h, n, FEATURES, HEAD_DIM)
    status = lib.ts_based_forward(ctypes.byref(shape), TS_DTYPE_BF16, q, sq, k, sq, v, sv, o, sv, SCALE, normalize,
                                  stream)
    if status != 0:
        raise RuntimeError("ts_based_forward: " + lib.ts_status_string(status).decode())


# ---- the references, on numpy or torch through a few shims ---------------------------------------

class NumpyOps:
    def __init__(self):
        import numpy
        self.np = numpy

    def einsum(self, spec, *xs):
        return self.np.einsum(spec, *xs, optimize=True)

    def cumsum(self, x, axis):
        return self.np.cumsum(x, axis=axis)

    def cat(self, xs, axis):
        return self.np.concatenate(xs, axis=axis)

    def causal(self, n, like):
        return self.np.tril(self.np.ones((n, n), dtype=like.dtype))

    def ones(self, shape, like):
        return self.np.ones(shape, dtype=like.dtype)

    def pad_rows(self, x, rows):
        return self.np.pad(x, [(0, 0)] * (x.ndim - 2) + [(0, rows), (0, 0)])


class TorchOps:
    def __init__(self):
        import torch
        self.torch = torch

    def einsum(self, spec, *xs):
        return self.torch.einsum(spec, *xs)

    def cumsum(self, x, axis):
        return self.torch.cumsum(x, dim=axis)

    def cat(self, xs, axis):
        return self.torch.cat(xs, dim=axis)

    def causal(self, n, like):
        return self.torch.tril(self.torch.ones(n, n, dtype=like.dtype, device=like.device))

    def ones(self, shape, like):
        return self.torch.ones(shape, dtype=like.dtype, device=like.device)

    def pad_rows(self, x, rows):
        return self.torch.nn.functional.pad(x, (0, 0, 0, rows))


def taylor(s):
    """phi(q) . phi(k) of the scaled score s: the identity both forms rest on."""
    return 1.0 + s + 0.5 * s * s


def quadratic_form(ops, q, k, v, normalize):
    """(B, H, N, .) float arrays: out_i = sum_{j <= i} (1 + s + s^2/2) v_j [/ sum of the weights]."""
    n = q.shape[2]
    a = taylor(ops.einsum("bhif,bhjf->bhij", q, k) * SCALE) * ops.causal(n, q)
    out = ops.einsum("bhij,bhjd->bhid", a, v)
    return out / a.sum(-1)[..., None] if normalize else out


def feature_map(ops, x):
    """phi(x) = [1, r x, vec(r x r x^T) / sqrt 2] with r = sqrt(SCALE): 273 features."""
    lead, f = tuple(x.shape[:-1]), x.shape[-1]
    r = x * math.sqrt(SCALE)
    outer = (r[..., :, None] * r[..., None, :]).reshape(lead + (f * f,)) / math.sqrt(2.0)
    return ops.cat([ops.ones(lead + (1,), x), r, outer], -1)


def chunked_form(ops, q, k, v, normalize):
    """flash-linear-attention style: within a chunk of 64 the quadratic form, across chunks the state
    sum phi(k)^T v of the chunks before (an exclusive prefix sum over chunks)."""
    b, h, n, _ = q.shape
    pad = (-n) % CHUNK
    q, k, v = (ops.pad_rows(x, pad) for x in (q, k, v))
    c = (n + pad) // CHUNK
    qc, kc, vc = (x.reshape(b, h, c, CHUNK, x.shape[-1]) for x in (q, k, v))
    fq, fk = feature_map(ops, qc), feature_map(ops, kc)
    kv = ops.einsum("bhcjf,bhcjd->bhcfd", fk, vc)
    kv = ops.cumsum(kv, 2) - kv
    a = taylor(ops.einsum("bhcif,bhcjf->bhcij", qc, kc) * SCALE) * ops.causal(CHUNK, q)
    out = ops.einsum("bhcif,bhcfd->bhcid", fq, kv) + ops.einsum("bhcij,bhcjd->bhcid", a, vc)
    if normalize:
        z = fk.sum(3)
        z = ops.cumsum(z, 2) - z
        out = out / (ops.einsum("bhcif,bhcf->bhci", fq, z) + a.sum(-1))[..., None]
    return out.reshape(b, h, c * CHUNK, HEAD_DIM)[:, :, :n]


# ---- the GPU runs ----------------------------------------------------------------------------------

def based_runs(torch, lib, b, h, n, normalize):
    """One problem: the calls by name (Tessera's Based, which writes o; the two references, which return
    their output; Tessera's softmax attention at the same N), and o."""
    ops = TorchOps()
    q, k = (torch.randn(b, h, n, FEATURES, dtype=torch.bfloat16, device="cuda") for _ in range(2))
    v = torch.randn(b, h, n, HEAD_DIM, dtype=torch.bfloat16, device="cuda")
    o = torch.empty_like(v)
    stream = torch.cuda.current_stream().cuda_stream
    q32, k32, v32 = q.float(), k.float(), v.float()

    def tessera():
        call_based(lib, b, h, n, q.data_ptr(), k.data_ptr(), v.data_ptr(), o.data_ptr(), q.stride()[:3],
                   v.stride()[:3], normalize, stream)

    def quadratic():
        return torch.cat([quadratic_form(ops, q32[i:i + 1], k32[i:i + 1], v32[i:i + 1], normalize)
                          for i in range(b)])

    def chunked():
        return chunked_form(ops, q32, k32, v32, normalize)

    sq, sk, sv = (torch.randn(b, h, n, HEAD_DIM, dtype=torch.bfloat16, device="cuda") for _ in range(3))
    so = torch.empty_like(sq)
    st = (ctypes.c_longlong * 3)(*sq.stride()[:3])
    ashape = AttentionShape(b, h, h, n, n, HEAD_DIM)

    def softmax_attention():
        status = lib.ts_attention_forward(ctypes.byref(ashape), TS_DTYPE_BF16, sq.data_ptr(), st, sk.data_ptr(), st,
                                          sv.data_ptr(), st, so.data_ptr(), st, None, 1.0 / math.sqrt(HEAD_DIM), 1,
                                          stream)
        if status != 0:
            raise RuntimeError("ts_attention_forward: " + lib.ts_status_string(status).decode())

    runs = {"tessera": tessera, "torch_chunked": chunked, "tessera_softmax_attention": softmax_attention}
    if h * n * n <= QUADRATIC_LIMIT:
        runs["torch_quadratic"] = quadratic
    return runs, o


def self_test(lib_path):
    """Host backend: numpy arrays are 'device' memory; bf16 is rounded to nearest even by hand."""
    import numpy as np
    lib = load_library(lib_path)
    ops = NumpyOps()
    rng = np.random.default_rng()

    def bf16(x):
        bits = np.ascontiguousarray(x, dtype=np.float32).view(np.uint32)
        bits = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16
        return bits.astype(np.uint16)

    def unbf16(bits):
        return (bits.astype(np.uint32) << 16).view(np.float32).astype(np.float64)

    failures = 0
    for b, h, n in ((1, 2, 70), (2, 1, 130)):
        q, k = (bf16(rng.standard_normal((b, h, n, FEATURES))) for _ in range(2))
        v = bf16(rng.standard_normal((b, h, n, HEAD_DIM)))
        for normalize in (0, 1):
            o = np.full((b, h, n, HEAD_DIM), 0xFFFF, dtype=np.uint16)
            call_based(lib, b, h, n, q.ctypes.data, k.ctypes.data, v.ctypes.data, o.ctypes.data,
                       (h * n * FEATURES, n * FEATURES, FEATURES), (h * n * HEAD_DIM, n * HEAD_DIM, HEAD_DIM),
                       normalize, None)
            ref = quadratic_form(ops, unbf16(q), unbf16(k), unbf16(v), normalize)
            chunk = chunked_form(ops, unbf16(q), unbf16(k), unbf16(v), normalize)
            forms = np.linalg.norm(chunk - ref) / np.linalg.norm(ref)
            err = np.linalg.norm(unbf16(o) - ref) / np.linalg.norm(ref)
            ok = forms < 1e-12 and err < 1e-2
            print(f"self-test B {b} H {h} N {n} normalize {normalize}: Tessera vs quadratic {err:.3g}, "
                  f"chunked vs quadratic {forms:.3g}{'' if ok else '  FAILED'}")
            failures += not ok
    return failures + self_test_build_record(lib, "host")


def main():
    parser = driver_arguments(__doc__, reps=20, warmup=3)
    parser.add_argument("--quick", action="store_true", help="N = 8192 only")
    parser.add_argument("--tokens", type=int, default=131072, help="B x N of every point, as tessera-bench based")
    args = parse_driver_arguments(parser)
    if args.self_test:
        return 1 if self_test(args.lib) else 0

    torch, lib, record, props, flush, date = start_driver(args, load_library)
    h = 16
    ns = [8192] if args.quick else [2048, 4096, 8192, 16384, 32768, 65536]
    flops_per_token = 2.0 * 64 * (16 + 64) + 4.0 * 273 * 64
    for n in ns:
        b = max(1, args.tokens // n)
        for normalize in (0, 1):
            runs, o = based_runs(torch, lib, b, h, n, normalize)
            ms = time_interleaved(torch, runs, flush, args.reps, args.warmup)
            ref = runs["torch_chunked"]()
            runs["tessera"]()
            torch.cuda.synchronize()
            rel = ((o.float() - ref).norm() / ref.norm().clamp_min(1e-30)).item()
            flops = b * h * n * flops_per_token
            tflops = {name: flops / (t * 1e9) for name, t in ms.items()}
            quad = ms.get("torch_quadratic")
            print(json.dumps({
                "bench": "based", "backend": "cuda", "device": props.name,
                "params": {"B": b, "H": h, "N": n, "normalize": normalize, "dtype": "bf16", "ms": ms["tessera"],
                           "writeback": "charged" if writeback_charged() else "not charged"},
                "metric": "TFLOP/s", "value": tflops["tessera"],
                "baseline": "torch chunked (fla style, fp32)", "baseline_value": tflops["torch_chunked"],
                "ratio": tflops["tessera"] / tflops["torch_chunked"], "date": date,
                "torch_chunked_ms": ms["torch_chunked"],
                "torch_quadratic_ms": quad, "ratio_quadratic": (quad / ms["tessera"]) if quad else None,
                "softmax_attention_ms": ms["tessera_softmax_attention"],
                "ratio_softmax_attention": ms["tessera_softmax_attention"] / ms["tessera"],
                "rel_norm_diff_vs_chunked": rel, **record}), flush=True)
            del runs, o
            torch.cuda.empty_cache()
    return 0


if __name__ == "__main__":
    sys.exit(main())
