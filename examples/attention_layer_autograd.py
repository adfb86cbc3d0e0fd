#!/usr/bin/env python3
"""One attention layer trained through Tessera: checks its forward and backward against PyTorch
autograd. Nothing is trained; one step's gradients are compared.

The layer is a grouped-query self-attention block as a model holds it: x (B, N, C) goes through a
query projection and one fused key-value projection, causal attention runs on views into those
projections' outputs ((B, N, H, D) memory, no copies: Tessera takes any strides), and an output
projection maps back to C. Tessera's ts_attention_forward and ts_attention_backward are wrapped as
a torch.autograd.Function through ctypes, so PyTorch's autograd drives them like any other op. The
same layer in fp32 with the attention written out in PyTorch is the reference: the gradients of x
and of the three weights, each within bf16's rounding (2e-2 of the tensor's norm).

    python3 examples/attention_layer_autograd.py --lib build/gpu/core/libtessera.so     (CUDA build)
    python3 examples/attention_layer_autograd.py --lib build/host/core/libtessera.so    (host build,
                                                                                        CPU tensors)
A host-backend library runs on CPU tensors (the host backend's device memory is host memory);
scripts/test.sh runs it so on every host build where PyTorch is installed. Build libtessera.so with
-DBUILD_SHARED_LIBS=ON. Exits 1 if a gradient is off.
"""
import argparse
import ctypes
import math
import sys

import torch
import torch.nn.functional as F

TS_DTYPE_BF16 = 2
TS_BACKEND_HOST = 0


class AttentionShape(ctypes.Structure):
    _fields_ = [(name, ctypes.c_int) for name in ("batch", "heads_q", "heads_kv", "seq_q", "seq_kv", "head_dim")]


def load_tessera(path):
    lib = ctypes.CDLL(path)
    ptr, strides, shape = ctypes.c_void_p, ctypes.POINTER(ctypes.c_longlong), ctypes.POINTER(AttentionShape)
    lib.ts_attention_forward.restype = ctypes.c_int
    lib.ts_attention_forward.argtypes = [shape, ctypes.c_int, ptr, strides, ptr, strides, ptr, strides, ptr, strides,
                                         ptr, ctypes.c_float, ctypes.c_int, ptr]
    lib.ts_attention_backward.restype = ctypes.c_int
    lib.ts_attention_backward.argtypes = [shape, ctypes.c_int, ptr, strides, ptr, strides, ptr, strides, ptr, strides,
                                          ptr, strides, ptr, ptr, strides, ptr, strides, ptr, strides, ctypes.c_float,
                                          ctypes.c_int, ptr, ctypes.c_size_t, ptr]
    lib.ts_attention_backward_workspace_size.restype = ctypes.c_int
    lib.ts_attention_backward_workspace_size.argtypes = [shape, ctypes.POINTER(ctypes.c_size_t)]
    lib.ts_status_string.restype = ctypes.c_char_p
    lib.ts_status_string.argtypes = [ctypes.c_int]
    return lib


def check(lib, name, status):
    if status != 0:
        raise RuntimeError(f"{name}: {lib.ts_status_string(status).decode()}")


def strides_of(t):
    """A (B, H, N, D) tensor's batch, head and row strides, as Tessera takes them (D contiguous)."""
    assert t.stride(3) == 1 and t.dtype == torch.bfloat16
    return (ctypes.c_longlong * 3)(*t.stride()[:3])


def stream_of(t):
    return ctypes.c_void_p(torch.cuda.current_stream(t.device).cuda_stream if t.is_cuda else None)


class TesseraAttention(torch.autograd.Function):
    """softmax(scale Q K^T [causal]) V on (B, H, N, D) bf16 views, K and V with H_kv heads."""

    @staticmethod
    def forward(ctx, lib, q, k, v, scale, causal):
        b, h, n, d = q.shape
        shape = AttentionShape(b, h, k.shape[1], n, k.shape[2], d)
        # O laid out as (B, N, H, D), so the output projection reads it as (B, N, H x D) with no copy.
        o = torch.empty(b, n, h, d, dtype=q.dtype, device=q.device).transpose(1, 2)
        lse = torch.empty(b, h, n, dtype=torch.float32, device=q.device)
        check(lib, "ts_attention_forward",
              lib.ts_attention_forward(ctypes.byref(shape), TS_DTYPE_BF16, q.data_ptr(), strides_of(q), k.data_ptr(),
                                       strides_of(k), v.data_ptr(), strides_of(v), o.data_ptr(), strides_of(o),
                                       ctypes.c_void_p(lse.data_ptr()), scale, int(causal), stream_of(q)))
        ctx.save_for_backward(q, k, v, o, lse)
        ctx.lib, ctx.shape, ctx.scale, ctx.causal = lib, shape, scale, causal
        return o

    @staticmethod
    def backward(ctx, d_o):
        q, k, v, o, lse = ctx.saved_tensors
        lib, shape = ctx.lib, ctx.shape
        if d_o.stride(3) != 1 or any(s % 8 for s in d_o.stride()[:3]):
            d_o = d_o.contiguous()
        dq, dk, dv = torch.empty_like(q), torch.empty_like(k), torch.empty_like(v)
        size = ctypes.c_size_t(0)
        check(lib, "ts_attention_backward_workspace_size",
              lib.ts_attention_backward_workspace_size(ctypes.byref(shape), ctypes.byref(size)))
        ws = torch.empty(max(size.value, 16), dtype=torch.uint8, device=q.device)
        check(lib, "ts_attention_backward",
              lib.ts_attention_backward(ctypes.byref(shape), TS_DTYPE_BF16, q.data_ptr(), strides_of(q), k.data_ptr(),
                                        strides_of(k), v.data_ptr(), strides_of(v), o.data_ptr(), strides_of(o),
                                        d_o.data_ptr(), strides_of(d_o), lse.data_ptr(), dq.data_ptr(),
                                        strides_of(dq), dk.data_ptr(), strides_of(dk), dv.data_ptr(), strides_of(dv),
                                        ctx.scale, int(ctx.causal), ws.data_ptr(), ws.numel(), stream_of(q)))
        return None, dq, dk, dv, None, None


def attention_layer(x, w_q, w_kv, w_o, heads, heads_kv, attention):
    """x (B, N, C) -> (B, N, C): projections, attention on (B, H, N, D) views, output projection."""
    b, n, _ = x.shape
    d = w_q.shape[0] // heads
    q = F.linear(x, w_q).view(b, n, heads, d).transpose(1, 2)
    kv = F.linear(x, w_kv).view(b, n, 2, heads_kv, d)
    k, v = kv[:, :, 0].transpose(1, 2), kv[:, :, 1].transpose(1, 2)
    o = attention(q, k, v)
    return F.linear(o.transpose(1, 2).reshape(b, n, heads * d), w_o)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--lib", required=True, help="libtessera.so (CUDA build, or host build for CPU tensors)")
    parser.add_argument("--batch", type=int, default=2)
    parser.add_argument("--seq", type=int, default=300, help="tokens a sequence (any length: ragged tiles)")
    parser.add_argument("--heads", type=int, default=8)
    parser.add_argument("--heads-kv", type=int, default=2)
    parser.add_argument("--head-dim", type=int, default=64, choices=(64, 128))
    args = parser.parse_args()

    lib = load_tessera(args.lib)
    backend = ctypes.c_int(-1)
    check(lib, "ts_get_backend", lib.ts_get_backend(ctypes.byref(backend)))
    device = "cpu" if backend.value == TS_BACKEND_HOST else "cuda"
    torch.manual_seed(0)
    b, n, h, hkv, d = args.batch, args.seq, args.heads, args.heads_kv, args.head_dim
    c = h * d
    scale = 1.0 / math.sqrt(d)
    x = torch.randn(b, n, c, device=device)
    weights = [torch.randn(rows, c, device=device) / math.sqrt(c) for rows in (h * d, 2 * hkv * d)]
    weights.append(torch.randn(c, h * d, device=device) / math.sqrt(h * d))
    d_out = torch.randn(b, n, c, device=device)

    def run(dtype, attention):
        """The layer's loss sum(out * d_out) and its gradients, in dtype, through attention."""
        leaves = [t.to(dtype).requires_grad_(True) for t in [x] + weights]
        out = attention_layer(*leaves, h, hkv, attention)
        loss = (out.float() * d_out).sum()
        loss.backward()
        return loss.item(), [t.grad.double() for t in leaves]

    def tessera(q, k, v):
        return TesseraAttention.apply(lib, q, k, v, scale, True)

    def reference(q, k, v):
        """The attention written out: each query head reads its group's key-value head; causal."""
        k, v = (t.repeat_interleave(h // hkv, dim=1) for t in (k, v))
        scores = torch.matmul(q, k.transpose(-1, -2)) * scale
        masked = torch.ones(n, n, dtype=torch.bool, device=q.device).triu(1)
        return torch.matmul(torch.softmax(scores.masked_fill(masked, float("-inf")), dim=-1), v)

    loss, grads = run(torch.bfloat16, tessera)
    ref_loss, ref_grads = run(torch.float32, reference)
    print(f"layer B{b} N{n} C{c} H{h}/{hkv} D{d} causal, on {device}: loss {loss:.6g} (reference {ref_loss:.6g})")
    worst = 0.0
    for name, g, r in zip(("x", "w_q", "w_kv", "w_o"), grads, ref_grads):
        err = ((g - r).norm() / r.norm()).item()
        worst = max(worst, err)
        print(f"  d{name:5s} relative error {err:.3g}")
    ok = worst < 2e-2
    print("ok" if ok else f"FAILED: {worst:.3g} above 2e-2")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
