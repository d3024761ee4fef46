#!/usr/bin/python3
"""Writes cpu_kernel_cases.json: inputs and independently computed expected outputs for every
(op, dtypes, mode) kernel of the CPU plugin. Floats use numpy's IEEE arithmetic; integer results
are computed with Python's unbounded ints and then wrapped, so nothing here runs OpenInfer code.

Run: /usr/bin/python3 tests/plugins/gen_cpu_kernel_cases.py  (writes next to this script)"""
import json
import math
import os

import numpy as np

rng = np.random.default_rng(20240611)
NP = {"f32": np.float32, "f64": np.float64, "i8": np.int8, "i16": np.int16, "i32": np.int32,
      "i64": np.int64, "u8": np.uint8, "u16": np.uint16, "u32": np.uint32, "u64": np.uint64,
      "bool": np.bool_}
FLOATS = ["f32", "f64"]
SIGNED = ["i8", "i16", "i32", "i64"]
UNSIGNED = ["u8", "u16", "u32", "u64"]
INTS = SIGNED + UNSIGNED
ALL = FLOATS + INTS + ["bool"]
ACC = [("i8", "i16"), ("i8", "i32"), ("i8", "i64"), ("i16", "i32"), ("i16", "i64"),
       ("i32", "i64"), ("u8", "u16"), ("u8", "u32"), ("u8", "u64"), ("u16", "u32"),
       ("u16", "u64"), ("u32", "u64")]
cases = []


def bits(t):
    return np.dtype(NP[t]).itemsize * 8


def wrap(v, t):
    """Python int -> the value of dtype t it wraps to (two's complement)."""
    w = bits(t)
    v %= 1 << w
    if t in SIGNED and v >= 1 << (w - 1):
        v -= 1 << w
    return v


def imin(t):
    return -(1 << (bits(t) - 1)) if t in SIGNED else 0


def imax(t):
    return (1 << (bits(t) - 1)) - 1 if t in SIGNED else (1 << bits(t)) - 1


def tensor(t, arr):
    arr = np.asarray(arr, dtype=NP[t])
    return {"dtype": t, "dims": list(arr.shape), "hex": arr.tobytes().hex()}


def random_values(t, shape, small=False):
    n = int(np.prod(shape))
    if t in FLOATS:
        v = (rng.standard_normal(n) * 10).astype(NP[t])
        if not small and n >= 8:
            v[:6] = [np.inf, -np.inf, np.nan, -0.0, 0.0, np.finfo(NP[t]).smallest_subnormal]
            rng.shuffle(v)
        return v.reshape(shape)
    if t == "bool":
        return rng.integers(0, 2, n).astype(np.bool_).reshape(shape)
    lo, hi = (imin(t), imax(t)) if not small else (max(imin(t), -9), min(imax(t), 9))
    vals = [int(x) for x in rng.integers(lo, hi, n, endpoint=True, dtype=np.int64 if t != "u64" else np.uint64)]
    return np.array(vals, dtype=NP[t]).reshape(shape)


def add_case(op, mode, inputs, output, settings=(), tolerance=None, inplace_input=None):
    case = {"op": op, "mode": mode, "inputs": inputs, "output": output,
            "settings": list(settings)}
    if tolerance:
        case["tolerance"] = tolerance
    if inplace_input is not None:
        case["inplace_input"] = inplace_input
    cases.append(case)


def elementwise_int(fn, a, b, t_out):
    a_b, b_b = np.broadcast_arrays(a, b)
    out = [wrap(fn(int(x), int(y)), t_out) for x, y in zip(a_b.ravel(), b_b.ravel())]
    return np.array(out, dtype=NP[t_out]).reshape(a_b.shape)


def binary_reference(op, t_in, t_out, a, b, mask=None):
    if t_in in FLOATS:
        with np.errstate(all="ignore"):
            f = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.divide}[op]
            r = f(a, b)
            if mask is not None:
                r = np.where(np.broadcast_to(b, r.shape) == 0, NP[t_in](mask), r)
            return r.astype(NP[t_out])
    if t_in == "bool":
        return (a | b) if op == "add" else (a & b)

    def div(x, y):
        if y == 0:
            return mask if mask is not None else 0
        q = abs(x) // abs(y)
        return q if (x < 0) == (y < 0) else -q
    fn = {"add": lambda x, y: x + y, "sub": lambda x, y: x - y, "mul": lambda x, y: x * y,
          "div": div}[op]
    return elementwise_int(fn, a, b, t_out)


def divisor_values(t, shape):
    b = random_values(t, shape, small=(t not in FLOATS))
    flat = b.reshape(-1)
    flat[0] = 0
    if t in SIGNED:
        flat[1] = -1
    return b


# --- add, sub, mul, div ---------------------------------------------------------------
for op in ["add", "sub", "mul", "div"]:
    types = ALL if op in ("add", "mul") else FLOATS + INTS
    for t in types:
        shapes = [((2, 3, 9), (9,)), ((2, 1, 9), (3, 1))]
        for sa, sb in shapes:
            a = random_values(t, sa)
            b = divisor_values(t, sb) if op == "div" else random_values(t, sb)
            if op == "div" and t in SIGNED:
                a.reshape(-1)[1] = imin(t)  # INT_MIN / -1 wraps
            out = binary_reference(op, t, t, a, b)
            add_case(op, "normal", [tensor(t, a), tensor(t, b)], tensor(t, out))
        a = random_values(t, (2, 9))
        b = divisor_values(t, (9,)) if op == "div" else random_values(t, (9,))
        add_case(op, "inplace", [tensor(t, a), tensor(t, b)],
                 tensor(t, binary_reference(op, t, t, a, b)), inplace_input=0)
    if op != "div":
        for ti, to in ACC:
            a, b = random_values(ti, (2, 5)), random_values(ti, (5,))
            out = binary_reference(op, to, to, a.astype(NP[to]), b.astype(NP[to]))
            add_case(op, "accumulate", [tensor(ti, a), tensor(ti, b)], tensor(to, out))

for t, mask in [("f32", -1.5), ("i32", 7)]:
    a, b = random_values(t, (2, 9)), divisor_values(t, (9,))
    setting = {"name": "div_by_zero_mask", "type": "float" if t in FLOATS else "int",
               "value": mask}
    add_case("div", "normal", [tensor(t, a), tensor(t, b)],
             tensor(t, binary_reference("div", t, t, a, b, mask)), [setting])


# --- relu -------------------------------------------------------------------------------
def relu_reference(t, a, alpha, lo, hi):
    if t in FLOATS:
        f = NP[t]
        with np.errstate(all="ignore"):
            y = np.where(a >= 0, a, f(alpha) * a).astype(f)
        y = np.where(y == 0, f(0.0), y)
        y = np.where(y < f(lo), f(lo), y)
        return np.where(y > f(hi), f(hi), y).astype(f)
    out = []
    for x in a.ravel():
        x = int(x)
        y = x if x >= 0 else wrap(int(alpha) * x, t)
        if lo != -math.inf and y < lo:
            y = int(lo)
        if hi != math.inf and y > hi:
            y = int(hi)
        out.append(y)
    return np.array(out, dtype=NP[t]).reshape(a.shape)


for t in FLOATS + SIGNED:
    a = random_values(t, (3, 7))
    add_case("relu", "normal", [tensor(t, a)], tensor(t, relu_reference(t, a, 0, -math.inf, math.inf)))
    if t in FLOATS:
        alpha, lo, hi, kind = 0.5, -4.5, 6.25, "float"
    else:
        alpha, lo, hi, kind = 2, -4, 6, "int"
    settings = [{"name": "alpha", "type": kind, "value": alpha},
                {"name": "clamp_min", "type": kind, "value": lo},
                {"name": "clamp_max", "type": kind, "value": hi}]
    a = random_values(t, (3, 7), small=(t not in FLOATS))
    add_case("relu", "inplace", [tensor(t, a)], tensor(t, relu_reference(t, a, alpha, lo, hi)),
             settings, inplace_input=0)

# --- fill -------------------------------------------------------------------------------
for t in ALL:
    for mode, value in [("normal", None), ("inplace", None)]:
        if t in FLOATS:
            value, kind = (0.1 if mode == "normal" else -2.5), "float"
            expected = NP[t](value)
        elif t == "bool":
            value, kind, expected = 1, "int", True
        else:
            value = (-3 if t in SIGNED else 7) if mode == "normal" else imax(t)
            kind, expected = "int", value
        x = random_values(t, (2, 5))
        add_case("fill", mode, [tensor(t, x)], tensor(t, np.full((2, 5), expected, dtype=NP[t])),
                 [{"name": "value", "type": kind, "value": value}],
                 inplace_input=0 if mode == "inplace" else None)


# --- matmul -----------------------------------------------------------------------------
def matmul_reference(t_in, t_out, a, b):
    batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    A = np.broadcast_to(a, batch + a.shape[-2:])
    B = np.broadcast_to(b, batch + b.shape[-2:])
    M, K, N = a.shape[-2], a.shape[-1], b.shape[-1]
    out = np.zeros(batch + (M, N), dtype=NP[t_out])
    for idx in np.ndindex(*batch):
        for i in range(M):
            for j in range(N):
                if t_out in FLOATS:
                    acc = NP[t_out](0)
                    for k in range(K):  # sequential, in the output's precision
                        acc = NP[t_out](acc + NP[t_out](A[idx + (i, k)]) * NP[t_out](B[idx + (k, j)]))
                elif t_out == "bool":
                    acc = any(bool(A[idx + (i, k)]) and bool(B[idx + (k, j)]) for k in range(K))
                else:
                    acc = wrap(sum(int(A[idx + (i, k)]) * int(B[idx + (k, j)]) for k in range(K)), t_out)
                out[idx + (i, j)] = acc
    return out


def matmul_values(t, shape):
    v = random_values(t, shape, small=True)
    return v


with np.errstate(all="ignore"):
    for t in ALL:
        tol = {"f32": [1e-6, 1e-5], "f64": [1e-12, 1e-12]}.get(t)
        a, b = matmul_values(t, (2, 3, 4)), matmul_values(t, (4, 5))
        add_case("matmul", "normal", [tensor(t, a), tensor(t, b)],
                 tensor(t, matmul_reference(t, t, a, b)), tolerance=tol)
        a, b = matmul_values(t, (2, 3, 3)), matmul_values(t, (3, 3))
        add_case("matmul", "inplace", [tensor(t, a), tensor(t, b)],
                 tensor(t, matmul_reference(t, t, a, b)), tolerance=tol, inplace_input=0)
    for ti, to in ACC:
        a, b = random_values(ti, (2, 3)), random_values(ti, (3, 2))
        add_case("matmul", "accumulate", [tensor(ti, a), tensor(ti, b)],
                 tensor(to, matmul_reference(ti, to, a, b)))

# --- is_finite --------------------------------------------------------------------------
for t in FLOATS:
    finite = (rng.standard_normal(6) * 100).astype(NP[t]).reshape(2, 3)
    add_case("is_finite", "normal", [tensor(t, finite)], tensor("bool", np.array(True)))
    for special in [np.inf, -np.inf, np.nan]:
        x = finite.copy()
        x[1, 2] = special
        add_case("is_finite", "normal", [tensor(t, x)], tensor("bool", np.array(False)))
    add_case("is_finite", "normal", [tensor(t, np.zeros((0, 3)))], tensor("bool", np.array(True)))


# --- cast -------------------------------------------------------------------------------
def round_mode(x, mode):
    return {"trunc": math.trunc, "floor": math.floor, "ceil": math.ceil,
            "nearest_even": round}[mode](x)


def int_to_float(v, t):
    """Correct rounding (nearest, ties to even) of a Python int to f32/f64."""
    p = 24 if t == "f32" else 53
    m = abs(v)
    if m.bit_length() > p:
        shift = m.bit_length() - p
        q, r = divmod(m, 1 << shift)
        half = 1 << (shift - 1)
        if r > half or (r == half and q & 1):
            q += 1
        m = q << shift
    return NP[t](float(-m if v < 0 else m))


def cast_value(x, src, dst, mode="trunc", saturate=True):
    if dst == "bool":
        return bool(x != 0) if src != "bool" else bool(x)
    if src == "bool":
        return NP[dst](1 if x else 0)
    if dst in FLOATS:
        if src in FLOATS:
            with np.errstate(all="ignore"):
                return NP[src](x).astype(NP[dst])
        return int_to_float(int(x), dst)
    if src in FLOATS:
        x = float(x)
        if math.isnan(x):
            return 0
        if math.isinf(x):
            if not saturate:
                return 0
            return imax(dst) if x > 0 else imin(dst)
        r = round_mode(x, mode)
    else:
        r = int(x)
    if saturate:
        return min(max(r, imin(dst)), imax(dst))
    return wrap(r, dst)


def cast_inputs(src):
    if src in FLOATS:
        v = [0.0, -0.0, 1.5, -1.5, 2.5, -2.5, 0.49999997, 1e-40, 127.5, -128.5, 255.5, 300.7,
             -300.7, 65535.5, 1e10, -1e10, 4294967296.0, 3e38, -3e38, np.nan, np.inf, -np.inf]
        if src == "f64":
            v += [1e300, -1e300, 9.3e18, -9.3e18, 2.0 ** 63, 2.0 ** 64 + 4096.0, 1e-310]
        return np.array(v, dtype=NP[src])
    if src == "bool":
        return np.array([False, True, True, False], dtype=np.bool_)
    v = [imin(src), imax(src), 0, 1, -1 if src in SIGNED else 2, 127, 128, 255, 256, 65535, 65536]
    v = [wrap(x, src) for x in v] + [int(x) for x in random_values(src, (6,)).ravel()]
    if src in ("i64", "u64"):
        v += [wrap((1 << 53) + 1, src), wrap((1 << 62) + (1 << 38) + 1, src), wrap((1 << 24) + 1, src)]
    return np.array(v, dtype=NP[src])


def cast_case(src, dst, mode=None, saturate=None):
    x = cast_inputs(src)
    kw, settings = {}, [{"name": "to", "type": "dtype", "value": dst}]
    if mode is not None:
        kw["mode"] = mode
        settings.append({"name": "rounding_mode", "type": "string", "value": mode})
    if saturate is not None:
        kw["saturate"] = saturate
        settings.append({"name": "saturate", "type": "bool", "value": saturate})
    out = np.array([cast_value(v, src, dst, **kw) for v in x], dtype=NP[dst])
    add_case("cast", "normal", [tensor(src, x)], tensor(dst, out), settings)


for src in ALL:
    for dst in ALL:
        cast_case(src, dst)
for src, dst in [("f32", "i32"), ("f64", "i8"), ("f64", "u64"), ("f32", "u8"), ("i64", "i8"),
                 ("u64", "i32"), ("i32", "u16")]:
    cast_case(src, dst, saturate=False)
for mode in ["trunc", "floor", "ceil", "nearest_even"]:
    for saturate in [True, False]:
        cast_case("f64", "i16", mode, saturate)
        cast_case("f32", "i64", mode, saturate)

here = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(here, "cpu_kernel_cases.json"), "w") as f:
    json.dump({"format": "openinfer.cpu_kernel_cases", "cases": cases}, f, indent=0)
print(len(cases), "cases")
