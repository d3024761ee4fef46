#!/usr/bin/python3
"""The cases of nn_spatial_bench in PyTorch (CPU), one JSON line per case.

    /usr/bin/python3 bench/nn_spatial_peers.py [--runs N] [--budget-s S] [--threads T]

Same timing rule as the C++ side: one warm-up, then the median of N runs (default 11), stopping
early once S seconds (default 3) are spent but never under 3 runs. torch runs with
set_num_threads(T) (default 2) under no_grad, f32, contiguous NCHW tensors, each op through its
torch.nn.functional entry point (which allocates its output, as eager PyTorch always does).
"""
import argparse
import json

import torch
import torch.nn.functional as F

from peer_timing import time_median


def emit(case, timing, flops):
    median_ms, min_ms, runs = timing
    print(json.dumps({"impl": "torch", "case": case, "median_ms": round(median_ms, 4),
                      "min_ms": round(min_ms, 4), "runs": runs, "flops": flops}), flush=True)


def rand(*shape):
    return torch.rand(*shape) * 2 - 1


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--runs", type=int, default=11)
    p.add_argument("--budget-s", type=float, default=3.0)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--only", default="")
    args = p.parse_args()
    torch.set_num_threads(args.threads)
    print(json.dumps({"impl": "torch", "info": f"torch {torch.__version__}, "
                      f"{torch.get_num_threads()} threads, mkldnn "
                      f"{torch.backends.mkldnn.is_available()}"}), flush=True)

    def run(case, fn, flops=0):
        if not args.only or case.startswith(args.only):
            emit(case, time_median(fn, args.runs, args.budget_s), flops)

    with torch.no_grad():
        for case, xs, ws, stride, pad, group in [
                ("conv3x3_f32_1x64x56x56_to64", (1, 64, 56, 56), (64, 64, 3, 3), 1, 1, 1),
                ("conv_depthwise3x3_f32_1x256x28x28", (1, 256, 28, 28), (256, 1, 3, 3), 1, 1, 256),
                ("conv1x1s2_f32_1x256x28x28_to512", (1, 256, 28, 28), (512, 256, 1, 1), 2, 0, 1),
                ("conv7x7s2_f32_1x3x224x224_to64", (1, 3, 224, 224), (64, 3, 7, 7), 2, 3, 1)]:
            x, w, b = rand(*xs), rand(*ws), rand(ws[0])
            y = F.conv2d(x, w, b, stride=stride, padding=pad, groups=group)
            flops = 2.0 * y.numel() * ws[1] * ws[2] * ws[3]
            run(case, lambda: F.conv2d(x, w, b, stride=stride, padding=pad, groups=group), flops)
        x = rand(1, 64, 112, 112)
        run("max_pool3x3s2_f32_1x64x112x112", lambda: F.max_pool2d(x, 3, 2, 1))
        x7 = rand(1, 512, 7, 7)
        run("avg_pool7x7_f32_1x512x7x7", lambda: F.avg_pool2d(x7, 7))
        xb = rand(1, 64, 56, 56)
        scale, bias, mean, var = rand(64), rand(64), rand(64), torch.rand(64) + 0.5
        run("batch_norm_f32_1x64x56x56",
            lambda: F.batch_norm(xb, mean, var, scale, bias, training=False, eps=1e-5))


if __name__ == "__main__":
    main()
