#!/usr/bin/python3
"""Writes cases/conv_tiles.json: float conv cases (ops-nn.md) aimed at the edges of tiled conv
kernels (the Vulkan backend's implicit GEMM and depthwise tiles): output channels, pixels and
K = C/group*KH*KW that are no multiple of a tile, groups 2, 4 and 8, depthwise with 1, 2 and 3
output channels a channel, a single input channel, dilation 2 and 3, strides 2 and 3,
asymmetric pads, 1-D convs (long rows too), 1x1 convs, batch 2, with and without bias, a
depthwise window too wide for shared memory, enough depthwise channels for taller tiles (2 and
4 output rows an invocation), in f32 and (a subset) f16, bf16 and f8; and the CPU backend's
column tiles (long K, tiles that start mid-row) in f32 and f64.

Inputs are dyadic: x multiples of 1/4 in [-3, 3], w and b multiples of 1/8 in [-1, 1] (each
rounded to the dtype), so every product and partial sum is exact in f32 and the result does not
depend on the summation order. Expectations come from numpy float64 (pad, then one einsum per
tap and group; exact for these inputs), rounded once to the output dtype; the f32 cases carry
ops-nn.md's conv tolerance, the narrow ones its 2 ulp. Nothing here runs OpenInfer code.

Run: /usr/bin/python3 tests/plugins/gen_conv_tile_cases.py  (writes cases/conv_tiles.json)
--out DIR writes it in DIR instead."""
import json

import numpy as np

from exact_floats import NARROW, float_bits, round_to
from case_output import output_path

OUT = output_path("conv_tiles.json")

rng = np.random.default_rng(20261124)
TOL = {"f32": [1e-5, 1e-4], "f64": [1e-12, 1e-10]}  # ops-nn.md; narrow floats: 2 ulp
cases = []


def tensor(t, arr):
    arr = np.asarray(arr, dtype=np.float64)
    flat = arr.reshape(-1)
    if t == "f32":
        data = flat.astype(np.float32).tobytes()
    elif t == "f64":
        data = flat.astype(np.float64).tobytes()
    else:
        nb = 1 if t == "f8" else 2
        data = b"".join(float_bits(t, float(v)).to_bytes(nb, "little") for v in flat)
    return {"dtype": t, "dims": list(arr.shape), "hex": data.hex()}


def dyadic(t, shape, steps, denominator):
    """Multiples of 1/denominator in [-steps, steps]/denominator, each rounded to t."""
    v = rng.integers(-steps, steps + 1, int(np.prod(shape))) / denominator
    return np.array([round_to(t, float(a)) for a in v]).reshape(shape)


def out_size(n, k, s, d, pb, pe):
    return (n + pb + pe - d * (k - 1) - 1) // s + 1


def conv_ref(x, w, b, strides, pads, dilations, group):
    """float64 conv: zero padding, then for each group and tap one product over the channels."""
    nd = x.ndim - 2
    if nd == 1:  # as 2-D with H = 1
        y = conv_ref(x[:, :, None, :], w[:, :, None, :], b, [1] + strides, [0, pads[0], 0, pads[1]],
                     [1] + dilations, group)
        return y[:, :, 0, :]
    n, _, h, wd = x.shape
    m, cg, kh, kw = w.shape
    sh, sw = strides
    dh, dw = dilations
    oh = out_size(h, kh, sh, dh, pads[0], pads[2])
    ow = out_size(wd, kw, sw, dw, pads[1], pads[3])
    xp = np.pad(x, ((0, 0), (0, 0), (pads[0], pads[2]), (pads[1], pads[3])))
    y = np.zeros((n, m, oh, ow))
    mg = m // group
    for g in range(group):
        xs = xp[:, g * cg:(g + 1) * cg]
        wg = w[g * mg:(g + 1) * mg]
        for i in range(kh):
            for j in range(kw):
                patch = xs[:, :, i * dh:i * dh + sh * (oh - 1) + 1:sh,
                           j * dw:j * dw + sw * (ow - 1) + 1:sw]
                y[:, g * mg:(g + 1) * mg] += np.einsum("ncij,mc->nmij", patch, wg[:, :, i, j])
    if b is not None:
        y += b.reshape(1, -1, 1, 1)
    return y


def ilist(name, v):
    return {"name": name, "type": "int_list", "value": list(v)}


def conv_case(t, shape):
    xs, ws, with_bias, strides, pads, dilations, group = shape
    nd = len(xs) - 2
    strides = strides or [1] * nd
    pads = pads or [0] * (2 * nd)
    dilations = dilations or [1] * nd
    x = dyadic(t, xs, 12, 4)
    w = dyadic(t, ws, 8, 8)
    b = dyadic(t, (ws[0],), 8, 8) if with_bias else None
    y = conv_ref(x, w, b, strides, pads, dilations, group)
    y = np.vectorize(lambda v: round_to(t, float(v)), otypes=[np.float64])(y)
    settings = [ilist("strides", strides), ilist("pads", pads), ilist("dilations", dilations)]
    if group != 1:
        settings.append({"name": "group", "type": "int", "value": group})
    case = {"op": "conv", "mode": "normal",
            "inputs": [tensor(t, x), tensor(t, w)] + ([tensor(t, b)] if with_bias else []),
            "output": tensor(t, y), "settings": settings}
    if t in TOL:
        case["tolerance"] = TOL[t]
    elif t in NARROW:
        case["ulp"] = 2
    cases.append(case)


# (x shape, w shape, bias?, strides, pads [begin..., end...], dilations, group)
GEMM = [
    ((1, 5, 9, 11), (70, 5, 3, 3), True, None, [1, 1, 1, 1], None, 1),        # M 70, K 45
    ((2, 6, 7, 10), (33, 6, 3, 3), False, [2, 2], [1, 0, 2, 1], None, 1),     # stride 2, asym
    ((1, 8, 13, 12), (24, 4, 3, 3), True, [3, 3], [1, 1, 1, 1], None, 2),     # groups 2, stride 3
    ((2, 8, 9, 9), (20, 2, 3, 3), True, None, [2, 2, 2, 2], [2, 2], 4),       # groups 4, dilated
    ((1, 40, 8, 9), (36, 40, 1, 1), True, None, None, None, 1),               # 1x1, K 40
    ((2, 17, 6, 7), (65, 17, 1, 1), False, [2, 2], None, None, 1),            # 1x1 stride 2
    ((1, 3, 30, 30), (16, 3, 7, 7), True, [2, 2], [3, 3, 3, 3], None, 1),     # 7x7 stem, K 147
    ((1, 40, 6, 6), (36, 40, 3, 3), True, None, [1, 1, 1, 1], None, 1),       # K 360
    ((1, 8, 12, 12), (72, 8, 3, 3), True, None, [1, 1, 1, 1], None, 1),       # tiles both ways
    ((1, 8, 10, 10), (32, 4, 3, 3), False, None, [1, 1, 1, 1], None, 2),      # 16 per group
    ((1, 6, 15, 14), (10, 6, 3, 3), True, [2, 1], [2, 1, 2, 3], [2, 2], 1),   # dilated, strided
    ((1, 4, 5, 9), (7, 4, 1, 3), True, [1, 2], [0, 1, 0, 0], None, 1),        # 1x3
    ((1, 16, 8, 8), (16, 2, 3, 3), True, None, [1, 1, 1, 1], None, 8),        # groups 8, 2 each
    ((2, 3, 4, 5), (2, 3, 2, 2), True, [3, 2], [2, 0, 1, 3], [3, 1], 1),      # pads > kernel
    ((2, 12, 50), (40, 12, 5), True, [1], [2, 2], [1], 1),                    # 1-D
    ((1, 7, 61), (9, 7, 3), False, [3], [0, 4], [2], 1),                      # 1-D s3 d2 asym
    ((1, 8, 33), (6, 4, 3), True, [2], [1, 1], None, 2),                      # 1-D groups 2
    ((2, 20, 40), (24, 20, 1), False, None, None, None, 1),                   # 1-D 1x1
]
DEPTHWISE = [
    ((1, 8, 12, 12), (8, 1, 3, 3), True, None, [1, 1, 1, 1], None, 8),
    ((2, 4, 9, 10), (8, 1, 3, 3), False, [2, 2], [1, 0, 1, 1], None, 4),      # 2 per channel
    ((1, 3, 17, 40), (3, 1, 3, 3), True, None, [2, 2, 2, 2], [2, 2], 3),      # dilated, 64 wide
    ((1, 2, 20, 19), (2, 1, 5, 5), True, [3, 3], [2, 1, 0, 2], None, 2),      # 5x5 stride 3
    ((1, 2, 70, 20), (2, 1, 3, 3), True, None, [1, 1, 1, 1], None, 2),        # many row tiles
    ((1, 2, 10, 150), (2, 1, 3, 3), False, None, [1, 1, 1, 1], None, 2),      # 3 column tiles
    ((2, 1, 11, 13), (5, 1, 3, 3), True, None, [1, 1, 1, 1], None, 1),        # one input channel
    ((1, 2, 30, 30), (2, 1, 7, 7), True, None, [9, 9, 9, 9], [3, 3], 2),      # 7x7 dilation 3
    ((1, 2, 12, 9), (6, 1, 2, 3), True, [2, 1], [0, 2, 1, 0], [1, 2], 2),     # 3 per channel
    ((1, 3, 300), (3, 1, 7), True, [1], [3, 3], None, 3),                     # 1-D, long row
    ((2, 2, 90), (6, 1, 4), False, [2], [1, 2], [2], 2),                      # 1-D, 3 per channel
    ((1, 2, 400), (2, 1, 3), True, [30], [1, 1], None, 2),                    # too wide: GEMM
    ((1, 264, 9, 1), (264, 1, 3, 3), True, None, [1, 1, 1, 1], None, 264),    # 2 rows each
    ((2, 132, 17, 1), (132, 1, 3, 3), False, None, [1, 1, 1, 1], None, 132),  # 4 rows each
]
NARROW_SUBSET = [GEMM[0], GEMM[2], GEMM[5], GEMM[14], DEPTHWISE[1], DEPTHWISE[9]]

for shape in GEMM + DEPTHWISE:
    conv_case("f32", shape)
for t in ["f16", "bf16", "f8"]:
    for shape in NARROW_SUBSET:
        conv_case(t, shape)
# The CPU backend's column tiles (conv_float.hpp): K so long that one tile (at most 256 KiB of
# the column matrix, and two tiles a worker) holds fewer output cells than the plane, so tiles
# start in the middle of an output row: with two workers tiles of 48 cells over the 130-cell
# plane and 32 over the 50-cell one (13 and 10 cells a row).
COLUMN_TILES = [
    ((1, 64, 9, 14), (12, 64, 3, 3), True, None, [1, 0, 2, 1], None, 1),          # K 576
    ((1, 256, 6, 19), (8, 128, 3, 3), True, [1, 2], [2, 1, 1, 2], [2, 1], 2),     # K 1152
]
for shape in COLUMN_TILES:
    conv_case("f32", shape)
conv_case("f64", COLUMN_TILES[0])

with open(OUT, "w") as f:
    f.write('{"format": "openinfer.cpu_kernel_cases", "cases": [\n')
    f.write(",\n".join(json.dumps(c, separators=(",", ":")) for c in cases))
    f.write("\n]}\n")
print(len(cases), "cases")
