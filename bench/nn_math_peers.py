#!/usr/bin/python3
"""The cases of nn_math_bench in PyTorch (CPU), one JSON line per case.

    /usr/bin/python3 bench/nn_math_peers.py [--runs N] [--budget-s S] [--threads T] [--only CASE]

Same timing rule as the C++ side: one warm-up, then the median of N runs (default 101), stopping
early once S seconds (default 2) are spent but never under 3 runs. torch runs with
set_num_threads(T) (default 2) under no_grad on contiguous f32 tensors with the same value
ranges, writing into a preallocated output through `out=` where the op has it (exp, tanh,
sigmoid, erf, log, sin); silu and gelu allocate their output, as eager PyTorch does.
"""
import argparse
import json

import torch
import torch.nn.functional as F

from peer_timing import time_median

SHAPES = {"64x4096": (64, 4096), "16M": (16 << 20,)}
# case prefix: (function of (x, y), input range)
CASES = {
    "exp": (lambda x, y: torch.exp(x, out=y), (-4, 4)),
    "tanh": (lambda x, y: torch.tanh(x, out=y), (-4, 4)),
    "sigmoid": (lambda x, y: torch.sigmoid(x, out=y), (-4, 4)),
    "silu": (lambda x, y: F.silu(x), (-4, 4)),
    "gelu": (lambda x, y: F.gelu(x), (-4, 4)),
    "gelu_tanh": (lambda x, y: F.gelu(x, approximate="tanh"), (-4, 4)),
    "erf": (lambda x, y: torch.erf(x, out=y), (-4, 4)),
    "log": (lambda x, y: torch.log(x, out=y), (0, 8)),
    "sin": (lambda x, y: torch.sin(x, out=y), (-8, 8)),
}


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--runs", type=int, default=101)
    p.add_argument("--budget-s", type=float, default=2.0)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--only", default="")
    p.add_argument("--plugin-dir", default="")  # nn_math_bench's option, ignored here
    args = p.parse_args()
    torch.set_num_threads(args.threads)
    print(json.dumps({"impl": "torch", "info": f"torch {torch.__version__}, "
                      f"{torch.get_num_threads()} threads"}), flush=True)
    torch.manual_seed(7)
    with torch.no_grad():
        for shape_name, shape in SHAPES.items():
            for name, (fn, (lo, hi)) in CASES.items():
                case = f"{name}_f32_{shape_name}"
                if args.only and not case.startswith(args.only):
                    continue
                x = torch.rand(*shape) * (hi - lo) + lo
                y = torch.empty(*shape)
                median_ms, min_ms, runs = time_median(lambda: fn(x, y), args.runs, args.budget_s)
                print(json.dumps({"impl": "torch", "case": case, "median_ms": round(median_ms, 4),
                                  "min_ms": round(min_ms, 4), "runs": runs,
                                  "bytes": 8 * x.numel()}), flush=True)


if __name__ == "__main__":
    main()
