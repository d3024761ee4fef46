#!/usr/bin/python3
"""Writes cpu_kernel_cases.json: inputs and independently computed expected outputs for every
(op, dtypes, mode) kernel of the CPU plugin. Floats use numpy's IEEE f32/f64 arithmetic and, for
f8 (E5M2), bf16 and f16, an exact rounding (nearest, ties to even) of the f32 result written
from oinf.md/ops.md with Python fractions; integer results use Python's unbounded ints, wrapped
at the dtype's width. Nothing here runs OpenInfer code.

Run: /usr/bin/python3 tests/plugins/gen_cpu_kernel_cases.py  (writes next to this script)
--out DIR writes it in DIR instead."""
import json
import math
import os
from fractions import Fraction

import numpy as np

from exact_floats import FLOATS, FMT, NARROW, float_bits, floor_log2, round_to  # noqa: E402,F401
from case_output import output_path

OUT = output_path("cpu_kernel_cases.json", os.path.dirname(os.path.abspath(__file__)))

rng = np.random.default_rng(20240611)
PACKED_S, PACKED_U = ["i1", "i2", "i4"], ["u1", "u2", "u4"]
WIDE_S, WIDE_U = ["i8", "i16", "i32", "i64"], ["u8", "u16", "u32", "u64"]
SIGNED, UNSIGNED = PACKED_S + WIDE_S, PACKED_U + WIDE_U
INTS = SIGNED + UNSIGNED
BITS = {"i1": 1, "i2": 2, "i4": 4, "u1": 1, "u2": 2, "u4": 4, "i8": 8, "u8": 8, "i16": 16,
        "u16": 16, "i32": 32, "u32": 32, "i64": 64, "u64": 64, "bitset": 8, "bool": 8}
ACC = [(a, b) for a in PACKED_S for b in WIDE_S] + [(a, b) for a in PACKED_U for b in WIDE_U] + \
    [("i8", "i16"), ("i8", "i32"), ("i8", "i64"), ("i16", "i32"), ("i16", "i64"), ("i32", "i64"),
     ("u8", "u16"), ("u8", "u32"), ("u8", "u64"), ("u16", "u32"), ("u16", "u64"), ("u32", "u64")]
cases = []


# --- integers ----------------------------------------------------------------------------
def imin(t):
    return -(1 << (BITS[t] - 1)) if t in SIGNED else 0


def imax(t):
    return (1 << (BITS[t] - 1)) - 1 if t in SIGNED else (1 << BITS[t]) - 1


def wrap(v, t):
    w = BITS[t]
    v %= 1 << w
    if t in SIGNED and v >= 1 << (w - 1):
        v -= 1 << w
    return v


# --- tensors: floats as float64 arrays of exact values, ints as object arrays ---------------
def tensor(t, arr):
    arr = np.asarray(arr)
    dims = list(arr.shape)
    flat = arr.reshape(-1)
    if t in ("f32", "f64"):
        data = flat.astype(np.float32 if t == "f32" else np.float64).tobytes()
    elif t in NARROW:
        nb = 1 if t == "f8" else 2
        data = b"".join(float_bits(t, float(x)).to_bytes(nb, "little") for x in flat)
    elif t == "bool":
        data = bytes(1 if x else 0 for x in flat)
    elif BITS[t] < 8:
        w = BITS[t]
        per = 8 // w
        out = bytearray((len(flat) + per - 1) // per)
        for i, x in enumerate(flat):
            out[i // per] |= (int(x) % (1 << w)) << ((i % per) * w)
        data = bytes(out)
    else:
        nb = BITS[t] // 8
        data = b"".join((int(x) % (1 << BITS[t])).to_bytes(nb, "little") for x in flat)
    return {"dtype": t, "dims": dims, "hex": data.hex()}


def values(t, shape, small=False, specials=True):
    n = int(np.prod(shape))
    if t in FLOATS:
        v = [round_to(t, float(x)) for x in rng.standard_normal(n) * (3 if small else 10)]
        if specials and n >= 8:
            tiny = float(Fraction(2) ** (2 - (1 << (FMT[t][0] - 1)) - FMT[t][1]))
            sp = [math.inf, -math.inf, math.nan, -0.0, 0.0, tiny]
            for k, i in enumerate(rng.permutation(n)[:len(sp)]):
                v[i] = sp[k]
        return np.array(v, dtype=np.float64).reshape(shape)
    if t == "bool":
        return rng.integers(0, 2, n).astype(bool).reshape(shape)
    lo, hi = (imin(t), imax(t)) if not small else (max(imin(t), -5), min(imax(t), 5))
    v = [lo + int(x) % (hi - lo + 1) for x in rng.integers(0, 1 << 62, n)]
    if not small and n >= 4:
        v[0], v[1] = imin(t), imax(t)
        rng.shuffle(v)
    return np.array(v, dtype=object).reshape(shape)


def add_case(op, mode, inputs, output, settings=(), inplace_input=None):
    case = {"op": op, "mode": mode, "inputs": inputs, "output": output,
            "settings": list(settings)}
    if inplace_input is not None:
        case["inplace_input"] = inplace_input
    cases.append(case)


def fsetting(name, v):
    # JSON has no infinity: +-inf travel as the strings "inf" and "-inf".
    return {"name": name, "type": "float", "value": v if math.isfinite(v) else str(v)}


def isetting(name, v):
    return {"name": name, "type": "int", "value": v}


def compute_type(t):
    return np.float64 if t == "f64" else np.float32


def float_map(t_in, t_out, fn, *arrs):
    """fn on the inputs in the compute precision of t_in, each result rounded once to t_out."""
    ct = compute_type(t_in)
    b = np.broadcast_arrays(*[np.asarray(a) for a in arrs])
    out = []
    with np.errstate(all="ignore"):
        for xs in zip(*[x.reshape(-1) for x in b]):
            r = fn(*[ct(x) for x in xs])
            out.append(round_to(t_out, float(r)) if t_out in FLOATS else r)
    return np.array(out, dtype=np.float64 if t_out in FLOATS else object).reshape(b[0].shape)


def int_map(fn, *arrs):
    b = np.broadcast_arrays(*[np.asarray(a, dtype=object) for a in arrs])
    out = [fn(*[int(x) for x in xs]) for xs in zip(*[x.reshape(-1) for x in b])]
    return np.array(out, dtype=object).reshape(b[0].shape)


# --- elementwise ops: (float fn, int fn(a, ..., t)) ------------------------------------------
def tdiv(a, b):
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


def fmin(a, b):
    if math.isnan(a) or math.isnan(b):
        return a if math.isnan(a) else b
    if a == b:
        return a if math.copysign(1, a) < 0 else b
    return min(a, b)


def fmax(a, b):
    if math.isnan(a) or math.isnan(b):
        return a if math.isnan(a) else b
    if a == b:
        return b if math.copysign(1, a) < 0 else a
    return max(a, b)


def exact_fma(t, a, b, c):
    ct = compute_type(t)
    a, b, c = float(a), float(b), float(c)
    if not all(math.isfinite(x) for x in (a, b, c)):
        with np.errstate(all="ignore"):
            return np.float64(a) * np.float64(b) + np.float64(c)
    r = Fraction(a) * Fraction(b) + Fraction(c)
    if r == 0:
        p_neg = (math.copysign(1, a) < 0) != (math.copysign(1, b) < 0)
        both_neg = (a * b == 0) and p_neg and math.copysign(1, c) < 0
        return -0.0 if both_neg else 0.0
    return round_to("f64" if ct is np.float64 else "f32", r)


def rne(x):
    return float(np.round(x))  # numpy rounds half to even


OPS = {
    "add": (lambda a, b: a + b, lambda a, b, t: a + b),
    "sub": (lambda a, b: a - b, lambda a, b, t: a - b),
    "mul": (lambda a, b: a * b, lambda a, b, t: a * b),
    "div": (lambda a, b: a / b, lambda a, b, t: 0 if b == 0 else tdiv(a, b)),
    "floor_div": (None, lambda a, b, t: 0 if b == 0 else a // b),
    "rem": (None, lambda a, b, t: 0 if b == 0 else a - tdiv(a, b) * b),
    "min": (fmin, lambda a, b, t: min(a, b)),
    "max": (fmax, lambda a, b, t: max(a, b)),
    "and": (None, lambda a, b, t: a & b), "or": (None, lambda a, b, t: a | b),
    "xor": (None, lambda a, b, t: a ^ b),
    "eq": (lambda a, b: a == b, lambda a, b, t: a == b),
    "ne": (lambda a, b: a != b, lambda a, b, t: a != b),
    "lt": (lambda a, b: a < b, lambda a, b, t: a < b),
    "le": (lambda a, b: a <= b, lambda a, b, t: a <= b),
    "gt": (lambda a, b: a > b, lambda a, b, t: a > b),
    "ge": (lambda a, b: a >= b, lambda a, b, t: a >= b),
    "neg": (lambda a: -a, lambda a, t: -a),
    "abs": (lambda a: abs(a), lambda a, t: abs(a)),
    "sign": (lambda a: 1 if a > 0 else (-1 if a < 0 else 0), lambda a, t: (a > 0) - (a < 0)),
    "recip": (lambda a: a.dtype.type(1) / a, None),
    "floor": (np.floor, None), "ceil": (np.ceil, None), "trunc": (np.trunc, None),
    "round": (np.round, None),
    "not": (None, lambda a, t: ~a),
    "popcount": (None, lambda a, t: bin(a % (1 << BITS[t])).count("1")),
    "is_nan": (lambda a: bool(np.isnan(a)), None), "is_inf": (lambda a: bool(np.isinf(a)), None),
    "is_neg": (lambda a: bool(a < 0), lambda a, t: a < 0),
}
CMP = ["eq", "ne", "lt", "le", "gt", "ge"]
BOOL_OUT = CMP + ["is_nan", "is_inf", "is_neg"]


def reference(op, t, out_t, *arrs, acc=None):
    ffn, ifn = OPS[op]
    if t in FLOATS:
        return float_map(t, out_t, ffn, *arrs)
    ct = acc or t
    if t == "bool":
        fn = {"add": lambda a, b: a or b, "mul": lambda a, b: a and b,
              "and": lambda a, b: a and b, "or": lambda a, b: a or b,
              "xor": lambda a, b: a != b, "not": lambda a: not a}.get(op) or \
            (lambda *xs: ifn(*xs, ct))
        return int_map(lambda *xs: bool(fn(*xs)), *arrs)
    if out_t == "bool":
        return int_map(lambda *xs: bool(ifn(*xs, ct)), *arrs)
    return int_map(lambda *xs: wrap(ifn(*xs, ct), out_t), *arrs)


def cat_types(op):
    return CATALOG[op]["dtypes"]


here = os.path.dirname(os.path.abspath(__file__))
CATALOG = json.load(open(os.path.join(here, "../../core/data/op_catalog.json")))["ops"]


def out_dtype(op, t):
    rule = CATALOG[op]["output_dtype"]
    return t if rule == "input0" else rule


def operands(op, t, shapes, small=False):
    arrs = [values(t, s, small=small) for s in shapes]
    if op in ("div", "floor_div", "rem") and t not in FLOATS:
        b = arrs[1].reshape(-1)
        b[0] = 0
        if t in SIGNED and len(b) > 1:
            b[1] = -1
            arrs[0].reshape(-1)[1 % arrs[0].size] = imin(t)  # INT_MIN / -1 wraps
    if op in CMP and len(arrs[0].reshape(-1)) >= 3:
        arrs[1].reshape(-1)[:2] = arrs[0].reshape(-1)[:2]  # equal pairs
    return arrs


BINARY = ["add", "sub", "mul", "div", "floor_div", "rem", "min", "max", "and", "or", "xor"] + CMP
UNARY = ["neg", "abs", "sign", "recip", "floor", "ceil", "trunc", "round", "not", "popcount",
         "is_nan", "is_inf", "is_neg"]

for op in BINARY:
    for t in cat_types(op):
        o = out_dtype(op, t)
        for sa, sb in [((2, 3, 5), (5,)), ((2, 1, 5), (3, 1)), ((3, 4), (3, 4))]:
            a, b = operands(op, t, [sa, sb])
            add_case(op, "normal", [tensor(t, a), tensor(t, b)],
                     tensor(o, reference(op, t, o, a, b)))
        if CATALOG[op]["inplace"]:
            a, b = operands(op, t, [(2, 9), (9,)])
            add_case(op, "inplace", [tensor(t, a), tensor(t, b)],
                     tensor(t, reference(op, t, t, a, b)), inplace_input=0)
    for ti, to in ACC if CATALOG[op].get("accumulate") else []:
        a, b = values(ti, (2, 5)), values(ti, (5,))
        add_case(op, "accumulate", [tensor(ti, a), tensor(ti, b)],
                 tensor(to, reference(op, to, to, a, b, acc=to)))

for op in UNARY:
    for t in cat_types(op):
        o = out_dtype(op, t)
        a = values(t, (4, 6))
        if op in ("round", "floor", "ceil", "trunc") and t != "f8":
            a.reshape(-1)[:8] = [0.5, -0.5, 1.5, 2.5, -2.5, 3.5, -1.25, 0.75]
        add_case(op, "normal", [tensor(t, a)], tensor(o, reference(op, t, o, a)))
        if CATALOG[op]["inplace"]:
            a = values(t, (3, 5))
            add_case(op, "inplace", [tensor(t, a)], tensor(t, reference(op, t, t, a)),
                     inplace_input=0)
    for ti, to in [p for p in ACC if p[0] in SIGNED] if op == "abs" else []:
        a = values(ti, (2, 4))
        add_case(op, "accumulate", [tensor(ti, a)], tensor(to, reference(op, to, to, a, acc=to)))

# Edge cases ops.md names: packed wrap-around, most-negative abs/neg, shifts at width.
add_case("add", "normal", [tensor("i4", np.array([7, -8, 3], dtype=object)),
                           tensor("i4", np.array([1, -1, 4], dtype=object))],
         tensor("i4", np.array([-8, 7, 7], dtype=object)))
add_case("add", "normal", [tensor("u2", np.array([3, 2], dtype=object)),
                           tensor("u2", np.array([1, 1], dtype=object))],
         tensor("u2", np.array([0, 3], dtype=object)))

def ints(v):
    return np.array(v, dtype=object)


for op, t, x, want in [("popcount", "i8", [-1, -128, 0], [8, 1, 0]),
                       ("popcount", "i4", [-1, -8, 7], [4, 1, 3]),
                       ("abs", "i4", [-8, -7, 7], [-8, 7, 7]), ("neg", "i8", [-128, 1], [-128, -1]),
                       ("not", "u2", [0, 3, 1], [3, 0, 2]), ("shr", "i4", [-8, 7], [-4, 3])]:
    o = out_dtype(op, t)
    st = [isetting("bits", 1)] if op == "shr" else []
    add_case(op, "normal", [tensor(t, ints(x))], tensor(o, ints(want)), st)
add_case("rem", "normal", [tensor("i8", ints([-7, 7, -7])), tensor("i8", ints([2, -2, 0]))],
         tensor("i8", ints([-1, 1, 0])))
add_case("floor_div", "normal",
         [tensor("i8", ints([-7, 7, -128])), tensor("i8", ints([2, -2, -1]))],
         tensor("i8", ints([-4, -4, -128])))
add_case("round", "normal", [tensor("f32", np.array([2.5, -0.5, 0.5, 3.5]))],
         tensor("f32", np.array([2.0, -0.0, 0.0, 4.0])))
add_case("min", "normal", [tensor("f16", np.array([-0.0, 0.0, math.nan])),
                           tensor("f16", np.array([0.0, -0.0, 1.0]))],
         tensor("f16", np.array([-0.0, -0.0, math.nan])))
add_case("max", "normal", [tensor("bf16", np.array([-0.0, 0.0, 1.0])),
                           tensor("bf16", np.array([0.0, -0.0, math.nan]))],
         tensor("bf16", np.array([0.0, 0.0, math.nan])))

# div_by_zero_mask for floats and integers, floor_div too; recip's mask.
for op, t, mask in [("div", "f32", -1.5), ("div", "f16", 2.0), ("div", "i32", 7), ("div", "u4", 9),
                    ("floor_div", "i8", -3), ("floor_div", "i4", 5)]:
    a, b = operands(op, t, [(2, 5), (5,)])
    if t in FLOATS:
        b.reshape(-1)[0] = 0.0
        ref = float_map(t, t, lambda x, y: (x.dtype.type(mask) if y == 0 else x / y), a, b)
    else:
        ref = reference(op, t, t, a, b)
        ref = np.where(np.broadcast_to(b, ref.shape) == 0, mask, ref)
    add_case(op, "normal", [tensor(t, a), tensor(t, b)], tensor(t, ref),
             [(fsetting if t in FLOATS else isetting)("div_by_zero_mask", mask)])
for t in FLOATS:
    a = values(t, (2, 6))
    a.reshape(-1)[0] = 0.0
    add_case("recip", "normal", [tensor(t, a)],
             tensor(t, float_map(t, t, lambda x: x.dtype.type(-4.0) if x == 0 else 1 / x, a)),
             [fsetting("div_by_zero_mask", -4.0)])

# fma: a single rounding in the compute precision, then once more to a narrow dtype.
for t in cat_types("fma"):
    for mode in ["normal", "inplace"]:
        a, b, c = values(t, (2, 5)), values(t, (5,)), values(t, (2, 5))
        ref = np.array([round_to(t, float(exact_fma(t, x, y, z))) for x, y, z in
                        zip(*[v.reshape(-1) for v in np.broadcast_arrays(a, b, c)])]).reshape(2, 5)
        add_case("fma", mode, [tensor(t, a), tensor(t, b), tensor(t, c)], tensor(t, ref),
                 inplace_input=0 if mode == "inplace" else None)

# shl/shr/clamp/relu with settings.
for t in cat_types("shl"):
    for op in ["shl", "shr"]:
        for mode, bits in [("normal", BITS[t] - 1), ("inplace", 1)]:
            a = values(t, (2, 6))
            if op == "shl":
                ref = int_map(lambda x: wrap(x << bits, t), a)
            else:  # Python >> on the value is arithmetic; unsigned values are non-negative
                ref = int_map(lambda x: x >> bits, a)
            add_case(op, mode, [tensor(t, a)], tensor(t, ref), [isetting("bits", bits)],
                     inplace_input=0 if mode == "inplace" else None)

for t in cat_types("clamp"):
    for mode in ["normal", "inplace"]:
        if t in FLOATS:
            lo, hi = (-0.0, 2.5) if mode == "normal" else (-3.0, math.inf)
            a = values(t, (3, 6))
            ref = float_map(t, t, lambda x: fmin(fmax(x, x.dtype.type(lo)), x.dtype.type(hi)), a)
            st = [fsetting("min", lo), fsetting("max", hi)]
        else:
            lo, hi = (imin(t) + 1, imax(t) - 1) if mode == "normal" else (0, imax(t) // 2)
            a = values(t, (3, 6))
            ref = int_map(lambda x: min(max(x, lo), hi), a)
            st = [isetting("min", lo), isetting("max", hi)]
            if mode == "inplace":
                st[0] = fsetting("min", -math.inf)
                ref = int_map(lambda x: min(x, hi), a)
        add_case("clamp", mode, [tensor(t, a)], tensor(t, ref), st,
                 inplace_input=0 if mode == "inplace" else None)


def relu_ref(t, a, alpha, lo, hi):
    if t in FLOATS:
        def f(x):
            ct = x.dtype.type
            y = x if x >= 0 else ct(alpha) * x
            y = ct(0) if y == 0 else y
            y = ct(lo) if y < ct(lo) else y
            return ct(hi) if y > ct(hi) else y
        return float_map(t, t, f, a)

    def g(x):
        y = x if x >= 0 else wrap(int(alpha) * x, t)
        y = max(y, lo) if lo != -math.inf else y
        return min(y, hi) if hi != math.inf else y
    return int_map(g, a)


for t in cat_types("relu"):
    a = values(t, (3, 7))
    add_case("relu", "normal", [tensor(t, a)], tensor(t, relu_ref(t, a, 0, -math.inf, math.inf)))
    if t in FLOATS:
        alpha, lo, hi, mk = 0.5, -4.5, 6.25, fsetting
    else:
        alpha, lo, hi, mk = (3, -6, 5, isetting) if t == "i4" else (2, -4, 6, isetting)
    a = values(t, (3, 7), small=(t not in FLOATS))
    add_case("relu", "inplace", [tensor(t, a)], tensor(t, relu_ref(t, a, alpha, lo, hi)),
             [mk("alpha", alpha), mk("clamp_min", lo), mk("clamp_max", hi)], inplace_input=0)

# filter: c of a's dtype or bool.
for t in cat_types("filter"):
    for ct in [t] if t == "bool" else [t, "bool"]:
        a, b, c = values(t, (2, 5)), values(t, (5,)), values(ct, (2, 1))
        c2 = values(ct, (2, 5))
        for cc in (c, c2):
            ab, bb, cb = np.broadcast_arrays(a, b, cc)
            ref = np.where(np.vectorize(lambda v: bool(v != 0) or v != v)(cb), ab, bb)
            add_case("filter", "normal", [tensor(t, a), tensor(t, b), tensor(ct, cc)],
                     tensor(t, ref))

# --- fill, is_finite ------------------------------------------------------------------------
for t in cat_types("fill"):
    for mode in ["normal", "inplace"]:
        if t in FLOATS:
            value = 0.1 if mode == "normal" else -2.5
            setting, expected = fsetting("value", value), round_to(t, value)
        elif t == "bool":
            setting, expected = isetting("value", 1), True
        else:
            value = (imin(t) if t in SIGNED else 1) if mode == "normal" else imax(t)
            setting, expected = isetting("value", value), value
        x = values(t, (3, 5))
        add_case("fill", mode, [tensor(t, x)],
                 tensor(t, np.full((3, 5), expected, dtype=object if t not in FLOATS else None)),
                 [setting], inplace_input=0 if mode == "inplace" else None)

for t in cat_types("is_finite"):
    finite = values(t, (2, 3), specials=False)
    add_case("is_finite", "normal", [tensor(t, finite)], tensor("bool", np.array(True)))
    for special in [math.inf, -math.inf, math.nan]:
        x = finite.copy()
        x[1, 2] = special
        add_case("is_finite", "normal", [tensor(t, x)], tensor("bool", np.array(False)))
    add_case("is_finite", "normal", [tensor(t, np.zeros((0, 3)))], tensor("bool", np.array(True)))


# --- matmul: sequential dot products in the compute precision, one rounding per element -----
def matmul_reference(t_in, t_out, a, b):
    batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    A = np.broadcast_to(a, batch + a.shape[-2:])
    B = np.broadcast_to(b, batch + b.shape[-2:])
    M, K, N = a.shape[-2], a.shape[-1], b.shape[-1]
    out = np.zeros(batch + (M, N), dtype=np.float64 if t_out in FLOATS else object)
    for idx in np.ndindex(*batch):
        for i in range(M):
            for j in range(N):
                if t_out in FLOATS:
                    ct = compute_type(t_out)
                    acc = ct(0)
                    for k in range(K):  # -ffp-contract=off: a rounded product, then the sum
                        acc = ct(acc + ct(A[idx + (i, k)]) * ct(B[idx + (k, j)]))
                    out[idx + (i, j)] = round_to(t_out, float(acc))
                elif t_out == "bool":
                    out[idx + (i, j)] = any(bool(A[idx + (i, k)]) and bool(B[idx + (k, j)])
                                            for k in range(K))
                else:
                    out[idx + (i, j)] = wrap(sum(int(A[idx + (i, k)]) * int(B[idx + (k, j)])
                                                 for k in range(K)), t_out)
    return out


# ops.md: sums may run in any order, so f32/f64 results are held to its bound, not to the bits
# of the sequential reference.
SUM_TOL = {"f32": [1e-6, 1e-5], "f64": [1e-12, 1e-12]}


def sum_tolerance(t):
    if t in SUM_TOL:
        cases[-1]["tolerance"] = SUM_TOL[t]


for t in cat_types("matmul"):
    with np.errstate(all="ignore"):
        a, b = values(t, (2, 3, 4), small=True), values(t, (4, 5), small=True)
        add_case("matmul", "normal", [tensor(t, a), tensor(t, b)],
                 tensor(t, matmul_reference(t, t, a, b)))
        sum_tolerance(t)
        a, b = values(t, (3, 1, 2, 3), small=True), values(t, (2, 3, 3), small=True)
        add_case("matmul", "normal", [tensor(t, a), tensor(t, b)],
                 tensor(t, matmul_reference(t, t, a, b)))
        sum_tolerance(t)
        a, b = values(t, (2, 3, 3), small=True), values(t, (3, 3), small=True)
        add_case("matmul", "inplace", [tensor(t, a), tensor(t, b)],
                 tensor(t, matmul_reference(t, t, a, b)), inplace_input=0)
        sum_tolerance(t)
# ops.md: a dot product starts at +0.0, as BLAS and numpy's matmul do, so one of only -0.0
# products is +0.0 (exact in any order: no tolerance). 16 x 16 x 16 reaches the CPU's sgemm.
for t in cat_types("matmul"):
    if t not in FLOATS:
        continue
    for m, k, n in [(2, 3, 2)] + ([(16, 16, 16)] if t in ("f32", "f64") else []):
        a, b = np.full((m, k), -0.0), np.ones((k, n))
        want = matmul_reference(t, t, a, b)
        ct = compute_type(t)
        assert np.array_equal(np.signbit(a.astype(ct) @ b.astype(ct)), np.signbit(want))
        add_case("matmul", "normal", [tensor(t, a), tensor(t, b)], tensor(t, want))
for ti, to in ACC:
    a, b = values(ti, (2, 3)), values(ti, (3, 2))
    add_case("matmul", "accumulate", [tensor(ti, a), tensor(ti, b)],
             tensor(to, matmul_reference(ti, to, a, b)))


# --- reductions: each output folds its inputs in row-major order ---------------------------
def reduce_reference(op, t, out_t, x, axes, keepdims, acc=None):
    rank = x.ndim
    axes = list(range(rank)) if axes is None else sorted(a % rank for a in axes)
    kept = [d for d in range(rank) if d not in axes]
    out_shape = tuple(1 if d in axes else x.shape[d] for d in range(rank)) if keepdims else \
        tuple(x.shape[d] for d in kept)
    count = int(np.prod([x.shape[d] for d in axes])) if axes else 1
    groups = {}
    for idx in np.ndindex(*x.shape):
        groups.setdefault(tuple(idx[d] for d in kept), []).append(x[idx])
    res = []
    for key in np.ndindex(*[x.shape[d] for d in kept]):
        vals = groups.get(key, [])
        if t in FLOATS:
            ct = compute_type(t)
            with np.errstate(all="ignore"):
                if op in ("sum_axis", "mean_axis", "prod_axis"):
                    # ops.md: a sum starts at -0.0, the identity of IEEE addition, so only -0.0
                    # terms give -0.0; an empty sum is +0.0 (numpy's np.add.reduce(x,
                    # initial=-0.0); its plain np.sum starts at +0.0, numpy gh-21213).
                    r = ct(1 if op == "prod_axis" else -0.0 if vals else 0)
                    for v in vals:
                        r = ct(r * ct(v)) if op == "prod_axis" else ct(r + ct(v))
                    if op == "mean_axis":
                        r = ct(r / ct(count))
                else:
                    r = vals[0]
                    for v in vals[1:]:
                        r = (fmax if op == "max_axis" else fmin)(r, v)
            res.append(round_to(out_t, float(r)))
        else:
            vals = [int(v) for v in vals]
            if op == "sum_axis":
                r = sum(vals)
            elif op == "prod_axis":
                r = math.prod(vals)
            elif op == "mean_axis":
                s = sum(vals) if acc is None else wrap(sum(vals), acc)
                r = 0 if not vals else (abs(s) // len(vals)) * (1 if s >= 0 else -1)
            else:
                r = (max if op == "max_axis" else min)(vals)
            res.append(wrap(r, out_t))
    return np.array(res, dtype=np.float64 if out_t in FLOATS else object).reshape(out_shape)


def axes_setting(axes):
    return [] if axes is None else [{"name": "axes", "type": "int_list", "value": axes}]


REDUCE = ["sum_axis", "prod_axis", "mean_axis", "max_axis", "min_axis"]
for op in REDUCE:
    for t in cat_types(op):
        small = op == "prod_axis" and t in FLOATS
        for shape, axes, keepdims in [((2, 3, 4), [1], False), ((2, 3, 4), [0, -1], True),
                                      ((3, 4), None, False), ((2, 3), [], False)]:
            x = values(t, shape, small=small)
            st = axes_setting(axes) + [{"name": "keepdims", "type": "bool", "value": keepdims}]
            add_case(op, "normal", [tensor(t, x)],
                     tensor(t, reduce_reference(op, t, t, x, axes, keepdims)), st)
            if op in ("sum_axis", "prod_axis", "mean_axis"):
                sum_tolerance(t)
        if op in ("sum_axis", "prod_axis", "mean_axis"):  # an empty axis: 0, 1, NaN or 0
            x = values(t, (2, 0, 3))
            add_case(op, "normal", [tensor(t, x)],
                     tensor(t, reduce_reference(op, t, t, x, [1], False)), axes_setting([1]))
    if CATALOG[op].get("accumulate"):
        for ti, to in ACC:
            x = values(ti, (3, 4), small=(op == "prod_axis"))
            add_case(op, "accumulate", [tensor(ti, x)],
                     tensor(to, reduce_reference(op, to, to, x, [0], False, acc=to)),
                     axes_setting([0]))


# Signed zeros (ops.md): a fold of only -0.0 terms is -0.0 (sum, mean; prod by the sign rule), one
# with a +0.0 term +0.0. Every summation order gives these bits, so the cases carry no tolerance;
# the long shapes reach the CPU backend's vectorised row and column paths. The sums are checked
# against numpy's own reduction started at -0.0.
def zero_fold_inputs(t):
    mixed = np.full((4, 6), -0.0)
    mixed[1, 5] = mixed[3, 0] = 0.0  # rows 0 and 2 only -0.0; columns 0 and 5 hold a +0.0
    yield np.full((2, 3, 4), -0.0), [[1], None, [0, -1]]
    yield mixed, [[1], [0], None]
    if t in ("f32", "f64"):
        yield np.full((3, 37), -0.0), [[1]]
        yield np.full((40, 5), -0.0), [[0]]
        yield np.full((600, 3), -0.0), [[0]]


for op in ("sum_axis", "mean_axis", "prod_axis"):
    for t in cat_types(op):
        if t not in FLOATS:
            continue
        for x, axes_list in zero_fold_inputs(t):
            for axes in axes_list:
                keepdims = axes is not None and len(axes) > 1
                want = reduce_reference(op, t, t, x, axes, keepdims)
                if op == "sum_axis":
                    ct = compute_type(t)
                    np_sum = np.add.reduce(x.astype(ct), axis=None if axes is None else tuple(axes),
                                           keepdims=keepdims, initial=-0.0)
                    assert np.array_equal(np.signbit(np_sum), np.signbit(want)), (t, axes)
                st = axes_setting(axes) + [{"name": "keepdims", "type": "bool", "value": keepdims}]
                add_case(op, "normal", [tensor(t, x)], tensor(t, want), st)


def arg_reference(op, t, x, axis, keepdims, first):
    xm = np.moveaxis(x, axis, -1)
    out = np.zeros(xm.shape[:-1], dtype=object)
    for idx in np.ndindex(*xm.shape[:-1]):
        row = [xm[idx + (k,)] for k in range(xm.shape[-1])]
        nan = [k for k, v in enumerate(row) if t in FLOATS and math.isnan(v)]
        if nan:
            out[idx] = nan[0]
            continue
        best = max(row) if op == "argmax_axis" else min(row)
        hits = [k for k, v in enumerate(row) if v == best]
        out[idx] = hits[0] if first else hits[-1]
    return np.expand_dims(out, axis) if keepdims else out


for op in ["argmax_axis", "argmin_axis"]:
    for t in cat_types(op):
        for shape, axis, keepdims, first in [((3, 5), 1, False, True), ((3, 5), 1, True, False),
                                             ((4, 2, 3), -3, False, True), ((6,), 0, False, False)]:
            x = values(t, shape, small=True, specials=False)
            if t in FLOATS and shape == (4, 2, 3):
                x[1, 0, 0] = x[3, 0, 0] = math.nan  # the first NaN wins
                x[0, 1, 1] = x[2, 1, 1] = 96.0 if op == "argmax_axis" else -96.0
                x[1, 1, 1] = -0.0
            st = [isetting("axis", axis), {"name": "keepdims", "type": "bool", "value": keepdims},
                  {"name": "select_first", "type": "bool", "value": first}]
            add_case(op, "normal", [tensor(t, x)],
                     tensor("i64", arg_reference(op, t, x, axis % len(shape), keepdims, first)), st)


# --- cast: every (from, to) pair of the catalog --------------------------------------------
def round_mode(x, mode):
    return {"trunc": math.trunc, "floor": math.floor, "ceil": math.ceil,
            "nearest_even": round}[mode](x)


def cast_value(x, src, dst, mode="trunc", saturate=True):
    if dst == "bool":
        return bool(x != 0) or (src in FLOATS and math.isnan(x))
    if src == "bool":  # 0 or 1, then as an integer (i1 holds no 1: saturate 0, wrap -1)
        x, src = (1 if x else 0), "i8"
    if dst in FLOATS:
        return round_to(dst, float(x) if src in FLOATS else int(x))
    if src in FLOATS:
        x = float(x)
        if math.isnan(x):
            return 0
        if math.isinf(x):
            return 0 if not saturate else (imax(dst) if x > 0 else imin(dst))
        r = round_mode(x, mode)
    else:
        r = int(x)
    return min(max(r, imin(dst)), imax(dst)) if saturate else wrap(r, dst)


def cast_inputs(src):
    if src in FLOATS:
        v = [0.0, -0.0, 1.5, -1.5, 2.5, -2.5, 0.49999997, 127.5, -128.5, 255.5, 300.7, -300.7,
             7.5, -8.5, 3.5, 15.5, 1e10, -1e10, 3e38, math.nan, math.inf, -math.inf, 65519.0,
             65520.0, 57344.0, 61440.0, 1e-5, 3.0e-8]
        if src == "f64":
            v += [1e300, -1e300, 9.3e18, -9.3e18, 2.0 ** 63, 2.0 ** 64 + 4096.0, 1e-310,
                  1 + 2.0 ** -11 + 2.0 ** -40]
        return np.array([round_to(src, x) for x in v])
    if src == "bool":
        return np.array([False, True, True, False])
    v = [imin(src), imax(src), 0, 1, -1 if src in SIGNED else 2, 7, 8, 127, 128, 255, 256,
         65535, 65536, 2049, 2051, (1 << 24) + 1, (1 << 60) + (1 << 52) + 1]
    v = [wrap(x, src) for x in v] + [int(x) for x in values(src, (4,)).ravel()]
    return np.array(v, dtype=object)


def cast_case(src, dst, mode=None, saturate=None):
    x = cast_inputs(src)
    kw, settings = {}, [{"name": "to", "type": "dtype", "value": dst}]
    if mode is not None:
        kw["mode"] = mode
        settings.append({"name": "rounding_mode", "type": "string", "value": mode})
    if saturate is not None:
        kw["saturate"] = saturate
        settings.append({"name": "saturate", "type": "bool", "value": saturate})
    out = np.array([cast_value(v, src, dst, **kw) for v in x],
                   dtype=np.float64 if dst in FLOATS else object)
    add_case("cast", "normal", [tensor(src, x)], tensor(dst, out), settings)


CAST_TYPES = cat_types("cast")
for src in CAST_TYPES:
    for dst in CATALOG["cast"]["to_dtypes"]:
        cast_case(src, dst)
for src, dst in [("f32", "i32"), ("f64", "i8"), ("f64", "u64"), ("f32", "u8"), ("i64", "i8"),
                 ("u64", "i32"), ("i32", "u16"), ("f16", "i4"), ("bf16", "u2"), ("f8", "i8"),
                 ("i8", "i4"), ("u8", "u4"), ("i4", "u2"), ("f64", "i1"), ("i64", "u1")]:
    cast_case(src, dst, saturate=False)
for mode in ["trunc", "floor", "ceil", "nearest_even"]:
    for saturate in [True, False]:
        cast_case("f64", "i16", mode, saturate)
        cast_case("f32", "i64", mode, saturate)
        cast_case("f16", "i4", mode, saturate)
        cast_case("bf16", "u8", mode, saturate)

# The f16 rounding above must agree with numpy's own float16 conversion.
for x in list(rng.standard_normal(2000) * 1e3) + [65519.99, 65520.0, 2.0 ** -25, 3 * 2.0 ** -26]:
    assert round_to("f16", x) == float(np.float16(x)), x


# --- ops-nn.md: elementwise math -----------------------------------------------------------
# References in double with Python's math (C99 special cases written out where math raises),
# then rounded to f32 (and from there once more for f8/bf16/f16) with round_to. Tolerances per
# ops-nn.md: f32 2 ulp, f64 4 ulp, narrow floats 1 ulp of their own dtype; sqrt exact.
def m_exp(x):
    if math.isnan(x):
        return x
    try:
        return math.exp(x)
    except OverflowError:
        return math.inf


def m_log(x):
    if math.isnan(x) or x < 0:
        return math.nan
    return -math.inf if x == 0 else math.log(x)


def m_sqrt(x):
    if x == 0:
        return x  # sqrt(-0.0) is -0.0
    return math.nan if math.isnan(x) or x < 0 else math.sqrt(x)


def m_rsqrt(x):
    if x == 0:
        return math.copysign(math.inf, x)
    return math.nan if math.isnan(x) or x < 0 else 1.0 / math.sqrt(x)


def m_trig(fn):
    return lambda x: fn(x) if math.isfinite(x) else math.nan


def m_gelu_tanh(x):
    u = 0.7978845608028654 * (x + 0.044715 * x * x * x)
    return x / (1.0 + m_exp(-2.0 * u))


def m_pow(a, b):
    try:
        return math.pow(a, b)
    except OverflowError:
        odd = b == int(b) and int(b) % 2 == 1
        return -math.inf if a < 0 and odd else math.inf
    except ValueError:
        if a == 0 and b < 0:
            odd = b == int(b) and int(b) % 2 == 1
            return math.copysign(math.inf, a) if odd else math.inf
        return math.nan


MATH = {
    "exp": m_exp, "log": m_log, "sqrt": m_sqrt, "sin": m_trig(math.sin),
    "cos": m_trig(math.cos), "tanh": math.tanh, "erf": math.erf, "rsqrt": m_rsqrt,
    "sigmoid": lambda x: 1.0 / (1.0 + m_exp(-x)),
    "silu": lambda x: x / (1.0 + m_exp(-x)),
    "gelu": lambda x: x * 0.5 * math.erfc(-x * 0.7071067811865476),
    "pow": m_pow,
}
ULP = {"f8": 1, "bf16": 1, "f16": 1, "f32": 2, "f64": 4}


def math_ref(t, fn, *arrs):
    b = np.broadcast_arrays(*[np.asarray(a, dtype=np.float64) for a in arrs])
    out = []
    for xs in zip(*[x.reshape(-1) for x in b]):
        r = fn(*[float(x) for x in xs])
        out.append(round_to(t, r if t == "f64" else round_to("f32", r)))
    return np.array(out, dtype=np.float64).reshape(b[0].shape)


def math_case(op, t, mode, inputs, fn, settings=()):
    ref = math_ref(t, fn, *inputs)
    add_case(op, mode, [tensor(t, a) for a in inputs], tensor(t, ref), settings,
             inplace_input=0 if mode == "inplace" else None)
    cases[-1]["ulp"] = 0 if op == "sqrt" else ULP[t]


def math_values(op, t, shape):
    a = values(t, shape, small=True)
    if op in ("log", "sqrt", "rsqrt"):  # mostly in the domain; specials and a few negatives
        flat = a.reshape(-1)
        for i in range(3, flat.size):
            if math.isfinite(flat[i]) and flat[i] != 0:
                flat[i] = abs(flat[i])
    return a


for op in ["exp", "log", "sqrt", "sin", "cos", "tanh", "erf", "rsqrt", "sigmoid", "silu", "gelu"]:
    for t in cat_types(op):
        math_case(op, t, "normal", [math_values(op, t, (4, 6))], MATH[op])
        math_case(op, t, "inplace", [math_values(op, t, (3, 5))], MATH[op])
        if op == "gelu":
            st = [{"name": "approximate", "type": "string", "value": "tanh"}]
            math_case(op, t, "normal", [values(t, (4, 6), small=True)], m_gelu_tanh, st)
            math_case(op, t, "normal", [values(t, (2, 5), small=True)], MATH[op],
                      [{"name": "approximate", "type": "string", "value": "none"}])
    math_case(op, "f32", "normal", [np.zeros((2, 0, 3))], MATH[op])  # zero-sized

for t in cat_types("pow"):
    for sa, sb, mode in [((2, 3, 5), (5,), "normal"), ((2, 1, 5), (3, 1), "normal"),
                         ((2, 9), (9,), "inplace")]:
        a, b = values(t, sa, small=True), values(t, sb, small=True)
        fb = b.reshape(-1)
        fb[:3] = [2.0, 3.0, -1.0]  # integer exponents of negative bases
        math_case("pow", t, mode, [a, b], m_pow)
math_case("pow", "f64", "normal", [np.array([-0.0, 0.0, -2.0, 1.0, math.nan, -8.0, 10.0]),
                                   np.array([-1.0, -0.5, 0.5, math.nan, 0.0, 1 / 3, 400.0])],
          m_pow)


# --- ops-nn.md: softmax, log_softmax --------------------------------------------------------
def softmax_ref(t, x, axis, log):
    xm = np.moveaxis(np.asarray(x, dtype=np.float64), axis, -1)
    out = np.zeros(xm.shape)
    for idx in np.ndindex(*xm.shape[:-1]):
        row = [float(v) for v in xm[idx]]
        m = -math.inf
        for v in row:
            if math.isnan(v) or v > m:
                m = v
            if math.isnan(m):
                break
        e = [v - m for v in row]
        total = sum(m_exp(v) for v in e)
        for k, v in enumerate(e):
            out[idx + (k,)] = v - m_log(total) if log else m_exp(v) / total
    out = np.moveaxis(out, -1, axis)
    return np.vectorize(lambda v: round_to(t, float(v)), otypes=[np.float64])(out) \
        if out.size else out


SOFT_TOL = {"f32": [1e-5, 1e-4], "f64": [1e-12, 1e-10]}
for op in ["softmax", "log_softmax"]:
    for t in cat_types(op):
        big = values(t, (2, 5), small=True, specials=False)
        big[0] = [round_to(t, v) for v in [1000.0, 1001.0, 999.0, -1000.0, 1000.5]]
        for shape, axis, x in [((4, 6), None, None), ((3, 4, 5), 1, None), ((2, 0, 3), 1, None),
                               ((3, 4), 0, None), ((2, 5), -1, big)]:
            x = values(t, shape, small=True) if x is None else x
            st = [] if axis is None else [isetting("axis", axis)]
            ref = softmax_ref(t, x, -1 if axis is None else axis, op == "log_softmax")
            add_case(op, "normal", [tensor(t, x)], tensor(t, ref), st)
            if t in SOFT_TOL:
                cases[-1]["tolerance"] = SOFT_TOL[t]
            else:
                cases[-1]["ulp"] = 2


# --- ops-nn.md: moving data (bit-exact, every dtype but t1/t2) --------------------------------
ALL = FLOATS + INTS + ["bool", "bitset"]


def ilist(name, v):
    return {"name": name, "type": "int_list", "value": v}


for t in ALL:
    x = values(t, (2, 3, 4))
    add_case("reshape", "normal", [tensor(t, x)], tensor(t, x.reshape(4, 6)))
    x = values(t, (5,))
    add_case("reshape", "normal", [tensor(t, x)], tensor(t, x.reshape(5, 1)))
    x = values(t, (2, 3, 4))
    add_case("transpose", "normal", [tensor(t, x)], tensor(t, np.transpose(x, (1, 2, 0))),
             [ilist("perm", [1, 2, 0])])
    x = values(t, (3, 5))
    add_case("transpose", "normal", [tensor(t, x)], tensor(t, np.transpose(x)))
    for n in range(1, 17):
        axis = [1, -1, 0][n % 3]
        shapes = [[2, 3, 2] for _ in range(n)]
        for j in range(n):
            shapes[j][axis] = (j * 5 + n) % 4  # sizes 0..3 along the axis
        arrs = [values(t, tuple(s)) for s in shapes]
        add_case("concat", "normal", [tensor(t, a) for a in arrs],
                 tensor(t, np.concatenate(arrs, axis=axis)), [isetting("axis", axis)])
    for it in ["i32", "i64"]:
        x = values(t, (3, 4, 2))
        idx = ints([[3, -1], [0, -4], [2, 2]])
        add_case("gather", "normal", [tensor(t, x), tensor(it, idx)],
                 tensor(t, np.take(x, [[3, 3], [0, 0], [2, 2]], axis=1)), [isetting("axis", 1)])
        x = values(t, (5, 3))
        idx = ints([4, -5, 1, 1])
        add_case("gather", "normal", [tensor(t, x), tensor(it, idx)],
                 tensor(t, np.take(x, [4, 0, 1, 1], axis=0)), [isetting("axis", 0)])
for t in ["f32", "i4", "bool"]:  # zero-sized dims and rank 0
    add_case("reshape", "normal", [tensor(t, values(t, (2, 0, 3)))], tensor(t, values(t, (0, 5))))
    x = values(t, ())
    add_case("reshape", "normal", [tensor(t, x)], tensor(t, x.reshape(1, 1)))
    x = values(t, (2, 0, 3))
    add_case("transpose", "normal", [tensor(t, x)], tensor(t, np.transpose(x, (2, 0, 1))),
             [ilist("perm", [-1, 0, 1])])
    add_case("concat", "normal", [tensor(t, values(t, (0, 2))), tensor(t, values(t, (0, 3)))],
             tensor(t, values(t, (0, 5))), [isetting("axis", 1)])
    add_case("gather", "normal", [tensor(t, values(t, (3, 0))), tensor("i64", ints([2, -3]))],
             tensor(t, values(t, (2, 0))), [isetting("axis", 0)])
    add_case("gather", "normal", [tensor(t, values(t, (0, 3))), tensor("i32", ints([]))],
             tensor(t, values(t, (0, 0))), [isetting("axis", 1)])
    x = values(t, (4, 3))
    add_case("gather", "normal", [tensor(t, x), tensor("i64", ints(2))], tensor(t, x[2]),
             [isetting("axis", 0)])  # a scalar index drops the axis


def iota_ref(t, shape, axis):
    idx = np.indices(shape)[axis] if shape else np.zeros(())
    if t in FLOATS:
        return np.vectorize(lambda v: round_to(t, int(v)), otypes=[np.float64])(idx)
    return np.vectorize(lambda v: wrap(int(v), t), otypes=[object])(idx)


for t in cat_types("iota"):
    for shape, axis in [((3, 6), None), ((2, 3, 4), 1), ((2, 0), 0), ((20,), 0)]:
        st = [] if axis is None else [isetting("axis", axis)]
        add_case("iota", "normal", [tensor(t, values(t, shape))],
                 tensor(t, iota_ref(t, shape, -1 if axis is None else axis)), st)


# --- ops-nn.md: layer_norm, rms_norm (over axis..rank-1; exact reference, rounded once) -------
def norm_ref(t, x, scale, bias, axis, eps, rms):
    x = np.asarray(x, dtype=np.float64)
    lead = x.shape[:axis % x.ndim]
    rows = x.reshape(int(np.prod(lead)), int(np.prod(x.shape[len(lead):])))
    sc = np.asarray(scale, dtype=np.float64).reshape(-1)
    bs = None if bias is None else np.asarray(bias, dtype=np.float64).reshape(-1)
    out = np.zeros(rows.shape)
    for r in range(rows.shape[0]):
        row = [Fraction(float(v)) for v in rows[r]]
        n = len(row)
        if n == 0:
            continue
        mean = Fraction(0) if rms else sum(row) / n
        var = sum((v - mean) ** 2 for v in row) / n
        inv = 1 / math.sqrt(float(var) + eps)
        for k, v in enumerate(row):
            y = float(v - mean) * inv * sc[k] + (0.0 if bs is None else bs[k])
            out[r, k] = round_to(t, y)
    return out.reshape(x.shape)


for op in ["rms_norm", "layer_norm"]:
    default_eps = 1e-6 if op == "rms_norm" else 1e-5
    for t in cat_types(op):
        for shape, axis, eps, with_bias in [((4, 6), None, None, True), ((2, 3, 4), 1, 1e-3, False),
                                            ((3, 5), -1, None, False), ((2, 0, 3), -1, None, True),
                                            ((0, 4), 0, None, True), ((5,), 0, 0.25, True)]:
            a = -1 if axis is None else axis
            x = values(t, shape, small=True, specials=False)
            trailing = shape[a % len(shape):]
            scale = values(t, trailing, small=True, specials=False)
            bias = values(t, trailing, small=True, specials=False) if with_bias else None
            ins = [tensor(t, x), tensor(t, scale)]
            if op == "rms_norm":
                bias = None
            elif bias is not None:
                ins.append(tensor(t, bias))
            st = [] if axis is None else [isetting("axis", axis)]
            if eps is not None:
                st.append(fsetting("epsilon", eps))
            ref = norm_ref(t, x, scale, bias, a, default_eps if eps is None else eps,
                           op == "rms_norm")
            add_case(op, "normal", ins, tensor(t, ref), st)
            if t in SOFT_TOL:
                cases[-1]["tolerance"] = SOFT_TOL[t]
            else:
                cases[-1]["ulp"] = 2
    if op == "layer_norm":  # both input counts for every dtype (2 and 3 inputs)
        for t in cat_types(op):
            x = values(t, (3, 4), small=True, specials=False)
            scale = values(t, (4,), small=True, specials=False)
            add_case(op, "normal", [tensor(t, x), tensor(t, scale)],
                     tensor(t, norm_ref(t, x, scale, None, -1, 1e-5, False)))
            if t in SOFT_TOL:
                cases[-1]["tolerance"] = SOFT_TOL[t]
            else:
                cases[-1]["ulp"] = 2



# --- ops-nn.md: slice (ONNX semantics, bit-exact, every dtype but t1/t2) ---------------------
def slice_ref(x, starts, ends, axes, steps):
    idx = [slice(None)] * x.ndim
    for i, s in enumerate(starts):
        a = axes[i] if axes is not None else i
        idx[a] = slice(s, ends[i], 1 if steps is None else steps[i])
    return x[tuple(idx)]  # Python slicing clamps as ONNX does


SLICES = [((4, 6), [1, -4], [3, 100], None, None), ((5, 4, 3), [-1], [-6], [0], [-2]),
          ((3, 7), [6, 0], [-100, 3], [1, 0], [-3, 1]), ((2, 3, 4), [0, 1], [2, -1], [-1, 1], None),
          ((2, 9), [-100, 1], [100, 9], [0, -1], [1, 4]), ((3, 4), [2], [2], [1], None),
          ((2, 0, 3), [0, 1], [5, 3], [1, 2], None), ((4, 3), [3], [-5], [0], [-1]),
          ((13,), [1], [12], None, [3])]
for t in ALL:
    for shape, starts, ends, axes, steps in SLICES:
        x = values(t, shape)
        st = [ilist("starts", starts), ilist("ends", ends)]
        if axes is not None:
            st.append(ilist("axes", axes))
        if steps is not None:
            st.append(ilist("steps", steps))
        add_case("slice", "normal", [tensor(t, x)],
                 tensor(t, slice_ref(x, starts, ends, axes, steps)), st)


# --- ops-nn.md: pad (constant / reflect / edge; bit-exact, every dtype but t1/t2) ------------
def pad_value(t):
    if t in FLOATS:
        return 2.5, round_to(t, 2.5)
    if t == "bool":
        return 1, True
    return -1 if t == "i1" else 1, wrap(-1 if t == "i1" else 1, t)


PADS = [((2, 3), [1, 0, 2, 1], "constant"), ((3, 4), [2, 1, 0, 3], "reflect"),
        ((2, 3, 2), [0, 2, 1, 1, 0, 1], "edge"), ((4,), [3, 2], "reflect"),
        ((2, 0), [1, 0, 0, 2], "constant"), ((3, 1), [2, 0, 1, 0], "edge"),
        ((2, 2), [0, 0, 0, 0], None)]
for t in ALL:
    for shape, pads, mode in PADS:
        x = values(t, shape)
        r = len(shape)
        width = [(pads[k], pads[k + r]) for k in range(r)]
        st = [ilist("pads", pads)]
        if mode is None or mode == "constant":
            setting, cval = pad_value(t)
            if mode == "constant":
                st += [{"name": "mode", "type": "string", "value": "constant"}]
                st += [fsetting("value", setting) if t in FLOATS else isetting("value", setting)]
            else:
                cval = False if t == "bool" else 0.0 if t in FLOATS else 0
            y = np.pad(x, width, mode="constant", constant_values=cval)
        else:
            st.append({"name": "mode", "type": "string", "value": mode})
            y = np.pad(x, width, mode=mode)
        add_case("pad", "normal", [tensor(t, x)], tensor(t, y), st)


with open(OUT, "w") as f:
    f.write('{"format": "openinfer.cpu_kernel_cases", "cases": [\n')
    f.write(",\n".join(json.dumps(c, separators=(",", ":")) for c in cases))
    f.write("\n]}\n")
print(len(cases), "cases")
