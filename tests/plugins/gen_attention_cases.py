#!/usr/bin/python3
"""Writes cases/attention.json: kernel cases of attention, rope and dequantize (ops-nn.md) with
expectations computed independently in numpy float64 from the exact input values, then rounded
once to the output dtype. Nothing here runs OpenInfer code.

Tolerances: attention f32 and f64 compare within an absolute + relative bound (the kernel's f32
accumulation and exp differ from float64 in the last bits); f8/bf16/f16 within 2 ulp of their own
dtype, with positive v so that no cancellation turns an f32 rounding error into many ulps.
rope and dequantize round once from an exact or float64 result: dequantize is bit-exact, rope
within 1 ulp (the kernel's libm cos/sin against numpy's).

Run: /usr/bin/python3 tests/plugins/gen_attention_cases.py  (writes cases/attention.json)
--out DIR writes it in DIR instead."""
import json
import math
from fractions import Fraction

import numpy as np

from exact_floats import FLOATS, FMT, NARROW, float_bits, floor_log2  # noqa: E402,F401
from exact_floats import round_to as exact_round_to  # noqa: E402
from case_output import output_path

OUT = output_path("attention.json")

rng = np.random.default_rng(20261123)
INT_BITS = {"i8": 8, "u8": 8, "i4": 4, "u4": 4}
cases = []


# --- exact float formats (the same rounding as gen_cpu_kernel_cases.py) ----------------------
def round_to(t, x):
    """x rounded once to float dtype t (nearest, ties to even, overflow to inf); f64 as is."""
    x = float(x) if not isinstance(x, Fraction) else x
    if t == "f64" and not (isinstance(x, float) and (math.isnan(x) or math.isinf(x))):
        return float(x)
    return exact_round_to(t, x)


def rounded(t, arr):
    arr = np.asarray(arr, dtype=np.float64)
    return np.vectorize(lambda v: round_to(t, v), otypes=[np.float64])(arr) if arr.size else arr


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
    elif t in ("i4", "u4"):  # packed two per byte, LSB first (oinf.md)
        out = bytearray((len(flat) + 1) // 2)
        for i, x in enumerate(flat):
            out[i // 2] |= (int(x) % 16) << ((i % 2) * 4)
        data = bytes(out)
    else:
        nb = {"i8": 1, "u8": 1, "i32": 4, "i64": 8}[t]
        data = b"".join((int(x) % (1 << (8 * nb))).to_bytes(nb, "little") for x in flat)
    return {"dtype": t, "dims": dims, "hex": data.hex()}


def fvalues(t, shape, lo=-3.0, hi=3.0):
    return rounded(t, rng.uniform(lo, hi, size=shape))


def add_case(op, inputs, output, settings=(), mode="normal", inplace_input=None, **extra):
    case = {"op": op, "mode": mode, "inputs": inputs, "output": output,
            "settings": list(settings)}
    if inplace_input is not None:
        case["inplace_input"] = inplace_input
    case.update(extra)
    cases.append(case)


def fsetting(name, v):
    return {"name": name, "type": "float", "value": v}


def bsetting(name, v):
    return {"name": name, "type": "bool", "value": v}


def isetting(name, v):
    return {"name": name, "type": "int", "value": v}


# --- attention ------------------------------------------------------------------------------
def attention_ref(q, k, v, mask=None, scale=None, causal=False):
    q, k, v = (np.asarray(a, dtype=np.float64) for a in (q, k, v))
    d = q.shape[-1]
    tq, tk = q.shape[-2], k.shape[-2]
    if scale is None:
        scale = 1.0 / math.sqrt(d) if d else 1.0
    s = np.matmul(q, np.swapaxes(k, -1, -2)) * scale if d else \
        np.zeros(np.broadcast_shapes(q.shape[:-2], k.shape[:-2]) + (tq, tk))
    if mask is not None:
        mask = np.asarray(mask)
        s = np.where(mask, s, -np.inf) if mask.dtype == bool else s + mask
    if causal:
        i = np.arange(tq)[:, None]
        j = np.arange(tk)[None, :]
        s = np.where(j <= i + (tk - tq), s, -np.inf)
    lead = np.broadcast_shapes(s.shape[:-2], v.shape[:-2])
    s = np.broadcast_to(s, lead + (tq, tk))
    with np.errstate(invalid="ignore"):
        m = s.max(axis=-1, keepdims=True) if tk else np.full(lead + (tq, 1), -np.inf)
        dead = np.isneginf(m)  # every key masked: the row gives 0 (ops-nn.md)
        e = np.where(dead, 0.0, np.exp(s - np.where(dead, 0.0, m)))
        total = e.sum(axis=-1, keepdims=True)
        p = np.where(dead, 0.0, e / np.where(dead, 1.0, total))
    return np.matmul(p, v) if tk else np.zeros(lead + (tq, v.shape[-1]))


TOL = {"f32": [2e-5, 1e-4], "f64": [1e-12, 1e-10]}


def attention_case(t, q, k, v, mask=None, mask_t=None, scale=None, causal=False):
    ins = [tensor(t, q), tensor(t, k), tensor(t, v)]
    if mask is not None:
        ins.append(tensor(mask_t, mask))
    st = []
    if scale is not None:
        st.append(fsetting("scale", scale))
    if causal:
        st.append(bsetting("causal", True))
    ref = rounded(t, attention_ref(q, k, v, mask, scale, causal))
    extra = {"tolerance": TOL[t]} if t in TOL else {"ulp": 2}
    add_case("attention", ins, tensor(t, ref), st, **extra)


def qkv(t, q_shape, k_shape, v_shape):
    # Narrow dtypes: positive v keeps the weighted average free of cancellation (see above).
    lo = 0.5 if t in NARROW else -3.0
    return fvalues(t, q_shape), fvalues(t, k_shape), fvalues(t, v_shape, lo, 3.0)


def float_mask(mt, shape, dead_row=None):
    m = rounded(mt, rng.choice([0.0, -1.5, 0.5, -math.inf, 2.0], size=shape))
    if dead_row is not None:
        m[..., dead_row, :] = -math.inf
    return m


for t in FLOATS:
    # GQA-style broadcast: one k/v head serves three q heads; default scale.
    q, k, v = qkv(t, (2, 3, 5, 8), (2, 1, 7, 8), (2, 1, 7, 6))
    attention_case(t, q, k, v)
    # Causal decode against a longer cache (Tq = 1, Tk = 37), 4 q heads on 1 k/v head.
    q, k, v = qkv(t, (4, 1, 16), (1, 37, 16), (1, 37, 16))
    attention_case(t, q, k, v, causal=True)
    # Causal prefill with Tq < Tk (queries at the end of the keys) and an explicit scale.
    q, k, v = qkv(t, (2, 3, 4), (2, 5, 4), (2, 5, 3))
    attention_case(t, q, k, v, scale=0.75, causal=True)
    # Float masks of every float dtype: [Tq, Tk] broadcast over the heads, one row all -inf.
    for mt in FLOATS:
        q, k, v = qkv(t, (2, 4, 6), (2, 5, 6), (2, 5, 3))
        attention_case(t, q, k, v, float_mask(mt, (4, 5), dead_row=2), mt, scale=0.5)
    # Bool mask [B, 1, Tq, Tk] (false = masked) with a fully masked row, plus causal.
    q, k, v = qkv(t, (2, 2, 4, 4), (2, 2, 6, 4), (2, 2, 6, 5))
    bm = rng.integers(0, 2, size=(2, 1, 4, 6)).astype(bool)
    bm[1, 0, 3, :] = False
    attention_case(t, q, k, v, bm, "bool", causal=True)
    # A causal row that sees no key at all (Tq > Tk) gives 0.
    q, k, v = qkv(t, (4, 4), (2, 4), (2, 2))
    attention_case(t, q, k, v, causal=True)

for t in ["f32", "f64", "f16"]:
    # Larger than one tile (128 queries x 512 keys): online softmax across key blocks, masks
    # with rows cut at block edges, a row that is -inf only in its first block.
    q, k, v = qkv(t, (140, 4), (600, 4), (600, 3))
    m = float_mask("f8", (140, 600))  # f8: one byte a value keeps the fixture small
    m[5, :] = -math.inf
    m[6, :512] = -math.inf
    attention_case(t, q, k, v, m, "f8")
    q, k, v = qkv(t, (2, 260, 4), (2, 260, 4), (2, 260, 4))
    attention_case(t, q, k, v, causal=True)
    # Decode over a cache longer than one key block.
    q, k, v = qkv(t, (1, 1, 8), (1, 2500, 8), (1, 2500, 8))
    attention_case(t, q, k, v, causal=True)

# Zero-sized dims: no queries, no keys (every row masked: 0), no batches, no depth.
for t in ["f32", "f16"]:
    attention_case(t, *qkv(t, (2, 0, 4), (2, 3, 4), (2, 3, 5)))
    attention_case(t, *qkv(t, (2, 3, 4), (2, 0, 4), (2, 0, 5)))
    attention_case(t, *qkv(t, (0, 3, 4), (1, 3, 4), (1, 3, 5)))
    attention_case(t, *qkv(t, (2, 3, 0), (2, 3, 0), (2, 3, 5)))

# NaN in q makes its row NaN (as softmax does), unless a bool mask drops every key of the row.
for t in ["f32", "f64", "f16"]:
    q, k, v = qkv(t, (2, 3, 4), (2, 5, 4), (2, 5, 3))
    q[0, 1, 2] = math.nan
    q[1, 0, 0] = math.nan
    attention_case(t, q, k, v)
    bm = np.ones((2, 3, 5), dtype=bool)
    bm[0, 1, :] = False
    bm[1, 2, 1] = False
    attention_case(t, q, k, v, bm, "bool")

# ops.md: the weighted sums of v start at +0.0, as numpy's matmul does, so v of only -0.0 gives
# +0.0 (exact in any order: no tolerance). Fixed q and k keep the rng's sequence for the rest.
for t in FLOATS:
    q = rounded(t, np.linspace(-2.0, 2.0, 2 * 3 * 4).reshape(2, 3, 4))
    k = rounded(t, np.linspace(1.5, -1.5, 2 * 5 * 4).reshape(2, 5, 4))
    v = np.full((2, 5, 3), -0.0)
    ref = rounded(t, attention_ref(q, k, v))
    assert not np.signbit(ref).any()
    add_case("attention", [tensor(t, q), tensor(t, k), tensor(t, v)], tensor(t, ref))
    bm = np.ones((2, 3, 5), dtype=bool)
    bm[1, 2, :] = False  # a row that sees no key: 0
    ref = rounded(t, attention_ref(q, k, v, bm))
    add_case("attention", [tensor(t, q), tensor(t, k), tensor(t, v), tensor("bool", bm)],
             tensor(t, ref))


# --- rope -----------------------------------------------------------------------------------
def rope_ref(x, pos, theta=10000.0, interleaved=False):
    x = np.asarray(x, dtype=np.float64)
    t_len, d = x.shape[-2], x.shape[-1]
    half = d // 2
    y = x.copy()
    for t in range(t_len):
        p = float(pos + t)
        for i in range(half):
            angle = p * theta ** (-2.0 * i / d)
            c, s = math.cos(angle), math.sin(angle)
            ia, ib = (2 * i, 2 * i + 1) if interleaved else (i, i + half)
            a, b = x[..., t, ia], x[..., t, ib]
            y[..., t, ia] = a * c - b * s
            y[..., t, ib] = a * s + b * c
    return y


for t in FLOATS:
    for pt in ["i32", "i64"]:
        for mode in ["normal", "inplace"]:
            for interleaved in [False, True]:
                pos = {"i32": 4100, "i64": 70000}[pt] if interleaved else 3
                x = fvalues(t, (2, 3, 5, 8))
                st = [] if not interleaved else [bsetting("interleaved", True)]
                ref = rounded(t, rope_ref(x, pos, interleaved=interleaved))
                add_case("rope", [tensor(t, x), tensor(pt, np.array(pos))], tensor(t, ref), st,
                         mode=mode, inplace_input=0 if mode == "inplace" else None,
                         **({"ulp": 1} if t in NARROW else {"tolerance": [1e-6, 1e-6]}
                            if t == "f32" else {"tolerance": [1e-13, 1e-13]}))
for t in ["f32", "f64"]:  # another theta, a large i64 position, a zero-sized T
    x = fvalues(t, (3, 6))
    add_case("rope", [tensor(t, x), tensor("i64", np.array(5_000_000_000))],
             tensor(t, rounded(t, rope_ref(x, 5_000_000_000, theta=500.0))),
             [fsetting("theta", 500.0)], tolerance=[1e-5, 1e-5] if t == "f32" else [1e-9, 1e-9])
    x = fvalues(t, (2, 0, 4))
    add_case("rope", [tensor(t, x), tensor("i32", np.array(7))], tensor(t, x))


# --- dequantize -----------------------------------------------------------------------------
def qrange(xt):
    b = INT_BITS[xt]
    return (-(1 << (b - 1)), (1 << (b - 1)) - 1) if xt[0] == "i" else (0, (1 << b) - 1)


def dequantize_ref(t, x, scale, zero, axis):
    x = np.asarray(x, dtype=object)
    shape = [1] * x.ndim
    if np.ndim(scale) == 1:
        shape[axis] = -1
    sc = np.asarray(scale, dtype=np.float64).reshape(shape)
    zp = np.zeros(1, dtype=object) if zero is None else np.asarray(zero, dtype=object)
    diff = (x - zp.reshape(shape if np.ndim(zero) == 1 else [1] * x.ndim)).astype(np.float64)
    # diff is a small exact integer: the product is rounded once, as the kernel does in f32/f64.
    ct = "f64" if t == "f64" else "f32"
    prod = np.vectorize(lambda a, b: round_to(ct, Fraction(a) * Fraction(b)),
                        otypes=[np.float64])(*np.broadcast_arrays(diff, sc))
    return rounded(t, prod)


for xt in INT_BITS:
    lo, hi = qrange(xt)
    for t in FLOATS:
        for with_zero in [False, True]:
            # Per-axis along the default axis 1; odd element count so i4/u4 end mid-byte.
            x = rng.integers(lo, hi + 1, size=(3, 5, 3)).astype(object)
            x.reshape(-1)[0], x.reshape(-1)[1] = lo, hi
            scale = fvalues(t, (5,), 0.01, 2.0)
            zero = rng.integers(lo, hi + 1, size=(5,)) if with_zero else None
            ins = [tensor(xt, x), tensor(t, scale)] + ([tensor(xt, zero)] if with_zero else [])
            add_case("dequantize", ins, tensor(t, dequantize_ref(t, x, scale, zero, 1)))
            # A scalar scale (and zero point) with axis -1 given but unused.
            x = rng.integers(lo, hi + 1, size=(7,)).astype(object)
            scale = fvalues(t, (), 0.01, 2.0)
            zero = np.array(rng.integers(lo, hi + 1)) if with_zero else None
            ins = [tensor(xt, x), tensor(t, scale)] + ([tensor(xt, zero)] if with_zero else [])
            add_case("dequantize", ins, tensor(t, dequantize_ref(t, x, scale, zero, 0)),
                     [isetting("axis", -1)])
    # Per-axis along axis 0 and along the last axis, and zero-sized x.
    x = rng.integers(lo, hi + 1, size=(4, 3)).astype(object)
    for axis in [0, -1]:
        n = x.shape[axis]
        scale, zero = fvalues("f32", (n,), 0.01, 2.0), rng.integers(lo, hi + 1, size=(n,))
        add_case("dequantize", [tensor(xt, x), tensor("f32", scale), tensor(xt, zero)],
                 tensor("f32", dequantize_ref("f32", x, scale, zero, axis % 2)),
                 [isetting("axis", axis)])
    x = np.zeros((2, 0), dtype=object)
    add_case("dequantize", [tensor(xt, x), tensor("f16", fvalues("f16", (0,)))],
             tensor("f16", np.zeros((2, 0))), [isetting("axis", 1)])

with open(OUT, "w") as f:
    f.write('{"format": "openinfer.cpu_kernel_cases", "cases": [\n')
    f.write(",\n".join(json.dumps(c, separators=(",", ":")) for c in cases))
    f.write("\n]}\n")
print(len(cases), "cases")
