"""Exact float formats for the kernel-case generators: values rounded once to f8 (E5M2), bf16,
f16, f32 or f64 (nearest, ties to even, overflow to inf) and their bit patterns, computed with
Python fractions as oinf.md and ops.md define them. Shared by every gen_*_cases.py here; nothing
in it runs OpenInfer code."""
import math
from fractions import Fraction

FMT = {"f8": (5, 2), "bf16": (8, 7), "f16": (5, 10), "f32": (8, 23), "f64": (11, 52)}
NARROW = ["f8", "bf16", "f16"]
FLOATS = NARROW + ["f32", "f64"]


def floor_log2(a):
    e = a.numerator.bit_length() - a.denominator.bit_length()
    while Fraction(2) ** e > a:
        e -= 1
    while Fraction(2) ** (e + 1) <= a:
        e += 1
    return e


def round_to(t, x):
    """x (float, int or Fraction) rounded once to float dtype t: nearest, ties to even,
    overflow to inf; returned as a Python float (exact: every such value fits in f64)."""
    if isinstance(x, float) and (math.isnan(x) or math.isinf(x)):
        return x
    E, M = FMT[t]
    a = Fraction(x)
    negative = a < 0 or (a == 0 and isinstance(x, float) and math.copysign(1, x) < 0)
    a = abs(a)
    if a == 0:
        return -0.0 if negative else 0.0
    bias = (1 << (E - 1)) - 1
    exp = max(floor_log2(a), 1 - bias)
    quantum = Fraction(2) ** (exp - M)
    r = round(a / quantum) * quantum  # Fraction.__round__ ties to even
    if r > (2 - Fraction(2) ** -M) * Fraction(2) ** bias:
        r = math.inf
    r = float(r)
    return -r if negative else r


def float_bits(t, x):
    E, M = FMT[t]
    sign = 1 if math.copysign(1.0, x) < 0 else 0
    if math.isnan(x):
        return ((1 << E) - 1) << M | 1 << (M - 1)
    top = sign << (E + M)
    if math.isinf(x):
        return top | ((1 << E) - 1) << M
    a = Fraction(abs(x))
    if a == 0:
        return top
    bias = (1 << (E - 1)) - 1
    exp = floor_log2(a)
    if exp < 1 - bias:
        return top | int(a / Fraction(2) ** (1 - bias - M))
    return top | (exp + bias) << M | int(a / Fraction(2) ** (exp - M)) - (1 << M)
