"""PyTorch CUDA figures beside bench/vulkan_gpu_bench.sh's, on the same GPU in the same run.

add and relu f32 over 64M elements (each timed as 20 back-to-back calls between two CUDA
events, divided by 20, as tests/vulkan/vulkan_bench times 20 back-to-back calls and one
synchronize), f32 matmul 4096^3 with TF32 off and f16 matmul 4096^3 (cuBLAS), the per-op cost of a chain of 1,000 dependent adds on 16
floats (eager, and replayed as a torch.cuda.CUDAGraph), host-to-device and device-to-host copies
of 256 MiB from pageable and from pinned host memory. `--f16`: only the f16 matmul (50 timed
repetitions), for a tuning call. Times are CUDA events around the work
(wall clock with a synchronize for the pageable copies), the median of the timed repetitions
after warm-ups. One line per figure: `NAME: MS ms, VALUE UNIT`.
"""
import os
import statistics
import sys
import time

import torch

# CUDA-event timing as the kernel-bench peer (tests/vulkan/torch_peer.py) does it.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests",
                                "vulkan"))
from torch_peer import timed  # noqa: E402


def events(fn, reps=20, warm=5):
    return timed(fn, reps=reps, warm=warm)


def back_to_back(fn, calls=20, reps=10, warm=3):
    """One call's time: the median over `reps` of 20 calls between two CUDA events, / 20."""

    def many():
        for _ in range(calls):
            fn()

    return timed(many, reps=reps, warm=warm) / calls


def wall(fn, reps=7, warm=2):
    for _ in range(warm):
        fn()
    times = []
    for _ in range(reps):
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        fn()
        torch.cuda.synchronize()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def f16_matmul(dev, reps=20):
    """cuBLAS f16 4096^3, the peer of vulkan_f16_matmul --bench."""
    m = 4096
    x = (torch.rand(m, m, device=dev) - 0.5).half()
    w = (torch.rand(m, m, device=dev) - 0.5).half()
    t = events(lambda: torch.matmul(x, w), reps=reps, warm=5)
    print(f"matmul f16 4096^3: {t * 1e3:.4f} ms, {2 * m**3 / t / 1e12:.1f} TFLOP/s")


def main():
    dev = torch.device("cuda")
    print("device:", torch.cuda.get_device_name(0), "torch", torch.__version__)
    if "--f16" in sys.argv[1:]:  # only the f16 matmul, 50 timed repetitions
        f16_matmul(dev, reps=50)
        return
    n = 64 << 20
    a = torch.rand(n, device=dev) - 0.5
    b = torch.rand(n, device=dev)
    y = torch.empty_like(a)
    t = back_to_back(lambda: torch.add(a, b, out=y))
    print(f"add f32 64M: {t * 1e3:.4f} ms, {12 * n / t / 1e9:.0f} GB/s")
    # The faster of relu's two forms: into y, or a fresh tensor (the caching allocator).
    t = min(back_to_back(lambda: torch.clamp_min(a, 0.0, out=y)),
            back_to_back(lambda: torch.relu(a)))
    print(f"relu f32 64M: {t * 1e3:.4f} ms, {8 * n / t / 1e9:.0f} GB/s")
    del a, b, y

    torch.backends.cuda.matmul.allow_tf32 = False
    m = 4096
    x = torch.rand(m, m, device=dev)
    w = torch.rand(m, m, device=dev)
    t = events(lambda: torch.matmul(x, w), reps=10, warm=3)
    print(f"matmul f32 4096^3 (TF32 off): {t * 1e3:.4f} ms, {2 * m**3 / t / 1e12:.1f} TFLOP/s")
    del x, w
    f16_matmul(dev)

    x = torch.zeros(16, device=dev)
    one = torch.ones(1, device=dev)

    def chain():
        for _ in range(1000):
            x.add_(one)

    t = wall(chain)
    print(f"chain of 1000 adds (eager): {t * 1e3:.4f} ms, {t * 1e3:.3f} us/op")
    stream = torch.cuda.Stream()
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream):
        chain()  # warm-up on the side stream before capture
    torch.cuda.current_stream().wait_stream(stream)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        chain()
    t = wall(graph.replay)
    print(f"chain of 1000 adds (CUDA graph): {t * 1e3:.4f} ms, {t * 1e3:.3f} us/op")

    count = 64 << 20  # 256 MiB of f32
    dst = torch.empty(count, device=dev)
    pageable = torch.rand(count)
    pinned = torch.empty(count, pin_memory=True).copy_(pageable)
    for name, host in (("pageable", pageable), ("pinned", pinned)):
        t = wall(lambda: dst.copy_(host))
        print(f"host to device 256 MiB ({name}): {t * 1e3:.3f} ms, {count * 4 / t / 1e9:.1f} GB/s")
        t = wall(lambda: host.copy_(dst))
        print(f"device to host 256 MiB ({name}): {t * 1e3:.3f} ms, {count * 4 / t / 1e9:.1f} GB/s")


if __name__ == "__main__":
    main()
