"""PyTorch CUDA figures to set beside tests/vulkan/vulkan_bench on the same GPU.

f32 add and relu over 64M elements, f32 matmuls with TF32 off and f16 ones (4096^3, 2048^3, 1024^3; the
M = 1 shapes of vulkan_bench: [1, K] x [K, N], batched [16, 1, 1024] x [16, 1024, 1024]),
device-to-device and
host-to-device copy bandwidth, and the per-op cost of a 1,000-op chain of tiny adds. Each time
is the median of timed repetitions after warm-ups, by CUDA events. Prints one line per figure.
"""
import statistics

import torch


def timed(fn, reps=20, warm=3):
    for _ in range(warm):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(reps):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        torch.cuda.synchronize()
        times.append(start.elapsed_time(end) / 1e3)
    return statistics.median(times)


def main():
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    dev = torch.device("cuda")
    print("device:", torch.cuda.get_device_name(0), "torch", torch.__version__)
    n = 64 << 20
    a = torch.rand(n, device=dev) - 0.5
    b = torch.rand(n, device=dev)
    y = torch.empty_like(a)
    t = timed(lambda: torch.add(a, b, out=y))
    print(f"add f32 64M: {t * 1e3:.3f} ms, {3 * 4 * n / t / 1e9:.0f} GB/s")
    t = timed(lambda: torch.clamp_min(a, 0.0, out=y))
    print(f"relu f32 64M: {t * 1e3:.3f} ms, {2 * 4 * n / t / 1e9:.0f} GB/s")
    for m in (4096, 2048, 1024):
        x = torch.rand(m, m, device=dev)
        w = torch.rand(m, m, device=dev)
        t = timed(lambda: torch.matmul(x, w), reps=10 if m == 4096 else 20)
        print(f"matmul f32 {m}^3 (TF32 off): {t * 1e3:.3f} ms, {2 * m**3 / t / 1e12:.1f} TFLOP/s")
        x16, w16 = x.half(), w.half()  # cuBLAS f16 on tensor cores, f32 accumulation
        t = timed(lambda: torch.matmul(x16, w16), reps=10 if m == 4096 else 20)
        print(f"matmul f16 {m}^3: {t * 1e3:.3f} ms, {2 * m**3 / t / 1e12:.1f} TFLOP/s")
    for batches, k, cols in ((1, 768, 768), (1, 768, 3072), (1, 3072, 768), (1, 768, 50257),
                             (16, 1024, 1024)):
        lead = (batches,) if batches > 1 else ()
        x = torch.rand(*lead, 1, k, device=dev)
        w = torch.rand(*lead, k, cols, device=dev)
        t = timed(lambda: torch.matmul(x, w))
        print(f"matmul f32 {list(x.shape)} x {list(w.shape)}: {t * 1e3:.4f} ms, "
              f"{4 * w.numel() / t / 1e9:.0f} GB/s of B")
    big = torch.empty(1 << 28, device=dev)  # 1 GiB
    dst = torch.empty_like(big)
    t = timed(lambda: dst.copy_(big), reps=10)
    print(f"copy device->device 1 GiB: {2 * big.numel() * 4 / t / 1e9:.0f} GB/s (read+write)")
    host = torch.empty(1 << 26, pin_memory=True)  # 256 MiB
    t = timed(lambda: dst[: host.numel()].copy_(host, non_blocking=True), reps=10)
    print(f"copy host(pinned)->device 256 MiB: {host.numel() * 4 / t / 1e9:.1f} GB/s")
    small = torch.ones(256, device=dev)

    def chain():
        v = small
        for _ in range(1000):
            v = v + small
        return v

    t = timed(chain, reps=10)
    print(f"chain of 1000 adds of 256 f32: {t * 1e3:.3f} ms, {t / 1000 * 1e6:.2f} us/op")


if __name__ == "__main__":
    main()
