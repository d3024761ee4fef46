#!/usr/bin/python3
"""f32 cases around the subnormals, for targets whose device may flush them (Vulkan without
DenormPreserve: NVIDIA's): add, sub, mul with subnormal operands and results (and subnormal
times inf, zeros, NaN), the comparisons, min, max, relu and clamp of subnormals. Operands are
random bit patterns (numpy `default_rng`, fixed seed) with small exponents; expectations are
numpy's float32 arithmetic, IEEE with subnormals kept. Bit-exact (no tolerance).

Usage: /usr/bin/python3 tests/plugins/gen_subnormal_cases.py  (writes cases/subnormals.json)
--out DIR writes it in DIR instead.
"""
import json

import numpy as np

from case_output import output_path

OUT = output_path("subnormals.json")
rng = np.random.default_rng(2026)
SPECIAL = [0x00000000, 0x80000000, 0x00000001, 0x80000001, 0x007fffff, 0x00800000, 0x7f800000,
           0xff800000, 0x7fc00000, 0x3f800000, 0x00400000, 0x80400001]


def bits(n, max_exp):
    """n f32 bit patterns: random sign and significand, exponent field 0..max_exp (half 0)."""
    exp = np.where(rng.random(n) < 0.5, 0, rng.integers(0, max_exp + 1, n))
    b = (rng.integers(0, 2, n) << 31) | (exp << 23) | rng.integers(0, 1 << 23, n)
    return np.array(b, dtype=np.uint32)


def operands(n, max_exp):
    a, b = bits(n, max_exp), bits(n, max_exp)
    s = np.array(SPECIAL, dtype=np.uint32)
    a = np.concatenate([a, np.repeat(s, len(s))])
    b = np.concatenate([b, np.tile(s, len(s))])
    return a.view(np.float32), b.view(np.float32)


def tensor(a):
    return {"dtype": a.dtype.name.replace("float32", "f32"), "dims": list(a.shape),
            "hex": a.tobytes().hex()} if a.dtype != np.bool_ else \
        {"dtype": "bool", "dims": list(a.shape), "hex": a.astype(np.uint8).tobytes().hex()}


def case(op, inputs, out, settings=()):
    return {"op": op, "mode": "normal", "inputs": [tensor(x) for x in inputs],
            "output": tensor(out), "settings": list(settings)}


def f32_min(a, b, pick_max):
    """ops.md min/max: NaN if either is NaN, -0 below +0."""
    out = np.where(a > b, a, b) if pick_max else np.where(a < b, a, b)
    same = a == b
    neg_a = np.signbit(a)
    out = np.where(same, np.where(neg_a, b, a) if pick_max else np.where(neg_a, a, b), out)
    return np.where(np.isnan(a) | np.isnan(b), np.float32("nan"), out).astype(np.float32)


cases = []
with np.errstate(all="ignore"):
    a, b = operands(300, 24)
    cases.append(case("add", [a, b], a + b))
    cases.append(case("sub", [a, b], a - b))
    for op, fn in [("eq", np.equal), ("ne", np.not_equal), ("lt", np.less),
                   ("le", np.less_equal), ("gt", np.greater), ("ge", np.greater_equal)]:
        cases.append(case(op, [a, b], fn(a, b)))
    cases.append(case("max", [a, b], f32_min(a, b, True)))
    cases.append(case("min", [a, b], f32_min(a, b, False)))
    # relu: max(x, 0) with +0 for zeros, NaN for NaN (and for -inf: 0 * x)
    r = np.where(a > 0, a, np.float32(0) * a).astype(np.float32)
    r = np.where(r == 0, np.float32(0), r).astype(np.float32)
    cases.append(case("relu", [a], r))
    # mul: exponents up to 150 so products land in, above and below the subnormals
    a, b = operands(300, 150)
    cases.append(case("mul", [a, b], a * b))

with open(OUT, "w") as f:
    json.dump({"format": "openinfer.cpu_kernel_cases", "cases": cases}, f, indent=0)
