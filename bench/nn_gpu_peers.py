#!/usr/bin/env python3
"""PyTorch CUDA peer of `nn_attention_bench --backend vulkan` and `nn_spatial_bench --backend
vulkan` on a lent NVIDIA GPU: the same attention and conv cases (f32, TF32 off), timed per call
with CUDA events (median of RUNS after warm-up). Attention is timed with the bool mask and
without one (is_causal, or no mask for the decode row); the faster form is the peer. Then the
f16 cases of issue 22 (f16_peers: attention on 4-D tensors, conv, cuBLAS matmul). Prints one
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
        f16_peers(rand, args.runs)


def f16_peers(rand, runs):
    """The f16 cases (issue 22's targets): attention on [1, heads, T, D] tensors (the form on
    which PyTorch takes its fused kernels: its own choice, then each SDPA backend that runs the
    case forced), conv in f16 through cuDNN (tensor cores) and square matmuls through cuBLAS
    (f16 inputs, f32 accumulation)."""
    h = torch.float16
    for case, heads, tq, tk, d in [("attention_decode_f16_h32_d128_kv2048", 32, 1, 2048, 128),
                                   ("attention_prefill_causal_f16_h32_d128_t512", 32, 512, 512,
                                    128)]:
        q, k, v = (rand(1, heads, t, d).to(h) for t in (tq, tk, tk))
        fast = (lambda: F.scaled_dot_product_attention(q, k, v, is_causal=True)) if tq == tk \
            else (lambda: F.scaled_dot_product_attention(q, k, v))
        form = "scaled_dot_product_attention 4-D " + ("is_causal" if tq == tk else "no mask")
        emit(case, form + " (its choice)", time_ms(fast, runs))
        for name, call in sdpa_backends(fast):  # each backend PyTorch has for it, forced
            emit(case, f"{form} ({name})", time_ms(call, runs))
    x, w = rand(1, 64, 56, 56).to(h), rand(64, 64, 3, 3).to(h)
    emit("conv3x3_f16_1x64x56x56_to64", "conv2d f16 (cuDNN)",
         time_ms(lambda: F.conv2d(x, w, padding=1), runs))
    for n in (1024, 2048, 4096):
        a, b = rand(n, n).to(h), rand(n, n).to(h)
        t = time_ms(lambda: a @ b, runs)
        print(json.dumps({"impl": "torch-cuda", "case": f"matmul_f16_{n}", "how": "cuBLAS f16",
                          "median_ms": round(t[0], 4), "min_ms": round(t[1], 4),
                          "tflops": round(2 * n ** 3 / t[0] / 1e9, 1)}))


def sdpa_backends(fn):
    """(name, fn under sdpa_kernel(that backend)) for each SDPA backend that runs fn."""
    from torch.nn.attention import SDPBackend, sdpa_kernel
    found = []
    for name in ("FLASH_ATTENTION", "CUDNN_ATTENTION", "EFFICIENT_ATTENTION"):
        backend = getattr(SDPBackend, name, None)
        if backend is None:
            continue

        def call(backend=backend):
            with sdpa_kernel(backend):
                return fn()
        try:
            call()
        except RuntimeError:
            continue
        found.append((name.lower(), call))
    return found


if __name__ == "__main__":
    main()
