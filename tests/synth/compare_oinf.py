"""compare_oinf.py WANT.oinf GOT.oinf [MODE]: a generated program's --save against the
simulator's. The same tensors; integers and bools bit-exact in every mode; NaN where NaN (any
payload and sign: ops.md "NaN must match NaN"; x86 makes its default NaN negative, GLSL
positive) and infinities with their sign; floats by MODE (bf16 and f8 are read back as f32):
  ops     (default) ops.md's matmul/reduction bound |got - want| <= atol + rtol |want|:
          f32 (1e-6, 1e-5), f64 (1e-12, 1e-12), f16 one ulp
  exact   floats bit for bit (arithmetic, casts, movement, max_pool, tables)
  ulp     f32 within 2 ulp, f64 within 4, f16 1 (ops-nn.md; f32 div and the transcendental math)
  reduce  f32 (1e-6, 1e-5), f64 (1e-12, 1e-10), f16 one ulp (docs/synth-glsl.md: matmul, sums)
  nn      f32 (1e-5, 1e-4), f64 (1e-12, 1e-10), f16 one ulp (softmax, the norms, conv, avg_pool)"""
import sys

import numpy as np
from openinfer import oinf

F16, F32, F64 = np.dtype(np.float16), np.dtype(np.float32), np.dtype(np.float64)
TOL = {
    "ops": {F32: (1e-6, 1e-5), F64: (1e-12, 1e-12)},
    "reduce": {F32: (1e-6, 1e-5), F64: (1e-12, 1e-10)},
    "nn": {F32: (1e-5, 1e-4), F64: (1e-12, 1e-10)},
}
ULPS = {F16: (np.int16, 0x7FFF, 1), F32: (np.int32, 0x7FFFFFFF, 2), F64: (np.int64, 2**63 - 1, 4)}

if len(sys.argv) not in (3, 4):
    sys.exit(__doc__)
want, got = oinf.read(sys.argv[1]), oinf.read(sys.argv[2])
mode = sys.argv[3] if len(sys.argv) == 4 else "ops"
if mode not in ("exact", "ulp", "ops", "reduce", "nn"):
    sys.exit(f"unknown mode {mode!r}")
if sorted(want.tensors) != sorted(got.tensors):
    sys.exit(f"tensor names differ: {sorted(want.tensors)} vs {sorted(got.tensors)}")


def ulps_apart(w, g, dtype):
    """Distance in representable values (ordered integers, signed zeros equal)."""
    bits, top, _ = ULPS[dtype]

    def ordered(a):
        i = a.view(bits).astype(object)
        return np.array([-(v & top) if v < 0 else v for v in i.reshape(-1)], dtype=object)

    return np.abs(ordered(w) - ordered(g)) if w.size else np.zeros(0)


worst = 0.0
for name in sorted(want.tensors):
    w, g = np.asarray(want[name]), np.asarray(got[name])
    if w.dtype != g.dtype or w.shape != g.shape:
        sys.exit(f"{name}: {g.dtype}{list(g.shape)}, expected {w.dtype}{list(w.shape)}")
    if w.dtype not in ULPS:
        if w.tobytes() != g.tobytes():
            diff = np.flatnonzero(w.reshape(-1).view(np.uint8) != g.reshape(-1).view(np.uint8))
            sys.exit(f"{name}: differs bit for bit (first byte {diff[0]})")
        continue
    wn, gn = np.isnan(w), np.isnan(g)
    if not np.array_equal(wn, gn):
        sys.exit(f"{name}: NaN in different places")
    if mode == "exact":
        wb, gb = w[~wn], g[~wn]
        if wb.tobytes() != gb.tobytes():
            uint = {2: np.uint16, 4: np.uint32, 8: np.uint64}[w.itemsize]
            i = int(np.flatnonzero(wb.view(uint) != gb.view(uint))[0])
            sys.exit(f"{name}: element {i} of the non-NaN ones: {gb[i]!r} vs {wb[i]!r}, "
                     "not bit for bit")
        continue
    fin = np.isfinite(w)
    if not np.array_equal(fin, np.isfinite(g)) or not np.array_equal(w[~fin & ~wn], g[~fin & ~wn]):
        sys.exit(f"{name}: infinities differ")
    wf, gf = w[fin], g[fin]
    if mode == "ulp" or w.dtype == F16:
        ulps, allowed = ulps_apart(wf, gf, w.dtype), ULPS[w.dtype][2] if mode == "ulp" else 1
        if ulps.size and ulps.max() > allowed:
            i = int(np.argmax(ulps))
            sys.exit(f"{name}: element {i}: {gf[i]!r} vs {wf[i]!r}, {ulps[i]} ulp apart "
                     f"({allowed} allowed)")
        worst = max(worst, float(ulps.max()) if ulps.size else 0.0)
        continue
    atol, rtol = TOL[mode][w.dtype]
    d = np.abs(gf.astype(np.float64) - wf)
    err = d - (atol + rtol * np.abs(wf.astype(np.float64)))
    if err.size and err.max() > 0:
        i = int(np.argmax(err))
        sys.exit(f"{name}: element {i}: {gf[i]!r} vs {wf[i]!r} beyond ({atol}, {rtol})")
    if d.size:
        worst = max(worst, float(d.max()))
print(f"ok ({mode}; largest difference {worst:.3g})")
