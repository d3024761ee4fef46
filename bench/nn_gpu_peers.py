#!/usr/bin/env python3
"""PyTorch CUDA peer of `nn_attention_bench --backend vulkan` and `nn_spatial_bench --backend
vulkan` on a lent NVIDIA GPU: the same attention and conv cases (f32, TF32 off), timed per call
with CUDA events (median of RUNS after warm-up). Attention is timed with the bool mask and
without one (is_causal, or no mask for the decode row); the faster form is the peer. Prints one
JSON line per case (and form), like the benches. Run there with the machine's python3 (torch with CUDA):

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
            emit(case, "scaled_dot_product_attention(attn_mask)",
                 time_ms(lambda: F.scaled_dot_product_attention(q, k, v, attn_mask=mask),
                         args.runs))
            # The same result without a mask tensor, which lets torch pick its fused kernels:
            # is_causal for the square prefill, no mask at all for the decode (one query row
            # at the end of the cache sees every key).
            if tq == tk:
                fast = lambda: F.scaled_dot_product_attention(q, k, v, is_causal=True)
                emit(case, "scaled_dot_product_attention(is_causal)", time_ms(fast, args.runs))
            elif tq == 1:
                fast = lambda: F.scaled_dot_product_attention(q, k, v)
                emit(case, "scaled_dot_product_attention(no mask)", time_ms(fast, args.runs))
        for case, x_shape, w_shape, groups in [
                ("conv3x3_f32_1x64x56x56_to64", (1, 64, 56, 56), (64, 64, 3, 3), 1),
                ("conv_depthwise3x3_f32_1x256x28x28", (1, 256, 28, 28), (256, 1, 3, 3), 256),
                ("conv1x1s2_f32_1x256x28x28_to512", (1, 256, 28, 28), (512, 256, 1, 1), 1),
                ("conv7x7s2_f32_1x3x224x224_to64", (1, 3, 224, 224), (64, 3, 7, 7), 1)]:
            x, w = rand(*x_shape), rand(*w_shape)
            k = w_shape[-1]
            stride = 1 if k == 3 else 2
            emit(case, "conv2d (cuDNN)",
                 time_ms(lambda: F.conv2d(x, w, stride=stride, padding=k // 2, groups=groups),
                         args.runs))


if __name__ == "__main__":
    main()
