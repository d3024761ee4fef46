"""Checks `openinfer run --fetch y` output against gelu(x) = x * Phi(x) from Python's math.erf.

Usage: check_gelu.py INPUT.txt RUN_STDOUT.txt
"""
import math
import re
import struct
import sys


def f32(v):
    return struct.unpack("<f", struct.pack("<f", v))[0]


def values(text, name):
    m = re.search(name + r": f32\[\d+\] = \{([^}]*)\}", text)
    if not m:
        sys.exit(f"no '{name}: f32[...] = {{...}}' in:\n{text}")
    return [float(v) for v in m.group(1).split(",")]


def main():
    xs = values(open(sys.argv[1]).read(), "x")
    ys = values(open(sys.argv[2]).read(), "y")
    if len(xs) != len(ys):
        sys.exit(f"{len(xs)} inputs but {len(ys)} outputs")
    for x, y in zip(xs, ys):
        want = f32(0.5 * x * (1.0 + math.erf(x / math.sqrt(2.0))))
        # The plugin computes in f32 with erff: allow a few ulp.
        if abs(y - want) > 1e-6 + 4e-7 * abs(want):
            sys.exit(f"gelu({x}) = {y}, expected {want}")
    print(f"gelu ok for {len(xs)} values")


main()
