"""A GPT-2-style decoder in PyTorch: the reference for examples/gpt/gpt.oi.

Token + position embedding, pre-norm blocks (layer norm, causal multi-head attention, layer
norm, GELU MLP with GPT-2's tanh form), a final layer norm and an output head tied to the token
embedding. Weights are random with a fixed seed (no small pretrained model is available).

K and V are rounded to f16 as they enter the cache, because the OpenInfer graph stores them as
f16 tables (`K(l, t): f16[H, Dh]`); everything else is f32.

Weight names and layouts are the ones the graph reads (see README.md): linear weights are
[in, out] like GPT-2's Conv1D, and the token embedding is stored transposed, `wte_t: [D, V]`,
so that the same tensor is the embedding (a column gather) and the tied head (a matmul).
"""

from __future__ import annotations

import dataclasses
import math

import torch


@dataclasses.dataclass(frozen=True)
class Config:
    layers: int = 2
    dim: int = 64
    heads: int = 4
    vocab: int = 256
    ctx: int = 64  # positions the model knows (wpe rows) = the K/V window of the graph
    seed: int = 0

    @property
    def head_dim(self) -> int:
        return self.dim // self.heads

    @property
    def ffn(self) -> int:
        return 4 * self.dim

    def check(self) -> None:
        for name in ("layers", "dim", "heads", "vocab", "ctx"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be at least 1, got {getattr(self, name)}")
        if self.dim % self.heads:
            raise ValueError(f"dim {self.dim} is not a multiple of heads {self.heads}")


def random_weights(cfg: Config) -> dict[str, torch.Tensor]:
    """GPT-2's initialisation (normal 0.02, residual projections scaled by 1/sqrt(2L)), with
    random biases and norm parameters too so that every input of every op is exercised."""
    cfg.check()
    gen = torch.Generator().manual_seed(cfg.seed)

    def normal(*shape: int, std: float, mean: float = 0.0) -> torch.Tensor:
        return torch.randn(*shape, generator=gen, dtype=torch.float32) * std + mean

    d, f = cfg.dim, cfg.ffn
    proj_std = 0.02 / math.sqrt(2 * cfg.layers)
    w = {
        "wte_t": normal(d, cfg.vocab, std=0.02),
        "wpe": normal(cfg.ctx, d, std=0.05),
    }
    for l in range(cfg.layers):
        p = f"h.{l}."
        w[p + "ln_1.weight"] = normal(d, std=0.1, mean=1.0)
        w[p + "ln_1.bias"] = normal(d, std=0.1)
        for name in ("q", "k", "v"):
            w[p + f"attn.{name}.weight"] = normal(d, d, std=0.02)
            w[p + f"attn.{name}.bias"] = normal(d, std=0.02)
        w[p + "attn.c_proj.weight"] = normal(d, d, std=proj_std)
        w[p + "attn.c_proj.bias"] = normal(d, std=0.02)
        w[p + "ln_2.weight"] = normal(d, std=0.1, mean=1.0)
        w[p + "ln_2.bias"] = normal(d, std=0.1)
        w[p + "mlp.c_fc.weight"] = normal(d, f, std=0.02)
        w[p + "mlp.c_fc.bias"] = normal(f, std=0.02)
        w[p + "mlp.c_proj.weight"] = normal(f, d, std=proj_std)
        w[p + "mlp.c_proj.bias"] = normal(d, std=0.02)
    w["ln_f.weight"] = normal(d, std=0.1, mean=1.0)
    w["ln_f.bias"] = normal(d, std=0.1)
    return w


class KVCache:
    """Per layer, K and V as f16 [H, ctx, Dh], filled one position at a time."""

    def __init__(self, cfg: Config):
        shape = (cfg.layers, cfg.heads, cfg.ctx, cfg.head_dim)
        self.k = torch.zeros(shape, dtype=torch.float16)
        self.v = torch.zeros(shape, dtype=torch.float16)


class GPT(torch.nn.Module):
    """The model; with f16=True, gpt_f16.oi's arithmetic: the weights rounded to f16, and every
    op that takes a weight (layer norm, matmul, bias add, GELU, attention) computed in f32 on
    f16 values and rounded once to f16, as ops.md's rule for f16 ops says. The residual stream
    and the logits' cast stay f32."""

    def __init__(self, cfg: Config, weights: dict[str, torch.Tensor], f16: bool = False):
        super().__init__()
        self.cfg = cfg
        self.f16 = f16
        self.w = {n: t.half().float() for n, t in weights.items()} if f16 else weights

    def _round(self, t: torch.Tensor) -> torch.Tensor:
        """An f16 op's one rounding of its f32 result (nothing in f32 mode)."""
        return t.half().float() if self.f16 else t

    def _linear(self, t: torch.Tensor, name: str) -> torch.Tensor:  # GPT-2's Conv1D: [in, out]
        w, r = self.w, self._round
        if not self.f16:
            return torch.addmm(w[name + ".bias"], t, w[name + ".weight"])
        return r(r(t @ w[name + ".weight"]) + w[name + ".bias"])  # matmul, then the bias add

    def _norm(self, x: torch.Tensor, name: str) -> torch.Tensor:
        w, r = self.w, self._round
        d = (self.cfg.dim,)
        return r(torch.nn.functional.layer_norm(r(x), d, w[name + ".weight"], w[name + ".bias"],
                                                1e-5))

    def _mlp(self, x: torch.Tensor, p: str) -> torch.Tensor:
        m = self._norm(x, p + "ln_2")
        m = self._round(torch.nn.functional.gelu(self._linear(m, p + "mlp.c_fc"),
                                                 approximate="tanh"))
        return self._linear(m, p + "mlp.c_proj")

    def _head(self, x: torch.Tensor) -> torch.Tensor:
        return self._round(self._norm(x, "ln_f") @ self.w["wte_t"])

    @torch.no_grad()
    def step(self, token: int, pos: int, cache: KVCache) -> torch.Tensor:
        """Logits f32[V] for `token` at position `pos`, attending to positions 0..pos."""
        cfg, w = self.cfg, self.w
        if not 0 <= pos < cfg.ctx:
            raise ValueError(f"position {pos} is outside the context of {cfg.ctx} positions")
        if not 0 <= token < cfg.vocab:
            raise ValueError(f"token {token} is outside the vocabulary of {cfg.vocab}")
        H, Dh, D = cfg.heads, cfg.head_dim, cfg.dim
        x = self._round(w["wte_t"][:, token] + w["wpe"][pos]).reshape(1, D)
        for l in range(cfg.layers):
            p = f"h.{l}."
            a = self._norm(x, p + "ln_1")
            q = self._linear(a, p + "attn.q")
            k = self._linear(a, p + "attn.k")
            v = self._linear(a, p + "attn.v")
            cache.k[l, :, pos] = k.reshape(H, Dh).half()
            cache.v[l, :, pos] = v.reshape(H, Dh).half()
            keys = cache.k[l, :, : pos + 1].float()  # [H, pos+1, Dh]
            values = cache.v[l, :, : pos + 1].float()
            scores = (q.reshape(H, 1, Dh) @ keys.transpose(1, 2)) / math.sqrt(Dh)
            att = self._round(torch.softmax(scores, dim=-1) @ values)  # [H, 1, Dh]
            x = x + self._linear(att.reshape(1, D), p + "attn.c_proj")
            x = x + self._mlp(x, p)
        return self._head(x).reshape(cfg.vocab)

    @torch.no_grad()
    def full_sequence(self, tokens: list[int]) -> torch.Tensor:
        """Logits [T, V] for a whole sequence at once with a causal mask (no cache): an
        independent check of step(), with K and V rounded to f16 the same way."""
        cfg, w = self.cfg, self.w
        H, Dh, D, T = cfg.heads, cfg.head_dim, cfg.dim, len(tokens)
        idx = torch.tensor(tokens)
        x = self._round(w["wte_t"][:, idx].T + w["wpe"][:T])
        mask = torch.ones(T, T, dtype=torch.bool).tril()
        for l in range(cfg.layers):
            p = f"h.{l}."
            a = self._norm(x, p + "ln_1")
            heads = lambda t: t.reshape(T, H, Dh).transpose(0, 1)  # noqa: E731
            q = heads(self._linear(a, p + "attn.q"))
            k = heads(self._linear(a, p + "attn.k")).half().float()
            v = heads(self._linear(a, p + "attn.v")).half().float()
            scores = (q @ k.transpose(1, 2)) / math.sqrt(Dh)
            scores = scores.masked_fill(~mask, float("-inf"))
            att = self._round(torch.softmax(scores, dim=-1) @ v).transpose(0, 1).reshape(T, D)
            x = x + self._linear(att, p + "attn.c_proj")
            x = x + self._mlp(x, p)
        return self._head(x)


def generate(model: GPT, prompt: list[int], steps: int):
    """What the graph computes over `steps` steps: step 0 feeds the whole prompt (one position
    at a time) and picks the first new token from the last prompt position's logits; each later
    step feeds the token picked before. Returns (fed tokens, logits [n, V], new tokens), where
    fed token i sits at position i and logits[i] are its logits."""
    if not prompt:
        raise ValueError("the prompt needs at least one token")
    if steps < 1:
        raise ValueError("steps must be at least 1")
    cache = KVCache(model.cfg)
    fed, logits, new = [], [], []
    token = prompt[0]
    for pos in range(len(prompt) + steps - 1):
        token = prompt[pos] if pos < len(prompt) else new[-1]
        out = model.step(token, pos, cache)
        fed.append(token)
        logits.append(out)
        if pos >= len(prompt) - 1:
            new.append(int(torch.argmax(out)))
    return fed, torch.stack(logits), new
