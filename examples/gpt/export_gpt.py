#!/usr/bin/python3
"""Write a random-weight GPT-2-style model as an OpenInfer package, and PyTorch's reference.

    /usr/bin/python3 examples/gpt/export_gpt.py -o /tmp/gpt.oinf \
        [--layers 2 --dim 64 --heads 4 --vocab 256 --ctx 64 --seed 0] \
        [--prompt 1,2,3 | --prompt-len 8] [--reference /tmp/gpt_ref.oinf --steps 32]
        [--dtype f32 | f16]

The model package holds the weights (names in gpt_torch.py), the prompt (`prompt: i64[P]`)
and the size variables L, D, H, Dh, F, Vocab, T, P that examples/gpt/gpt.oi uses. With
--reference, PyTorch (gpt_torch.py) runs what `openinfer run gpt.oi --steps N` runs and the
reference package holds `tokens: i64[P+N-1]` (the token fed at each position), `logits:
f32[P+N-1, Vocab]` (each position's logits) and `generated: i64[N]` (the greedy tokens).

--dtype f16 stores every weight as f16 (the same random weights, rounded) for gpt_f16.oi, and
the reference then computes as gpt_f16.oi does (gpt_torch.GPT with f16=True).
"""

from __future__ import annotations

import argparse
import os
import pathlib
import sys

import numpy as np
import torch

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "python"))

from gpt_torch import GPT, Config, generate, random_weights  # noqa: E402
from openinfer import oinf  # noqa: E402  (python/openinfer: the canonical writer)


def model_package(cfg: Config, weights: dict, prompt: list[int],
                  dtype: str = "f32") -> tuple[dict, dict]:
    sizevars = {
        "L": cfg.layers,
        "D": cfg.dim,
        "H": cfg.heads,
        "Dh": cfg.head_dim,
        "F": cfg.ffn,
        "Vocab": cfg.vocab,
        "T": cfg.ctx,
        "P": len(prompt),
    }
    np_dtype = {"f32": np.float32, "f16": np.float16}[dtype]
    tensors = {name: t.numpy().astype(np_dtype) for name, t in weights.items()}
    tensors["prompt"] = np.asarray(prompt, dtype=np.int64)
    return sizevars, tensors


def parse_prompt(args, cfg: Config) -> list[int]:
    if args.prompt:
        try:
            prompt = [int(t) for t in args.prompt.split(",")]
        except ValueError:
            sys.exit(f"error: --prompt must be comma-separated token ids, got '{args.prompt}'")
    else:
        gen = torch.Generator().manual_seed(cfg.seed + 1)
        prompt = torch.randint(0, cfg.vocab, (args.prompt_len,), generator=gen).tolist()
    if not prompt:
        sys.exit("error: the prompt needs at least one token")
    bad = [t for t in prompt if not 0 <= t < cfg.vocab]
    if bad:
        sys.exit(f"error: prompt tokens {bad} are outside the vocabulary 0..{cfg.vocab - 1}")
    if len(prompt) > cfg.ctx:
        sys.exit(f"error: a prompt of {len(prompt)} tokens does not fit --ctx {cfg.ctx}")
    return prompt


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("-o", "--output", required=True, help="model package to write")
    ap.add_argument("--layers", type=int, default=2)
    ap.add_argument("--dim", type=int, default=64)
    ap.add_argument("--heads", type=int, default=4)
    ap.add_argument("--vocab", type=int, default=256)
    ap.add_argument("--ctx", type=int, default=64, help="positions (wpe rows, K/V window)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--prompt", help="comma-separated token ids")
    ap.add_argument("--prompt-len", type=int, default=8, help="random prompt of this length")
    ap.add_argument("--reference", help="also write PyTorch's tokens and logits here")
    ap.add_argument("--steps", type=int, default=32, help="steps the reference runs")
    ap.add_argument("--dtype", choices=["f32", "f16"], default="f32",
                    help="the weights' dtype in the package (f16: for gpt_f16.oi)")
    args = ap.parse_args()

    cfg = Config(args.layers, args.dim, args.heads, args.vocab, args.ctx, args.seed)
    try:
        cfg.check()
    except ValueError as e:
        sys.exit(f"error: {e}")
    prompt = parse_prompt(args, cfg)
    weights = random_weights(cfg)
    sizevars, tensors = model_package(cfg, weights, prompt, args.dtype)
    oinf.write(args.output, sizevars=sizevars, tensors=tensors)
    print(f"wrote {args.output} ({os.path.getsize(args.output)} bytes)")

    if args.reference:
        if args.steps < 1:
            sys.exit("error: --steps must be at least 1")
        if len(prompt) + args.steps - 1 > cfg.ctx:
            sys.exit(f"error: prompt {len(prompt)} + steps {args.steps} - 1 positions "
                     f"exceed --ctx {cfg.ctx}")
        model = GPT(cfg, weights, f16=args.dtype == "f16")
        fed, logits, new = generate(model, prompt, args.steps)
        # The cached steps must agree with a whole-sequence pass (a check of the reference);
        # in f16 another summation order may move an f16 rounding by one step (2^-11).
        full = model.full_sequence(fed)
        scale = float(full.abs().max())
        diff = float((full - logits).abs().max())
        if diff > (2e-3 if model.f16 else 1e-4) * scale:
            sys.exit(f"error: cached and whole-sequence logits differ by {diff} (scale {scale})")
        ref = {
            "tokens": np.asarray(fed, dtype=np.int64),
            "logits": logits.numpy().astype(np.float32),
            "generated": np.asarray(new, dtype=np.int64),
        }
        oinf.write(args.reference, tensors=ref,
                   sizevars={"N": args.steps, "P": len(prompt), "Vocab": cfg.vocab})
        top2 = torch.topk(logits, 2, dim=-1).values
        margin = float((top2[:, 0] - top2[:, 1]).min() / logits.abs().max())
        print(f"wrote {args.reference}: prompt {prompt}, generated {new}; smallest top-2 "
              f"margin / max |logit| = {margin:.3g}")


if __name__ == "__main__":
    main()
