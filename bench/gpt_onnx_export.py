#!/usr/bin/python3
"""gpt_onnx_export.py OUT.onnx [--layers 12 --dim 768 --heads 12 --vocab 50257 --ctx 128
[--seed 0]]: the decoder of examples/gpt/gpt_torch.py (the same random weights as
export_gpt.py writes for the same shape and seed) as an ONNX model with past key/values, for
onnxruntime-node (bench/gpt_ort.js, bench/synth_gpt.sh):

    inputs   token i64[1], pos i64[1], past_k f32[L, H, P, Dh], past_v f32[L, H, P, Dh]
    outputs  logits f32[Vocab], present_k f32[L, H, P+1, Dh], present_v f32[L, H, P+1, Dh]

P (positions already fed) is a dynamic axis; the first position runs with P = 0. K and V are
rounded to f16 and back as they join the cache, as gpt.oi's f16 tables and gpt_torch.py's
cache do, so the greedy tokens are the same."""
import argparse
import math
import pathlib
import sys

import torch

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "examples" / "gpt"))
from gpt_torch import Config, random_weights  # noqa: E402


class Step(torch.nn.Module):
    def __init__(self, cfg: Config, w: dict):
        super().__init__()
        self.cfg = cfg
        # Parameters, so the exporter stores them as initializers.
        self.p = torch.nn.ParameterDict(
            {k.replace(".", "_"): torch.nn.Parameter(v, requires_grad=False) for k, v in w.items()})

    def forward(self, token, pos, past_k, past_v):
        cfg, p = self.cfg, self.p
        H, Dh, D = cfg.heads, cfg.head_dim, cfg.dim
        F = torch.nn.functional

        def w(name):
            return p[name.replace(".", "_")]

        def linear(t, name):
            return torch.addmm(w(name + ".bias"), t, w(name + ".weight"))

        x = (torch.index_select(w("wte_t"), 1, token).reshape(1, D)
             + torch.index_select(w("wpe"), 0, pos).reshape(1, D))
        ks, vs = [], []
        for l in range(cfg.layers):
            pre = f"h.{l}."
            a = F.layer_norm(x, (D,), w(pre + "ln_1.weight"), w(pre + "ln_1.bias"), 1e-5)
            q = linear(a, pre + "attn.q").reshape(H, 1, Dh)
            k = linear(a, pre + "attn.k").reshape(H, 1, Dh).half().float()
            v = linear(a, pre + "attn.v").reshape(H, 1, Dh).half().float()
            keys = torch.cat([past_k[l], k], dim=1)  # [H, P+1, Dh]
            values = torch.cat([past_v[l], v], dim=1)
            ks.append(keys)
            vs.append(values)
            scores = (q @ keys.transpose(1, 2)) / math.sqrt(Dh)
            att = torch.softmax(scores, dim=-1) @ values
            x = x + linear(att.reshape(1, D), pre + "attn.c_proj")
            m = F.layer_norm(x, (D,), w(pre + "ln_2.weight"), w(pre + "ln_2.bias"), 1e-5)
            m = F.gelu(linear(m, pre + "mlp.c_fc"), approximate="tanh")
            x = x + linear(m, pre + "mlp.c_proj")
        x = F.layer_norm(x, (D,), w("ln_f.weight"), w("ln_f.bias"), 1e-5)
        logits = (x @ w("wte_t")).reshape(cfg.vocab)
        return logits, torch.stack(ks), torch.stack(vs)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("out")
    ap.add_argument("--layers", type=int, default=12)
    ap.add_argument("--dim", type=int, default=768)
    ap.add_argument("--heads", type=int, default=12)
    ap.add_argument("--vocab", type=int, default=50257)
    ap.add_argument("--ctx", type=int, default=128)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    cfg = Config(args.layers, args.dim, args.heads, args.vocab, args.ctx, args.seed)
    model = Step(cfg, random_weights(cfg)).eval()
    past = torch.zeros(cfg.layers, cfg.heads, 3, cfg.head_dim)
    axes = {"past_k": {2: "past"}, "past_v": {2: "past"}, "present_k": {2: "present"},
            "present_v": {2: "present"}}
    with torch.no_grad():
        torch.onnx.export(model, (torch.tensor([5]), torch.tensor([3]), past, past), args.out,
                          opset_version=14, input_names=["token", "pos", "past_k", "past_v"],
                          output_names=["logits", "present_k", "present_v"], dynamic_axes=axes)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
