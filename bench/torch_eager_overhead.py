"""PyTorch eager's per-op time on the executor-overhead workload: a chain of 10,000 adds of
16-element f32 tensors (bench/exec_overhead_bench does the same through OpenInfer).
Run with Debian's python3 (python3-torch): /usr/bin/python3 bench/torch_eager_overhead.py"""
import json
import statistics
import time

import torch

N_NODES = 10_000
torch.set_num_threads(1)  # tiny tensors: threads only add overhead
x = torch.arange(16, dtype=torch.float32)
a = torch.ones(16, dtype=torch.float32)
times = []
with torch.no_grad():
    for _ in range(7):
        h = x.clone()
        start = time.perf_counter_ns()
        for _ in range(N_NODES):
            torch.add(h, a, out=h)
        times.append((time.perf_counter_ns() - start) / N_NODES)
print(json.dumps({"peer": "torch " + torch.__version__, "ns_per_op_median": statistics.median(times),
                  "ns_per_op_min": min(times)}))
