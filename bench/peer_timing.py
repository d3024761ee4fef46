"""The timing of the PyTorch/numpy peer scripts (bench/*_peers.py): one warm-up call, then the
median of up to `runs` calls within `budget_s` seconds (at least 3), as kernel_bench.hpp times
OpenInfer's side. Imported by the peers, which run as scripts from bench/."""
import statistics
import time


def time_median(fn, runs, budget_s):
    """(median ms, min ms, calls timed) of fn()."""
    fn()
    times = []
    begin = time.perf_counter()
    while len(times) < runs:
        t0 = time.perf_counter()
        fn()
        t1 = time.perf_counter()
        times.append((t1 - t0) * 1e3)
        if len(times) >= 3 and t1 - begin > budget_s:
            break
    return statistics.median(times), min(times), len(times)
