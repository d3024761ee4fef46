"""compare_oinf.py WANT.oinf GOT.oinf: the same tensors; integers and bools bit-exact, floats
within ops.md's matmul/reduction tolerances (|got - want| <= atol + rtol * |want|; f32 1e-6 and
1e-5, f64 1e-12 and 1e-12; f16 one unit in the last place), NaN where NaN, infinities with
their sign. (bf16 and f8 arrive widened to f32 and get f32's bounds.)"""
import sys

import numpy as np
from openinfer import oinf

TOL = {np.dtype(np.float32): (1e-6, 1e-5), np.dtype(np.float64): (1e-12, 1e-12),
       np.dtype(np.float16): (0.0, 0.0)}  # f16: np.spacing below, one ulp
want, got = oinf.read(sys.argv[1]), oinf.read(sys.argv[2])
if sorted(want.tensors) != sorted(got.tensors):
    sys.exit(f"tensor names differ: {sorted(want.tensors)} vs {sorted(got.tensors)}")
worst = 0.0
for name in sorted(want.tensors):
    w, g = np.asarray(want[name]), np.asarray(got[name])
    if w.dtype != g.dtype or w.shape != g.shape:
        sys.exit(f"{name}: {g.dtype}{list(g.shape)}, expected {w.dtype}{list(w.shape)}")
    if w.dtype not in TOL:
        if not np.array_equal(w, g):
            sys.exit(f"{name}: integer values differ")
        continue
    atol, rtol = TOL[w.dtype]
    wn, gn = np.isnan(w), np.isnan(g)
    if not np.array_equal(wn, gn):
        sys.exit(f"{name}: NaN in different places")
    fin = np.isfinite(w)
    if not np.array_equal(w[~fin & ~wn], g[~fin & ~wn]) or not np.array_equal(fin, np.isfinite(g)):
        sys.exit(f"{name}: infinities differ")
    bound = atol + rtol * np.abs(w[fin].astype(np.float64))
    if w.dtype == np.float16:
        bound = np.abs(np.spacing(w[fin])).astype(np.float64)
    err = np.abs(g[fin].astype(np.float64) - w[fin]) - bound
    if err.size and err.max() > 0:
        i = int(np.argmax(err))
        sys.exit(f"{name}: element {i}: {g[fin][i]!r} vs {w[fin][i]!r} beyond ops.md's tolerance")
    if err.size:
        worst = max(worst, float((np.abs(g[fin].astype(np.float64) - w[fin])).max()))
print(f"ok: within ops.md's tolerances (largest difference {worst:.3g})")
