#!/usr/bin/python3
"""Writes cases/fastpath.json: cases for the CPU plugin's vector paths and their scalar tails
(lengths around the vector widths, broadcast rows and columns, in place): f16/bf16 add, sub,
mul, div and relu (widened to f32, computed, rounded once), wrapping i8..u64 add/sub/mul, the
plain f32/f64 relu, and sum/mean over axis 0 with column tiles and their tails.

Expectations are numpy's (f16 rounding: numpy's f32 -> f16 cast; bf16 rounding: the f32 bits
rounded to their upper half, nearest even, every NaN 0xffff, bit for bit PyTorch's vectorized
f32 -> bfloat16 cast, which wrote the committed file) and Python integers; nothing here runs
OpenInfer code.
Run: /usr/bin/python3 tests/plugins/gen_fastpath_cases.py  (writes cases/fastpath.json)
--out DIR writes it in DIR instead."""
import json
import math

import numpy as np

from case_output import output_path

OUT = output_path("fastpath.json")

rng = np.random.default_rng(20261123)
cases = []

LENGTHS = [1, 7, 8, 9, 15, 16, 17, 31, 33, 100, 1000]


def half_bits(t, x32):
    """f32 array -> uint16 bit patterns of dtype t, rounded once to nearest even."""
    x32 = np.asarray(x32, dtype=np.float32)
    flat = x32.reshape(-1)
    if t == "f16":
        with np.errstate(over="ignore"):
            return flat.astype(np.float16).view(np.uint16).reshape(x32.shape)
    u = flat.view(np.uint32).astype(np.uint64)
    b = ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)
    return np.where(np.isnan(flat), np.uint16(0xFFFF), b).reshape(x32.shape)


def half_values(t, bits):
    """uint16 bit patterns of dtype t -> exact f32 values."""
    bits = np.asarray(bits, dtype=np.uint16)
    flat = bits.reshape(-1)
    if t == "f16":
        return flat.view(np.float16).astype(np.float32).reshape(bits.shape)
    return (flat.astype(np.uint32) << 16).view(np.float32).reshape(bits.shape)


def tensor_bits(t, bits):
    return {"dtype": t, "dims": list(bits.shape), "hex": np.ascontiguousarray(bits).tobytes().hex()}


def tensor_np(t, arr):
    return {"dtype": t, "dims": list(arr.shape), "hex": np.ascontiguousarray(arr).tobytes().hex()}


def fsetting(name, v):
    return {"name": name, "type": "float", "value": v if math.isfinite(v) else str(v)}


def add_case(op, mode, inputs, output, settings=(), inplace_input=None):
    case = {"op": op, "mode": mode, "inputs": inputs, "output": output, "settings": list(settings)}
    if inplace_input is not None:
        case["inplace_input"] = inplace_input
    cases.append(case)


def random_half(t, shape, scale=10.0):
    """Random values of dtype t (as bits) with inf, NaN, +-0, subnormals and values near the
    top of the range mixed in, so that sums overflow and products underflow."""
    n = int(np.prod(shape))
    x = (rng.standard_normal(n) * scale).astype(np.float32)
    top = 60000.0 if t == "f16" else 3.0e38
    tiny = 2.0 ** -24 if t == "f16" else 2.0 ** -133
    specials = [math.inf, -math.inf, math.nan, -0.0, 0.0, tiny, -3 * tiny, top, -top, 1e-3]
    for k, i in enumerate(rng.permutation(n)[:min(n // 3, len(specials))]):
        x[i] = specials[k]
    return half_bits(t, x).reshape(shape)


def half_binary(op, a32, b32, mask=None):
    with np.errstate(all="ignore"):
        if op == "add":
            return a32 + b32
        if op == "sub":
            return a32 - b32
        if op == "mul":
            return a32 * b32
        q = a32 / b32
        if mask is not None:
            q = np.where(b32 == 0, np.float32(mask), q)
        return q


# --- f16/bf16 binary ops -------------------------------------------------------------------
for t in ["f16", "bf16"]:
    for op in ["add", "sub", "mul", "div"]:
        shapes = [((n,), (n,)) for n in LENGTHS]
        shapes += [((3, 17), (17,)), ((3, 17), (3, 1)), ((2, 40), (1,)), ((40,), ()),
                   ((1,), (33,)), ((4, 1, 9), (3, 1))]
        for sa, sb in shapes:
            a = random_half(t, sa)
            b = random_half(t, sb, scale=3.0)
            if op == "div" and b.size > 2:
                b.reshape(-1)[0] = half_bits(t, np.float32(0.0))
            out_shape = np.broadcast_shapes(sa, sb)
            want = half_bits(t, half_binary(op, half_values(t, a), half_values(t, b)))
            add_case(op, "normal", [tensor_bits(t, a), tensor_bits(t, b)],
                     tensor_bits(t, want.reshape(out_shape)))
        for n in [17, 1000]:
            a, b = random_half(t, (n,)), random_half(t, (n,), scale=3.0)
            want = half_bits(t, half_binary(op, half_values(t, a), half_values(t, b)))
            add_case(op, "inplace", [tensor_bits(t, a), tensor_bits(t, b)], tensor_bits(t, want),
                     inplace_input=0)
    for n in [9, 33]:
        a, b = random_half(t, (n,)), random_half(t, (n,), scale=3.0)
        b[::3] = half_bits(t, np.float32(0.0))
        b[1] = half_bits(t, np.float32(-0.0))
        want = half_bits(t, half_binary("div", half_values(t, a), half_values(t, b), -2.5))
        add_case("div", "normal", [tensor_bits(t, a), tensor_bits(t, b)], tensor_bits(t, want),
                 [fsetting("div_by_zero_mask", -2.5)])


# --- relu: f16/bf16 in f32, and the plain f32/f64 path ------------------------------------
def relu_f32(x, alpha, lo, hi):
    """ops.md in the given float type: a >= 0 ? a : alpha * a, zero -> +0, clamp, NaN kept."""
    with np.errstate(all="ignore"):
        y = np.where(x >= 0, x, x.dtype.type(alpha) * x)
        y = np.where(y == 0, x.dtype.type(0), y)
        y = np.where(y < x.dtype.type(lo), x.dtype.type(lo), y)
        y = np.where(y > x.dtype.type(hi), x.dtype.type(hi), y)
    return y.astype(x.dtype)


RELU_SETTINGS = [(None, -math.inf, math.inf), (0.125, -math.inf, math.inf), (0.0, -0.5, 2.0),
                 (0.0, 0.25, math.inf), (-1.5, -3.0, 4.0)]


def relu_settings(alpha, lo, hi):
    st = []
    if alpha is not None:
        st.append(fsetting("alpha", alpha))
    if lo != -math.inf:
        st.append(fsetting("clamp_min", lo))
    if hi != math.inf:
        st.append(fsetting("clamp_max", hi))
    return st


for t in ["f16", "bf16"]:
    for k, n in enumerate(LENGTHS):
        alpha, lo, hi = RELU_SETTINGS[k % len(RELU_SETTINGS)]
        a = random_half(t, (n,))
        want = half_bits(t, relu_f32(half_values(t, a), alpha or 0.0, lo, hi))
        add_case("relu", "normal", [tensor_bits(t, a)], tensor_bits(t, want),
                 relu_settings(alpha, lo, hi))
    for alpha, lo, hi in RELU_SETTINGS:
        a = random_half(t, (5, 13))
        want = half_bits(t, relu_f32(half_values(t, a), alpha or 0.0, lo, hi))
        add_case("relu", "inplace", [tensor_bits(t, a)], tensor_bits(t, want),
                 relu_settings(alpha, lo, hi), inplace_input=0)

for t, np_t in [("f32", np.float32), ("f64", np.float64)]:
    for n in LENGTHS:
        x = (rng.standard_normal(n) * 5).astype(np_t)
        for k, v in enumerate([math.nan, -0.0, 0.0, -math.inf, math.inf][:n]):
            x[(k * 7) % n] = v
        add_case("relu", "normal", [tensor_np(t, x)], tensor_np(t, relu_f32(x, 0.0, -math.inf,
                                                                            math.inf)))
        st = [fsetting("clamp_min", -1.0)]
        add_case("relu", "inplace", [tensor_np(t, x)], tensor_np(t, relu_f32(x, 0.0, -1.0,
                                                                             math.inf)),
                 st, inplace_input=0)

# --- wrapping integer add/sub/mul ----------------------------------------------------------
INTS = {"i8": np.int8, "i16": np.int16, "i32": np.int32, "i64": np.int64,
        "u8": np.uint8, "u16": np.uint16, "u32": np.uint32, "u64": np.uint64}


def random_ints(np_t, shape):
    info = np.iinfo(np_t)
    n = int(np.prod(shape))
    v = [int(info.min) + int(x) % (int(info.max) - int(info.min) + 1)
         for x in rng.integers(0, 1 << 62, n)]
    if n >= 4:
        v[0], v[1], v[2] = int(info.min), int(info.max), -1 if info.min < 0 else 1
    return v, shape


def wrap(values, np_t):
    bits = np.iinfo(np_t).bits
    mod = 1 << bits
    out = []
    for x in values:
        x %= mod
        if np.iinfo(np_t).min < 0 and x >= mod // 2:
            x -= mod
        out.append(x)
    return np.array(out, dtype=np_t)


INT_FN = {"add": lambda x, y: x + y, "sub": lambda x, y: x - y, "mul": lambda x, y: x * y}
for t, np_t in INTS.items():
    for op, fn in INT_FN.items():
        shapes = [((n,), (n,)) for n in [1, 15, 16, 17, 33, 64, 1000]]
        shapes += [((4, 33), (33,)), ((4, 33), (4, 1)), ((70,), ()), ((1,), (70,))]
        for sa, sb in shapes:
            av, _ = random_ints(np_t, sa)
            bv, _ = random_ints(np_t, sb)
            a = np.array(av, dtype=object).reshape(sa)
            b = np.array(bv, dtype=object).reshape(sb)
            ab, bb = np.broadcast_arrays(a, b)
            want = wrap([fn(int(x), int(y)) for x, y in zip(ab.reshape(-1), bb.reshape(-1))], np_t)
            add_case(op, "normal", [tensor_np(t, wrap(av, np_t).reshape(sa)),
                                    tensor_np(t, wrap(bv, np_t).reshape(sb))],
                     tensor_np(t, want.reshape(ab.shape)))
        av, _ = random_ints(np_t, (37,))
        bv, _ = random_ints(np_t, (37,))
        want = wrap([fn(x, y) for x, y in zip(av, bv)], np_t)
        add_case(op, "inplace", [tensor_np(t, wrap(av, np_t)), tensor_np(t, wrap(bv, np_t))],
                 tensor_np(t, want), inplace_input=0)

# --- sum/mean over leading axes: column tiles (1024..4096 wide) and their tails ------------
for t, np_t in [("f32", np.float32), ("f64", np.float64)]:
    shapes = [((6, 1500), [0]), ((2, 4100), [0]), ((5, 2049), [0]), ((2, 2, 1030), [1]),
              ((3, 2, 1027), [0, 1]), ((9, 7), [0])]
    for shape, axes in shapes[:4] if t == "f64" else shapes:
        x = (rng.standard_normal(shape) * 4).astype(np_t)
        # Input order, one row of the reduced block after the other, in the dtype (ops.md's
        # order for these kernels).
        lead = [d for k, d in enumerate(shape) if k < min(axes)]
        red = [shape[k] for k in axes]
        inner = [d for k, d in enumerate(shape) if k > max(axes)]
        xr = x.reshape(int(np.prod(lead)), int(np.prod(red)), int(np.prod(inner)))
        acc = xr[:, 0, :].copy()
        for r in range(1, xr.shape[1]):
            acc = (acc + xr[:, r, :]).astype(np_t)
        out_shape = [d for k, d in enumerate(shape) if k not in axes]
        setting = [{"name": "axes", "type": "int_list", "value": axes}]
        add_case("sum_axis", "normal", [tensor_np(t, x)], tensor_np(t, acc.reshape(out_shape)),
                 setting)
        mean = (acc / np_t(xr.shape[1])).astype(np_t)
        add_case("mean_axis", "normal", [tensor_np(t, x)], tensor_np(t, mean.reshape(out_shape)),
                 setting)

# Long reductions (512 rows or more) are summed in fixed blocks of rows: the order differs from
# input order, so these compare with a tolerance (ops.md) against an f64 sum.
for t, np_t in [("f32", np.float32), ("f64", np.float64)]:
    for shape, axes in [((600, 37), [0]), ((2, 520, 3), [1]), ((3, 300, 5), [0, 1])]:
        x = (rng.standard_normal(shape) * 4).astype(np_t)
        total = x.astype(np.float64).sum(axis=tuple(axes))
        n = int(np.prod([shape[k] for k in axes]))
        setting = [{"name": "axes", "type": "int_list", "value": axes}]
        tol = [1e-4, 1e-5] if t == "f32" else [1e-12, 1e-13]
        for op, want in [("sum_axis", total), ("mean_axis", total / n)]:
            case = {"op": op, "mode": "normal", "inputs": [tensor_np(t, x)],
                    "output": tensor_np(t, want.astype(np_t)), "settings": setting,
                    "tolerance": tol}
            cases.append(case)

with open(OUT, "w") as f:
    f.write('{"format": "openinfer.cpu_kernel_cases", "cases": [\n')
    f.write(",\n".join(json.dumps(c, separators=(",", ":")) for c in cases))
    f.write("\n]}\n")
print(len(cases), "cases")
