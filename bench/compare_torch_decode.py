#!/usr/bin/env python3
"""Times Tessera's decode attention over a paged cache against PyTorch's scaled_dot_product_attention
on the same problem held densely, in one process: libtessera.so is loaded through ctypes and runs on
torch tensors that hold the same keys and values in pages of 64 (shuffled through the cache). Each
SDPA backend that takes the problem (cuDNN, flash, memory-efficient, math) is timed, and the best is
the baseline. The protocol is tessera-bench's: random normal inputs, warm-up, the median of at least
20 timed runs with CUDA events, the L2 flushed before every run, all implementations interleaved.
Prints one JSON object per line, with the keys of tessera-bench --json (commit and build from the
library's ts_build_info); the metric is TB/s of K and V read, as tessera-bench attention-decode's.

    python3 bench/compare_torch_decode.py --lib build/gpu/core/libtessera.so [--quick]

--self-test runs Tessera's decode attention through the same bindings on a host-backend build, with
numpy arrays and a numpy reference: it checks the bindings and the page layout without a GPU.
"""
import ctypes
import json
import math
import sys

from torch_timing import (start_driver, driver_arguments, parse_driver_arguments, self_test_build_record,
                          time_interleaved, writeback_charged)

TS_DTYPE_BF16 = 2
PAGE = 64


class DecodeDesc(ctypes.Structure):
    _fields_ = [(name, ctypes.c_int) for name in
                ("batch", "heads_q", "heads_kv", "queries", "head_dim", "page_size", "num_pages", "max_pages")] + \
               [("scale", ctypes.c_float), ("causal", ctypes.c_int)]


def load_library(path):
    lib = ctypes.CDLL(path)
    p = ctypes.c_void_p
    lib.ts_attention_decode.restype = ctypes.c_int
    lib.ts_attention_decode.argtypes = [ctypes.POINTER(DecodeDesc), ctypes.c_int, p, p, p, p, p, p, p, p,
                                        ctypes.c_size_t, p]
    lib.ts_attention_decode_workspace_size.restype = ctypes.c_int
    lib.ts_attention_decode_workspace_size.argtypes = [ctypes.POINTER(DecodeDesc), ctypes.POINTER(ctypes.c_size_t)]
    lib.ts_status_string.restype = ctypes.c_char_p
    lib.ts_status_string.argtypes = [ctypes.c_int]
    return lib


def check(lib, status, what):
    if status != 0:
        raise RuntimeError(what + ": " + lib.ts_status_string(status).decode())


def workspace_bytes(lib, desc):
    n = ctypes.c_size_t()
    check(lib, lib.ts_attention_decode_workspace_size(ctypes.byref(desc), ctypes.byref(n)),
          "ts_attention_decode_workspace_size")
    return n.value


def call_decode(lib, desc, q, k_cache, v_cache, table, seq_lens, out, lse, ws, ws_bytes, stream):
    check(lib, lib.ts_attention_decode(ctypes.byref(desc), TS_DTYPE_BF16, q, k_cache, v_cache, table, seq_lens, out,
                                       lse, ws, ws_bytes, stream), "ts_attention_decode")


def page_order(pages, seed):
    """A fixed shuffle of the page indices: page p of the dense layout lives at order[p] in the cache."""
    import random
    order = list(range(pages))
    random.Random(seed).shuffle(order)
    return order


def decode_runs(torch, lib, b, hq, hkv, ctx, nq, d):
    """One bf16 decode step: the calls that run it, by name (Tessera's, which writes out, and each
    SDPA backend's that accepts it, which return their output), and out."""
    import torch.nn.functional as F
    from torch.nn.attention import SDPBackend, sdpa_kernel

    q = torch.randn(b, hq, nq, d, dtype=torch.bfloat16, device="cuda")
    k, v = (torch.randn(b, hkv, ctx, d, dtype=torch.bfloat16, device="cuda") for _ in range(2))
    per_seq = ctx // PAGE
    order = torch.tensor(page_order(b * per_seq, ctx + nq + d), dtype=torch.int64, device="cuda")

    def paged(x):  # (B, Hkv, ctx, D) -> [pages][Hkv][PAGE][D], page p of the dense layout at order[p]
        dense = x.reshape(b, hkv, per_seq, PAGE, d).permute(0, 2, 1, 3, 4).reshape(b * per_seq, hkv, PAGE, d)
        # Contiguous, as the kernel reads it: at B = 1 the reshape above is a strided view, and
        # empty_like would keep its strides (heads outermost).
        cache = torch.empty(dense.shape, dtype=dense.dtype, device=dense.device)
        cache[order] = dense
        return cache

    k_cache, v_cache = paged(k), paged(v)
    table = order.to(torch.int32).reshape(b, per_seq).contiguous()
    seq_lens = torch.full((b,), ctx, dtype=torch.int32, device="cuda")
    out = torch.empty_like(q)
    causal = int(nq > 1)
    scale = 1.0 / math.sqrt(d)
    desc = DecodeDesc(b, hq, hkv, nq, d, PAGE, b * per_seq, per_seq, scale, causal)
    ws_bytes = workspace_bytes(lib, desc)
    ws = torch.empty(ws_bytes, dtype=torch.uint8, device="cuda")
    stream = torch.cuda.current_stream().cuda_stream

    def tessera():
        call_decode(lib, desc, q.data_ptr(), k_cache.data_ptr(), v_cache.data_ptr(), table.data_ptr(),
                    seq_lens.data_ptr(), out.data_ptr(), None, ws.data_ptr(), ws_bytes, stream)

    # Bottom-right causal alignment for N_q > 1: query row i sees keys < ctx - nq + 1 + i.
    mask = None
    if causal:
        mask = torch.arange(ctx, device="cuda")[None, :] < (ctx - nq + 1 + torch.arange(nq, device="cuda"))[:, None]
    repeated = {}  # K and V with each head repeated for the query heads: made only if a backend needs them

    def backend(kind, gqa):
        if not gqa and not repeated:
            repeated["k"] = k.repeat_interleave(hq // hkv, dim=1)
            repeated["v"] = v.repeat_interleave(hq // hkv, dim=1)

        def run():
            with sdpa_kernel(kind):
                if gqa:
                    return F.scaled_dot_product_attention(q, k, v, attn_mask=mask, scale=scale, enable_gqa=True)
                return F.scaled_dot_product_attention(q, repeated["k"], repeated["v"], attn_mask=mask, scale=scale)
        return run

    runs = {"tessera": tessera}
    for name, kind in (("cuDNN", SDPBackend.CUDNN_ATTENTION), ("flash", SDPBackend.FLASH_ATTENTION),
                       ("efficient", SDPBackend.EFFICIENT_ATTENTION), ("math", SDPBackend.MATH)):
        for gqa in (True, False):  # the backend's own GQA where it has one, else heads repeated
            run = backend(kind, gqa)
            try:
                run()
                torch.cuda.synchronize()
            except Exception:  # the backend does not take this problem (no kernel, mask or GQA unsupported)
                continue
            runs[name + ("" if gqa else "-repeated")] = run
            break
    return runs, out


def self_test(lib_path):
    """Host backend: numpy arrays are 'device' memory. bf16 rounded to nearest even from fp32."""
    import numpy as np
    lib = load_library(lib_path)
    rng = np.random.default_rng()
    b, hq, hkv, d = 2, 8, 2, 64

    def bf16(x):
        bits = np.ascontiguousarray(x, dtype=np.float32).view(np.uint32)
        bits = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16
        return bits.astype(np.uint16)

    def unbf16(bits):
        return (bits.astype(np.uint32) << 16).view(np.float32).astype(np.float64)

    failures = 0
    for nq, causal in ((1, 0), (4, 1)):
        lens = [130, 64 + nq]
        per_seq = max((n + PAGE - 1) // PAGE for n in lens)
        pages = b * per_seq
        order = page_order(pages, 7)
        q = bf16(rng.standard_normal((b, hq, nq, d)))
        k, v = (bf16(rng.standard_normal((b, hkv, per_seq * PAGE, d))) for _ in range(2))
        k_cache, v_cache = (np.zeros((pages, hkv, PAGE, d), dtype=np.uint16) for _ in range(2))
        for s in range(b):
            for p in range(per_seq):
                k_cache[order[s * per_seq + p]] = k[s, :, p * PAGE:(p + 1) * PAGE]
                v_cache[order[s * per_seq + p]] = v[s, :, p * PAGE:(p + 1) * PAGE]
        table = np.array(order, dtype=np.int32).reshape(b, per_seq)
        seq_lens = np.array(lens, dtype=np.int32)
        out = np.full((b, hq, nq, d), 0xFFFF, dtype=np.uint16)
        lse = np.full((b, hq, nq), np.nan, dtype=np.float32)
        scale = 1.0 / math.sqrt(d)
        desc = DecodeDesc(b, hq, hkv, nq, d, PAGE, pages, per_seq, scale, causal)
        ws_bytes = workspace_bytes(lib, desc)
        ws = np.zeros(ws_bytes // 4 + 4, dtype=np.float32)
        call_decode(lib, desc, q.ctypes.data, k_cache.ctypes.data, v_cache.ctypes.data, table.ctypes.data,
                    seq_lens.ctypes.data, out.ctypes.data, lse.ctypes.data, ws.ctypes.data, ws_bytes, None)
        err = lse_err = 0.0
        for s in range(b):
            n = lens[s]
            kk = np.repeat(unbf16(k[s, :, :n]), hq // hkv, axis=0)
            vv = np.repeat(unbf16(v[s, :, :n]), hq // hkv, axis=0)
            sc = np.einsum("hid,hjd->hij", unbf16(q[s]), kk) * scale
            if causal:
                keep = np.arange(n)[None, :] < (n - nq + 1 + np.arange(nq))[:, None]
                sc = np.where(keep[None], sc, -np.inf)
            m = sc.max(axis=-1, keepdims=True)
            p = np.exp(sc - m)
            ref = np.einsum("hij,hjd->hid", p / p.sum(axis=-1, keepdims=True), vv)
            err = max(err, np.abs(unbf16(out[s]) - ref).max())
            lse_err = max(lse_err, np.abs(lse[s] - (m[..., 0] + np.log(p.sum(axis=-1)))).max())
        print(f"self-test N_q={nq} causal={causal}: largest |O - reference| {err:.3g}, |lse - reference| {lse_err:.3g}")
        if not (err < 3e-2 and lse_err < 1e-3):
            failures += 1
    return failures + self_test_build_record(lib, "host")


def main():
    parser = driver_arguments(__doc__, reps=20, warmup=5)
    parser.add_argument("--quick", action="store_true", help="32k keys only")
    args = parse_driver_arguments(parser)
    if args.self_test:
        return self_test(args.lib)

    torch, lib, record, props, flush, date = start_driver(args, load_library)
    contexts = (32768,) if args.quick else (1024, 4096, 16384, 32768, 65536, 131072)
    hq, hkv = 64, 8
    for d in (64, 128):
        for nq in (1, 4):
            for b in (1, 8):
                for ctx in contexts:
                    if b * ctx > 524288:
                        continue
                    runs, out = decode_runs(torch, lib, b, hq, hkv, ctx, nq, d)
                    ms = time_interleaved(torch, runs, flush, args.reps, args.warmup)
                    baselines = {name: t for name, t in ms.items() if name != "tessera"}
                    best = min(baselines, key=baselines.get)
                    ref = runs[best]()
                    runs["tessera"]()
                    torch.cuda.synchronize()
                    diff = ((out.float() - ref.float()).abs().max() / ref.float().abs().max().clamp_min(1e-30)).item()
                    kv_bytes = 2.0 * b * ctx * hkv * d * 2
                    tbs = {name: kv_bytes / (t * 1e9) for name, t in ms.items()}
                    print(json.dumps({
                        "bench": "attention-decode", "backend": "cuda", "device": props.name,
                        "params": {"B": b, "Hq": hq, "Hkv": hkv, "ctx": ctx, "Nq": nq, "D": d, "page": PAGE,
                                   "dtype": "bf16", "us": ms["tessera"] * 1e3,
                                   "writeback": "charged" if writeback_charged() else "not charged"},
                        "metric": "TB/s", "value": tbs["tessera"],
                        "baseline": "SDPA " + best, "baseline_value": tbs[best],
                        "ratio": tbs["tessera"] / tbs[best], "date": date,
                        "sdpa_values": {name: tbs[name] for name in baselines},
                        "max_rel_diff_vs_sdpa": diff, **record}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
