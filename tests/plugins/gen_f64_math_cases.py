#!/usr/bin/python3
"""Writes cases/f64_math.json: hard f64 arguments for sin, cos, erf, gelu (both forms) and pow
(normal and in place), held to ops-nn.md's 4 ulp like every backend's elementwise math.

Arguments: sin/cos from subnormals to the largest double (1e5, 1e15, 1e22, 2^1000, ...), the
doubles nearest to k pi/2 and their neighbours; erf from subnormals through the tails (|x| > 6,
infinities); gelu through its underflow towards -37 and overflow of the tanh form's x^3; pow's
C99 special cases (signed zeros, infinities, NaN, negative bases with integer and non-integer
exponents, pow(x, 0) and pow(1, y)) crossed as a table, plus overflow, underflow into
subnormals and exponents near 1 for large y.

Expected values: mpmath at 300 bits rounded once to double here (subnormals included), the
special values from C99 Annex F's rules written out; gelu as ops-nn.md's CPU formula
a/2 * erfc(-a/sqrt 2) (erfc exact, then the same double roundings), the tanh form as
a / (1 + e^(-2u)), u = sqrt(2/pi) (a + 0.044715 a^3). Nothing here runs OpenInfer code; each
expectation is also checked against Python's math (the C library the CPU backend uses) so that
no case asks the CPU for more than libm gives.
Run: /usr/bin/python3 tests/plugins/gen_f64_math_cases.py  (writes cases/f64_math.json)
--out DIR writes it in DIR instead."""
import json
import math
import struct

import mpmath
import numpy as np

from case_output import output_path

OUT = output_path("f64_math.json")

mpmath.mp.prec = 300
rng = np.random.default_rng(20261123)
cases = []
ULP = 4  # ops-nn.md: f64 elementwise math within 4 ulp


def bits(x):
    return struct.unpack("<Q", struct.pack("<d", x))[0]


def ulp_distance(a, b):
    def key(x):
        u = bits(x)
        return -(u & ~(1 << 63)) if u >> 63 else u
    return abs(key(a) - key(b))


def round_double(v):
    """An mpmath value rounded once to the nearest double (ties to even), subnormals and
    overflow included."""
    v = mpmath.mpf(v)
    if v == 0:
        return 0.0
    neg = v < 0
    man, exp = abs(v).man_exp  # |v| = man 2^exp exactly
    if exp + man.bit_length() < -1076:  # below 2^-1076: rounds to 0
        return -0.0 if neg else 0.0
    if exp + man.bit_length() > 1025:
        return -math.inf if neg else math.inf
    shift = max(man.bit_length() - 53, -1074 - exp)  # drop `shift` bits: 53 kept or 2^-1074 units
    if shift > 0:
        q, rest = man >> shift, man & ((1 << shift) - 1)
        half = 1 << (shift - 1)
        if rest > half or (rest == half and q & 1):
            q += 1
    else:
        q = man << -shift
    r = math.ldexp(q, exp + shift) if exp + shift + q.bit_length() <= 1024 else math.inf
    return -r if neg else r


def hexf64(values):
    return np.asarray(values, dtype=np.float64).tobytes().hex()


def tensor(values):
    return {"dtype": "f64", "dims": [len(values)], "hex": hexf64(values)}


def add_case(op, mode, inputs, expected, settings=()):
    case = {"op": op, "mode": mode, "inputs": [tensor(v) for v in inputs],
            "output": tensor(expected), "settings": list(settings), "ulp": ULP}
    if mode == "inplace":
        case["inplace_input"] = 0
    cases.append(case)


def check_libm(op, args, expected, libm):
    """Each expectation within 1 ulp of the C library's result (the CPU backend's)."""
    for a, w in zip(args, expected):
        got = libm(*a)
        ok = (math.isnan(got) and math.isnan(w)) or (not math.isnan(w) and (
            got == w if math.isinf(w) or w == 0 else ulp_distance(got, w) <= 1))
        assert ok, f"{op}{a}: expected {w!r}, libm gives {got!r}"


def mp(x):
    return mpmath.mpf(x)


# --- sin, cos -------------------------------------------------------------------------------
def trig_ref(fn, x):
    if not math.isfinite(x):
        return math.nan
    if x == 0:
        return x if fn is mpmath.sin else 1.0
    return round_double(fn(mp(x)))


trig_args = [0.0, -0.0, 5e-324, -2.2e-310, 1e-300, -1e-20, 1e-8, 0.5, -0.7853981633974483,
             0.7853981633974484, 1.0, -2.0, 3.0, 10.0, 100.0, -1e5, 1e5 + 0.5, 123456.789,
             1e10, -1e15, 1e15 + 1, 1e22, 2.0 ** 52 + 1, 2.0 ** 60, 2.0 ** 100, -2.0 ** 500,
             2.0 ** 1000, 1.7976931348623157e308, -8.98846567431158e307, 3.0e200,
             math.inf, -math.inf, math.nan]
for k in [1, 2, 3, 4, 5, 7, 10, 100, 1000, 10 ** 6, 10 ** 9]:  # the doubles nearest k pi/2
    near = round_double(k * mpmath.pi / 2)
    trig_args += [near, math.nextafter(near, math.inf), math.nextafter(near, 0.0), -near]
# 10^u correctly rounded: numpy's 10.0 ** array would take AVX-512's pow on CPUs that have it and
# libm's on others, which differ in the last bit.
trig_args += [round_double(mpmath.power(10, mp(u))) * s
              for u, s in zip(rng.uniform(-5, 300, 24), rng.choice([-1.0, 1.0], 24))]
trig_args += list(rng.uniform(-20.0, 20.0, 20))

for name, fn, libm in [("sin", mpmath.sin, math.sin), ("cos", mpmath.cos, math.cos)]:
    want = [trig_ref(fn, x) for x in trig_args]
    check_libm(name, [(x,) for x in trig_args if math.isfinite(x)],
               [w for x, w in zip(trig_args, want) if math.isfinite(x)], libm)
    add_case(name, "normal", [trig_args], want)
    add_case(name, "inplace", [trig_args[::3]], want[::3])


# --- erf --------------------------------------------------------------------------------------
def erf_ref(x):
    if math.isnan(x) or x == 0:
        return x
    if math.isinf(x):
        return math.copysign(1.0, x)
    return round_double(mpmath.erf(mp(x)))


erf_args = [0.0, -0.0, 5e-324, -1.5e-320, 2.2250738585072014e-308, 1e-300, -1e-30, 1e-10,
            0.1, -0.5, 0.84375, 1.0, -1.25, 1.9999999999999998, 2.0, -2.0000000000000004,
            2.5, 3.0, -4.0, 5.5, 5.9, -5.95, 6.0, 6.5, -7.0, 10.0, 27.0, -1e10, 1e300,
            math.inf, -math.inf, math.nan]
erf_args += list(rng.uniform(-7.0, 7.0, 30))
erf_want = [erf_ref(x) for x in erf_args]
check_libm("erf", [(x,) for x in erf_args], erf_want, math.erf)
add_case("erf", "normal", [erf_args], erf_want)
add_case("erf", "inplace", [erf_args[1::2]], erf_want[1::2])


# --- gelu -------------------------------------------------------------------------------------
def gelu_ref(a):
    if math.isnan(a):
        return a
    if math.isinf(a):
        return a if a > 0 else math.nan  # inf * 2; -inf * 0
    t = -a * 0.7071067811865476
    # beyond |t| = 30 erfc rounds to 0 or 2 (and mpmath's series check overflows)
    e = 0.0 if t > 30 else 2.0 if t < -30 else round_double(mpmath.erfc(mp(t)))
    return a * 0.5 * e


def gelu_libm(a):
    return a * 0.5 * math.erfc(-a * 0.7071067811865476)


def gelu_tanh_ref(a):
    if math.isnan(a):
        return a
    u = 0.7978845608028654 * (a + 0.044715 * a * a * a)
    if math.isinf(u):
        return a if u > 0 else math.nan if math.isinf(a) else math.copysign(0.0, a)
    e = round_double(mpmath.exp(mp(-2.0 * u)))
    return a / (1.0 + e) if math.isfinite(e) else math.copysign(0.0, a)


def gelu_tanh_libm(a):
    u = 0.7978845608028654 * (a + 0.044715 * a * a * a)
    try:
        e = math.exp(-2.0 * u)
    except OverflowError:
        e = math.inf
    if math.isinf(a):
        return a / (1.0 + e) if a > 0 else math.nan
    return a / (1.0 + e)


# gelu's erfc(-a/sqrt 2) stays normal above a = -37.5: below, libm's erfc rounds into
# subnormals where a one-unit difference becomes dozens of ulp once multiplied by a/2.
gelu_args = [0.0, -0.0, 5e-324, -5e-324, 1e-310, -1e-300, 1e-8, -0.5, 0.5, 1.0, -1.0, 2.0,
             -3.0, 5.0, -6.0, 8.0, -10.0, -20.0, -26.5, -30.0, -35.0, -37.0, 40.0, 1e5, 1e300,
             -1e300, math.inf, -math.inf, math.nan]
gelu_args += list(rng.uniform(-12.0, 8.0, 30))
gelu_want = [gelu_ref(a) for a in gelu_args]
check_libm("gelu", [(a,) for a in gelu_args], gelu_want, gelu_libm)
add_case("gelu", "normal", [gelu_args], gelu_want)
add_case("gelu", "inplace", [gelu_args[::2]], gelu_want[::2])
st = [{"name": "approximate", "type": "string", "value": "tanh"}]
tanh_args = gelu_args + [-21.14947473821837, -21.2, -25.0, 1e102, -1e102, 1e200, -1e200]
tanh_want = [gelu_tanh_ref(a) for a in tanh_args]
check_libm("gelu tanh", [(a,) for a in tanh_args], tanh_want, gelu_tanh_libm)
add_case("gelu", "normal", [tanh_args], tanh_want, st)
add_case("gelu", "inplace", [tanh_args[1::2]], tanh_want[1::2], st)


# --- pow --------------------------------------------------------------------------------------
def odd_integer(y):
    return math.isfinite(y) and y == math.floor(y) and abs(y) < 2.0 ** 53 and int(y) % 2 == 1


def pow_ref(x, y):
    """C99 Annex F pow, then the exact value rounded once."""
    if y == 0 or x == 1.0:
        return 1.0
    if math.isnan(x) or math.isnan(y):
        return math.nan
    if math.isinf(y):
        if abs(x) == 1.0:
            return 1.0
        return math.inf if (abs(x) > 1.0) == (y > 0) else 0.0
    neg = math.copysign(1.0, x) < 0 and odd_integer(y)
    if x == 0:
        r = math.inf if y < 0 else 0.0
    elif math.isinf(x):
        r = 0.0 if y < 0 else math.inf
    elif x < 0 and y != math.floor(y):
        return math.nan
    else:
        r = round_double(mpmath.power(mp(abs(x)), mp(y)))
    return -r if neg else r


def pow_libm(x, y):
    try:
        return math.pow(x, y)
    except OverflowError:
        return -math.inf if x < 0 and odd_integer(y) else math.inf
    except ValueError:  # pow(0, negative): a divide-by-zero error in Python
        if x == 0 and y < 0:
            return math.copysign(math.inf, x) if odd_integer(y) else math.inf
        return math.nan


special = [0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.0, -3.0, 5e-324, math.inf, -math.inf, math.nan]
exponents = [0.0, -0.0, 1.0, -1.0, 2.0, 3.0, -3.0, 0.5, -0.5, 1e300, -1e300, math.inf,
             -math.inf, math.nan]
pow_pairs = [(x, y) for x in special for y in exponents]
pow_pairs += [(2.0, 1023.0), (2.0, 1024.0), (2.0, -1022.0), (2.0, -1074.0), (2.0, -1075.0),
              (2.0, -1076.0), (0.5, 1074.5), (10.0, 308.0), (10.0, 309.0), (10.0, -310.0),
              (10.0, -5.0), (10.0, 22.0), (-2.0, 1023.0), (-2.0, 1024.0), (-2.0, -1075.0),
              (-8.0, 1.0 / 3.0), (-1.0, 1e300), (-1.0, 3.0), (-1e-310, 3.0), (1e-310, 0.5),
              (2.2250738585072014e-308, 1.0), (1.0000000000000002, 1e16), (0.9999999999999999,
              -1e17), (1.0000000000000002, 5e17), (7.0, 364.0), (3.0, -677.5), (1e5, 61.5),
              (0.1, 0.1), (1e-300, 1.03), (1e300, -1.02), (-7.0, 11.0), (-7.0, -11.0)]
for _ in range(30):  # results across the whole range
    x = 10.0 ** rng.uniform(-30, 30)
    ymax = 700.0 / max(abs(math.log(x)), 1e-3)
    pow_pairs.append((x if rng.random() < 0.8 else -x, float(rng.integers(-60, 60)))
                     if rng.random() < 0.2 else (x, rng.uniform(-ymax, ymax)))
pow_a = [p[0] for p in pow_pairs]
pow_b = [p[1] for p in pow_pairs]
pow_want = [pow_ref(x, y) for x, y in pow_pairs]
check_libm("pow", pow_pairs, pow_want, pow_libm)
add_case("pow", "normal", [pow_a, pow_b], pow_want)
add_case("pow", "inplace", [pow_a[1::2], pow_b[1::2]], pow_want[1::2])

with open(OUT, "w") as f:
    f.write('{"format": "openinfer.cpu_kernel_cases", "cases": [\n')
    f.write(",\n".join(json.dumps(c, separators=(",", ":")) for c in cases))
    f.write("\n]}\n")
print(f"wrote {len(cases)} cases")
