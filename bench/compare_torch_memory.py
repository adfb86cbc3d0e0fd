#!/usr/bin/env python3
"""Times Tessera's fused memory-bound kernels (LayerNorm and RMSNorm with the residual add, rotary
embedding, softmax) against PyTorch eager and torch.compile, in one process: libtessera.so is
loaded through ctypes and runs on the same torch tensors. The protocol is tessera-bench's: random
normal inputs (bf16 at the targets' shapes; --dtype and --shapes pick others for the norms and
softmax), warm-up, the median of at least 20 timed runs with CUDA events, the L2 flushed before
every run, the three implementations interleaved. TB/s counts each input read once and each
output written once, the same bytes for all three. A device copy of the same bytes runs interleaved
with them: copy_value is this run's copy bandwidth and copy_fraction Tessera's share of it. Prints
one JSON object per line with the keys of tessera-bench --json (commit and build from the library's
ts_build_info); the baseline is torch.compile, and eager_value / ratio_eager report eager.

    python3 bench/compare_torch_memory.py --lib build/gpu/core/libtessera.so [--only layernorm,rope]

--self-test runs every kernel through the same bindings on a host-backend build, with numpy
arrays and numpy references: it checks the bindings on a machine without a GPU.
"""
import ctypes
import json
import math
import sys

from torch_timing import (start_driver, driver_arguments, parse_driver_arguments, self_test_build_record,
                          self_test_timing, time_interleaved, writeback_charged)

TS_DTYPE_F32, TS_DTYPE_BF16, TS_DTYPE_FP16 = 1, 2, 3
TS_ROTARY_BNHD, TS_ROTARY_BHND = 0, 1
TS_ROTARY_ROTATE_HALF, TS_ROTARY_INTERLEAVED = 0, 1

P, LL, I, F = ctypes.c_void_p, ctypes.c_longlong, ctypes.c_int, ctypes.c_float


class NormDesc(ctypes.Structure):
    _fields_ = [("rows", LL), ("cols", I), ("dtype", I), ("out_dtype", I), ("param_dtype", I),
                ("x", P), ("x_stride", LL), ("residual", P), ("residual_stride", LL),
                ("residual_out", P), ("residual_out_stride", LL), ("weight", P), ("bias", P),
                ("out", P), ("out_stride", LL), ("eps", F)]


class SoftmaxDesc(ctypes.Structure):
    _fields_ = [("rows", LL), ("cols", I), ("dtype", I), ("out_dtype", I), ("x", P), ("x_stride", LL),
                ("out", P), ("out_stride", LL), ("scale", F), ("causal", I), ("causal_rows", LL),
                ("causal_offset", LL)]


class RotaryDesc(ctypes.Structure):
    _fields_ = [("batch", I), ("seq", I), ("heads_q", I), ("heads_k", I), ("head_dim", I), ("dtype", I),
                ("layout", I), ("convention", I), ("q", P), ("q_out", P), ("q_strides", P), ("k", P),
                ("k_out", P), ("k_strides", P), ("cos_table", P), ("sin_table", P), ("table_rows", LL),
                ("theta_base", F), ("position_offset", LL)]


def load_library(path):
    lib = ctypes.CDLL(path)
    for name, desc in (("ts_layernorm", NormDesc), ("ts_rmsnorm", NormDesc), ("ts_softmax", SoftmaxDesc),
                       ("ts_rotary", RotaryDesc)):
        fn = getattr(lib, name)
        fn.restype = ctypes.c_int
        fn.argtypes = [ctypes.POINTER(desc), ctypes.c_void_p]
    lib.ts_status_string.restype = ctypes.c_char_p
    lib.ts_status_string.argtypes = [ctypes.c_int]
    return lib


def call(lib, name, desc, stream=None):
    status = getattr(lib, name)(ctypes.byref(desc), stream)
    if status != 0:
        raise RuntimeError(name + ": " + lib.ts_status_string(status).decode())


def norm_desc(rows, cols, x, r, ro, w, b, out, eps=1e-5, dtype=TS_DTYPE_BF16):
    return NormDesc(rows, cols, dtype, dtype, dtype, x, cols, r, cols, ro, cols, w, b, out, cols, eps)


def parse_shapes(text):
    """'16384x4096,65536x1024' -> [(16384, 4096), (65536, 1024)]."""
    shapes = []
    for item in text.split(","):
        rows, _, cols = item.partition("x")
        if not (rows.isdigit() and cols.isdigit()) or int(rows) <= 0 or int(cols) <= 0:
            raise SystemExit(f"--shapes: '{item}' is not ROWSxCOLS")
        shapes.append((int(rows), int(cols)))
    return shapes


def self_test(lib_path):
    """Host backend: numpy arrays are 'device' memory; bf16 is kept as uint16 bits."""
    import numpy as np
    lib = load_library(lib_path)
    rng = np.random.default_rng()

    def bf16(x):
        bits = np.ascontiguousarray(x, dtype=np.float32).view(np.uint32)
        return ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16).astype(np.uint16)

    def unbf16(bits):
        return (bits.astype(np.uint32) << 16).view(np.float32).astype(np.float64)

    failures = 0

    def report(what, err, tol):
        nonlocal failures
        print(f"self-test {what}: largest |error| {err:.3g}")
        if not err < tol:
            failures += 1

    rows, cols = 37, 1000
    x, r = bf16(rng.standard_normal((rows, cols))), bf16(rng.standard_normal((rows, cols)))
    w, b = bf16(1 + 0.5 * rng.standard_normal(cols)), bf16(rng.standard_normal(cols))
    for name in ("ts_layernorm", "ts_rmsnorm"):
        out = np.full((rows, cols), 0xFFFF, dtype=np.uint16)
        ro = np.full((rows, cols), 0xFFFF, dtype=np.uint16)
        call(lib, name, norm_desc(rows, cols, x.ctypes.data, r.ctypes.data, ro.ctypes.data, w.ctypes.data,
                                  b.ctypes.data if name == "ts_layernorm" else None, out.ctypes.data))
        h = unbf16(bf16(unbf16(x) + unbf16(r)))
        if name == "ts_layernorm":
            c = h - h.mean(axis=1, keepdims=True)
            ref = c / np.sqrt((c * c).mean(axis=1, keepdims=True) + 1e-5) * unbf16(w) + unbf16(b)
        else:
            ref = h / np.sqrt((h * h).mean(axis=1, keepdims=True) + 1e-5) * unbf16(w)
        report(name + " residual_out", np.abs(unbf16(ro) - h).max(), 1e-2)
        report(name, (np.abs(unbf16(out) - ref) / (1 + np.abs(ref))).max(), 1.5e-2)

    # --dtype f32's descriptor: every matrix and parameter fp32.
    xf, rf, wf = (rng.standard_normal(shape).astype(np.float32) for shape in ((rows, cols), (rows, cols), cols))
    out, ro = np.full((rows, cols), np.nan, dtype=np.float32), np.full((rows, cols), np.nan, dtype=np.float32)
    call(lib, "ts_rmsnorm", norm_desc(rows, cols, xf.ctypes.data, rf.ctypes.data, ro.ctypes.data, wf.ctypes.data,
                                      None, out.ctypes.data, dtype=TS_DTYPE_F32))
    h = xf.astype(np.float64) + rf
    ref = h / np.sqrt((h * h).mean(axis=1, keepdims=True) + 1e-5) * wf
    report("ts_rmsnorm f32", (np.abs(out - ref) / (1 + np.abs(ref))).max(), 1e-5)
    failures += parse_shapes("16384x4096,65536x1024") != [(16384, 4096), (65536, 1024)]

    for causal in (0, 1):
        out = np.full((rows, cols), 0xFFFF, dtype=np.uint16)
        call(lib, "ts_softmax", SoftmaxDesc(rows, cols, TS_DTYPE_BF16, TS_DTYPE_BF16, x.ctypes.data, cols,
                                            out.ctypes.data, cols, 0.5, causal, rows, 0))
        s = unbf16(x) * 0.5
        if causal:
            s = np.where(np.triu(np.ones((rows, cols), dtype=bool), 1), -np.inf, s)
        p = np.exp(s - s.max(axis=1, keepdims=True))
        ref = p / p.sum(axis=1, keepdims=True)
        report(f"ts_softmax causal={causal}", np.abs(unbf16(out) - ref).max(), 1e-2)

    bsz, n, h, d = 2, 9, 3, 64
    positions = np.arange(n) + 4
    inv = (10000.0 ** (-np.arange(0, d, 2) / d)).astype(np.float32)
    angles = positions[:, None].astype(np.float32) * inv[None, :]
    cos_t = np.cos(np.concatenate([np.zeros((4, d // 2), np.float32), angles])).astype(np.float32)
    sin_t = np.sin(np.concatenate([np.zeros((4, d // 2), np.float32), angles])).astype(np.float32)
    for conv in (TS_ROTARY_ROTATE_HALF, TS_ROTARY_INTERLEAVED):
        for table in (0, 1):
            q = bf16(rng.standard_normal((bsz, n, h, d)))
            qo = np.full_like(q, 0xFFFF)
            call(lib, "ts_rotary", RotaryDesc(bsz, n, h, 0, d, TS_DTYPE_BF16, TS_ROTARY_BNHD, conv, q.ctypes.data,
                                              qo.ctypes.data, None, None, None, None,
                                              cos_t.ctypes.data if table else None,
                                              sin_t.ctypes.data if table else None, n + 4, 10000.0, 4))
            qf = unbf16(q)
            c = np.cos(angles.astype(np.float64))[None, :, None, :]
            s = np.sin(angles.astype(np.float64))[None, :, None, :]
            if conv == TS_ROTARY_ROTATE_HALF:
                a, bb = qf[..., : d // 2], qf[..., d // 2:]
                ref = np.concatenate([a * c - bb * s, bb * c + a * s], axis=-1)
            else:
                a, bb = qf[..., 0::2], qf[..., 1::2]
                ref = np.stack([a * c - bb * s, bb * c + a * s], axis=-1).reshape(qf.shape)
            report(f"ts_rotary convention={conv} table={table}", np.abs(unbf16(qo) - ref).max(), 3e-2)
    failures += self_test_timing()
    failures += self_test_build_record(lib, "host")
    return 1 if failures else 0


def main():
    parser = driver_arguments(__doc__, reps=30, warmup=5)
    parser.add_argument("--only", default="layernorm,rmsnorm,rope,softmax")
    parser.add_argument("--shapes", default="16384x4096,65536x1024",
                        help="ROWSxCOLS,... of the norms and softmax (default: the targets' shapes)")
    parser.add_argument("--dtype", choices=("bf16", "fp16", "f32"), default="bf16",
                        help="the norms' and softmax's inputs, outputs and parameters (RoPE stays bf16)")
    parser.add_argument("--outputs", choices=("per-call", "fixed"), default="per-call",
                        help="per-call (default): Tessera's call allocates its outputs from PyTorch's "
                             "caching allocator on every run and returns them, as eager and torch.compile "
                             "do, so that all three write the same blocks; fixed: it writes buffers "
                             "allocated once")
    parser.add_argument("--profile-runs", type=int, default=0,
                        help="instead of timing, run each implementation this many times after the "
                             "warm-up and print nothing: for Nsight Compute, e.g. ncu -k "
                             "'regex:triton|ts_norm' -c 8 python3 bench/compare_torch_memory.py "
                             "--only rmsnorm --profile-runs 2")
    args = parse_driver_arguments(parser)
    if args.self_test:
        return self_test(args.lib)

    torch, lib, record, props, flush, date = start_driver(args, load_library)
    import torch.nn.functional as F_
    stream = lambda: torch.cuda.current_stream().cuda_stream  # noqa: E731
    bf = torch.bfloat16
    only = set(args.only.split(","))
    shapes = parse_shapes(args.shapes)
    dt, ts_dt, elem = {"bf16": (bf, TS_DTYPE_BF16, 2), "fp16": (torch.float16, TS_DTYPE_FP16, 2),
                       "f32": (torch.float32, TS_DTYPE_F32, 4)}[args.dtype]

    def compile_fresh(fn):
        # A fresh, static compile per shape: the eager functions of one loop share a code object,
        # and dynamo would otherwise recompile the second shape with dynamic sizes, which Inductor
        # serves with a slower generic kernel than the one it builds for the fixed shape.
        torch._dynamo.reset()
        return torch.compile(fn, dynamic=False)

    def time_all(runs, nbytes):
        if args.profile_runs > 0:
            for run in runs.values():
                for _ in range(args.warmup + args.profile_runs):
                    run()
            torch.cuda.synchronize()
            return None
        # A device copy of the same bytes (half read, half written) joins the interleaved runs: the
        # copy bandwidth of this run, which the target is a fraction of.
        src = torch.zeros(int(nbytes // 2) // 16 * 16, dtype=torch.uint8, device="cuda")
        dst = torch.empty_like(src)
        return time_interleaved(torch, dict(runs, copy=lambda: dst.copy_(src)), flush, args.reps, args.warmup)

    def tessera_op(fn, desc, outputs):
        """One run of a Tessera entry point as a PyTorch op: outputs are (descriptor field, tensor
        shaped like the output) pairs; the run sets each field to a fresh tensor's address (or, with
        --outputs fixed, to one allocated here once) and returns the output tensors."""
        fixed = [torch.empty_like(like) for _, like in outputs] if args.outputs == "fixed" else None

        def run():
            outs = [torch.empty_like(like) for _, like in outputs] if args.outputs == "per-call" else fixed
            for (field, _), t in zip(outputs, outs):
                setattr(desc, field, t.data_ptr())
            call(lib, fn, desc, stream())
            return outs
        return run

    def emit(bench, params, nbytes, ms, diff, dtype="bf16"):
        if ms is None:
            return
        tbs = {k: nbytes / (v * 1e9) for k, v in ms.items()}
        params = dict(params, dtype=dtype, outputs=args.outputs,
                      writeback="charged" if writeback_charged() else "not charged",
                      ms=ms["tessera"], copy_value=tbs["copy"],
                      copy_fraction=tbs["tessera"] / tbs["copy"],
                      eager_value=tbs["eager"], ratio_eager=tbs["tessera"] / tbs["eager"],
                      max_abs_diff_vs_eager=diff)
        print(json.dumps({"bench": bench, "backend": "cuda", "device": props.name, "params": params,
                          "metric": "TB/s", "value": tbs["tessera"], "baseline": "torch.compile",
                          "baseline_value": tbs["compile"], "ratio": tbs["tessera"] / tbs["compile"],
                          "date": date, **record}), flush=True)

    for kind in ("layernorm", "rmsnorm"):
        if kind not in only:
            continue
        for rows, cols in shapes:
            x, r = (torch.randn(rows, cols, dtype=dt, device="cuda") for _ in range(2))
            w = 1 + 0.5 * torch.randn(cols, dtype=dt, device="cuda")
            b = torch.randn(cols, dtype=dt, device="cuda") if kind == "layernorm" else None
            fn = "ts_layernorm" if kind == "layernorm" else "ts_rmsnorm"
            desc = norm_desc(rows, cols, x.data_ptr(), r.data_ptr(), None, w.data_ptr(),
                             b.data_ptr() if b is not None else None, None, dtype=ts_dt)

            def eager(x=x, r=r, w=w, b=b, cols=cols, kind=kind):
                h = x + r
                if kind == "layernorm":
                    return F_.layer_norm(h, (cols,), w, b, 1e-5), h
                return F_.rms_norm(h, (cols,), w, 1e-5), h

            compiled = compile_fresh(eager)
            runs = {"tessera": tessera_op(fn, desc, (("out", x), ("residual_out", x))),
                    "eager": eager, "compile": compiled}
            nbytes = elem * (rows * cols * 4.0 + cols * (2 if kind == "layernorm" else 1))
            ms = time_all(runs, nbytes)
            ref, _ = eager()
            out, _ = runs["tessera"]()
            torch.cuda.synchronize()
            emit(kind, {"rows": rows, "cols": cols, "residual": 1}, nbytes, ms,
                 (out.float() - ref.float()).abs().max().item(), args.dtype)

    if "softmax" in only:
        for rows, cols in shapes:
            x = torch.randn(rows, cols, dtype=dt, device="cuda")
            desc = SoftmaxDesc(rows, cols, ts_dt, ts_dt, x.data_ptr(), cols, None, cols, 1.0, 0, 1, 0)
            tessera = tessera_op("ts_softmax", desc, (("out", x),))

            def eager(x=x):
                return torch.softmax(x, dim=-1)

            compiled = compile_fresh(eager)
            nbytes = 2.0 * elem * rows * cols
            ms = time_all({"tessera": tessera, "eager": eager, "compile": compiled}, nbytes)
            ref = eager()
            out, = tessera()
            torch.cuda.synchronize()
            emit("softmax", {"rows": rows, "cols": cols, "causal": 0}, nbytes, ms,
                 (out.float() - ref.float()).abs().max().item(), args.dtype)

    if "rope" in only:
        bsz, n, h, d = 8, 4096, 32, 128
        inv = 1.0 / (10000.0 ** (torch.arange(0, d, 2, device="cuda", dtype=torch.float32) / d))
        angles = torch.arange(n, device="cuda", dtype=torch.float32)[:, None] * inv[None, :]
        cos_t, sin_t = angles.cos().contiguous(), angles.sin().contiguous()  # (N, D/2) fp32
        for layout in (TS_ROTARY_BNHD, TS_ROTARY_BHND):
            shape = (bsz, n, h, d) if layout == TS_ROTARY_BNHD else (bsz, h, n, d)
            q, k = (torch.randn(*shape, dtype=bf, device="cuda") for _ in range(2))
            q0, k0 = q.clone(), k.clone()
            cs = torch.cat([cos_t, cos_t], dim=-1).to(bf)  # (N, D) in the model dtype, as models keep it
            sn = torch.cat([sin_t, sin_t], dim=-1).to(bf)
            view = (1, n, 1, d) if layout == TS_ROTARY_BNHD else (1, 1, n, d)
            cs, sn = cs.view(view), sn.view(view)
            desc = RotaryDesc(bsz, n, h, h, d, TS_DTYPE_BF16, layout, TS_ROTARY_ROTATE_HALF, q.data_ptr(),
                              None, None, k.data_ptr(), None, None, cos_t.data_ptr(),
                              sin_t.data_ptr(), n, 10000.0, 0)
            tessera = tessera_op("ts_rotary", desc, (("q_out", q), ("k_out", k)))

            def rotate_half(t):
                t1, t2 = t[..., : d // 2], t[..., d // 2:]
                return torch.cat((-t2, t1), dim=-1)

            def eager(q=q, k=k, cs=cs, sn=sn):
                return q * cs + rotate_half(q) * sn, k * cs + rotate_half(k) * sn

            compiled = compile_fresh(eager)
            nbytes = 2.0 * 2 * 2 * q.numel() + 8.0 * n * (d // 2)
            ms = time_all({"tessera": tessera, "eager": eager, "compile": compiled}, nbytes)
            ref, _ = eager(q0, k0)
            qo, _ = tessera()
            torch.cuda.synchronize()
            emit("rope", {"B": bsz, "N": n, "H": h, "D": d,
                          "layout": "BNHD" if layout == TS_ROTARY_BNHD else "BHND",
                          "convention": "rotate_half", "angles": "table"}, nbytes, ms,
                 (qo.float() - ref.float()).abs().max().item())
    return 0


if __name__ == "__main__":
    sys.exit(main())
