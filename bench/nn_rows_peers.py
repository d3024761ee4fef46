#!/usr/bin/python3
"""The cases of nn_rows_bench in PyTorch (CPU), one JSON line per case.

    /usr/bin/python3 bench/nn_rows_peers.py [--runs N] [--budget-s S] [--threads T] [--only CASE]

Same timing rule as the C++ side: one warm-up, then the median of N runs (default 101), stopping
early once S seconds (default 2) are spent but never under 3 runs. torch runs with
set_num_threads(T) (default 2) under no_grad on contiguous f32 tensors, writing into a
preallocated output where its API has `out=` (softmax, log_softmax); layer_norm allocates its
output, as eager PyTorch always does. torch 1.13 has no rms_norm: it is composed from
x * rsqrt(mean(x^2) + eps) * w, four eager ops.
"""
import argparse
import json

import torch
import torch.nn.functional as F

from peer_timing import time_median

ROWS, LEN = 64, 4096


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--runs", type=int, default=101)
    p.add_argument("--budget-s", type=float, default=2.0)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--only", default="")
    args = p.parse_args()
    torch.set_num_threads(args.threads)
    print(json.dumps({"impl": "torch", "info": f"torch {torch.__version__}, "
                      f"{torch.get_num_threads()} threads"}), flush=True)

    def run(case, fn, weights):
        if args.only and not case.startswith(args.only):
            return
        median_ms, min_ms, runs = time_median(fn, args.runs, args.budget_s)
        nbytes = 4 * (2 * ROWS * LEN + weights * LEN)
        print(json.dumps({"impl": "torch", "case": case, "median_ms": round(median_ms, 4),
                          "min_ms": round(min_ms, 4), "runs": runs, "bytes": nbytes}),
              flush=True)

    with torch.no_grad():
        x = torch.rand(ROWS, LEN) * 8 - 4
        w, b = torch.rand(LEN) * 2 - 1, torch.rand(LEN) * 2 - 1
        y = torch.empty(ROWS, LEN)
        run("softmax_f32_64x4096", lambda: torch.softmax(x, -1, out=y), 0)
        run("layer_norm_f32_64x4096", lambda: F.layer_norm(x, (LEN,), w, b, eps=1e-5), 2)
        run("rms_norm_f32_64x4096",
            lambda: x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * w, 1)
        run("log_softmax_f32_64x4096", lambda: torch.log_softmax(x, -1, out=y), 0)


if __name__ == "__main__":
    main()
