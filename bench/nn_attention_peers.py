#!/usr/bin/python3
"""The cases of nn_attention_bench in PyTorch (CPU), one JSON line per case.

    /usr/bin/python3 bench/nn_attention_peers.py [--runs N] [--budget-s S] [--threads T]

Same timing rule as the C++ side: one warm-up, then the median of N runs (default 11), stopping
early once S seconds (default 3) are spent but never under 3 runs. torch runs with
set_num_threads(T) (default 2) under no_grad. Attention is timed two ways and both are printed:
torch 1.13's F._scaled_dot_product_attention (its fused entry point; 1.13 has no public
scaled_dot_product_attention) and the explicit softmax(q·kᵀ·scale + mask)·v with a causal mask
built outside the timed call; the table takes the faster. rope is the LLaMA rotate-half form with
the cos/sin tables built inside the call (as OpenInfer does per call); dequantize is
(x - zero_point) * scale on i8 with a per-row scale.
"""
import argparse
import json
import math

import torch
import torch.nn.functional as F

from peer_timing import time_median


def emit(case, how, timing, flops):
    median_ms, min_ms, runs = timing
    print(json.dumps({"impl": "torch", "case": case, "how": how, "median_ms": round(median_ms, 4),
                      "min_ms": round(min_ms, 4), "runs": runs, "flops": flops}), flush=True)


def attention_cases(args):
    gen = torch.Generator().manual_seed(1)
    for case, heads, tq, tk, d in [("attention_decode_f32_h32_d128_kv2048", 32, 1, 2048, 128),
                                   ("attention_prefill_causal_f32_h32_d128_t512", 32, 512, 512,
                                    128)]:
        q = torch.rand(heads, tq, d, generator=gen) * 2 - 1
        k = torch.rand(heads, tk, d, generator=gen) * 2 - 1
        v = torch.rand(heads, tk, d, generator=gen) * 2 - 1
        scale = 1.0 / math.sqrt(d)
        i = torch.arange(tq)[:, None]
        j = torch.arange(tk)[None, :]
        allowed = j <= i + (tk - tq)
        additive = torch.zeros(tq, tk).masked_fill(~allowed, float("-inf"))
        # Causal work: each query row sees its visible keys once for q·kᵀ and once for p·v.
        visible = int(allowed.sum())
        flops = 4.0 * heads * visible * d

        def explicit():
            s = torch.matmul(q, k.transpose(-2, -1)) * scale
            s = s + additive
            return torch.matmul(torch.softmax(s, dim=-1), v)

        def fused():
            return F._scaled_dot_product_attention(q, k, v, None, 0.0, False, tq > 1)[0]

        ref = explicit()
        assert torch.allclose(fused(), ref, atol=1e-5), "the two torch forms disagree"
        emit(case, "explicit softmax(q k^T * scale + mask) v",
             time_median(explicit, args.runs, args.budget_s), flops)
        emit(case, "F._scaled_dot_product_attention",
             time_median(fused, args.runs, args.budget_s), flops)


def rope_case(args):
    heads, t_len, d, pos = 32, 512, 128, 4096
    x = torch.rand(heads, t_len, d) * 2 - 1

    def rope():
        inv = 10000.0 ** (-torch.arange(0, d, 2, dtype=torch.float64) / d)
        angle = (pos + torch.arange(t_len, dtype=torch.float64))[:, None] * inv[None, :]
        cos = torch.cat([angle.cos(), angle.cos()], -1).float()
        sin = torch.cat([angle.sin(), angle.sin()], -1).float()
        rot = torch.cat([-x[..., d // 2:], x[..., :d // 2]], -1)
        return x * cos + rot * sin

    emit("rope_f32_h32_t512_d128", "rotate-half with cos/sin built per call",
         time_median(rope, args.runs, args.budget_s), 0)


def dequantize_case(args):
    rows, cols = 4096, 4096
    x = torch.randint(-128, 128, (rows, cols), dtype=torch.int8)
    zero = torch.randint(-8, 8, (rows, 1), dtype=torch.int8)
    scale = torch.rand(rows, 1) * 0.1
    emit("dequantize_i8_f32_4096x4096", "(x - zero_point) * scale",
         time_median(lambda: (x.to(torch.float32) - zero.to(torch.float32)) * scale, args.runs,
                     args.budget_s), 0)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--runs", type=int, default=11)
    p.add_argument("--budget-s", type=float, default=3.0)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--only", default="")
    args = p.parse_args()
    torch.set_num_threads(args.threads)
    print(json.dumps({"impl": "torch", "info": f"torch {torch.__version__}, "
                      f"{torch.get_num_threads()} threads"}), flush=True)
    with torch.no_grad():
        if not args.only or args.only.startswith("attention"):
            attention_cases(args)
        if not args.only or args.only.startswith("rope"):
            rope_case(args)
        if not args.only or args.only.startswith("dequantize"):
            dequantize_case(args)


if __name__ == "__main__":
    main()
