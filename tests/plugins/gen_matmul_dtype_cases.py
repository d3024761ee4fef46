#!/usr/bin/python3
"""Writes cases/matmul_dtypes.json: matmul for every catalog dtype beyond the small shared cases
of cpu_kernel_cases.json: full-range integers whose dot products wrap at the output width (the
acc= one included: i32 -> i64 and u32 -> u64 sums that wrap 64 bits), i64/u64 products that
carry across 32-bit words, packed outputs whose last word is partly used, bool or-of-ands on
sparse operands, bitset as u8, f16/bf16/f8 with overflow to inf, NaN, inf * 0, subnormal
operands and results, batch broadcasting both ways, shapes spanning several output tiles and k
slices of a tiled GPU shader, and in place on either operand (the output aliasing a, or b).

Expectations (ops.md): integers are Python integers wrapped to the output dtype; floats are a
sequential k-order sum in f32 (numpy float32 scalars: a rounded product, then a rounded sum)
rounded once to the output dtype (exact_floats.py), f64 the same in Python floats; f32 and f64
operands are multiples of 1/8, so their sums are exact in any order. ops.md lets
matmul sum in any order, so f32/f64 cases carry its tolerance and f16/bf16/f8 cases one unit in
the last place ("ulp": 1); --exact leaves the latter out, for a backend that sums in k order
like the CPU. Nothing here runs OpenInfer code.

Run: /usr/bin/python3 tests/plugins/gen_matmul_dtype_cases.py [--exact] [--out FILE|DIR]"""
import argparse
import json
import math
import os
import struct

import numpy as np

from exact_floats import float_bits, round_to

rng = np.random.default_rng(20261123)
here = os.path.dirname(os.path.abspath(__file__))

INTS = {"i1": 1, "i2": 2, "i4": 4, "i8": 8, "i16": 16, "i32": 32, "i64": 64,
        "u1": 1, "u2": 2, "u4": 4, "u8": 8, "u16": 16, "u32": 32, "u64": 64, "bitset": 8}
NARROW = ["f8", "bf16", "f16"]
ACC = {"i1": ["i8", "i16", "i32", "i64"], "i2": ["i8", "i16", "i32", "i64"],
       "i4": ["i8", "i16", "i32", "i64"], "i8": ["i16", "i32", "i64"], "i16": ["i32", "i64"],
       "i32": ["i64"], "u1": ["u8", "u16", "u32", "u64"], "u2": ["u8", "u16", "u32", "u64"],
       "u4": ["u8", "u16", "u32", "u64"], "u8": ["u16", "u32", "u64"], "u16": ["u32", "u64"],
       "u32": ["u64"]}  # op_catalog.json's matmul accumulate table


def signed(t):
    return t.startswith("i")


def int_range(t):
    w = INTS[t]
    return (-(1 << (w - 1)), (1 << (w - 1)) - 1) if signed(t) else (0, (1 << w) - 1)


def wrap(v, t):
    w = INTS[t]
    v %= 1 << w
    return v - (1 << w) if signed(t) and v >= 1 << (w - 1) else v


def encode(t, flat):
    """Raw little-endian bytes of a flat list of values of dtype t (packed LSB-first)."""
    if t in INTS and INTS[t] < 8:
        w = INTS[t]
        data = bytearray((len(flat) * w + 7) // 8)
        for i, v in enumerate(flat):
            bit = i * w
            data[bit // 8] |= (v % (1 << w)) << (bit % 8)
        return bytes(data)
    if t in INTS:
        w = INTS[t]
        return b"".join((v % (1 << w)).to_bytes(w // 8, "little") for v in flat)
    if t == "bool":
        return bytes(1 if v else 0 for v in flat)
    if t == "f64":
        return b"".join(struct.pack("<d", v) for v in flat)
    assert all(math.isnan(v) or round_to(t, v) == v for v in flat), "a value not of " + t
    size = {"f32": 4, "f16": 2, "bf16": 2, "f8": 1}[t]
    return b"".join(float_bits(t, v).to_bytes(size, "little") for v in flat)


def tensor(t, arr):
    arr = np.asarray(arr, dtype=object)
    flat = [v for v in arr.reshape(-1)]
    return {"dtype": t, "dims": list(arr.shape), "hex": encode(t, flat).hex()}


def reference(t_in, t_out, a, b):
    """Each output element's dot product, as ops.md defines it for the dtype."""
    batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    A = np.broadcast_to(a, batch + a.shape[-2:])
    B = np.broadcast_to(b, batch + b.shape[-2:])
    M, K, N = a.shape[-2], a.shape[-1], b.shape[-1]
    out = np.empty(batch + (M, N), dtype=object)
    for idx in np.ndindex(*batch):
        for i in range(M):
            for j in range(N):
                terms = [(A[idx + (i, k)], B[idx + (k, j)]) for k in range(K)]
                if t_in == "bool":
                    v = any(x and y for x, y in terms)
                elif t_in in INTS:
                    v = wrap(sum(int(x) * int(y) for x, y in terms), t_out)
                elif t_in == "f64":
                    v = 0.0
                    for x, y in terms:
                        v = v + x * y
                else:
                    acc = np.float32(0)
                    with np.errstate(all="ignore"):
                        for x, y in terms:
                            acc = np.float32(acc + np.float32(np.float32(x) * np.float32(y)))
                    v = round_to(t_out, float(acc)) if t_out != "f32" else float(acc)
                out[idx + (i, j)] = v
    return out


def values(t, shape, kind="full"):
    """Random operands: full-range integers, sparse bools, floats of the dtype (exact in it)."""
    n = int(np.prod(shape))
    if t in INTS:
        lo, hi = int_range(t)
        if kind == "extreme":  # the range's ends and neighbours: the largest products
            pool = [lo, lo + 1, hi, hi - 1, -1 if signed(t) else 1, 0]
            flat = [pool[i] for i in rng.integers(0, len(pool), n)]
        else:
            words = zip(rng.integers(0, 1 << 32, n), rng.integers(0, 1 << 32, n))
            flat = [lo + ((int(h) << 32 | int(l)) % (hi - lo + 1)) for h, l in words]
    elif t == "bool":
        flat = [bool(r < 0.3) for r in rng.random(n)]
    else:
        scale = {"f8": 4.0, "bf16": 8.0, "f16": 8.0, "f32": 8.0, "f64": 8.0}[t]
        raw = rng.uniform(-scale, scale, n)
        if t in ("f32", "f64"):
            # Multiples of 1/8: every product and partial sum is exact, so any summation order
            # (a GPU's tiles, fused multiply-adds) gives the same result. Random signed values
            # cancel: a dot product of 7 terms summing to 0.0996 from terms of magnitude 81
            # differs by 2e-6 between two correct orders, beyond ops.md's (1e-6, 1e-5) bound.
            flat = [round(float(v) * 8) / 8 for v in raw]
        else:
            flat = [round_to(t, float(v)) for v in raw]
    return np.array(flat, dtype=object).reshape(shape)


def float_specials(t, shape_a, shape_b):
    """Operands whose dot products overflow, meet inf * 0, NaN, and subnormal values."""
    a, b = values(t, shape_a), values(t, shape_b)
    big = {"f8": 40960.0, "f16": 60000.0, "bf16": 3.0e38, "f32": 3.0e38, "f64": 1e308}[t]
    big = big if t == "f64" else round_to(t, big)  # a value of the dtype
    tiny = {"f8": 2.0 ** -16, "f16": 2.0 ** -24, "bf16": 2.0 ** -133, "f32": 2.0 ** -149,
            "f64": 5e-324}[t]
    a[0, 0], a[0, 1], b[0, 0], b[1, 0] = big, big, 2.0, 1.0  # overflow to inf in row 0
    a[1, 0], b[0, 1] = math.inf, 0.0                          # inf * 0 = NaN in (1, 1)
    a[2, 2] = math.nan                                        # NaN spreads along row 2
    a[3, :] = tiny                                            # subnormal operands in row 3
    b[:, 3] = 0.5                                             # ... and results below them
    a[4, :] = -0.0                                            # a row of signed zeros
    return a, b


def case(t_in, t_out, a, b, mode="normal", inplace=None):
    c = {"op": "matmul", "mode": mode, "inputs": [tensor(t_in, a), tensor(t_in, b)],
         "output": tensor(t_out, reference(t_in, t_out, a, b)), "settings": []}
    if inplace is not None:
        c["inplace_input"] = inplace
    if t_out == "f32":
        c["tolerance"] = [1e-6, 1e-5]
    elif t_out == "f64":
        c["tolerance"] = [1e-12, 1e-12]
    elif t_out in NARROW and not exact:
        c["ulp"] = 1
    return c


parser = argparse.ArgumentParser()
parser.add_argument("--exact", action="store_true", help="no ulp bound for f16/bf16/f8")
parser.add_argument("--out", metavar="FILE|DIR",
                    default=os.path.join(here, "cases", "matmul_dtypes.json"),
                    help="the file to write, or a directory to write matmul_dtypes.json in")
args = parser.parse_args()
if os.path.isdir(args.out):
    args.out = os.path.join(args.out, "matmul_dtypes.json")
exact = args.exact

cases = []
for t in ["f8", "bf16", "f16", "f32", "f64", "bool", "bitset", "i1", "i2", "i4", "i8", "i16",
          "i32", "i64", "u1", "u2", "u4", "u8", "u16", "u32", "u64"]:
    # batches broadcast both ways, odd sizes: 270 outputs (packed: a partly used last word)
    cases.append(case(t, t, values(t, (2, 1, 5, 7)), values(t, (3, 7, 9))))
    # long dot products: integer sums wrap many times
    cases.append(case(t, t, values(t, (4, 37)), values(t, (37, 6))))
    # in place on a ([M, K] with K = N) and on b ([K, N] with K = M, same batch)
    cases.append(case(t, t, values(t, (2, 6, 5)), values(t, (5, 5)), "inplace", 0))
    cases.append(case(t, t, values(t, (4, 4)), values(t, (3, 4, 7)), "inplace", 1))
    # more than one output tile and k slice of a GPU's tiled shader (16 x 16 and 4 x 64 tiles,
    # 16-deep slices: matmul_generic.comp), with partial tiles at every edge; one dtype of each
    # staging and summing kind where several behave alike (the file stays small)
    if t not in ("u64", "i32", "u32", "f32", "u16"):
        cases.append(case(t, t, values(t, (17, 18)), values(t, (18, 17))))
        cases.append(case(t, t, values(t, (2, 5)), values(t, (5, 65))))
    if t in INTS:
        cases.append(case(t, t, values(t, (3, 8), "extreme"), values(t, (8, 5), "extreme")))
    if t in NARROW or t in ("f32", "f64"):
        cases.append(case(t, t, *float_specials(t, (5, 6), (6, 4))))
for t_in, outs in ACC.items():
    for t_out in outs:
        cases.append(case(t_in, t_out, values(t_in, (2, 3, 21)), values(t_in, (21, 5)),
                          "accumulate"))
        cases.append(case(t_in, t_out, values(t_in, (4, 9), "extreme"),
                          values(t_in, (9, 3), "extreme"), "accumulate"))

with open(args.out, "w") as f:
    json.dump({"cases": cases}, f, separators=(",", ":"))
    f.write("\n")
print(f"{args.out}: {len(cases)} cases, {os.path.getsize(args.out)} bytes")
