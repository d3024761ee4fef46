#!/usr/bin/python3
"""The cases of cpu_ops_bench in numpy or PyTorch (CPU), one JSON line per case.

    /usr/bin/python3 bench/cpu_ops_peers.py numpy|torch [--runs N] [--budget-s S]

Same timing rule as the C++ side: one warm-up, then the median of N runs (default 11), stopping
early once S seconds (default 3) are spent but never under 3 runs. Elementwise ops and sums
write into preallocated outputs (out=), as the OpenInfer kernels do; the MLP is written the
natural way (x @ W + b, relu), allocating its temporaries. The first lines (with "info") say
which BLAS the library uses and how many threads.
"""
import argparse
import json
import os
import re
import sys

from peer_timing import time_median

N16M = 1 << 24


def emit(impl, case, timing, nbytes, flops):
    median_ms, min_ms, runs = timing
    print(json.dumps({
        "impl": impl, "case": case, "median_ms": round(median_ms, 4), "min_ms": round(min_ms, 4),
        "runs": runs, "bytes": nbytes, "flops": flops,
        "gbps": round(nbytes / (median_ms * 1e6), 3) if nbytes else 0,
        "gflops": round(flops / (median_ms * 1e6), 3) if flops else 0,
    }), flush=True)


def info(impl, text):
    print(json.dumps({"impl": impl, "info": text}), flush=True)


def loaded_blas_libraries():
    """The BLAS-like shared libraries this process has mapped (resolves Debian's alternatives)."""
    found = set()
    try:
        with open("/proc/self/maps") as maps:
            for line in maps:
                path = line.split()[-1] if len(line.split()) >= 6 else ""
                name = os.path.basename(path)
                if any(key in name for key in ("blas", "mkl", "dnnl", "lapack")):
                    found.add(os.path.realpath(path))
    except OSError:
        pass
    return ", ".join(sorted(found)) or "(none found in /proc/self/maps)"


def blas_kernels_info(np=None):
    """The BLAS libraries loaded and the kernel each chose (threadpoolctl), else numpy's config."""
    try:
        from threadpoolctl import threadpool_info
        pools = threadpool_info()
        if pools:
            return "; ".join(
                f"{p.get('internal_api')} {p.get('version')} ({p.get('threading_layer')}, "
                f"{p.get('architecture')}, {p.get('num_threads')} threads) {p.get('filepath')}"
                for p in pools)
    except ImportError:
        pass
    if np is None:
        return "(threadpoolctl missing)"
    import contextlib
    import io
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        np.show_config()
    return " ".join(buf.getvalue().split())[:400]


def cases_numpy(args):
    import numpy as np
    rng = np.random.default_rng(0)
    info("numpy", f"numpy {np.__version__}; BLAS: {blas_kernels_info(np)}")
    info("numpy", "OPENBLAS_CORETYPE=%s OPENBLAS_L2_SIZE=%s" % (
        os.environ.get("OPENBLAS_CORETYPE", "(unset)"), os.environ.get("OPENBLAS_L2_SIZE", "(unset)")))
    info("numpy", "loaded: " + loaded_blas_libraries())
    run = lambda fn: time_median(fn, args.runs, args.budget_s)

    f32 = lambda *shape: rng.uniform(-1, 1, shape).astype(np.float32)
    a, b, c = f32(N16M), f32(N16M), np.empty(N16M, np.float32)
    emit("numpy", "add_f32_16M", run(lambda: np.add(a, b, out=c)), 12 * N16M, N16M)
    emit("numpy", "mul_f32_16M", run(lambda: np.multiply(a, b, out=c)), 12 * N16M, N16M)
    emit("numpy", "relu_f32_16M", run(lambda: np.maximum(a, np.float32(0), out=c)), 8 * N16M, N16M)
    del a, b, c
    ai = rng.integers(-64, 64, N16M, dtype=np.int8)
    bi = rng.integers(-64, 64, N16M, dtype=np.int8)
    ci = np.empty(N16M, np.int8)
    emit("numpy", "add_i8_16M", run(lambda: np.add(ai, bi, out=ci)), 3 * N16M, N16M)
    del ai, bi, ci
    ah, bh, ch = f32(N16M).astype(np.float16), f32(N16M).astype(np.float16), np.empty(N16M, np.float16)
    emit("numpy", "add_f16_16M", run(lambda: np.add(ah, bh, out=ch)), 6 * N16M, N16M)
    del ah, bh, ch
    m = f32(4096, 4096)
    o = np.empty(4096, np.float32)
    n = 4096 * 4096
    emit("numpy", "sum_axis0_f32_4096x4096", run(lambda: np.sum(m, axis=0, out=o)), 4 * n + 4 * 4096, n)
    emit("numpy", "sum_axis1_f32_4096x4096", run(lambda: np.sum(m, axis=1, out=o)), 4 * n + 4 * 4096, n)
    del m
    for size in (1024, 2048):
        x, y, z = f32(size, size), f32(size, size), np.empty((size, size), np.float32)
        emit("numpy", f"matmul_f32_{size}", run(lambda: np.matmul(x, y, out=z)),
             12 * size * size, 2 * size ** 3)
    widths = [512, 1024, 1024, 10]
    x = f32(64, 512)
    layers = [(f32(widths[i], widths[i + 1]), f32(widths[i + 1])) for i in range(3)]

    def mlp():
        h = x
        for i, (w, bias) in enumerate(layers):
            h = h @ w + bias
            if i < 2:
                h = np.maximum(h, np.float32(0))
        return h
    flops = sum(2 * 64 * widths[i] * widths[i + 1] for i in range(3))
    emit("numpy", "mlp_f32_b64_512_1024_1024_10", run(mlp), 0, flops)


def cases_torch(args):
    import torch
    threads = os.cpu_count() or 1
    torch.set_num_threads(threads)
    config = torch.__config__.show()
    facts = [line.strip(" -") for line in config.splitlines()
             if "MKL" in line and "Build settings" not in line or "CPU capability" in line]
    facts += [f"{k}={v}" for k, v in re.findall(
        r"\b(BLAS_INFO|LAPACK_INFO|USE_MKLDNN|USE_OPENMP)=([^,\s]+)", config)]
    info("torch", f"torch {torch.__version__}; threads {torch.get_num_threads()}; "
         + "; ".join(facts))
    torch.zeros(2, 2) @ torch.zeros(2, 2)  # load the BLAS before looking for it
    info("torch", "loaded: " + loaded_blas_libraries())
    info("torch", "BLAS kernels: " + blas_kernels_info(None))
    torch.manual_seed(0)
    run = lambda fn: time_median(fn, args.runs, args.budget_s)
    f32 = lambda *shape: torch.rand(*shape, dtype=torch.float32) * 2 - 1

    with torch.no_grad():
        a, b, c = f32(N16M), f32(N16M), torch.empty(N16M)
        emit("torch", "add_f32_16M", run(lambda: torch.add(a, b, out=c)), 12 * N16M, N16M)
        emit("torch", "mul_f32_16M", run(lambda: torch.mul(a, b, out=c)), 12 * N16M, N16M)
        emit("torch", "relu_f32_16M", run(lambda: torch.clamp_min(a, 0.0, out=c)), 8 * N16M, N16M)
        del a, b, c
        ai = torch.randint(-64, 64, (N16M,), dtype=torch.int8)
        bi = torch.randint(-64, 64, (N16M,), dtype=torch.int8)
        ci = torch.empty(N16M, dtype=torch.int8)
        emit("torch", "add_i8_16M", run(lambda: torch.add(ai, bi, out=ci)), 3 * N16M, N16M)
        del ai, bi, ci
        ah, bh = f32(N16M).half(), f32(N16M).half()
        ch = torch.empty(N16M, dtype=torch.float16)
        emit("torch", "add_f16_16M", run(lambda: torch.add(ah, bh, out=ch)), 6 * N16M, N16M)
        del ah, bh, ch
        # numpy has no bfloat16: this case is OpenInfer against torch only.
        ab, bb = f32(N16M).bfloat16(), f32(N16M).bfloat16()
        cb = torch.empty(N16M, dtype=torch.bfloat16)
        emit("torch", "add_bf16_16M", run(lambda: torch.add(ab, bb, out=cb)), 6 * N16M, N16M)
        del ab, bb, cb
        m = f32(4096, 4096)
        o = torch.empty(4096)
        n = 4096 * 4096
        emit("torch", "sum_axis0_f32_4096x4096", run(lambda: torch.sum(m, 0, out=o)), 4 * n + 4 * 4096, n)
        emit("torch", "sum_axis1_f32_4096x4096", run(lambda: torch.sum(m, 1, out=o)), 4 * n + 4 * 4096, n)
        del m
        for size in (1024, 2048):
            x, y, z = f32(size, size), f32(size, size), torch.empty(size, size)
            emit("torch", f"matmul_f32_{size}", run(lambda: torch.matmul(x, y, out=z)),
                 12 * size * size, 2 * size ** 3)
        widths = [512, 1024, 1024, 10]
        x = f32(64, 512)
        model = torch.nn.Sequential(
            torch.nn.Linear(512, 1024), torch.nn.ReLU(),
            torch.nn.Linear(1024, 1024), torch.nn.ReLU(),
            torch.nn.Linear(1024, 10)).eval()
        flops = sum(2 * 64 * widths[i] * widths[i + 1] for i in range(3))
        emit("torch", "mlp_f32_b64_512_1024_1024_10", run(lambda: model(x)), 0, flops)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("impl", choices=["numpy", "torch"])
    parser.add_argument("--runs", type=int, default=11)
    parser.add_argument("--budget-s", type=float, default=3.0)
    args = parser.parse_args()
    args.runs = max(3, args.runs)
    (cases_numpy if args.impl == "numpy" else cases_torch)(args)


if __name__ == "__main__":
    sys.exit(main())
