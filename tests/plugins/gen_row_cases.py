#!/usr/bin/python3
"""Writes cases/rows.json: f32 kernel cases of softmax, log_softmax, layer_norm and rms_norm
(ops-nn.md) sized for the CPU backend's vector row path (row_ops_f32): rows not a multiple of 8
long, rows shorter than 8, enough rows and values for two threads, a normalized run spanning two
axes, NaN, infinities and underflowing terms. Expectations come from float64 numpy following
ops-nn.md's formulas (softmax: m = max with NaN propagating, e^(x - m) / sum; the norms over
axis..rank-1 with the population variance), rounded once to f32; compared with ops-nn.md's f32
tolerance (atol 1e-5, rtol 1e-4). Nothing here runs OpenInfer code.

Run: /usr/bin/python3 tests/plugins/gen_row_cases.py  (writes cases/rows.json)
--out DIR writes it in DIR instead."""
import json
import math

import numpy as np

from case_output import output_path

OUT = output_path("rows.json")

rng = np.random.default_rng(20261124)
TOL = [1e-5, 1e-4]
cases = []


def tensor(arr):
    arr = np.asarray(arr, dtype=np.float32)
    return {"dtype": "f32", "dims": list(arr.shape), "hex": arr.reshape(-1).tobytes().hex()}


def f32(shape, scale=1.0, offset=0.0):
    return (rng.standard_normal(shape) * scale + offset).astype(np.float32)


def add_case(op, inputs, want, settings=()):
    cases.append({"op": op, "mode": "normal", "inputs": [tensor(a) for a in inputs],
                  "output": tensor(want), "settings": list(settings), "tolerance": TOL})


def axis_setting(axis):
    return [] if axis is None else [{"name": "axis", "type": "int", "value": axis}]


# --- softmax, log_softmax ---------------------------------------------------------------------
def softmax_ref(x, axis, log):
    xm = np.moveaxis(np.asarray(x, dtype=np.float64), axis, -1)
    out = np.empty(xm.shape)
    for idx in np.ndindex(*xm.shape[:-1]):
        row = xm[idx]
        m = math.nan if np.isnan(row).any() else (row.max() if row.size else -math.inf)
        with np.errstate(invalid="ignore", over="ignore"):
            e = row - m
            total = np.exp(e).sum()
            out[idx] = e - math.log(total) if log else np.exp(e) / total
    return np.moveaxis(out, -1, axis)


def softmax_inputs():
    yield (5, 37), None, f32((5, 37), 3.0)
    yield (3, 8), None, f32((3, 8), 3.0)
    yield (4, 3), None, f32((4, 3), 3.0)
    yield (12, 2741), None, f32((12, 2741), 4.0)  # two threads
    yield (3, 33, 1), 1, f32((3, 33, 1), 3.0)  # the axis is the last non-unit one
    special = f32((7, 19), 2.0)
    special[0, 5] = math.nan  # a NaN makes its row NaN
    special[1, 18] = math.inf  # inf - inf: NaN row
    special[2, :] = -math.inf  # every term -inf: NaN row
    special[3, ::2] = -math.inf  # -inf terms weigh 0
    special[4, :] = np.arange(19) * -20.0  # terms far below e^-87 underflow to 0
    special[5, :] += 1000.0  # large values: no overflow
    special[6, 9] = 90.0  # one dominant term
    yield (7, 19), None, special


for op in ["softmax", "log_softmax"]:
    for shape, axis, x in softmax_inputs():
        want = softmax_ref(x, -1 if axis is None else axis, op == "log_softmax")
        add_case(op, [x], want, axis_setting(axis))


# --- layer_norm, rms_norm -----------------------------------------------------------------------
def norm_ref(x, scale, bias, axis, eps, rms):
    x = np.asarray(x, dtype=np.float64)
    lead = x.shape[:axis % x.ndim]
    rows = x.reshape(int(np.prod(lead)), -1)
    mean = np.zeros((rows.shape[0], 1)) if rms else rows.mean(axis=1, keepdims=True)
    var = ((rows - mean) ** 2).mean(axis=1, keepdims=True)
    y = (rows - mean) / np.sqrt(var + eps) * np.asarray(scale, dtype=np.float64).reshape(1, -1)
    if bias is not None:
        y = y + np.asarray(bias, dtype=np.float64).reshape(1, -1)
    return y.reshape(x.shape)


NORMS = [  # (x shape, axis, with bias, x offset)
    ((5, 37), None, True, 0.0),
    ((3, 8), None, False, 0.0),
    ((4, 5), None, True, 0.0),
    ((12, 2741), None, True, 0.0),  # two threads
    ((3, 4, 29), 1, True, 0.0),  # normalized over two axes: rows of 116
    ((6, 40), None, True, 300.0),  # mean far from 0: the variance needs two passes
]
for op in ["layer_norm", "rms_norm"]:
    eps = 1e-5 if op == "layer_norm" else 1e-6
    for shape, axis, with_bias, offset in NORMS:
        a = -1 if axis is None else axis
        x = f32(shape, 2.0, offset)
        trailing = shape[a % len(shape):]
        scale = f32(trailing)
        bias = f32(trailing) if with_bias and op == "layer_norm" else None
        ins = [x, scale] + ([] if bias is None else [bias])
        add_case(op, ins, norm_ref(x, scale, bias, a, eps, op == "rms_norm"), axis_setting(axis))

with open(OUT, "w") as f:
    f.write('{"format": "openinfer.cpu_kernel_cases", "cases": [\n')
    f.write(",\n".join(json.dumps(c, separators=(",", ":")) for c in cases))
    f.write("\n]}\n")
print(len(cases), "cases")
