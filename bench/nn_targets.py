#!/usr/bin/python3
"""The target table of bench/nn_targets.sh from the JSON lines its three benchmarks left.

    /usr/bin/python3 bench/nn_targets.py OUT_DIR   # OUT_DIR/{rows,spatial,attention}/*.jsonl

Ratios are PyTorch's median time over OpenInfer's (above 1: OpenInfer faster); for attention the
faster of PyTorch's two forms is the peer. Row-op bandwidth is the bytes the op must move (input
read, output written, weights read once) over OpenInfer's median time, against the median of the
STREAM-style copy over 16M doubles measured in the same run. Exits 1 when a target is missed.
"""
import json
import os
import sys


def load(path):
    table = {}
    if not os.path.exists(path):
        return table
    with open(path) as f:
        for line in f:
            rec = json.loads(line)
            if "case" in rec:
                table.setdefault(rec["case"], []).append(rec)
    return table


def main():
    out = sys.argv[1]
    rows = [[], []]
    missed = 0

    def target(what, got, want, text):
        nonlocal missed
        ok = got is not None and got >= want
        missed += 0 if ok else 1
        rows[0].append(f"| {what} | {text(want)} | {'-' if got is None else text(got)} | "
                       f"{'met' if ok else 'MISSED'} |")

    pct = lambda x: f"{100 * x:.0f}% of copy"
    times = lambda x: f"{x:.2f}x"
    for group, cases, kind in (
            ("rows", ["softmax_f32_64x4096", "layer_norm_f32_64x4096"], "bandwidth"),
            ("spatial", ["conv3x3_f32_1x64x56x56_to64", "conv_depthwise3x3_f32_1x256x28x28"], 0.7),
            ("attention", ["attention_decode_f32_h32_d128_kv2048",
                           "attention_prefill_causal_f32_h32_d128_t512"], 1.0)):
        oi = load(os.path.join(out, group, "openinfer.jsonl"))
        torch = load(os.path.join(out, group, "torch.jsonl"))
        for case in cases:
            o = oi.get(case, [None])[0]
            if kind == "bandwidth":
                copy = oi.get("stream_copy", [None])[0]
                got = o["gbps"] / copy["gbps"] if o and copy else None
                target(case, got, 0.8, pct)
            else:
                peers = torch.get(case, [])
                t = min(peers, key=lambda r: r["median_ms"]) if peers else None
                got = t["median_ms"] / o["median_ms"] if o and t else None
                target(case + " vs PyTorch", got, kind, times)
    print("| target | wanted | measured (medians, one run) | |")
    print("| --- | --- | --- | --- |")
    print("\n".join(rows[0]))
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
