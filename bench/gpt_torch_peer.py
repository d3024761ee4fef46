#!/usr/bin/python3
"""PyTorch eager peer of bench/gpt_tokens.sh: the same GPT-2-style decoder (examples/gpt/
gpt_torch.py: addmm linears, f16 KV cache, one position per call), the same random weights
and prompt as export_gpt.py writes, greedy decoding. Prints the same line as gpt_example:

    torch eager (N threads): step 0 (prompt of P) X ms, ... positions/s; decode S tokens Y ms, Z tokens/s
"""

import argparse
import pathlib
import sys
import time

import torch

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "examples" / "gpt"))
from gpt_torch import GPT, Config, KVCache, random_weights  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--layers", type=int, default=12)
    ap.add_argument("--dim", type=int, default=768)
    ap.add_argument("--heads", type=int, default=12)
    ap.add_argument("--vocab", type=int, default=50257)
    ap.add_argument("--ctx", type=int, default=128)
    ap.add_argument("--prompt-len", type=int, default=8)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--steps", type=int, default=33)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--runs", type=int, default=1, help="decode runs; the best is printed")
    ap.add_argument("--device", default="cpu", help="cpu or cuda (the GPU peer of --backend vulkan)")
    args = ap.parse_args()
    torch.set_num_threads(args.threads)

    cfg = Config(args.layers, args.dim, args.heads, args.vocab, args.ctx, args.seed)
    dev = torch.device(args.device)
    model = GPT(cfg, {k: v.to(dev) for k, v in random_weights(cfg).items()})
    gen = torch.Generator().manual_seed(cfg.seed + 1)  # export_gpt.py's random prompt
    prompt = torch.randint(0, cfg.vocab, (args.prompt_len,), generator=gen).tolist()

    best = None
    for _ in range(args.runs):
        cache = KVCache(cfg)
        cache.k, cache.v = cache.k.to(dev), cache.v.to(dev)
        t0 = time.perf_counter()
        for pos, tok in enumerate(prompt):
            logits = model.step(tok, pos, cache)
        token = int(torch.argmax(logits))
        prefill = time.perf_counter() - t0
        tokens = [token]
        t0, c0 = time.perf_counter(), time.process_time()
        for pos in range(len(prompt), len(prompt) + args.steps - 1):
            token = int(torch.argmax(model.step(token, pos, cache)))
            tokens.append(token)
        decode, decode_cpu = time.perf_counter() - t0, time.process_time() - c0
        if best is None or decode < best[1]:
            best = (prefill, decode, decode_cpu, tokens)
    prefill, decode, decode_cpu, tokens = best
    print("generated:", " ".join(map(str, tokens)))
    n = args.steps - 1
    where = f"{args.threads} threads" if dev.type == "cpu" else torch.cuda.get_device_name(dev)
    print(f"torch eager ({where}): step 0 (prompt of {len(prompt)}) "
          f"{prefill * 1e3:.6g} ms, {len(prompt) / prefill:.6g} positions/s; decode {n} tokens "
          f"{decode * 1e3:.6g} ms, {n / decode if n else 0:.6g} tokens/s, "
          f"{decode_cpu * 1e3 / n if n else 0:.6g} CPU ms/token (all threads)")


if __name__ == "__main__":
    main()
