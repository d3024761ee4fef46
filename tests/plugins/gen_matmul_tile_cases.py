#!/usr/bin/python3
"""Writes cases/matmul_tiles.json: f32 matmul cases for the GPU backends' tiled and GEMV paths
(plugins/vulkan/kernels/matmul.cpp): sizes around the 64 and 128 tiles and their K slices,
M = 1..4 rows with long K or wide N (the GEMV path), batches with numpy broadcasting, and IEEE
specials (inf, NaN, subnormal operands whose products are normal).

Most operands are multiples of 1/8 in [-4, 4]: every product and partial sum is then exact in
f32, so any summation order gives numpy's float64 result exactly and a single wrong or missing
term shows. Cases with full-mantissa operands keep them positive and K <= 100, where any f32
summation order stays within ops.md's matmul tolerance of the float64 result. Expectations are
numpy's float64 matmul for the multiples of 1/8 (exact), exact dot products (math.fsum: the
products of f32 values are exact in float64) for the full-mantissa operands, so that the file does
not depend on the BLAS's summation order, and elementwise products and a numpy sum for the
specials (so inf * 0 and inf - inf give NaN as IEEE says); each rounded once to f32. Cases that
are not exact carry the tolerance. Nothing here runs OpenInfer code.

Run: /usr/bin/python3 tests/plugins/gen_matmul_tile_cases.py  (writes cases/matmul_tiles.json)
--out DIR writes it in DIR instead."""
import json
import math

import numpy as np

from case_output import output_path

OUT = output_path("matmul_tiles.json")

rng = np.random.default_rng(20261123)
cases = []


def tensor(arr):
    arr = np.ascontiguousarray(arr, dtype=np.float32)
    return {"dtype": "f32", "dims": list(arr.shape), "hex": arr.tobytes().hex()}


def eighths(shape):
    """Multiples of 1/8 in [-4, 4]: exact products and sums (|sum| * 64 < 2^24 for K < 4096)."""
    return rng.integers(-32, 33, size=shape).astype(np.float64) / 8


def positive(shape):
    """Full-mantissa f32 values in [0.5, 1): no cancellation in the sums."""
    return rng.uniform(0.5, 1.0, size=shape).astype(np.float32).astype(np.float64)


def exact_matmul(a, b):
    """a @ b (2-D) with every dot product summed exactly and rounded once to float64."""
    return np.array([[math.fsum(a[i] * b[:, j]) for j in range(b.shape[1])]
                     for i in range(a.shape[0])])


def add_case(a, b, want=None, exact=True):
    """exact: every f32 summation order gives `want` (else ops.md's f32 matmul tolerance)."""
    if want is None:
        want = np.matmul(a, b) if exact else exact_matmul(a, b)
    case = {"op": "matmul", "mode": "normal", "inputs": [tensor(a), tensor(b)],
            "output": tensor(want), "settings": []}
    if not exact:
        case["tolerance"] = [1e-6, 1e-5]
    cases.append(case)


# Tiled path: sizes around the 64 x 64 tile (16-deep K slices) and the 128 x 128 / 128 x 64
# tiles (8-deep slices), which kernels pick for large matrices or OPENINFER_VULKAN_MATMUL_TILE
# forces.
for m, k, n in [(5, 40, 300), (64, 64, 64), (65, 17, 63), (130, 67, 131), (127, 8, 129),
                (259, 9, 140), (200, 1, 70), (70, 130, 1)]:
    add_case(eighths((m, k)), eighths((k, n)))
add_case(positive((129, 100)), positive((100, 65)), exact=False)
# Batches broadcast both ways ([3, 1] against [1, 4]), and a batch of one B for all.
add_case(eighths((3, 1, 20, 33)), eighths((1, 4, 33, 26)))
add_case(eighths((6, 9, 130)), eighths((130, 20)))

# GEMV path (M <= 4): long K, wide N, batches with broadcasting.
for m, k, n in [(1, 1100, 61), (1, 9, 2500), (1, 768, 40), (2, 300, 50), (3, 200, 50),
                (4, 64, 300), (1, 1, 1), (1, 5, 1)]:
    add_case(eighths((m, k)), eighths((k, n)))
add_case(positive((1, 90)), positive((90, 133)), exact=False)
add_case(eighths((4, 1, 70)), eighths((70, 90)))
add_case(eighths((2, 3, 1, 50)), eighths((3, 50, 40)))
add_case(eighths((5, 2, 64)), eighths((1, 64, 33)))


# IEEE specials, for both paths: inf and NaN operands (row 0, row 1 and the last row of A),
# and subnormal operands times 2^120 (row `sub_row`; products 2^-10 and 3 * 2^-10, far above the
# tolerance: a device that reads the subnormal as 0 must not lose them, nor turn subnormal * inf
# into NaN). With M = 1 the row holds either the specials or the subnormals.
def specials_case(m, k, n, infs=True, subnormals=True):
    a, b = eighths((m, k)), eighths((k, n))
    sub = 2.0 ** -130  # subnormal in f32
    sub_row = m // 2
    if subnormals:
        a[sub_row, 0], a[sub_row, k - 1] = 3 * sub, -sub
        b[0, n - 1], b[k - 1, 0] = 2.0 ** 120, -(2.0 ** 120)
    if infs:
        a[0, 1] = np.inf
        b[1, 1], b[2, n // 2] = np.inf, -np.inf
        b[k // 2, :] = 0.0  # zeros against the inf of a: NaN where they meet
        if m > 2:
            a[1, k // 2], a[m - 1, k - 2] = np.inf, np.nan
    with np.errstate(invalid="ignore", over="ignore"):
        want = (a[:, :, None] * b[None, :, :]).sum(axis=1)
    add_case(a, b, want, exact=False)  # the 2^120 terms round


for m, k, n in [(6, 12, 7), (3, 20, 9), (70, 40, 66), (130, 20, 131)]:
    specials_case(m, k, n)
specials_case(1, 12, 7, subnormals=False)
specials_case(1, 40, 70, infs=False)
specials_case(2, 40, 70, infs=False)

with open(OUT, "w") as f:
    json.dump({"cases": cases}, f, separators=(",", ":"))
    f.write("\n")
print(f"wrote {len(cases)} cases")
