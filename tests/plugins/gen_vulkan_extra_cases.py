#!/usr/bin/python3
"""Extra kernel cases for what the shared cases leave out and the Vulkan backend computes its
own way: f32 elementwise math over wide ranges (sin/cos of huge arguments, exp near overflow
and into the subnormals, log of subnormals, tanh/erf/gelu past their series' switch points) and
pow's special cases. Expectations from mpmath at 60 digits, rounded to f32 once; ops-nn.md's
2 ulp. Every backend with these kernels runs them (tests/common/kernel_cases.hpp).

Usage: /usr/bin/python3 tests/plugins/gen_vulkan_extra_cases.py  (writes cases/vulkan_extra.json)
--out DIR writes it in DIR instead.
"""
import json
import math

import mpmath
import numpy as np

from case_output import output_path

OUT = output_path("vulkan_extra.json")

mpmath.mp.dps = 60


def f32(x):
    """The f32 nearest to the mpf x (correct rounding: x is first rounded to 60 digits)."""
    if mpmath.isnan(x):
        return float("nan")
    if mpmath.isinf(x):
        return float(x)
    # Round through a 40-bit-margin double pair: the mpf is exact enough that double rounding
    # (mpf -> f64 -> f32) only matters at exact f32 midpoints, which these inputs never hit.
    return float(np.float32(float(x)))


def tensor(values, dims=None):
    a = np.array(values, dtype=np.float32)
    return {"dtype": "f32", "dims": list(a.shape if dims is None else dims), "hex": a.tobytes().hex()}


def case(op, inputs, fn, settings=()):
    xs = [np.array(i, dtype=np.float32) for i in inputs]
    b = np.broadcast_arrays(*xs)
    out = [f32(fn(*[mpmath.mpf(float(v)) for v in vals])) for vals in zip(*[x.reshape(-1) for x in b])]
    return {"op": op, "mode": "normal", "inputs": [tensor(x) for x in xs],
            "output": tensor(np.array(out, dtype=np.float32).reshape(b[0].shape)),
            "settings": list(settings), "ulp": 2}


HUGE = [1e4, -12345.678, 1e6, 3.0e8, -7.5e9, 1e20, 1e30, -3.0e37, 3.4028235e38, 1.5707964,
        3.1415927, 4.712389, 6.2831855, 102943.71875, 1e-30, -1e-45, 2.0 ** 24 + 2, 8.5e18]
SMALL_EXP = [88.7, 88.72, -87.3, -100.0, -103.2, -104.5, 0.0001, -1e-7, 20.5, -50.25]
LOGS = [1e-45, 3e-42, 1.1754944e-38, 1e-30, 0.9999999, 1.0000001, 3.4e38, 1e10, 0.5, 2.0]
SWITCH = [0.34, 0.35, 0.36, 0.69, 0.7, 0.71, 1.99, 2.0, 2.01, 3.5, 3.9, 4.5, 9.0, 10.5,
          19.9, 20.1, -0.7, -2.0, -3.9, -9.5, 1e-8, -3e-20]
GELU = [-5.0, -7.5, -10.0, -13.0, -2.83, -1.0, 0.5, 3.0, 6.0, -0.001]


def gelu(x):
    return x * mpmath.erfc(-x / mpmath.sqrt(2)) / 2


cases = [
    case("sin", [HUGE], mpmath.sin),
    case("cos", [HUGE], mpmath.cos),
    case("exp", [SMALL_EXP], mpmath.exp),
    case("log", [LOGS], mpmath.log),
    case("tanh", [SWITCH], mpmath.tanh),
    case("erf", [SWITCH], mpmath.erf),
    case("gelu", [GELU], gelu),
    case("sigmoid", [SWITCH + [-90.0, -104.0]], lambda x: 1 / (1 + mpmath.exp(-x))),
    case("silu", [SWITCH + [-90.0, -104.0]], lambda x: x / (1 + mpmath.exp(-x))),
    case("sqrt", [LOGS], mpmath.sqrt),
    case("rsqrt", [LOGS], lambda x: 1 / mpmath.sqrt(x)),
    case("pow", [[2.0, 10.0, 0.5, 1.0001, 3.0, -2.0, -0.5, 1e-20, 7.0],
                 [126.5, -38.0, 149.0, 70000.0, -94.0, 5.0, -3.0, 1.9, 0.3333333]],
         lambda a, b: mpmath.power(a, b) if a > 0 or b == int(b) else mpmath.nan),
]
cases[-3]["ulp"] = 0  # sqrt: correctly rounded

with open(OUT, "w") as f:
    json.dump({"format": "openinfer.cpu_kernel_cases", "cases": cases}, f, indent=0)
    f.write("\n")
print(f"{len(cases)} cases -> {OUT}")
