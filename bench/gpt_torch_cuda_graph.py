#!/usr/bin/python3
"""The strongest PyTorch CUDA peer of GPT-2-small greedy decoding (issue 22): one decode step
captured as a `torch.cuda.CUDAGraph` over static K/V tensors, replayed for every token, next to
the same step run eagerly, and the prompt as one batched causal pass (eager, timed after a
warm-up prompt). Same model, weights and prompt as export_gpt.py and bench/gpt_torch_peer.py.

The static step cannot slice the cache to `pos + 1` keys (shapes must not change between
replays), so it attends to all `ctx` keys with the later ones masked out, reads the token and
position from device tensors and writes the argmax back: nothing leaves the GPU until the end.

--dtype f32: weights and activations f32, K/V f16 as the graph stores them (gpt.oi).
--dtype f16: weights and activations f16 (PyTorch's fastest plain form; gpt_f16.oi's peer).

Prints one line per form:
    torch cuda-graph f32 (GPU): decode N tokens X ms, Y tokens/s
    torch eager f32 (GPU): decode N tokens X ms, Y tokens/s
    torch eager f32 (GPU): prompt of P positions in one pass X ms (after a warm-up prompt)
"""

import argparse
import math
import pathlib
import sys
import time

import torch

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "examples" / "gpt"))
from gpt_torch import Config, random_weights  # noqa: E402

F = torch.nn.functional


class StaticDecoder:
    def __init__(self, cfg: Config, weights: dict, dtype: torch.dtype, dev: torch.device):
        self.cfg, self.dtype = cfg, dtype
        self.w = {n: t.to(dev, dtype) for n, t in weights.items()}
        shape = (cfg.layers, cfg.heads, cfg.ctx, cfg.head_dim)
        self.k = torch.zeros(shape, dtype=torch.float16, device=dev)
        self.v = torch.zeros(shape, dtype=torch.float16, device=dev)
        self.token = torch.zeros(1, dtype=torch.long, device=dev)
        self.pos = torch.zeros(1, dtype=torch.long, device=dev)
        self.out = torch.zeros(cfg.ctx, dtype=torch.long, device=dev)
        self.keys = torch.arange(cfg.ctx, device=dev)

    def _norm(self, x, name):
        w = self.w
        return F.layer_norm(x, (self.cfg.dim,), w[name + ".weight"], w[name + ".bias"], 1e-5)

    def _linear(self, x, name):
        return torch.addmm(self.w[name + ".bias"], x, self.w[name + ".weight"])

    def _layer(self, x, l, rows, pos, mask):
        """One block over `rows` positions starting at `pos` (a device tensor of positions)."""
        cfg, H, Dh = self.cfg, self.cfg.heads, self.cfg.head_dim
        p = f"h.{l}."
        a = self._norm(x, p + "ln_1")
        heads = lambda t: t.reshape(rows, H, Dh).transpose(0, 1)  # noqa: E731
        q = heads(self._linear(a, p + "attn.q"))
        self.k[l].index_copy_(1, pos, heads(self._linear(a, p + "attn.k")).half())
        self.v[l].index_copy_(1, pos, heads(self._linear(a, p + "attn.v")).half())
        keys, values = self.k[l].to(self.dtype), self.v[l].to(self.dtype)  # [H, ctx, Dh]
        scores = (q @ keys.transpose(1, 2)) / math.sqrt(Dh)  # [H, rows, ctx]
        scores = scores.masked_fill(~mask, float("-inf"))
        att = torch.softmax(scores.float(), dim=-1).to(self.dtype) @ values
        x = x + self._linear(att.transpose(0, 1).reshape(rows, cfg.dim), p + "attn.c_proj")
        m = F.gelu(self._linear(self._norm(x, p + "ln_2"), p + "mlp.c_fc"), approximate="tanh")
        return x + self._linear(m, p + "mlp.c_proj")

    def _embed(self, tokens, pos):
        w = self.w
        return w["wte_t"].index_select(1, tokens).T + w["wpe"].index_select(0, pos)

    @torch.no_grad()
    def step(self):
        """Decode one token: static shapes, token/pos/out on the device."""
        x = self._embed(self.token, self.pos)
        mask = (self.keys <= self.pos).reshape(1, 1, -1)
        for l in range(self.cfg.layers):
            x = self._layer(x, l, 1, self.pos, mask)
        logits = self._norm(x, "ln_f") @ self.w["wte_t"]
        self.token.copy_(torch.argmax(logits, dim=-1))
        self.out.index_copy_(0, self.pos, self.token)
        self.pos.add_(1)

    @torch.no_grad()
    def prefill(self, prompt: torch.Tensor):
        """All prompt positions in one pass (causal), the cache filled, the first token picked."""
        P = prompt.numel()
        pos = torch.arange(P, device=prompt.device)
        x = self._embed(prompt, pos)
        mask = (self.keys.reshape(1, -1) <= pos.reshape(-1, 1)).reshape(1, P, -1)
        for l in range(self.cfg.layers):
            x = self._layer(x, l, P, pos, mask)
        logits = self._norm(x[-1:], "ln_f") @ self.w["wte_t"]
        self.token.copy_(torch.argmax(logits, dim=-1))
        self.pos.fill_(P)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--layers", type=int, default=12)
    ap.add_argument("--dim", type=int, default=768)
    ap.add_argument("--heads", type=int, default=12)
    ap.add_argument("--vocab", type=int, default=50257)
    ap.add_argument("--ctx", type=int, default=128)
    ap.add_argument("--prompt-len", type=int, default=8)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--steps", type=int, default=33, help="as gpt_example: step 0 is the prompt")
    ap.add_argument("--dtype", choices=["f32", "f16"], default="f32")
    ap.add_argument("--runs", type=int, default=3, help="timed runs; the best is printed")
    args = ap.parse_args()
    if not torch.cuda.is_available():
        sys.exit("error: this peer needs a CUDA device")
    torch.backends.cuda.matmul.allow_tf32 = False
    dev = torch.device("cuda")
    dtype = {"f32": torch.float32, "f16": torch.float16}[args.dtype]
    cfg = Config(args.layers, args.dim, args.heads, args.vocab, args.ctx, args.seed)
    model = StaticDecoder(cfg, random_weights(cfg), dtype, dev)
    gen = torch.Generator().manual_seed(cfg.seed + 1)  # export_gpt.py's random prompt
    prompt = torch.randint(0, cfg.vocab, (args.prompt_len,), generator=gen).to(dev)
    n = args.steps - 1
    if args.prompt_len + n > cfg.ctx:
        sys.exit(f"error: {args.prompt_len} + {n} positions exceed the context of {cfg.ctx}")
    name = torch.cuda.get_device_name(dev)

    def timed(fn) -> float:
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        fn()
        torch.cuda.synchronize()
        return time.perf_counter() - t0

    # The prompt: one warm-up pass, then the best of the timed ones.
    model.prefill(prompt)
    prefill = min(timed(lambda: model.prefill(prompt)) for _ in range(args.runs))

    # Eager decode (the same static step, no graph).
    def decode_eager():
        for _ in range(n):
            model.step()

    model.prefill(prompt)
    decode_eager()  # warm-up
    eager = []
    for _ in range(args.runs):
        model.prefill(prompt)
        eager.append(timed(decode_eager))
    eager_tokens = model.out[args.prompt_len:args.prompt_len + n].tolist()

    # The CUDA graph: 3 warm-up steps on a side stream, capture one step, replay it per token.
    model.prefill(prompt)
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for _ in range(3):
            model.step()
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        model.step()
    graphed = []
    for _ in range(args.runs):
        model.prefill(prompt)
        graphed.append(timed(lambda: [graph.replay() for _ in range(n)]))
    graph_tokens = model.out[args.prompt_len:args.prompt_len + n].tolist()
    if graph_tokens != eager_tokens:
        sys.exit("error: the graphed decode picked other tokens than the eager one")

    print("generated:", " ".join(map(str, graph_tokens)))
    for form, t in (("cuda-graph", min(graphed)), ("eager", min(eager))):
        print(f"torch {form} {args.dtype} ({name}): decode {n} tokens {t * 1e3:.6g} ms, "
              f"{n / t:.6g} tokens/s")
    print(f"torch eager {args.dtype} ({name}): prompt of {args.prompt_len} positions in one pass "
          f"{prefill * 1e3:.6g} ms (after a warm-up prompt)")


if __name__ == "__main__":
    main()
