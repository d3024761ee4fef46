#!/usr/bin/env python3
"""PyTorch CUDA peer of `nn_attention_bench --backend vulkan` and `nn_spatial_bench --backend
vulkan` on a lent NVIDIA GPU: the same attention and conv cases (f32, TF32 off), timed per call
with CUDA events (median of RUNS after warm-up). Prints one JSON line per case, like the
benches. Run there with the machine's python3 (torch with CUDA):

    python3 bench/nn_gpu_peers.py [--runs 51]
"""
import argparse
import json
import statistics

import torch
import torch.nn.functional as F


def time_ms(fn, runs):
    for _ in range(5):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(runs):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end))
    return statistics.median(times), min(times)


def emit(case, how, timing):
    print(json.dumps({"impl": "torch-cuda", "case": case, "how": how,
                      "median_ms": round(timing[0], 4), "min_ms": round(timing[1], 4)}))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=51)
    args = ap.parse_args()
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    dev = torch.device("cuda")
    print(json.dumps({"impl": "torch-cuda", "info": f"torch {torch.__version__} on "
                      f"{torch.cuda.get_device_name(dev)}"}))
    g = torch.Generator(device=dev).manual_seed(0)

    def rand(*shape):
        return torch.rand(*shape, generator=g, device=dev) * 2 - 1

    with torch.no_grad():
        for case, heads, tq, tk, d in [("attention_decode_f32_h32_d128_kv2048", 32, 1, 2048, 128),
                                       ("attention_prefill_causal_f32_h32_d128_t512", 32, 512,
                                        512, 128)]:
            q, k, v = rand(heads, tq, d), rand(heads, tk, d), rand(heads, tk, d)
            # causal with Tq < Tk: query i sees keys j <= i + (Tk - Tq), as ops-nn.md says
            mask = torch.ones(tq, tk, dtype=torch.bool, device=dev).tril(tk - tq)
            emit(case, "scaled_dot_product_attention",
                 time_ms(lambda: F.scaled_dot_product_attention(q, k, v, attn_mask=mask),
                         args.runs))
        for case, x_shape, w_shape, groups in [
                ("conv3x3_f32_1x64x56x56_to64", (1, 64, 56, 56), (64, 64, 3, 3), 1),
                ("conv_depthwise3x3_f32_1x256x28x28", (1, 256, 28, 28), (256, 1, 3, 3), 256)]:
            x, w = rand(*x_shape), rand(*w_shape)
            emit(case, "conv2d (cuDNN)",
                 time_ms(lambda: F.conv2d(x, w, padding=1, groups=groups), args.runs))


if __name__ == "__main__":
    main()
