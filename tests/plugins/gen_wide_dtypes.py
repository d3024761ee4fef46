#!/usr/bin/python3
"""Kernel cases at the edges of the 8-byte dtypes, which the shared cases reach only with small
random values: means of i64/u64 whose exact sums need more than 64 bits, casts from f64 that a
rounding through f32 would get wrong (f16/bf16/f8 double-rounding traps), i64/u64 -> f32/f64
rounding ties, saturating and wrapping f64 -> i64/u64, and correctly rounded f64 sqrt.
Expectations from Python integers, fractions (exact_floats.py) and math.sqrt (IEEE, correctly
rounded); every backend with these kernels runs them (tests/common/kernel_cases.hpp).

Usage: /usr/bin/python3 tests/plugins/gen_wide_dtypes.py  (writes cases/wide_dtypes.json)
--out DIR writes it in DIR instead.
"""
import json
import math
import struct

from exact_floats import float_bits, round_to
from case_output import output_path

OUT = output_path("wide_dtypes.json")

PACK = {"i64": "<q", "u64": "<Q", "f64": "<d"}


def tensor(dtype, values, dims=None):
    dims = [len(values)] if dims is None else dims
    if dtype in PACK:
        data = b"".join(struct.pack(PACK[dtype], v) for v in values)
    elif dtype == "f32":
        data = b"".join(struct.pack("<I", float_bits("f32", v)) for v in values)
    elif dtype in ("f16", "bf16"):
        data = b"".join(struct.pack("<H", float_bits(dtype, v)) for v in values)
    elif dtype == "f8":
        data = bytes(float_bits("f8", v) for v in values)
    else:
        raise ValueError(dtype)
    return {"dtype": dtype, "dims": dims, "hex": data.hex()}


def setting(name, kind, value):
    return {"name": name, "type": kind, "value": value}


def case(op, inputs, output, settings=(), **extra):
    c = {"op": op, "mode": "normal", "inputs": inputs, "output": output, "settings": list(settings)}
    c.update(extra)
    return c


def trunc_div(a, b):
    q = abs(a) // b
    return -q if a < 0 else q


def mean_case(dtype, rows):
    cols = len(rows[0])
    flat = [v for r in rows for v in r]
    means = [trunc_div(sum(r), cols) for r in rows]
    return case("mean_axis", [tensor(dtype, flat, [len(rows), cols])],
                tensor(dtype, means, [len(rows)]),
                [setting("axes", "int_list", [1]), setting("keepdims", "bool", False)])


def cast_case(src, dst, values, expect, saturate=True):
    return case("cast", [tensor(src, values)], tensor(dst, expect),
                [setting("rounding_mode", "string", "trunc"), setting("saturate", "bool", saturate)])


def wrap(v, bits, signed):
    v %= 1 << bits
    return v - (1 << bits) if signed and v >= 1 << (bits - 1) else v


I64_MIN, I64_MAX, U64_MAX = -(1 << 63), (1 << 63) - 1, (1 << 64) - 1

cases = [
    # exact sums beyond 64 bits, quotients truncated toward zero
    mean_case("i64", [[I64_MAX, I64_MAX, I64_MAX - 6, 5], [I64_MIN, I64_MIN, I64_MIN + 1, -5],
                      [(1 << 62) + 1, (1 << 62) + 3, -7, 1], [-3, -4, 2, 0]]),
    mean_case("u64", [[U64_MAX, U64_MAX, U64_MAX - 2, 9], [1 << 63, 1 << 63, 3, 0],
                      [U64_MAX, 1, 0, 0], [7, 0, 0, 0]]),
]

# f64 -> f16/bf16/f8: just above a tie of the narrow type, below f32's precision: a rounding
# through f32 lands on the tie and rounds to even; one rounding goes up.
for dst, half_ulp in (("f16", 2.0 ** -11), ("bf16", 2.0 ** -8), ("f8", 2.0 ** -3)):
    values = [1 + half_ulp + 2.0 ** -40, -(1 + half_ulp + 2.0 ** -40), 1 + 3 * half_ulp - 2.0 ** -40,
              3 + 2 * 3 * half_ulp + 2.0 ** -38, 1e300, -1e-300, 0.0, -2.5]
    cases.append(cast_case("f64", dst, values, [round_to(dst, v) for v in values]))

# i64/u64 -> f32/f64 around ties
i64s = [(1 << 53) + 1, (1 << 53) + 3, -((1 << 53) + 1), (1 << 62) + (1 << 38) + 1,
        -(1 << 62) - (1 << 38), (1 << 24) + 1, -((1 << 24) + 3), I64_MIN, I64_MAX, 0]
u64s = [U64_MAX, (1 << 63) + (1 << 10), (1 << 53) + 1, (1 << 40) + (1 << 16) + 1, 0, 12345]
for dst in ("f32", "f64"):
    cases.append(cast_case("i64", dst, i64s, [round_to(dst, v) for v in i64s]))
    cases.append(cast_case("u64", dst, u64s, [round_to(dst, v) for v in u64s]))

# f64 -> i64/u64: truncation, saturation at the limits, NaN and inf to 0 when wrapping
f64s = [123.75, -123.75, 1e19, -1e19, 2.0 ** 63, -2.0 ** 63, 2.0 ** 64, 3 * 2.0 ** 63,
        -(2.0 ** 53) - 2, float("nan"), float("inf"), -float("inf"), -0.5, 1.8e19]


def to_int(v, lo, hi, bits, signed, saturate):
    if math.isnan(v):
        return 0
    if math.isinf(v):
        return (hi if v > 0 else lo) if saturate else 0
    t = int(v)  # truncation toward zero, exact for a double
    return min(max(t, lo), hi) if saturate else wrap(t, bits, signed)


for saturate in (True, False):
    cases.append(cast_case("f64", "i64", f64s,
                           [to_int(v, I64_MIN, I64_MAX, 64, True, saturate) for v in f64s],
                           saturate))
    cases.append(cast_case("f64", "u64", f64s,
                           [to_int(v, 0, U64_MAX, 64, False, saturate) for v in f64s], saturate))

# sqrt, correctly rounded (math.sqrt is IEEE)
roots = [2.0, 3.0, 0.1, 1e-300, 5e-324, 1e300, 1.7976931348623157e308, 0.9999999999999999,
         1.0000000000000002, 123456789.0, 2.0 ** -1074 * 3, 6.25]
cases.append(case("sqrt", [tensor("f64", roots)], tensor("f64", [math.sqrt(v) for v in roots]),
                  ulp=0))

with open(OUT, "w") as f:
    json.dump({"format": "openinfer.cpu_kernel_cases", "cases": cases}, f, indent=0)
    f.write("\n")
print(f"{len(cases)} cases -> {OUT}")
