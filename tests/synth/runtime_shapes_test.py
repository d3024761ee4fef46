#!/usr/bin/python3
"""Ops whose shapes are known only at run time, through the C target (-O2 under ASan+UBSan),
against values computed here (numpy, dsl.md's rules) and the simulator's messages:

  runtime_shapes_test.py --openinfer BIN --cc CC --work DIR [--group shapes|operands]

Each case is a graph run 3 steps, every returned value after each step as dsl.md gives it, and
an error graph run 3 steps with --keep-going: the first step fits (where it can), the second and
third fail with the simulator's message (word for word, as `openinfer run` gives it) and leave the
persistent values as the first left them.
  - c/auto_dim_runtime.oi: ops on @auto_dim matrices an access grows (an op's output access is
    read first, then its inputs, which grow M; the result stored, or spread over a part it
    broadcasts to); c/auto_dim_runtime_error.oi: a matmul of a grown matrix into a plain value.
  - c/slice_runtime_ops.oi: ops other than elementwise ones writing table slices of run-time
    length (the result spread over the entries, or stored row by row);
    c/slice_runtime_error.oi: a matmul's rows into a slice of another length.
  - c/slice_runtime_unplanned.oi: the same of ops whose inputs are table entries, so that the plan
    does not give the result's shape (the rule computes it at run time: a reduction, a matmul, a
    slice and an avg_pool of table entries, a matmul of an @auto_dim matrix an access grows); c/slice_runtime_unplanned_error.oi: a matmul's rows into a slice of
    another length; c/slice_runtime_inputs.oi: ops reading table accesses of run-time length
    (`K[0]` of `K(l, t)`), and elementwise ones of such an input or of an @auto_dim matrix into
    slices of run-time length; c/slice_runtime_inputs_error.oi: a reduction along the wrong axis.
  - c/copy_runtime.oi: copies neither of whose sides has a shape known before run time
    (matrices, table slices of run-time length, f32 and i4); c/copy_runtime_error.oi: a slice
    read into a matrix of another shape.
  - c/auto_dim_runtime_gather_pad.oi: gather and pad (constant, reflect) on a matrix an access
    grows; c/auto_dim_runtime_gather_error.oi: a gather axis out of range,
    c/auto_dim_runtime_pad_error.oi: a reflect pad as large as the axis (every step fails).
  - c/auto_dim_runtime_norm_rope.oi: batch_norm (and rope, against the simulator only) on a
    matrix an access grows; c/auto_dim_runtime_norm_error.oi: a scale of other channels,
    c/auto_dim_runtime_rope_error.oi: an odd last dim (every step fails).
  - c/auto_dim_runtime_dequantize.oi: dequantize of an i8 matrix its input access grows;
    c/auto_dim_runtime_dequantize_error.oi: a scale of another size than the axis.
  - c/auto_dim_runtime_attention.oi: attention (causal, and masked) over a matrix an access grows,
    within 1e-5 of f64; c/auto_dim_runtime_attention_error.oi: values of other keys.
  - c/auto_dim_runtime_window.oi: slice (negative starts, ends and steps; axes out of order),
    conv and max_pool (pads, strides, dilations) over a batch an access grows and a 2-D avg_pool
    over rows it grows, their counts and windows computed at run time by openinfer/geometry.h;
    c/auto_dim_runtime_conv_error.oi: a weight of one channel for an input whose channels grow,
    c/auto_dim_runtime_pool_error.oi: a window wider than the padded input (every step fails),
    c/auto_dim_runtime_slice_error.oi: a slice's run-time count that the output's store does
    not take (every step fails).
  - (--group operands) c/auto_dim_runtime_operands.oi: beside matrices an access grows, a prefix table's entry (a
    literal one, one a loop index chooses), a persistent table's entry as the output (stored, and
    spread over two rows), acc= (into a matrix, a plain value, broadcast over a part), i4 matrices
    (dequantize, neg, a wrapping sum), a bitset matrix (added to itself, wrapping as u8) and
    softmax along an axis naming a loop index (within 1e-5 of f64); c/auto_dim_runtime_acc_error.oi: an acc= reduction of another shape than its access,
    c/auto_dim_runtime_table_error.oi: a result of another shape than the table's entry,
    c/auto_dim_runtime_entry_error.oi: a prefix table's entry the model lacks,
    c/auto_dim_runtime_axis_error.oi: an axis (a loop index) out of range (every step fails).
  - (--group operands) c/auto_dim_runtime_slice_out.oi: persistent table slices of run-time
    length written by ops on such matrices (stored, spread over the entries, f32 and i4);
    c/auto_dim_runtime_slice_out_error.oi: a result that does not broadcast to the slice.
synth_c_auto_dim_runtime, synth_c_slice_runtime_ops and synth_c_copy_runtime
(c_vs_simulator.sh) hold the graphs to the simulator byte for byte as well.
"""
import argparse
import os
import subprocess
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "python"))
from openinfer import oinf  # noqa: E402

C = os.path.join(HERE, "c")
F = np.float32
# c/auto_dim_runtime_model.txt and c/copy_tables_input.txt
W = np.array([[1.0, -2.0], [0.5, 3.0], [-1.0, 0.25], [2.0, 1.0]], dtype=F)
X = [np.array(v, dtype=F) for v in ([0.5, -1.5, 2.0, 1.0], [3.0, 4.0, -5.0, 6.5],
                                     [-0.125, 7.0, 8.0, -9.0])]


def grown(m, rows, init):
    """dsl.md: a scalar index grows the count; new cells hold @init (zeros without one)."""
    if m.shape[0] >= rows:
        return m
    return np.vstack([m, np.full((rows - m.shape[0], m.shape[1]), init, dtype=F)])


def auto_dim_runtime():
    """The values after each step of auto_dim_runtime.oi (every one exact in f32)."""
    m, p, s = np.ones((1, 4), dtype=F), np.zeros((1, 2), dtype=F), np.zeros(4, dtype=F)
    steps = []
    for n, x in enumerate(X):
        m = grown(m, n + 1, 1.0) + x          # op add(M[n, 0], x) >> M
        y = m.sum(axis=0, dtype=F)            # op sum_axis(M, axes=[0]) >> y
        s = s + y                             # op add(s, y) >> s
        a = m.max(axis=0, keepdims=True)      # op max_axis(M, axes=[0], keepdims=true) >> a
        p = grown(p, n + 1, 0.0)              # P[n, 0] grows P first
        p = (m @ W).astype(F)                 # op matmul(M, W) >> P[n, 0]
        m = m.copy()
        m[1:n + 1] = x * x                    # op mul(x, x) >> M[1..n+1, ]: spread over n rows
        p = -p                                # op neg(P) >> P
        steps.append({"M": m.copy(), "y": y, "s": s.copy(), "a": a, "P": p.copy()})
    return steps


def slice_runtime_ops():
    """The values after each step of slice_runtime_ops.oi (every one exact in f32)."""
    m = np.full((2, 4), 1.5, dtype=F)
    k = np.zeros((0, 4), dtype=F)
    low = np.full((4, 4), 0.5, dtype=F)  # L: @fixed(t=4) @init(0.5), fetched whole
    steps = []
    for n, x in enumerate(X):
        c = n + 1
        m = m + x                                       # op add(m, x) >> m
        if k.shape[0] < c:                              # K grows to its highest entry + 1
            k = np.vstack([k, np.zeros((c - k.shape[0], 4), dtype=F)])
        k[0:c] = m.max(axis=0)                          # op max_axis(m, axes=[0]) >> K[0..c]
        low[1:c] = m.sum(axis=0, dtype=F)               # op sum_axis(m, axes=[0]) >> L[1..c]
        v = (m @ W).astype(F)                           # op matmul(m, W) >> V[0..e], e = 2
        t = W.T.reshape(1, 2, 4).copy()                 # op transpose(W) >> T[0..e-1]
        steps.append({"K": k.copy(), "L": low.copy(), "V": v, "T": t})
    return steps


def slice_runtime_unplanned():
    """The values after each step of slice_runtime_unplanned.oi (the references below)."""
    m = np.full((2, 4), 1.5, dtype=F)
    k, q = np.zeros((0, 4), dtype=F), np.zeros((0, 2, 4), dtype=F)
    p = np.zeros((4, 1, 3), dtype=F)  # P: @fixed(t=4), no @init
    mm, g = np.ones((1, 4), dtype=F), np.zeros((5, 2), dtype=F)  # M @init(1.0), G @fixed(t=5)
    steps = []
    for n, x in enumerate(X):
        c = n + 1
        m = m + x                                       # op add(m, x) >> m; E[0] and R[0] hold m
        k = np.vstack([k, np.zeros((c - k.shape[0], 4), dtype=F)])
        k[0:c] = m.max(axis=0)                          # op max_axis(E[0], axes=[0]) >> K[0..c]
        v = (m @ W).astype(F)                           # op matmul(E[0], W) >> V[0..e], e = 2
        p[0:c] = m[1:2, 1:4]                            # starts=[1, 1], ends=[2, 4] >> P[0..c]
        q = np.concatenate([q, np.zeros((c - q.shape[0], 2, 4), dtype=F)])
        # op avg_pool(R[0], kernel=[3], pads=[1, 1]) >> Q[0..c]: [1, 2, 4] over c entries
        q[0:c] = avg_pool2d(m.reshape(1, 2, 1, 4), (1, 3), (1, 1), (0, 1, 0, 1)).reshape(2, 4)
        mm = grown(mm, c, 1.0) + x                      # op add(M[c-1, 0], x) >> M
        g[0:c] = (mm @ W).astype(F)                     # op matmul(M, W) >> G[0..c]
        steps.append({"K": k.copy(), "V": v, "P": p.copy(), "Q": q.copy(), "M": mm.copy(),
                      "G": g.copy()})
    return steps


def slice_runtime_inputs():
    """The values after each step of slice_runtime_inputs.oi: K[0] holds x of steps 0..n."""
    v = np.zeros((4, 2), dtype=F)  # V: @fixed(t=4), no @init
    a = np.zeros((0, 4), dtype=F)
    steps = []
    for n, x in enumerate(X):
        k = np.stack(X[:n + 1])                         # cache.write x >> K[0, c-1]; K[0]
        y = k.sum(axis=0, dtype=F)                      # op sum_axis(K[0], axes=[0]) >> y
        s = (k * y).astype(F)                           # op mul(K[0], y) >> S[0..c]
        v[0:n + 1] = (k @ W).astype(F)                  # op matmul(K[0], W) >> V[0..c]
        a = np.vstack([a, np.zeros((n + 2 - a.shape[0], 4), dtype=F)])
        a[0:n + 1] = F(1.0) + x                         # add(M[c-1, 0], x): M is c rows of 1
        a[1:n + 2] = k * x                              # op mul(K[0], x) >> A[1..c+1]
        steps.append({"y": y, "S": s, "V": v.copy(), "A": a.copy()})
    return steps


def gather_pad():
    """The values after each step of auto_dim_runtime_gather_pad.oi (numpy's take and pad)."""
    m = np.ones((1, 4), dtype=F)
    k = np.array([3, 0, 2])  # K of c/auto_dim_runtime_model.txt
    steps = []
    for n, x in enumerate(X):
        m = grown(m, n + 1, 1.0) + x                                  # op add(M[n, 0], x) >> M
        g = np.take(m, k, axis=1)                                     # op gather(M, K, axis=1)
        p = np.pad(m, ((1, 0), (0, 2)), constant_values=F(0.5))       # pads=[1, 0, 0, 2]
        r = np.pad(m, ((0, 0), (1, 1)), mode="reflect")               # pads=[0, 1, 0, 1]
        steps.append({"M": m.copy(), "G": g, "P": p.astype(F), "R": r})
    return steps


def norm_rope():
    """batch_norm's values after each step of auto_dim_runtime_norm_rope.oi (exact: epsilon 0,
    var 4, so (m - 1) / 2 * 0.5 + 0.25); rope's are held to the simulator by
    synth_c_auto_dim_runtime_norm_rope."""
    m = np.ones((1, 4), dtype=F)
    steps = []
    for n, x in enumerate(X):
        m = grown(m, n + 1, 1.0) + x                                  # op add(M[n, 0], x) >> M
        bn = ((m - F(1.0)) / F(2.0) * F(0.5) + F(0.25)).astype(F)   # op batch_norm(M, ...)
        steps.append({"M": m.copy(), "N": bn})
    return steps


def dequantize():
    """The values after each step of auto_dim_runtime_dequantize.oi: (q - z) * s, q = 3 in every
    cell of n + 1 rows (S and Z of c/auto_dim_runtime_model.txt)."""
    s_, z = np.array([0.5, -2.0, 0.25, 4.0], dtype=F), np.array([1, -2, 0, 5])
    row = ((3 - z).astype(F) * s_).astype(F)
    return [{"D": np.tile(row, (n + 1, 1)), "H": np.full((n + 1, 4), 1.5, dtype=F)}
            for n in range(3)]


def attention():
    """auto_dim_runtime_attention.oi's values in f64, to be met within 1e-5 (the f32 exponentials
    of the C kernel library): softmax(q k^T scale + mask) v, q = k = v = M."""
    m = np.ones((1, 4), dtype=F)
    steps = []
    for n, x in enumerate(X):
        m = grown(m, n + 1, 1.0) + x

        def attend(scale, causal):
            s_ = m.astype(np.float64) @ m.T.astype(np.float64) * scale
            if causal:  # query i sees keys j <= i (Tq = Tk)
                s_ = np.where(np.tril(np.ones_like(s_)) > 0, s_, -np.inf)
            e = np.exp(s_ - s_.max(axis=1, keepdims=True))
            return (e / e.sum(axis=1, keepdims=True)) @ m.astype(np.float64)

        steps.append({"M": m.copy(), "A": (attend(0.5, True), 1e-5),
                      "C": (attend(0.25, False), 1e-5)})
    return steps


def conv1d(x, w, b, pads, stride, dil):
    """ONNX Conv of x [N, C, W] with w [M, C, K]: the input padded with zeros, output cell o
    sums x_padded[o * stride + k * dil] * w[k] over taps and channels (f64, exact here)."""
    xp = np.pad(x.astype(np.float64), ((0, 0), (0, 0), pads))
    k = w.shape[2]
    starts = range(0, xp.shape[2] - dil * (k - 1), stride)
    y = np.stack([sum(xp[:, :, o + t * dil] @ w[:, :, t].T.astype(np.float64) for t in range(k))
                  for o in starts], axis=2)
    return (y + b[None, :, None]).astype(F)


def max_pool1d(x, kernel, pads, dil):
    """ONNX MaxPool (stride 1): padded cells never win."""
    xp = np.pad(x, ((0, 0), (0, 0), pads), constant_values=-np.inf)
    starts = range(0, xp.shape[2] - dil * (kernel - 1))
    return np.stack([np.max(np.stack([xp[:, :, o + t * dil] for t in range(kernel)]), axis=0)
                     for o in starts], axis=2).astype(F)


def avg_pool2d(x, kernel, strides, pads):
    """ONNX AveragePool without count_include_pad: the f32 sum of a window's input cells (exact
    here) over their count, one f32 division."""
    (kh, kw), (sh, sw), (pt, pl, pb, pr) = kernel, strides, pads
    xp = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (pt, pb), (pl, pr)))
    ones = np.pad(np.ones_like(x, dtype=np.float64), ((0, 0), (0, 0), (pt, pb), (pl, pr)))
    rows = range(0, xp.shape[2] - kh + 1, sh)
    cols = range(0, xp.shape[3] - kw + 1, sw)
    y = np.zeros(x.shape[:2] + (len(rows), len(cols)), dtype=F)
    for i, r in enumerate(rows):
        for j, c in enumerate(cols):
            s = xp[:, :, r:r + kh, c:c + kw].sum(axis=(2, 3))
            n = ones[:, :, r:r + kh, c:c + kw].sum(axis=(2, 3))
            y[:, :, i, j] = s.astype(F) / n.astype(F)
    return y


def window():
    """The values after each step of auto_dim_runtime_window.oi (Python's slices, the references
    above; CW and CB of c/auto_dim_runtime_model.txt)."""
    cw = np.array([[[1.0, -1.0, 0.5]], [[2.0, 0.25, -0.5]]], dtype=F)
    cb = np.array([0.5, -1.0], dtype=F)
    m, h = np.ones((1, 4), dtype=F), np.ones((2, 4), dtype=F)
    steps = []
    for n, x in enumerate(X):
        m = grown(m, n + 1, 1.0) + x                      # op add(M[n, 0], x) >> M
        xm = m.reshape(n + 1, 1, 4)                       # op add(X[n, 0, 0], x) >> X
        h = grown(h, n + 2, 1.0) + x                      # op add(H[0, 0, n, 0], x) >> H
        steps.append({
            "M": m.copy(),
            "S": m[-1:-100:-1, 3:-100:-2].copy(),         # starts=[-1, 3], ends=[-100, -100]
            "U": m[0:100, 1:3].copy(),                    # axes=[1, -2]
            "X": xm.copy(),
            "Y": conv1d(xm, cw, cb, (1, 2), 2, 2),
            "P": max_pool1d(xm, 2, (0, 1), 2),
            "H": h.reshape(1, 1, n + 2, 4).copy(),
            "A": avg_pool2d(h.reshape(1, 1, n + 2, 4), (2, 3), (1, 2), (0, 1, 1, 0)),
        })
    return steps


def copy_runtime():
    """The values after each step of copy_runtime.oi (every one exact)."""
    m, nn = np.ones((1, 4), dtype=F), np.zeros((0, 4), dtype=F)
    q = np.full((1, 4), 3.0, dtype=F)
    k = np.zeros((0, 4), dtype=F)
    low = np.full((5, 4), 0.5, dtype=F)  # L: @fixed(t=5) @init(0.5)
    I4 = np.int8
    pm, pn, pk = np.full((1, 3), -3, dtype=I4), np.zeros((1, 3), dtype=I4), np.zeros((0, 3), I4)

    def rows(t, r, init, dtype):  # a table's or matrix's rows grown to r
        if t.shape[0] >= r:
            return t.copy()
        return np.vstack([t, np.full((r - t.shape[0], t.shape[1]), init, dtype=dtype)])

    steps = []
    for n, x in enumerate(X):
        c = n + 1
        k = rows(k, c + 1, 0, F)
        k[c] = x                              # cache.write x >> K[c]
        m = rows(m, c + 1, 1.0, F) + x        # op add(M[c, 0], x) >> M
        nn = m.copy()                         # transfer M >> N[c, 0]
        q = k[0:c + 1].copy()                 # cache.read K[0..c+1] >> Q[c, 0]
        low[0:c + 1] = m                      # cache.write M >> L[0..c+1]
        k = rows(k, c + 2, 0, F)
        k[1:c + 2] = nn                       # cache.write N >> K[1..c+2]
        pm = rows(pm, c + 1, -3, I4)          # transfer PM[c, 0] >> PN[c, 0]
        pn = pm.copy()
        pk = rows(pk, c + 2, 0, I4)
        pk[1:c + 2] = pn                      # cache.write PN >> PK[1..c+2]
        pk[0] = 5                             # cache.write h >> PK[0]
        pm = pk[0:c + 1].copy()               # cache.read PK[0..c+1] >> PM[c, 0]
        steps.append({"M": m.copy(), "N": nn.copy(), "K": k.copy(), "L": low.copy(),
                      "Q": q.copy(), "PM": pm.copy(), "PN": pn.copy(), "PK": pk.copy()})
    return steps


def operands():
    """The values after each step of auto_dim_runtime_operands.oi (exact, but the softmaxes: f64
    within 1e-5). p.0, p.1 and Z of c/auto_dim_runtime_model.txt."""
    p0, p1 = np.array([10, 20, 30, 40], dtype=F), np.array([-1, -2, -3, -4], dtype=F)
    z = np.array([1, -2, 0, 5], dtype=np.int32)
    m = np.ones((1, 4), dtype=F)
    k = np.zeros((0, 4), dtype=F)
    low = np.zeros((3, 2, 4), dtype=F)  # L: @fixed(t=3), no @init
    f = np.zeros((0, 4), dtype=np.float64)
    t = np.full((1, 2), 200)
    steps = []
    for n in range(3):
        r = n + 1
        m = grown(m, r, 1.0) * p1                  # op mul(M[n, 0], p[1]) >> M
        m = m + p0 + p1                            # op add(M, p[k]) >> M, k = 0, 1
        k = np.vstack([k, m.sum(axis=0, dtype=F)])  # op sum_axis(M, axes=[0]) >> K[n]
        low[n] = m.max(axis=0)                     # a [1, 4] result spread over L[n]'s 2 rows
        a = np.tile(3 + z, (r, 1))                 # op add(Q[n, 0], Z, acc=i32) >> A[n, 0]
        a[0] = z * z                               # op mul(Z, Z, acc=i32) >> A[0..1, ]
        y = np.full(4, 3 * r, dtype=np.int32)      # op sum_axis(Q, axes=[0], acc=i32) >> y
        u = (-3 * r + 8) % 16 - 8                  # i4 sums wrap: -3, -6, -9 -> 7
        md = m.astype(np.float64)
        sm = [np.exp(md - md.max(axis=a_, keepdims=True)) for a_ in (0, 1)]
        sm = [e / e.sum(axis=a_, keepdims=True) for a_, e in enumerate(sm)]
        f = np.vstack([f, np.zeros((r - f.shape[0], 4))]) + sm[0] + sm[1]
        t = (2 * np.vstack([t, np.full((r - t.shape[0], 2), 200)])) % 256  # bitset: like u8
        steps.append({"M": m.copy(), "K": k.copy(), "L": low.copy(), "A": a, "y": y,
                      "D": np.full((r, 3), -1.5, dtype=F),    # i4 -3 dequantized by 0.5
                      "V": np.full((r, 3), 3, dtype=np.int8),  # op neg(U) >> V[n, 0]
                      "u": np.full(3, u, dtype=np.int8),
                      "E": (sm[1], 1e-5), "F": (f.copy(), 1e-5), "T": t.astype(np.uint8)})
    return steps


def slice_out():
    """The values after each step of auto_dim_runtime_slice_out.oi (exact)."""
    low = np.full((4, 4), 0.5, dtype=F)  # R: @fixed(t=4) @init(0.5)
    steps = []
    for n, x in enumerate(X):
        r = n + 1
        m = np.ones((r, 4), dtype=F)                # M[n, 0] grows M (@init 1.0), never written
        k = np.tile(m[0] + x, (r, 1))               # op add(M[n, 0], x) >> K[0..n+1]
        low[1:r + 1] = m.sum(axis=0, dtype=F)       # [4] spread over R[1..n+2]
        p = np.full((r + 1, 3), -3, dtype=np.int8)  # op max_axis(Q, axes=[0]) >> P[1..n+2]
        p[0] = 3                                    # op neg(Q[n, 0]) >> P[0..n+1], row 0 kept
        steps.append({"K": k, "R": low.copy(), "P": p})
    return steps


# (graph or None, its values, error graph, its line:col, the error, the persistent values it keeps,
# the steps that fail: the last 2, or all 3 where the first cannot fit either)
ONES = np.ones((1, 4), dtype=F)
CASES = [
    ("auto_dim_runtime.oi", auto_dim_runtime, "auto_dim_runtime_error.oi", "13:3",
     "op 'matmul' produces shape [2, 2] but output 'y' has shape [1, 2]",
     {"y.step0": (ONES @ W).astype(F), "M": ONES, "n": np.array(1, dtype=np.int32)}, 2),
    ("slice_runtime_ops.oi", slice_runtime_ops, "slice_runtime_error.oi", "12:22",
     "cannot store a value of shape [2, 2] into 'V' where the access has shape [3, 2]",
     {"V": (np.full((2, 4), 1.5, dtype=F) @ W).astype(F), "c": np.array(3, dtype=np.int32)}, 2),
    ("slice_runtime_unplanned.oi", slice_runtime_unplanned, "slice_runtime_unplanned_error.oi",
     "14:25", "cannot store a value of shape [2, 2] into 'V' where the access has shape [3, 2]",
     {"V": (np.full((2, 4), 1.5, dtype=F) @ W).astype(F), "c": np.array(3, dtype=np.int32)}, 2),
    ("slice_runtime_inputs.oi", slice_runtime_inputs, "slice_runtime_inputs_error.oi", "12:3",
     "op 'sum_axis' produces shape [1] but output 'y' has shape [4]",
     {"c": np.array(1, dtype=np.int32)}, 3),
    ("copy_runtime.oi", copy_runtime, "copy_runtime_error.oi", "12:27",
     "cannot store a value of shape [3, 4] as auto_dim 'Q' of current shape [2, 4]",
     {"K": np.vstack([np.zeros(4, dtype=F), X[0]]), "Q": np.vstack([np.zeros(4, dtype=F), X[0]]),
      "c": np.array(2, dtype=np.int32)}, 2),
    # The shape rules of runtime_shape_rules.cpp beyond auto_dim_runtime_rules.oi's.
    ("auto_dim_runtime_gather_pad.oi", gather_pad, "auto_dim_runtime_gather_error.oi", "11:3",
     "op 'gather': axis 2 is out of range for rank 2",
     {"M": ONES, "n": np.array(0, dtype=np.int32)}, 3),
    (None, None, "auto_dim_runtime_pad_error.oi", "11:3",
     "op 'pad': reflect pads of axis 0 must be smaller than its size 1",
     {"n": np.array(0, dtype=np.int32)}, 3),
    ("auto_dim_runtime_norm_rope.oi", norm_rope, "auto_dim_runtime_norm_error.oi", "16:3",
     "op 'batch_norm': batch_norm scale [3] must be [4], one value per channel",
     {"n": np.array(0, dtype=np.int32)}, 3),
    (None, None, "auto_dim_runtime_rope_error.oi", "10:3",
     "op 'rope': rope needs an even last dim, got 3 in [1, 3]",
     {"n": np.array(0, dtype=np.int32)}, 3),
    ("auto_dim_runtime_dequantize.oi", dequantize, "auto_dim_runtime_dequantize_error.oi", "11:3",
     "op 'dequantize': dequantize scale [3] must have 4 entries, x's size along axis 1",
     {"n": np.array(0, dtype=np.int32)}, 3),
    ("auto_dim_runtime_attention.oi", attention, "auto_dim_runtime_attention_error.oi", "11:3",
     "op 'attention': attention v [4, 2] must have k's 1 keys",
     {"n": np.array(0, dtype=np.int32)}, 3),
    # The slice, conv and pool rules (runtime_window_rules.cpp).
    ("auto_dim_runtime_window.oi", window, "auto_dim_runtime_conv_error.oi", "12:3",
     "op 'conv': conv weight [2, 1, 3] has 1 input channels per group but x [1, 2, 4] with "
     "group 1 needs 2",
     {"X": np.ones((1, 1, 4), dtype=F), "n": np.array(1, dtype=np.int32),
      # sum(CW[m]) over a window of ones, no bias: 1 - 1 + 0.5 and 2 + 0.25 - 0.5
      "Y": np.array([[[0.5, 0.5], [1.75, 1.75]]], dtype=F)}, 2),
    (None, None, "auto_dim_runtime_pool_error.oi", "11:3",
     "op 'max_pool': spatial axis 0: the window spans 7 but the padded input has only 4",
     {"n": np.array(0, dtype=np.int32)}, 3),
    (None, None, "auto_dim_runtime_slice_error.oi", "12:58",
     "cannot store a value of shape [0, 4] as auto_dim 'S' of current shape [1, 4]",
     {"n": np.array(0, dtype=np.int32)}, 3),
]
# --group operands (synth_c_runtime_operands): the operands of runtime_kernel.cpp beside a matrix
# of run-time shape.
OPERANDS = [
    ("auto_dim_runtime_operands.oi", operands, "auto_dim_runtime_acc_error.oi", "11:3",
     "op 'sum_axis' produces shape [1, 4] but the access to 'A' has shape [2, 4]",
     {"A": np.full((1, 4), 3, dtype=np.int32), "n": np.array(1, dtype=np.int32)}, 2),
    (None, None, "auto_dim_runtime_table_error.oi", "11:37",
     "cannot store a value of shape [2] into 'K' where the access has shape [4]",
     {"K": np.full((1, 4), 4.0, dtype=F), "n": np.array(1, dtype=np.int32)}, 2),
    (None, None, "auto_dim_runtime_entry_error.oi", "11:19",
     "prefix table entry p[2] is model tensor 'p.2', which model 'model.oinf' lacks",
     {"M": np.array([[0.0, -1.0, -2.0, -3.0]], dtype=F), "n": np.array(1, dtype=np.int32)}, 2),
    ("auto_dim_runtime_slice_out.oi", slice_out, "auto_dim_runtime_slice_out_error.oi", "11:37",
     "cannot store a value of shape [2] into 'K' where the access has shape [2, 4]",
     {"K": np.full((1, 4), 4.0, dtype=F), "n": np.array(1, dtype=np.int32)}, 2),
    (None, None, "auto_dim_runtime_axis_error.oi", "11:5",
     "op 'softmax': axis 2 is out of range for rank 2", {"n": np.array(0, dtype=np.int32)}, 3),
]


def run(cmd, cwd):
    r = subprocess.run(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    return r.returncode, r.stdout


def build(o, w, graph, out):
    code, log = run([o.openinfer, "synth", graph, "--model", "model.oinf", "--target", "c", "-o",
                     out], w)
    if code:
        sys.exit(f"FAIL: synth {graph}: {log}")
    sources = sorted(os.path.join(out, f) for f in os.listdir(os.path.join(w, out))
                     if f.endswith(".c"))
    code, log = run([o.cc, "-std=c11", "-Wall", "-Wextra", "-Werror", "-O0", "-g",
                     "-fsanitize=address,undefined", "-fno-sanitize-recover=all", "-o",
                     out + "/prog", *sources, "-lm"], w)
    if code:
        sys.exit(f"FAIL: compile {graph}: {log}")
    return out + "/prog"


def same(bad, got, key, want):
    if key not in got.tensors:
        bad.append(f"{key}: not saved")
        return
    g = got[key]
    if isinstance(want, tuple):  # (f64 values, relative bound) for f32 transcendentals
        want, tol = want
        if g.shape != want.shape or not np.allclose(g, want, rtol=tol, atol=tol):
            bad.append(f"{key}: {g.tolist()}, expected {want.tolist()} within {tol}")
        return
    if g.dtype != want.dtype or g.shape != want.shape or g.tobytes() != want.tobytes():
        bad.append(f"{key}: {g.tolist()} {g.shape}, expected {want.tolist()} {want.shape}")


def check_values(o, w, bad, graph, values, common):
    """The graph's returned values after each step against `values()`."""
    prog = build(o, w, graph, "gen")
    code, log = run(["./" + prog, *common, "--save", "got.oinf", "-q"], w)
    if code:
        bad.append(f"{os.path.basename(graph)}: exit {code}: {log[-1500:]}")
        return
    got = oinf.read(os.path.join(w, "got.oinf"))
    for step, want in enumerate(values()):
        for name, value in want.items():
            same(bad, got, f"{name}.step{step}", value)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--openinfer", required=True)
    ap.add_argument("--cc", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--group", choices=("shapes", "operands"), default="shapes")
    o = ap.parse_args()
    cases = CASES if o.group == "shapes" else OPERANDS
    w = o.work
    os.makedirs(w, exist_ok=True)
    for txt, name in (("auto_dim_runtime_model.txt", "model.oinf"),
                      ("copy_tables_input.txt", "input.oinf")):
        code, log = run([o.openinfer, "oinf", "pack", os.path.join(C, txt), "-o", name], w)
        if code:
            sys.exit(f"FAIL: pack {txt}: {log}")
    common = ["--model", "model.oinf", "--input", "x=input.oinf:x.{step}", "--steps", "3"]
    bad = []
    for graph, values, error_graph, at, error, kept, fails in cases:
        error_graph = os.path.join(C, error_graph)
        if graph:
            check_values(o, w, bad, os.path.join(C, graph), values, common)
        # The error: the simulator's message at its first failed step, word for word.
        message = f"{error_graph}:{at}: {error}"
        code, log = run([o.openinfer, "run", error_graph, *common, "-q"], w)
        if code == 0 or message not in log:
            bad.append(f"simulator: exit {code}, expected '{message}': {log[-800:]}")
        prog = build(o, w, error_graph, "gen_error")
        code, log = run(["./" + prog, *common, "--keep-going", "--save", "err.oinf", "-q"], w)
        if code != 1 or log.count(message) != fails:
            bad.append(f"{os.path.basename(error_graph)}: exit {code}, expected 1 and "
                       f"'{message}' {fails} times: {log[-1500:]}")
            continue
        got = oinf.read(os.path.join(w, "err.oinf"))
        for name, value in kept.items():  # the failed steps leave them as the first did
            for step in ([None] if "." in name else range(3)):
                same(bad, got, name if step is None else f"{name}.step{step}", value)
    for b in bad:
        print(f"  {b}")
    print(f"{'FAIL' if bad else 'ok'}: {len(cases)} cases over 3 steps against the values "
          f"computed here, their error graphs' failed steps against the simulator's messages")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
