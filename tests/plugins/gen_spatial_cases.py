#!/usr/bin/python3
"""Writes cases/spatial.json: kernel cases of conv, max_pool, avg_pool and batch_norm
(ops-nn.md) with independently computed expectations. Float conv references come from PyTorch's
float64 conv (asymmetric pads applied first with F.pad), integer conv from Python's exact ints
wrapped at the output width, pools from plain window loops over exact values (Fractions for
avg_pool), batch_norm from float64 numpy; each result rounded once to the output dtype (nearest,
ties to even) as ops.md says. Nothing here runs OpenInfer code.

Run: /usr/bin/python3 tests/plugins/gen_spatial_cases.py  (writes cases/spatial.json)
--out DIR writes it in DIR instead."""
import json
import math
from fractions import Fraction

import numpy as np

from exact_floats import FLOATS, FMT, NARROW, float_bits, floor_log2, round_to  # noqa: E402,F401
import torch
import torch.nn.functional as F

from case_output import output_path

OUT = output_path("spatial.json")

rng = np.random.default_rng(20261123)
BITS = {"i1": 1, "i2": 2, "i4": 4, "u1": 1, "u2": 2, "u4": 4, "i8": 8, "u8": 8, "i16": 16,
        "u16": 16, "i32": 32, "u32": 32, "i64": 64, "u64": 64, "bitset": 8, "bool": 8}
SIGNED = ["i1", "i2", "i4", "i8", "i16", "i32", "i64"]
UNSIGNED = ["u1", "u2", "u4", "u8", "u16", "u32", "u64"]
ALL = FLOATS + SIGNED + UNSIGNED + ["bool", "bitset"]
# ops-nn.md accuracy: (atol, rtol) for f32/f64; 2 ulp of the output dtype for narrow floats.
TOL = {"f32": [1e-5, 1e-4], "f64": [1e-12, 1e-10]}
cases = []


# --- integer ranges and wrapping --------------------------------------------------------
def imin(t):
    return -(1 << (BITS[t] - 1)) if t in SIGNED else 0


def imax(t):
    if t == "bool":
        return 1
    return (1 << (BITS[t] - 1)) - 1 if t in SIGNED else (1 << BITS[t]) - 1


def wrap(v, t):
    w = BITS[t]
    v %= 1 << w
    if t in SIGNED and v >= 1 << (w - 1):
        v -= 1 << w
    return v


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


def floats(t, shape, scale=1.0, quarters=False, specials=False):
    """Values exact in t: normal draws rounded to t, or (quarters) multiples of 1/4 in [-3, 3]
    whose products and sums are exact in f32, so a narrow result is one rounding of an exact
    value."""
    n = int(np.prod(shape))
    if quarters:
        v = [round_to(t, k / 4) for k in rng.integers(-12, 13, n)]
    else:
        v = [round_to(t, float(x)) for x in rng.standard_normal(n) * scale]
    if specials and n >= 8:
        for k, i in enumerate(rng.permutation(n)[:4]):
            v[i] = [math.nan, math.inf, -math.inf, -0.0][k]
    return np.array(v, dtype=np.float64).reshape(shape)


def ints(t, shape):
    n = int(np.prod(shape))
    v = [int(x) for x in rng.integers(imin(t), imax(t) + 1, n)] if BITS[t] < 64 else \
        [imin(t) + int(x) % (imax(t) - imin(t) + 1) for x in rng.integers(0, 1 << 62, n)]
    if n >= 4:
        v[0], v[1] = imin(t), imax(t)
        rng.shuffle(v)
    return np.array(v, dtype=object).reshape(shape)


def add_case(op, mode, inputs, output, settings=(), tol_type=None, inplace_input=None):
    case = {"op": op, "mode": mode, "inputs": inputs, "output": output,
            "settings": list(settings)}
    if inplace_input is not None:
        case["inplace_input"] = inplace_input
    if tol_type in TOL:
        case["tolerance"] = TOL[tol_type]
    elif tol_type in NARROW:
        case["ulp"] = 2
    cases.append(case)


def ilist(name, v):
    return {"name": name, "type": "int_list", "value": list(v)}


def spatial_settings(strides=None, pads=None, dilations=None, group=None, kernel=None):
    st = []
    if kernel is not None:
        st.append(ilist("kernel", kernel))
    if strides is not None:
        st.append(ilist("strides", strides))
    if pads is not None:
        st.append(ilist("pads", pads))
    if dilations is not None:
        st.append(ilist("dilations", dilations))
    if group is not None:
        st.append({"name": "group", "type": "int", "value": group})
    return st


def out_size(n, k, s, d, pb, pe):
    return (n + pb + pe - d * (k - 1) - 1) // s + 1


# --- conv ------------------------------------------------------------------------------------
def conv_float_ref(x, w, b, strides, pads, dilations, group):
    nd = x.ndim - 2
    strides = strides or [1] * nd
    pads = pads or [0] * (2 * nd)
    dilations = dilations or [1] * nd
    tx = torch.tensor(x, dtype=torch.float64)
    # F.pad takes (last-axis begin, last-axis end, previous axis begin, ...).
    order = []
    for i in reversed(range(nd)):
        order += [pads[i], pads[nd + i]]
    tx = F.pad(tx, order)
    fn = F.conv1d if nd == 1 else F.conv2d
    tb = None if b is None else torch.tensor(b, dtype=torch.float64)
    if x.size == 0:  # torch refuses convs over empty tensors
        oshape = [x.shape[0], w.shape[0]] + [
            out_size(x.shape[2 + i], w.shape[2 + i], strides[i], dilations[i], pads[i],
                     pads[nd + i]) for i in range(nd)]
        y = np.zeros(oshape)
        if b is not None:
            y += np.asarray(b).reshape([1, -1] + [1] * nd)
        return y
    y = fn(tx, torch.tensor(w, dtype=torch.float64), tb, stride=strides, dilation=dilations,
           groups=group)
    return y.numpy()


def conv_int_ref(x, w, b, strides, pads, dilations, group, out_t):
    nd = x.ndim - 2
    if nd == 1:
        x, w = x[:, :, None, :], w[:, :, None, :]
        strides = [1] + (strides or [1])
        dilations = [1] + (dilations or [1])
        pads = [0, pads[0], 0, pads[1]] if pads else None
    strides = strides or [1, 1]
    dilations = dilations or [1, 1]
    pads = pads or [0, 0, 0, 0]
    N, C, H, W = x.shape
    M, Cg, KH, KW = w.shape
    OH = out_size(H, KH, strides[0], dilations[0], pads[0], pads[2])
    OW = out_size(W, KW, strides[1], dilations[1], pads[1], pads[3])
    Mg = M // group
    y = np.zeros((N, M, OH, OW), dtype=object)
    for n in range(N):
        for m in range(M):
            c0 = (m // Mg) * Cg
            for oh in range(OH):
                for ow in range(OW):
                    s = 0 if b is None else int(b[m])
                    for c in range(Cg):
                        for kh in range(KH):
                            ih = oh * strides[0] + kh * dilations[0] - pads[0]
                            if not 0 <= ih < H:
                                continue
                            for kw in range(KW):
                                iw = ow * strides[1] + kw * dilations[1] - pads[1]
                                if 0 <= iw < W:
                                    s += int(x[n, c0 + c, ih, iw]) * int(w[m, c, kh, kw])
                    y[n, m, oh, ow] = wrap(s, out_t)
    return y[:, :, 0, :] if nd == 1 else y


# (x shape, w shape, bias?, strides, pads, dilations, group)
CONV_SHAPES = [
    ((2, 3, 5, 6), (4, 3, 3, 3), True, None, [1, 1, 1, 1], None, 1),          # plain 3x3
    ((1, 4, 7, 6), (6, 2, 2, 3), False, [2, 1], [1, 0, 2, 1], [2, 1], 2),      # groups, asym
    ((2, 3, 6, 5), (3, 1, 3, 3), True, None, [1, 1, 1, 1], None, 3),           # depthwise
    ((1, 2, 7, 7), (4, 1, 3, 3), False, [2, 2], [0, 1, 2, 0], [1, 2], 2),      # depthwise x2
    ((2, 3, 9), (2, 3, 3), True, [2], [1, 2], [2], 1),                         # 1-D
    ((1, 4, 8), (4, 1, 3), False, None, [1, 1], None, 4),                      # 1-D depthwise
    ((2, 4, 3, 3), (5, 4, 1, 1), True, None, None, None, 1),                   # pointwise
    ((1, 4, 5, 5), (4, 2, 1, 1), False, [2, 2], None, None, 2),                # 1x1 strided
    ((0, 3, 4, 4), (2, 3, 3, 3), True, None, None, None, 1),                   # N = 0
    ((1, 0, 4, 4), (2, 0, 3, 3), True, None, None, None, 1),                   # C = 0: bias
    ((1, 2, 0, 4), (2, 2, 1, 3), False, None, None, None, 1),                  # H = 0
]
# Large enough for OpenBLAS, oneTBB and the column-matrix chunking (f32/f64 only).
CONV_LARGE = [
    ((1, 16, 12, 12), (32, 16, 3, 3), True, None, [1, 1, 1, 1], None, 1),
    ((2, 64, 10, 10), (64, 1, 3, 3), True, [1, 1], [1, 1, 1, 1], None, 64),
    ((2, 32, 8, 8), (48, 32, 1, 1), False, None, None, None, 1),
    # stride 1, dilated and asymmetric; grouped with 8 channels per group (OpenBLAS path)
    ((2, 16, 14, 14), (24, 16, 3, 3), True, None, [1, 2, 0, 1], [1, 2], 1),
    ((2, 32, 16, 16), (32, 8, 3, 3), False, None, [1, 1, 1, 1], None, 4),
]


def conv_case(t, shape, large=False):
    xs, ws, with_b, strides, pads, dil, group = shape
    quarters = t in NARROW
    x = floats(t, xs, quarters=quarters)
    w = floats(t, ws, scale=0.5, quarters=quarters)
    b = floats(t, (ws[0],), quarters=quarters) if with_b else None
    y = conv_float_ref(x, w, b, strides, pads, dil, group)
    yr = np.vectorize(lambda v: round_to(t, float(v)), otypes=[np.float64])(y) if y.size else y
    ins = [tensor(t, x), tensor(t, w)] + ([tensor(t, b)] if with_b else [])
    add_case("conv", "normal", ins, tensor(t, yr),
             spatial_settings(strides, pads, dil, None if group == 1 else group), tol_type=t)


for t in FLOATS:
    for shape in CONV_SHAPES:
        conv_case(t, shape)
    if t in ("f32", "f64"):
        for shape in CONV_LARGE:
            conv_case(t, shape)

# i8/u8: wrapping at the output width without acc=, exact with acc=i32/u32.
INT_CONV = [CONV_SHAPES[0], CONV_SHAPES[1], CONV_SHAPES[3], CONV_SHAPES[4], CONV_SHAPES[9]]
for t, acc in [("i8", "i32"), ("u8", "u32")]:
    for shape in INT_CONV:
        xs, ws, with_b, strides, pads, dil, group = shape
        x, w = ints(t, xs), ints(t, ws)
        st = spatial_settings(strides, pads, dil, None if group == 1 else group)
        for bias_t in [None, t, acc]:
            b = None if bias_t is None else ints(bias_t, (ws[0],))
            ins = [tensor(t, x), tensor(t, w)] + ([] if b is None else [tensor(bias_t, b)])
            if bias_t != acc:
                add_case("conv", "normal", ins,
                         tensor(t, conv_int_ref(x, w, b, strides, pads, dil, group, t)), st)
            add_case("conv", "accumulate", ins,
                     tensor(acc, conv_int_ref(x, w, b, strides, pads, dil, group, acc)),
                     st + [{"name": "acc", "type": "dtype", "value": acc}])


# --- pools -----------------------------------------------------------------------------------
def windows(xshape, kernel, strides, pads, dilations):
    """For each output index (n, c, o...) the input indices of its window inside x."""
    nd = len(xshape) - 2
    strides = strides or [1] * nd
    pads = pads or [0] * (2 * nd)
    dilations = dilations or [1] * nd
    outs = [out_size(xshape[2 + i], kernel[i], strides[i], dilations[i], pads[i], pads[nd + i])
            for i in range(nd)]
    result = {}
    for idx in np.ndindex(*xshape[:2], *outs):
        cells = []
        for taps in np.ndindex(*kernel):
            pos = [idx[2 + i] * strides[i] + taps[i] * dilations[i] - pads[i] for i in range(nd)]
            if all(0 <= pos[i] < xshape[2 + i] for i in range(nd)):
                cells.append(tuple(idx[:2]) + tuple(pos))
        result[idx] = cells
    return [xshape[0], xshape[1]] + outs, result


def fmax(a, b):
    if math.isnan(a):
        return a
    if math.isnan(b):
        return b
    if a == b:
        return b if math.copysign(1, a) < 0 else a
    return max(a, b)


def unsigned_bits(v, t):
    return int(v) % (1 << BITS[t])


def max_pool_ref(t, x, kernel, strides, pads, dilations):
    oshape, win = windows(x.shape, kernel, strides, pads, dilations)
    y = np.zeros(oshape, dtype=np.float64 if t in FLOATS else object)
    for idx, cells in win.items():
        if t in FLOATS:
            m = -math.inf
            for c in cells:
                m = fmax(m, float(x[c]))
        else:
            m = imin(t) if t != "bitset" else 0
            for c in cells:
                m = max(m, int(x[c]))
        y[idx] = m
    return y


POOLS = [  # (x shape, kernel, strides, pads, dilations)
    ((2, 2, 5, 5), [3, 3], [2, 2], [1, 1, 1, 1], None),
    ((2, 3, 8), [3], None, [2, 1], [2]),
    ((1, 2, 6, 7), [2, 3], [1, 2], [0, 1, 1, 0], [2, 1]),
    ((1, 1, 4, 4), [2, 2], None, None, None),
    ((0, 2, 4, 4), [2, 2], None, None, None),
    ((1, 2, 0, 3), [1, 2], None, None, None),
]

for t in ALL:
    for xs, kernel, strides, pads, dil in POOLS:
        if t in FLOATS:
            x = floats(t, xs, scale=4, specials=True)
        elif t == "bool":
            x = np.array(rng.integers(0, 2, int(np.prod(xs))), dtype=object).reshape(xs)
        elif t == "bitset":
            x = np.array(rng.integers(0, 256, int(np.prod(xs))), dtype=object).reshape(xs)
        else:
            x = ints(t, xs)
        add_case("max_pool", "normal", [tensor(t, x)],
                 tensor(t, max_pool_ref(t, x, kernel, strides, pads, dil)),
                 spatial_settings(strides, pads, dil, kernel=kernel))
    if t in FLOATS:  # all negative: a padded 0 must never win
        x = -np.abs(floats(t, (1, 2, 4, 4), scale=4)) - round_to(t, 0.5)
        st = spatial_settings([2, 2], [1, 1, 1, 1], None, kernel=[3, 3])
        add_case("max_pool", "normal", [tensor(t, x)],
                 tensor(t, max_pool_ref(t, x, [3, 3], [2, 2], [1, 1, 1, 1], None)), st)


def avg_pool_ref(t, x, kernel, strides, pads, include_pad):
    oshape, win = windows(x.shape, kernel, strides, pads, None)
    y = np.zeros(oshape)
    for idx, cells in win.items():
        vals = [float(x[c]) for c in cells]
        count = int(np.prod(kernel)) if include_pad else len(cells)
        if any(math.isnan(v) for v in vals) or (math.inf in vals and -math.inf in vals):
            y[idx] = math.nan
        elif math.inf in vals or -math.inf in vals:
            y[idx] = math.inf if math.inf in vals else -math.inf
        else:
            y[idx] = round_to(t, sum(Fraction(v) for v in vals) / count)
    return y


for t in FLOATS:
    for xs, kernel, strides, pads, _ in POOLS:
        for include in [None, True, False]:
            x = floats(t, xs, scale=2, quarters=t in NARROW)
            st = spatial_settings(strides, pads, None, kernel=kernel)
            if include is not None:
                st.append({"name": "count_include_pad", "type": "bool", "value": include})
            add_case("avg_pool", "normal", [tensor(t, x)],
                     tensor(t, avg_pool_ref(t, x, kernel, strides, pads, bool(include))), st,
                     tol_type=t)
    x = floats(t, (1, 2, 4, 4), specials=True)  # NaN and infinities propagate
    add_case("avg_pool", "normal", [tensor(t, x)],
             tensor(t, avg_pool_ref(t, x, [2, 2], [2, 2], None, False)),
             spatial_settings([2, 2], None, None, kernel=[2, 2]), tol_type=t)


# --- batch_norm ------------------------------------------------------------------------------
def batch_norm_ref(t, x, scale, bias, mean, var, eps):
    shape = [1, -1] + [1] * (x.ndim - 2)
    with np.errstate(all="ignore"):
        y = (x - mean.reshape(shape)) / np.sqrt(var.reshape(shape) + eps) * scale.reshape(shape) \
            + bias.reshape(shape)
    return np.vectorize(lambda v: round_to(t, float(v)), otypes=[np.float64])(y) if y.size else y


for t in FLOATS:
    for xs, eps in [((2, 3, 4, 5), None), ((4, 3), None), ((2, 3, 7), 1e-3), ((0, 3, 2), None),
                    ((1, 2, 3), 0.5)]:
        for mode in ["normal", "inplace"]:
            c = xs[1]
            x = floats(t, xs, scale=2)
            scale, bias, mean = floats(t, (c,)), floats(t, (c,)), floats(t, (c,))
            var = np.abs(floats(t, (c,), scale=2))
            st = [] if eps is None else [{"name": "epsilon", "type": "float", "value": eps}]
            ref = batch_norm_ref(t, x, scale, bias, mean, var, 1e-5 if eps is None else eps)
            add_case("batch_norm", mode, [tensor(t, v) for v in (x, scale, bias, mean, var)],
                     tensor(t, ref), st, tol_type=t,
                     inplace_input=0 if mode == "inplace" else None)


# --- depthwise edges (the f32 vector path: 8 output columns per vector, two rows at a time) --
# Appended last so the cases above keep their random draws. (x shape, w shape, bias?, strides,
# pads, dilations, group)
DEPTHWISE_EDGES = [
    ((1, 4, 9, 13), (4, 1, 3, 3), True, None, [1, 1, 1, 1], None, 4),          # width 13, odd H
    ((1, 3, 5, 7), (3, 1, 3, 3), True, None, [1, 1, 1, 1], None, 3),           # width < 8
    ((1, 2, 6, 16), (2, 1, 3, 3), False, None, [1, 1, 1, 1], None, 2),         # width 16
    ((1, 2, 4, 8), (2, 1, 3, 3), True, None, [1, 1, 1, 1], None, 2),           # width 8
    ((1, 3, 15, 17), (3, 1, 3, 3), True, [2, 2], [1, 1, 1, 1], None, 3),       # stride 2
    ((1, 2, 11, 21), (2, 1, 3, 3), False, [1, 2], [1, 1, 1, 1], None, 2),      # stride 2 on W
    ((1, 2, 13, 10), (2, 1, 3, 3), True, [2, 1], [1, 0, 1, 2], None, 2),       # stride 2 on H
    ((1, 3, 12, 19), (3, 1, 3, 3), True, None, [2, 2, 2, 2], [2, 2], 3),       # dilation 2
    ((1, 2, 10, 23), (2, 1, 3, 3), False, None, [1, 2, 1, 2], [1, 2], 2),      # dilation 2 on W
    ((1, 2, 9, 14), (2, 1, 3, 3), True, None, [0, 2, 1, 0], None, 2),          # asymmetric pads
    ((1, 2, 8, 12), (2, 1, 3, 3), True, None, None, None, 2),                  # no pads
    ((1, 2, 11, 11), (2, 1, 5, 5), True, None, [2, 2, 2, 2], None, 2),         # 5x5
    ((1, 2, 7, 18), (2, 1, 2, 3), False, [1, 3], [0, 1, 1, 1], [2, 1], 2),     # 2x3, stride 3
    ((1, 2, 9, 12), (6, 1, 3, 3), True, None, [1, 1, 1, 1], None, 2),          # 3 per channel
    ((2, 3, 37), (3, 1, 3), True, None, [1, 1], None, 3),                      # 1-D
    ((1, 3, 6, 9), (3, 1, 3, 3), True, None, [3, 3, 3, 3], None, 3),           # pads > kernel
    ((1, 48, 20, 20), (48, 1, 3, 3), True, None, [1, 1, 1, 1], None, 48),      # threads
]
for t in ["f32", "f64", "f16"]:
    for shape in DEPTHWISE_EDGES:
        if t == "f32" or shape[0][1] < 48:
            conv_case(t, shape)

with open(OUT, "w") as f:
    f.write('{"format": "openinfer.cpu_kernel_cases", "cases": [\n')
    f.write(",\n".join(json.dumps(c, separators=(",", ":")) for c in cases))
    f.write("\n]}\n")
print(len(cases), "cases")
