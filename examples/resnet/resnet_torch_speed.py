#!/usr/bin/python3
"""PyTorch (CPU) images/s of the same ResNet-18 as export_resnet.py, one JSON line per form.

    /usr/bin/python3 examples/resnet/resnet_torch_speed.py [--batch 1] [--size 224]
        [--width 64] [--runs 11] [--threads 2]

One warm-up, then the median of N forward passes under no_grad with torch.set_num_threads(T).
Two forms: torchvision's eval-mode module as it is (batch norm as separate ops) and the same
with every conv+bn pair fused by torch.nn.utils.fusion.fuse_conv_bn_eval (what resnet.oi runs).
"""
import argparse
import json
import pathlib
import statistics
import sys
import time

import torch
from torch.nn.utils.fusion import fuse_conv_bn_eval

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from export_resnet import build  # noqa: E402


def fused(m):
    m.conv1 = fuse_conv_bn_eval(m.conv1, m.bn1)
    m.bn1 = torch.nn.Identity()
    for s in range(1, 5):
        for block in getattr(m, f"layer{s}"):
            block.conv1 = fuse_conv_bn_eval(block.conv1, block.bn1)
            block.bn1 = torch.nn.Identity()
            block.conv2 = fuse_conv_bn_eval(block.conv2, block.bn2)
            block.bn2 = torch.nn.Identity()
            if block.downsample is not None:
                block.downsample = fuse_conv_bn_eval(block.downsample[0], block.downsample[1])
    return m


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--batch", type=int, default=1)
    p.add_argument("--size", type=int, default=224)
    p.add_argument("--width", type=int, default=64)
    p.add_argument("--runs", type=int, default=11)
    p.add_argument("--threads", type=int, default=2)
    args = p.parse_args()
    torch.set_num_threads(args.threads)
    x = torch.randn(args.batch, 3, args.size, args.size)
    for form, model in [("torchvision eval", build(args.width, 1000, 0)),
                        ("conv+bn fused", fused(build(args.width, 1000, 0)))]:
        with torch.no_grad():
            model(x)
            ms = []
            for _ in range(args.runs):
                t0 = time.perf_counter()
                model(x)
                ms.append((time.perf_counter() - t0) * 1e3)
        med = statistics.median(ms)
        print(json.dumps({"impl": "torch", "form": form, "batch": args.batch,
                          "threads": torch.get_num_threads(), "median_ms": round(med, 3),
                          "min_ms": round(min(ms), 3), "runs": args.runs,
                          "images_per_s": round(1000 * args.batch / med, 2)}), flush=True)


if __name__ == "__main__":
    main()
