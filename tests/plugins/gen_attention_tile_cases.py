#!/usr/bin/python3
"""Writes cases/attention_tiles.json: attention cases (ops-nn.md) aimed at the Vulkan backend's
fast paths and their edges, with expectations computed independently in numpy float64 from the
exact input values, then rounded once to the output dtype. Nothing here runs OpenInfer code.

The Vulkan backend takes the split (flash-decoding) path for up to 4 query rows and the flash
(FlashAttention-2) path above, with blocks of 32 or 64 query rows, key tiles of 32 and split
chunks of 32..256 keys: the shapes below cut those at odd places (Tq, Tk not multiples of a
tile, causal diagonals inside a tile, rows that see no key, many chunks), take head dims 8..128
(multiples of 4 for the 16-byte loads, and odd ones for the element loads), broadcast one k/v
head over several q heads, and mask with bool and float masks (fully masked rows, -inf only in
the first tile). Large scores test the softmax's stability: their inputs are small integers, so
every score is exact in f32 and only exp's rounding remains.

Tolerances: ops-nn.md's (1e-5, 1e-4) for f32; 2 ulp for f16/bf16, with positive v so that no
cancellation turns an f32 rounding error into many ulps.

Run: /usr/bin/python3 tests/plugins/gen_attention_tile_cases.py  (writes cases/attention_tiles.json)
--out DIR writes it in DIR instead."""
import json
import math

import numpy as np

from exact_floats import NARROW, float_bits
from exact_floats import round_to as exact_round_to
from case_output import output_path

OUT = output_path("attention_tiles.json")

rng = np.random.default_rng(20261124)
cases = []


def rounded(t, arr):
    """arr rounded once to float dtype t (nearest, ties to even)."""
    arr = np.asarray(arr, dtype=np.float64)
    if t == "f32":  # numpy's f64 -> f32 cast rounds once, to nearest even
        return arr.astype(np.float32).astype(np.float64)
    if t == "f64" or arr.size == 0:
        return arr
    return np.vectorize(lambda v: exact_round_to(t, float(v)), otypes=[np.float64])(arr)


def tensor(t, arr):
    arr = np.asarray(arr)
    flat = arr.reshape(-1)
    if t == "f32":
        data = flat.astype(np.float32).tobytes()
    elif t in NARROW:
        nb = 1 if t == "f8" else 2
        data = b"".join(float_bits(t, float(x)).to_bytes(nb, "little") for x in flat)
    elif t == "bool":
        data = bytes(1 if x else 0 for x in flat)
    else:
        raise ValueError(t)
    return {"dtype": t, "dims": list(arr.shape), "hex": data.hex()}


def attention_ref(q, k, v, mask=None, scale=None, causal=False):
    """ops-nn.md's attention in float64: softmax(q k^T scale + mask) v, causal query i seeing
    keys j <= i + Tk - Tq, a row with no visible key 0, a NaN score a NaN row."""
    q, k, v = (np.asarray(a, dtype=np.float64) for a in (q, k, v))
    d = q.shape[-1]
    tq, tk = q.shape[-2], k.shape[-2]
    if scale is None:
        scale = 1.0 / math.sqrt(d)
    s = np.matmul(q, np.swapaxes(k, -1, -2)) * scale
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
        m = s.max(axis=-1, keepdims=True)
        dead = np.isneginf(m)  # every key masked: the row gives 0 (ops-nn.md)
        e = np.where(dead, 0.0, np.exp(s - np.where(dead, 0.0, m)))
        total = e.sum(axis=-1, keepdims=True)
        p = np.where(dead, 0.0, e / np.where(dead, 1.0, total))
    return np.matmul(p, v)


TOL = {"f32": [1e-5, 1e-4]}


def attention_case(t, q, k, v, mask=None, mask_t=None, scale=None, causal=False):
    ins = [tensor(t, q), tensor(t, k), tensor(t, v)]
    if mask is not None:
        ins.append(tensor(mask_t, mask))
    settings = []
    if scale is not None:
        settings.append({"name": "scale", "type": "float", "value": scale})
    if causal:
        settings.append({"name": "causal", "type": "bool", "value": True})
    want = rounded(t, attention_ref(q, k, v, mask, scale, causal))
    case = {"op": "attention", "mode": "normal", "inputs": ins, "output": tensor(t, want),
            "settings": settings}
    case.update({"tolerance": TOL[t]} if t in TOL else {"ulp": 2})
    cases.append(case)


def fvalues(t, shape, lo=-3.0, hi=3.0):
    return rounded(t, rng.uniform(lo, hi, size=shape))


def qkv(t, q_shape, k_shape, v_shape):
    lo = 0.5 if t in NARROW else -3.0  # narrow dtypes: positive v (see above)
    return fvalues(t, q_shape), fvalues(t, k_shape), fvalues(t, v_shape, lo, 3.0)


def float_mask(mt, shape):
    return rounded(mt, rng.choice([0.0, -1.5, 0.5, -math.inf, 2.0], size=shape))


# --- the flash path (Tq > 4) ----------------------------------------------------------------
# Tq and Tk off the block (32/64 rows) and tile (32 keys) sizes, head dim 64.
attention_case("f32", *qkv("f32", (66, 64), (35, 64), (35, 64)))
# Causal square prefill across a tile edge (130 = 4 tiles + 2).
attention_case("f32", *qkv("f32", (130, 8), (130, 8), (130, 8)), causal=True)
# Head dims 80 (q/k) and 48 (v): each lane's quarter of a row is 5 and 3 quads.
attention_case("f32", *qkv("f32", (20, 80), (36, 80), (36, 48)), causal=True)
# Head dim 128, causal with Tk > Tq (queries at the end of the keys), an explicit scale.
attention_case("f32", *qkv("f32", (33, 128), (40, 128), (40, 128)), scale=0.0625, causal=True)
# Causal with Tq > Tk: the first rows see no key at all and give 0.
attention_case("f32", *qkv("f32", (40, 8), (20, 8), (20, 8)), causal=True)
# Broadcast: one k/v head for three q heads, and q heads over two batches.
attention_case("f32", *qkv("f32", (2, 3, 20, 32), (2, 1, 33, 32), (2, 1, 33, 24)))
# Odd head dims (element loads, not 16-byte ones): D 6, Dv 5, matrices at odd offsets.
attention_case("f32", *qkv("f32", (3, 9, 6), (3, 35, 6), (3, 35, 5)), causal=True)
# Bool mask [Tq, Tk] broadcast over heads, one row fully masked, one row only in tile 1.
q, k, v = qkv("f32", (2, 40, 16), (2, 50, 16), (2, 50, 12))
bm = rng.random((40, 50)) < 0.7
bm[7, :] = False
bm[9, :32] = False
attention_case("f32", q, k, v, bm, "bool")
# The same bool mask, plus causal (rows hidden from the start).
attention_case("f32", q, k, v, bm, "bool", causal=True)
# f32 additive mask per head with -inf: a row all -inf, a row -inf only in the first tile.
q, k, v = qkv("f32", (2, 36, 16), (2, 50, 16), (2, 50, 16))
fm = float_mask("f32", (2, 36, 50))
fm[0, 3, :] = -math.inf
fm[1, 5, :32] = -math.inf
attention_case("f32", q, k, v, fm, "f32", scale=0.5)
# A mask of one row [Tk] (row stride 0), f16 mask values.
q, k, v = qkv("f32", (12, 16), (40, 16), (40, 16))
attention_case("f32", q, k, v, float_mask("f16", (40,)), "f16")
# Large scores (softmax stability): integer inputs, exact scores up to a few hundred.
q = rng.integers(-8, 9, size=(2, 24, 16)).astype(np.float64)
k = rng.integers(-8, 9, size=(2, 45, 16)).astype(np.float64)
attention_case("f32", q, k, fvalues("f32", (2, 45, 16)), scale=1.0)
# NaN in q makes its row NaN (only where some key is visible).
q, k, v = qkv("f32", (10, 8), (40, 8), (40, 8))
q[2, 3] = math.nan
q[0, 1] = math.nan
attention_case("f32", q, k, v, causal=True)
# Narrow floats: f16 and bf16 computed in f32, rounded once.
attention_case("f16", *qkv("f16", (2, 33, 64), (2, 41, 64), (2, 41, 64)), causal=True)
q, k, v = qkv("bf16", (2, 3, 18, 32), (2, 1, 40, 32), (2, 1, 40, 20))
attention_case("bf16", q, k, v, rng.random((18, 40)) < 0.8, "bool")

# --- the split path (Tq <= 4) ---------------------------------------------------------------
# Decode against a longer cache: Tq 1, Tk 37 (one chunk, written directly), head dim 128, two
# q heads sharing one k/v head.
attention_case("f32", *qkv("f32", (2, 1, 128), (1, 37, 128), (1, 37, 128)), causal=True)
# Tq 1 against 2,049 keys (many chunks and a last chunk of one key), then the combine pass.
attention_case("f32", *qkv("f32", (1, 4), (2049, 4), (2049, 2)), causal=True)
# Four query rows, causal, 300 keys: each row's last keys cut a chunk.
attention_case("f32", *qkv("f32", (4, 16), (300, 16), (300, 16)), causal=True)
# Head dims 80 and 64, two batches of three q heads on one k/v head.
attention_case("f32", *qkv("f32", (2, 3, 2, 80), (2, 1, 20, 80), (2, 1, 20, 64)))
# Odd head dims (element loads) at odd offsets.
attention_case("f32", *qkv("f32", (3, 1, 7), (3, 61, 7), (3, 61, 3)))
# Bool mask with a fully masked row and a row masked in all but the last chunk.
q, k, v = qkv("f32", (3, 16), (200, 16), (200, 16))
bm = rng.random((3, 200)) < 0.6
bm[1, :] = False
bm[2, :190] = False
attention_case("f32", q, k, v, bm, "bool")
# f32 additive mask with -inf: a row all -inf, a row -inf everywhere but one chunk.
q, k, v = qkv("f32", (2, 2, 16), (2, 100, 16), (2, 100, 16))
fm = float_mask("f32", (2, 2, 100))
fm[0, 1, :] = -math.inf
fm[1, 0, 40:] = -math.inf
attention_case("f32", q, k, v, fm, "f32")
# bf16 and f8 masks [Tk] broadcast over rows and heads.
q, k, v = qkv("f32", (2, 1, 16), (2, 70, 16), (2, 70, 16))
attention_case("f32", q, k, v, float_mask("bf16", (70,)), "bf16")
attention_case("f32", q, k, v, float_mask("f8", (70,)), "f8")
# Large scores (softmax stability), exact in f32.
q = rng.integers(-8, 9, size=(2, 1, 16)).astype(np.float64)
k = rng.integers(-8, 9, size=(2, 100, 16)).astype(np.float64)
attention_case("f32", q, k, fvalues("f32", (2, 100, 16)), scale=1.0)
# NaN in q: its row is NaN.
q, k, v = qkv("f32", (2, 16), (120, 16), (120, 16))
q[1, 4] = math.nan
attention_case("f32", q, k, v)
# Narrow floats.
attention_case("f16", *qkv("f16", (2, 1, 32), (2, 130, 32), (2, 130, 32)), causal=True)
attention_case("bf16", *qkv("bf16", (2, 3, 24), (1, 70, 24), (1, 70, 18)))

with open(OUT, "w") as f:
    f.write('{"format": "openinfer.cpu_kernel_cases", "cases": [\n')
    f.write(",\n".join(json.dumps(c, separators=(",", ":")) for c in cases))
    f.write("\n]}\n")
print(len(cases), "cases")
