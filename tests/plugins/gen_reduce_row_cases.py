#!/usr/bin/python3
"""Writes cases/reduce_rows.json: max_axis, min_axis, argmax_axis and argmin_axis over one long
axis with few outputs (a decoder's argmax over its vocabulary), the shape the Vulkan backend
reduces with a workgroup per output. Expectations follow ops.md by hand-written scans in Python
(no OpenInfer code): the first NaN wins (its index, or its bits for max/min), argmax/argmin
treat -0 and +0 as equal and pick the first (select_first) or last of equal values, max/min
order -0 below +0. All exact.

Run: /usr/bin/python3 tests/plugins/gen_reduce_row_cases.py  (writes cases/reduce_rows.json)
--out DIR writes it in DIR instead."""
import json

import numpy as np

from case_output import output_path

OUT = output_path("reduce_rows.json")

rng = np.random.default_rng(20261123)
cases = []


def tensor(arr, dtype):
    arr = np.asarray(arr, dtype=np.dtype(dtype))
    return {"dtype": {"<f4": "f32", "<i4": "i32", "<u4": "u32", "<f2": "f16", "|u1": "u8",
                      "<i8": "i64"}[arr.dtype.str],
            "dims": list(arr.shape), "hex": arr.reshape(-1).tobytes().hex()}


def key(v):
    """Comparison key: -0 equals +0 (argmax/argmin)."""
    return float(v) if isinstance(v, np.floating) else int(v)


def order_key(v):
    """max/min: -0 below +0."""
    if isinstance(v, np.floating) and v == 0:
        return (0.0, 0 if np.signbit(v) else 1)
    return (key(v), 0)


def scan(row, op, select_first):
    for i, v in enumerate(row):
        if isinstance(v, np.floating) and np.isnan(v):
            return i, v
    best, at = row[0], 0
    for i in range(1, len(row)):
        v = row[i]
        if op in ("max", "min"):
            better = order_key(v) > order_key(best) if op == "max" else order_key(v) < order_key(best)
            tie = False
        else:
            better = key(v) > key(best) if op == "argmax" else key(v) < key(best)
            tie = key(v) == key(best)
        if better or (tie and not select_first):
            best, at = v, i
    return at, best


def add(op, x, axis, select_first=True):
    xm = np.moveaxis(x, axis, -1)
    flat = xm.reshape(-1, xm.shape[-1])
    results = [scan(list(r), op, select_first) for r in flat]
    out_shape = xm.shape[:-1]
    if op in ("argmax", "argmin"):
        want = np.array([r[0] for r in results], dtype=np.int64).reshape(out_shape)
        settings = [{"name": "axis", "type": "int", "value": axis},
                    {"name": "keepdims", "type": "bool", "value": False},
                    {"name": "select_first", "type": "bool", "value": select_first}]
        out = tensor(want, "<i8")
    else:
        want = np.array([r[1] for r in results], dtype=x.dtype).reshape(out_shape)
        settings = [{"name": "axes", "type": "int_list", "value": [axis]},
                    {"name": "keepdims", "type": "bool", "value": False}]
        out = tensor(want, x.dtype.str)
    cases.append({"op": op + "_axis", "mode": "normal", "inputs": [tensor(x, x.dtype.str)],
                  "output": out, "settings": settings})


def f32(shape):
    # a coarse grid, so that ties are common
    return (rng.integers(-200, 200, size=shape) / 8).astype(np.float32)


def nan_with_payload(payload):
    return np.array([0x7fc00000 | payload], dtype=np.uint32).view(np.float32)[0]


# plain rows, both axes, both tie rules
vocab = f32((1, 50257))
add("argmax", vocab, 1)
for op in ("argmax", "argmin", "max", "min"):
    for shape, axis in (((2, 1500), 1), ((1100, 2), 0), ((1, 1024), 1)):
        x = f32(shape)
        for first in ((True, False) if op.startswith("arg") else (True,)):
            add(op, x, axis, first)

# NaNs: the first one wins, wherever the threads meet
x = f32((2, 2000))
x[0, 1601] = nan_with_payload(7)
x[0, 37] = nan_with_payload(3)
x[0, 299] = nan_with_payload(5)
x[1, 1999] = nan_with_payload(9)
for op in ("argmax", "argmin", "max", "min"):
    add(op, x, 1)

# signed zeros: equal for argmax (tie rule), ordered for max/min
z = np.zeros((2, 1100), dtype=np.float32)
z[0, ::3] = -0.0
z[1, :] = -0.0
z[1, 1077] = 0.0
for op in ("argmax", "argmin", "max", "min"):
    for first in ((True, False) if op.startswith("arg") else (True,)):
        add(op, z, 1, first)

# infinities and the largest value at the ends
y = f32((3, 1500))
y[0, 0] = np.inf
y[1, 1499] = np.inf
y[2, :] = -np.inf
for op in ("argmax", "argmin", "max", "min"):
    add(op, y, 1)

# integers and a narrow float
i = rng.integers(-2**31, 2**31 - 1, size=(2, 1501), dtype=np.int64).astype(np.int32)
i[1, 100] = i[1, 1400] = np.iinfo(np.int32).max
for op in ("argmax", "argmin", "max", "min"):
    for first in ((True, False) if op.startswith("arg") else (True,)):
        add(op, i, 1, first)
u = rng.integers(0, 2**32, size=(1, 2048), dtype=np.uint64).astype(np.uint32)
for op in ("argmax", "argmin", "max", "min"):
    add(op, u, 1)
h = f32((2, 2500)).astype(np.float16)
for op in ("argmax", "argmin"):
    for first in (True, False):
        add(op, h, 1, first)
b = rng.integers(0, 256, size=(3, 1200)).astype(np.uint8)
for op in ("argmax", "argmin"):
    for first in (True, False):
        add(op, b, 1, first)

with open(OUT, "w") as f:
    json.dump({"format": "openinfer.cpu_kernel_cases", "cases": cases}, f, separators=(",", ":"))
    f.write("\n")
print(f"wrote {len(cases)} cases")
