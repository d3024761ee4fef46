#!/usr/bin/python3
"""Constructs of the language the glsl target once refused (issue #18), against the simulator.

  language_test.py --openinfer BIN --runner glsl_manifest_runner --glslc GLSLC --work DIR

Each graph of tests/glsl_emitter/graphs runs `openinfer run` (the simulator) and the glsl
target (planned for devices/lavapipe.json or --device, with preferences.arena_alignment 1 for
those in ALIGN_1, run by the shared manifest runner) over several
steps, fetching every persistent variable; the --save files must be byte-identical (within
TOLERANT's bound for rope's sines and attention's exp), and the values named in EXPECT must be the ones computed
here from dsl.md's rules (wrapping counters, @init of every dtype), independently of both. Exit 77 without a Vulkan device.
"""
import argparse
import json
import math
import os
import shutil
import subprocess
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tests", "synth"))
sys.path.insert(0, os.path.join(ROOT, "python"))
import glsl_program  # noqa: E402
from openinfer import oinf  # noqa: E402


def wrap(x, bits, signed):
    x %= 1 << bits
    return x - (1 << bits) if signed and x >= 1 << (bits - 1) else x


def counters(step):
    """counters.oi after step `step` (0-based): @init + (step + 1) * amount, wrapped."""
    n = step + 1
    return {"c8": wrap(250 + 3 * n, 8, False), "s8": wrap(-126 - 2 * n, 8, True),
            "c16": wrap(65530 + 4 * n, 16, False), "s16": wrap(-32766 - 2 * n, 16, True),
            "c4": wrap(13 + n, 4, False), "s4": wrap(-7 - 3 * n, 4, True),
            "c2": wrap(2 + n, 2, False), "s2": wrap(-n, 2, True), "c1": wrap(n, 1, False),
            "s1": wrap(-1 - n, 1, True), "c32": wrap(-2 - n, 32, True),
            "c64": wrap(3 - 2 * n, 64, False),
            "vi4": [-3] * 5, "vu2": [3] * 7, "vu1": [1] * 11, "vi16": [-300] * 3,
            "vu16": [40000] * 3, "vi8": [-5] * 3, "vu8": [200] * 3, "vbf": [1.5] * 2,
            "vf8": [-2.5] * 2, "vbs": [5] * 2}


def named_settings(step):
    """named_settings.oi: the constants' stored values (f16 0.1 = 0x2E66, bf16 0.1 = 0x3DCD)."""
    x = [[1.0, -2.0, 3.0], [-0.5, 4.0, -8.0]][step]
    return {"a": [0.5] * 3, "a2": [0.0999755859375] * 3, "a3": [0.10009765625] * 3,
            "c": [-2] * 3, "d": [v if v >= 0 else 0.5 * v for v in x], "e": [3] * 3,
            "f": [7] * 3, "g": [9] * 3, "p4": [-5.0] * 3, "p2": [3] * 3,
            "p1": [v if v >= 0 else -v for v in x]}


BOOL_X = [[[1.0, 5.0, -2.0], [1.0, 3.0, -2.0]], [[0.0, 2.0, 7.0], [4.0, 2.0, 7.0]],
          [[3.0, 3.0, 3.0], [3.0, 1.0, 3.0]]]


def loop_bool_settings(step):
    """loop_bool_settings.oi: step s runs i in 0..s+1; select_first = i != 0 picks the first of
    tied maxima (else the last), saturate = i != 0 clamps cast(y) to i32's range (else it wraps
    modulo 2^32: 3e9 -> -1294967296); both summed, cc wrapping at 32 bits."""
    sat = [2147483647, -2147483648, 1]
    wrapped = [wrap(3000000000, 32, True), wrap(-3000000000, 32, True), 1]
    am, cc = [0] * 3, [0] * 3
    for s in range(step + 1):
        x = BOOL_X[s]
        for i in range(s + 1):
            for c in range(3):
                col = [x[0][c], x[1][c]]
                tied = [r for r in range(2) if col[r] == max(col)]
                am[c] += tied[0] if i != 0 else tied[-1]
            cc = [wrap(a + b, 32, True) for a, b in zip(cc, sat if i != 0 else wrapped)]
    return {"am": am, "cc": cc}


def loop_axis_settings(step):
    """loop_axis_settings.oi: step s runs i in 0..s+1; t sums iota along axis i (the row index
    for axis 0, the column for axis 1); sm is the last softmax of x = 0 along axis s: 1/2 along
    the rows, 1/3 (rounded to f32, 0.3333333432674408) along the columns."""
    t = [[0.0] * 3 for _ in range(2)]
    for s in range(step + 1):
        for i in range(s + 1):
            t = [[t[r][c] + (r if i == 0 else c) for c in range(3)] for r in range(2)]
    return {"t": t, "sm": [[[0.5, 0.3333333432674408][step]] * 3] * 2}



AX_X = [[1.0, 5.0, 2.0], [7.0, 0.0, 3.0], [4.0, 4.0, 9.0]]
AX_Q = [[1, -2, 3], [4, 5, -6], [7, 8, 9]]
AX_QS, AX_GI, AX_V, AX_VS, AX_SC = [0.5, 2.0, -1.0], [2, 0, 2], [2.0, -2.0, 2.0], [1.5, 3.0, -4.0], 2.5


def loop_axis_shape(step):
    """loop_axis_shape.oi: each step runs axis 1 alone: the first largest of each row of
    [[1, 5, 2], [7, 0, 3]] is at 1 and at 0, summed over the steps."""
    return {"t": [step + 1, 0]}


def loop_axis_ops(step):
    """loop_axis_ops.oi: step s runs i in 0..s+1 and j in -1..1 (both the one axis of a vector);
    by ops.md: argmax along axis i (the first largest), dequantize q * qs[r or c], gather rows or
    columns gi, q * 2.5 (a scalar scale), rms_norm v / sqrt(mean(v^2)) * vs with v^2 = 4, concat
    v then vs; each summed over its runs (every value exact in f32)."""
    t = {"ta": [0] * 3, "tq": [[0.0] * 3 for _ in range(3)], "tg": [[0.0] * 3 for _ in range(3)],
         "td": [[0.0] * 3 for _ in range(3)], "tn": [0.0] * 3, "tc": [0.0] * 6}
    for s in range(step + 1):
        for i in range(s + 1):
            for k in range(3):
                line = [AX_X[r][k] for r in range(3)] if i == 0 else AX_X[k]
                t["ta"][k] += line.index(max(line))
            for r in range(3):
                for c in range(3):
                    t["tq"][r][c] += AX_Q[r][c] * AX_QS[r if i == 0 else c]
                    t["tg"][r][c] += AX_X[AX_GI[r]][c] if i == 0 else AX_X[r][AX_GI[c]]
                    t["td"][r][c] += AX_Q[r][c] * AX_SC
        for _ in range(2):
            t["tn"] = [a + v / 2.0 * w for a, v, w in zip(t["tn"], AX_V, AX_VS)]
            t["tc"] = [a + b for a, b in zip(t["tc"], AX_V + AX_VS)]
    return t


RULE_X = [[1.0, 3.0, 1.0], [3.0, 1.0, 3.0]]
RULE_Q = [[1.0, 5.0, 5.0], [5.0, 2.0, 5.0], [5.0, 5.0, 0.0]]
RULE_S, RULE_W = [[0.5, 2.0, -1.0], [4.0, 1.5, -3.0]], [7.0, -8.0]
# per step the bounds of loops p (i), r (j) and u (k); the fourth step's k = -1 is an error
RULE_BOUNDS = [((1, 2), (0, 1), (0, 1)), ((-1, 0), (-2, 2), (-2, -1)), ((1, 2), (-2, 0), (0, 1)),
               ((0, 0), (0, 0), (-1, 0))]


def argmax_along(x, axis, first=True):
    """ops.md's argmax_axis of a matrix along axis 0 or 1: the first (else the last) largest."""
    lines = [[r[c] for r in x] for c in range(len(x[0]))] if axis == 0 else x
    out = []
    for line in lines:
        top = [n for n, v in enumerate(line) if v == max(line)]
        out.append(top[0] if first else top[-1])
    return out


def loop_axis_rules(step):
    """loop_axis_rules.oi: tk sums argmax along axis 1 kept ([[1], [0]]) for each i (-1 or 1,
    keepdims being i != 0), tc concat(x, w) along the columns, ts argmax of q along axis j mod 2
    with select_first = j != 0, tn layer_norm over the whole x (mean 2, variance 1: x - 2) times
    the matrix scale s (axis 0 or -2)."""
    t = {"tk": [[0], [0]], "tc": [[0.0] * 4 for _ in range(2)], "ts": [0] * 3,
         "tn": [[0.0] * 3 for _ in range(2)]}
    for s in range(step + 1):
        (p0, p1), (r0, r1), (u0, u1) = RULE_BOUNDS[s]
        for i in range(p0, p1):
            am = argmax_along(RULE_X, i % 2)
            t["tk"] = [[a[0] + m] for a, m in zip(t["tk"], am)]
            cat = [row + [wv] for row, wv in zip(RULE_X, RULE_W)]
            t["tc"] = [[a + b for a, b in zip(ra, rb)] for ra, rb in zip(t["tc"], cat)]
        for j in range(r0, r1):
            t["ts"] = [a + m for a, m in zip(t["ts"], argmax_along(RULE_Q, j % 2, j != 0))]
        for _ in range(u0, u1):
            flat_x = [v for row in RULE_X for v in row]
            mean = sum(flat_x) / len(flat_x)
            sd = math.sqrt(sum((v - mean) ** 2 for v in flat_x) / len(flat_x))
            t["tn"] = [[a + (v - mean) / sd * g for a, v, g in zip(ra, rx, rs)]
                       for ra, rx, rs in zip(t["tn"], RULE_X, RULE_S)]
    return t


TABLE_X = [[[1.0, 5.0, 2.0], [7.0, 0.0, 3.0]], [[4.0, 1.0, 9.0], [3.0, 8.0, 0.0]],
           [[1.0, 5.0, 2.0], [7.0, 0.0, 3.0]], [[1.0, 5.0, 2.0], [7.0, 0.0, 3.0]]]
TABLE_BOUNDS = [(0, 1), (-2, -1), (0, 1), (-2, 0)]  # the fourth step's -1 is an error


def loop_axis_table(step):
    """loop_axis_table.oi: K[1] is the argmax of x along axis 0 (i = 0 or -2), t their sum; K[0]
    is never written (zeros)."""
    t = [0] * 3
    for s in range(step + 1):
        for _ in range(*TABLE_BOUNDS[s]):
            k1 = argmax_along(TABLE_X[s], 0)
            t = [a + b for a, b in zip(t, k1)]
    return {"t": t, "K": [[0] * 3, k1]}


NOFIT_X = [[[1.0, -2.0, 3.0], [0.5, 4.0, -8.0]], [[2.0, 2.0, -1.0], [7.0, 0.0, 1.5]],
           [[-3.0, 1.0, 0.25], [6.0, -4.0, 2.0]], [[1.0, 1.0, 1.0], [1.0, 1.0, 1.0]]]
NOFIT_XC = [[[[float(c * 5 + k - 6 * s) for k in range(5)] for c in range(3)]] for s in range(4)]
# per step a loop's bounds: none runs a value, the fourth runs 0 (the axis) or 1 (the group)
NOFIT_AXIS_BOUNDS = [(0, 0), (1, 1), (-2, -2), (0, 1)]
NOFIT_GROUP_BOUNDS = [(0, 0), (2, 2), (-1, -1), (1, 2)]


def bounds_text(names, rows, step):
    """The inputs N0 and N1 (a loop's bounds) of step `step` for each name N and (lo, hi) row."""
    return "".join(f"{n}0.{step}: i32 = {lo}\n{n}1.{step}: i32 = {hi}\n"
                   for n, (lo, hi) in zip(names, rows))


def loop_no_fit_axis(step):
    """loop_no_fit_axis.oi: t sums x over the steps; the norm never runs (u stays 0)."""
    t = [[sum(NOFIT_X[s][r][c] for s in range(step + 1)) for c in range(3)] for r in range(2)]
    return {"t": t, "u": [[0.0] * 3] * 2}


def loop_no_fit_group(step):
    """loop_no_fit_group.oi: t sums x over the steps; the conv never runs (u stays 0)."""
    t = [[[sum(NOFIT_XC[s][0][c][k] for s in range(step + 1)) for k in range(5)]
          for c in range(3)]]
    return {"t": t, "u": [[[0.0] * 4] * 2]}


KEEP_X = [[[1.0, 5.0, 2.0], [7.0, 0.0, 3.0], [4.0, 4.0, 9.0]],
          [[3.0, 3.0, 1.0], [0.0, 8.0, 8.0], [6.0, 2.0, 6.0]],
          [[2.0, 1.0, 0.0], [5.0, 5.0, 5.0], [1.0, 9.0, 2.0]],
          [[1.0, 5.0, 2.0], [7.0, 0.0, 3.0], [4.0, 4.0, 9.0]]]
# per step the bounds of loops a (i, y's axis), b (j, y's keepdims), c (h, z's axis) and d (k,
# z's keepdims); the fourth step's keepdims 1 into y is an error
KEEP_BOUNDS = [((0, 2), (0, 1), (1, 2), (1, 3)), ((-2, 0), (0, 1), (-1, 0), (-3, -2)),
               ((1, 2), (0, 1), (0, 0), (0, 0)), ((0, 1), (1, 2), (0, 0), (0, 0))]


def loop_keep_index(step):
    """loop_keep_index.oi: t sums argmax_axis(x) along axis i mod 2 (the first largest) for each
    (j, i); u sums the argmax along axis 1 kept as a column for each (k, h)."""
    t, u = [0] * 3, [[0] for _ in range(3)]
    for s in range(step + 1):
        (a0, a1), (b0, b1), (c0, c1), (d0, d1) = KEEP_BOUNDS[s]
        for _ in range(b0, b1):
            for i in range(a0, a1):
                t = [v + m for v, m in zip(t, argmax_along(KEEP_X[s], i % 2))]
        for _ in range(d0, d1):
            for _ in range(c0, c1):
                u = [[v[0] + m] for v, m in zip(u, argmax_along(KEEP_X[s], 1))]
    return {"t": t, "u": u}


FP_Y = [3e9, -1.5e9, 2.0]
FP_R = [[[4.0, 2.0, 0.0, 0.0], [0.0, 0.0, -2.0, 4.0]],
        [[6.0, 4.0, 2.0, 2.0], [2.0, -2.0, 4.0, -6.0]],
        [[4.0, 2.0, 0.0, 0.0], [0.0, 0.0, -2.0, 4.0]], [[0.0] * 4] * 2]
FP_RS, FP_WC = [1.0, -1.0, 2.0, 0.5], [[1.0, -1.0], [2.0, 0.5]]
FP_XC = [[1.0, 2.0, 3.0, 4.0, 5.0], [-1.0, 0.0, 2.0, -3.0, 1.0]]
# per step the bounds of loops a (i), b (j), d (g) and e (h, in b); the fourth step's group 1
# is an error
FP_BOUNDS = [((0, 2), (-1, 0), (2, 3), (-1, 0)), ((-1, 1), (1, 2), (2, 3), (1, 2)),
             ((2, 3), (-1, 0), (2, 2), (-1, 0)), ((0, 0), (0, 0), (1, 2), (0, 0))]


def f32_to_i32(v, saturate):
    """ops.md's cast f32 -> i32 (trunc): clamped to i32's range, else wrapped modulo 2^32."""
    t = int(v)
    return max(-2**31, min(2**31 - 1, t)) if saturate else wrap(t, 32, True)


def loop_finite_params(step):
    """loop_finite_params.oi: tc sums cast(relu(y, alpha=i)) (alpha * y below 0), saturating for
    i != 0 and wrapping for i = 0, wrapped at 32 bits; tr sums rms_norm of r's rows
    (x / sqrt(mean(x^2) + j) * rs, mean squares 5 with j = -1 and 15 with j = 1: exact); tv sums
    the depthwise conv (group 2) of xc's channel m with wc[m]; th sums rms_norm along axis j
    with epsilon h (the same mean squares and epsilons)."""
    t = {"tc": [0] * 3, "tr": [[0.0] * 4 for _ in range(2)], "tv": [[[0.0] * 4 for _ in range(2)]],
         "th": [[0.0] * 4 for _ in range(2)]}

    def rms_rows(rows, eps):
        out = []
        for row in rows:
            rms = math.sqrt(sum(v * v for v in row) / len(row) + eps)
            out.append([v / rms * g for v, g in zip(row, FP_RS)])
        return out

    def plus(a, b):
        return [[x + y for x, y in zip(ra, rb)] for ra, rb in zip(a, b)]

    for s in range(step + 1):
        (a0, a1), (b0, b1), (d0, d1), (e0, e1) = FP_BOUNDS[s]
        for i in range(a0, a1):
            c = [f32_to_i32(v if v >= 0 else i * v, i != 0) for v in FP_Y]
            t["tc"] = [wrap(a + b, 32, True) for a, b in zip(t["tc"], c)]
        for j in range(b0, b1):
            t["tr"] = plus(t["tr"], rms_rows(FP_R[s], j))
            for h in range(e0, e1):
                t["th"] = plus(t["th"], rms_rows(FP_R[s], h))
        for _ in range(d0, d1):
            for m in range(2):
                out = [FP_XC[m][k] * FP_WC[m][0] + FP_XC[m][k + 1] * FP_WC[m][1] for k in range(4)]
                t["tv"][0][m] = [a + b for a, b in zip(t["tv"][0][m], out)]
    return t


ATT = [{"q": [[0.5, -1.0, 0.25, 2.0], [1.0, 0.0, -0.5, 0.75], [-1.5, 0.5, 1.0, 0.0]],
        "k": [[1.0, 0.5, -1.0, 0.25], [0.0, -0.75, 0.5, 1.0], [0.25, 1.0, 0.0, -0.5]],
        "v": [[1.0, 2.0, -3.0, 0.5], [-1.0, 0.25, 4.0, 2.0], [0.5, -0.5, 1.5, -2.0]]}] * 3
ATT_BOUNDS = [(0, 1), (1, 2), (-1, 0)]  # the loop's bounds per step


def attention_rows(q, k, v, scale, causal):
    """ops-nn.md's attention of one head: softmax(q k^T * scale) v, query i seeing keys j <= i
    where causal."""
    out = []
    for i, qr in enumerate(q):
        keys = range(i + 1) if causal else range(len(k))
        s = [scale * sum(a * b for a, b in zip(qr, k[j])) for j in keys]
        w = [math.exp(x - max(s)) for x in s]
        out.append([sum(w[n] * v[j][c] for n, j in enumerate(keys)) / sum(w)
                    for c in range(len(v[0]))])
    return out


def loop_attention_flags(step):
    """loop_attention_flags.oi: t sums attention(q, k, v, scale=i, causal=i != 0) over i."""
    t = [[0.0] * 4 for _ in range(3)]
    for s in range(step + 1):
        for i in range(*ATT_BOUNDS[s]):
            y = attention_rows(ATT[s]["q"], ATT[s]["k"], ATT[s]["v"], i, i != 0)
            t = [[a + b for a, b in zip(ra, rb)] for ra, rb in zip(t, y)]
    return {"t": [[t]]}


ACC_X = [[1, -2, 3], [4, 5, -6], [-7, 8, 9], [1, 1, 1]]
ACC_Y = [[3, 3, -3], [2, -1, 10], [100, -100, 2], [1, 1, 1]]
ACC_Z = [[[1, 2, 3], [-4, 5, 6]], [[7, -8, 9], [10, 11, -12]], [[13, 14, 15], [-16, 17, 127]],
         [[1, 1, 1], [1, 1, 1]]]
ACC_E = [2, 3, 4, 6]


def acc_window(step):
    """acc_window.oi: step s stores x*y (exact in i32) in every entry of K[0..s+2] (K has s+2
    entries), and z*z in L[s..s+2] of L's 8 @fixed entries (the others as last written, 0 before)."""
    L = [[0] * 3 for _ in range(8)]
    for s in range(step + 1):
        for r in range(2):
            L[s + r] = [v * v for v in ACC_Z[s][r]]
    return {"K": [[a * b for a, b in zip(ACC_X[step], ACC_Y[step])]] * (step + 2), "L": L}


ACCOP_A = [[[37, -51, 74, -104], [-91, -80, 59, -99]], [[-19, -109, -84, 94], [86, -93, -5, -82]],
           [[89, -98, -65, -14], [-97, 75, -103, -15]], [[-105, -60, 20, 86], [-55, -68, 29, -36]]]
ACCOP_B = [[[-76, -32, 62], [-79, -96, -98], [-23, 126, 90], [32, 110, 104]],
           [[57, 25, -1], [-36, -4, -87], [25, 125, 47], [101, 19, -91]],
           [[-68, 86, -44], [47, -51, 122], [87, -108, -89], [32, 46, 51]],
           [[126, 105, -93], [-81, 10, 114], [-95, -97, 30], [100, 17, 69]]]
ACCOP_W = [[[[49, -117, 108], [53, -42, -69]], [[124, -98, -17], [19, -62, -2]]],
           [[[75, 72, 126], [-87, -43, 101]], [[77, 14, -58], [92, 14, 84]]],
           [[[55, 66, -10], [-51, -86, -38]], [[-51, -10, -9], [-122, 120, -35]]],
           [[[6, 16, -126], [-54, 86, 61]], [[35, -64, -101], [105, 72, 75]]]]


def acc_window_ops(step):
    """acc_window_ops.oi by ops.md's acc= (the i8 operands widened exactly, the op at i32): step
    s stores the sum of w's two [2, 3] halves in H[s..s+2] and a @ b in G[s..s+2]; H grows to
    s + 2 entries, G keeps its 8 @fixed ones (the others as last written, 0 before)."""
    g, h = [[0] * 3 for _ in range(8)], []
    for s in range(step + 1):
        a, b, w = ACCOP_A[s], ACCOP_B[s], ACCOP_W[s]
        h += [[0] * 3 for _ in range(s + 2 - len(h))]
        for r in range(2):
            g[s + r] = [sum(a[r][k] * b[k][j] for k in range(4)) for j in range(3)]
            h[s + r] = [w[0][r][j] + w[1][r][j] for j in range(3)]
    return {"G": g, "H": h}


PACKED_X = [[[1, -2, 3], [7, -8, 0]], [[-1, 5, -6], [2, 4, -3]], [[6, 6, -7], [0, 1, -1]]]


def packed_windows(step):
    """packed_windows.oi: step s stores x_s's rows (integers in i4's range, cast exactly) at
    entries 2s and 2s+1; w is entries 0..3, those not yet written zeros; R has 2(s+1)."""
    rows = [r for x in PACKED_X[:step + 1] for r in x]
    return {"w": (rows + [[0] * 3] * 4)[:4], "R": rows}

ROPE_Q = [[1.0, 0.5, -1.0, 2.0, 0.25, 3.0, -2.0, 1.0], [2.0, -1.0, 0.5, 0.5, 1.0, 1.0, -3.0, 4.0],
          [0.0, 1.5, 2.5, -0.5, 3.0, -1.0, 1.0, 2.0]]


def rope_runtime(step):
    """rope_runtime.oi by ops-nn.md: token t at position 1 + t, pair k (x[k], x[k + 2]) turned by
    the angle p * theta^(-2k/4) to (a cos - b sin, a sin + b cos), summed over theta = 1..s+1
    of each step s (in f64 here; the target within ROPE_TOL)."""
    acc = [0.0] * 8
    for s in range(step + 1):
        q = ROPE_Q[s]
        for theta in range(1, s + 2):
            for t in range(2):
                for k in range(2):
                    a, b = q[4 * t + k], q[4 * t + k + 2]
                    angle = (1 + t) * theta ** (-2.0 * k / 4)
                    acc[4 * t + k] += a * math.cos(angle) - b * math.sin(angle)
                    acc[4 * t + k + 2] += a * math.sin(angle) + b * math.cos(angle)
    return {"acc": [[acc[0:4], acc[4:8]]]}


ROPE_X = [[1, -2, 0.5, 3], [4, -1, -0.5, 2], [6, 2, 2, -3], [0.25, 1, -1, 5]]


def auto_dim_rope(step):
    """auto_dim_rope.oi by dsl.md and ops-nn.md: M grows a row a step from @init 1, so after step
    s row r is 1 plus x of steps r..s; E = rope(M, s): row t at position s + t, pair k (x[k],
    x[k + 2]) turned by the angle (s + t) * 10000^(-2k/4) to (a cos - b sin, a sin + b cos) (in
    f64 here; the target within ROPE_TOL)."""
    rows = step + 1
    m = [[1 + sum(ROPE_X[t][j] for t in range(r, rows)) for j in range(4)] for r in range(rows)]
    e = []
    for t, row in enumerate(m):
        out = [0.0] * 4
        for k in range(2):
            a, b = row[k], row[k + 2]
            angle = (step + t) * 10000 ** (-2.0 * k / 4)
            out[k] = a * math.cos(angle) - b * math.sin(angle)
            out[k + 2] = a * math.sin(angle) + b * math.cos(angle)
        e.append(out)
    return {"M": m, "E": e}


GW_X = [[1, -2, 0.5], [3, 0.25, -1], [-0.5, 2, 6], [2, -0.75, 2]]
GW_CW = [[[1, -2, 0.5]], [[3, 1, -1]]]
GW_CB = [0.25, -1]


def auto_dim_window(step):
    """auto_dim_window.oi by dsl.md and ops.md/ops-nn.md (every value exact in f32): M, X's
    batches and H's rows grow one a step from @init 1, so after step s the one made at step r is
    1 plus x of steps r..s. S: M's rows last to first, of each columns 2 and 0; U: M's columns
    1 and 2 (fewer than 100 rows). Y: conv over
    each batch, output o's tap k reading cell 2 o + 2 k - 2 (pads 2, stride 2, dilation 2;
    padding 0), plus the bias. P: max_pool's output o the largest of cells o and o + 2 inside
    [0, 3). A: avg_pool's mean of the cells of rows h - 1, h and columns w, w + 1 inside H (the
    padded row above the first left out)."""
    rows = step + 1
    g = [[1 + sum(GW_X[t][j] for t in range(r, rows)) for j in range(3)] for r in range(rows)]
    y = [[[GW_CB[m] + sum(GW_CW[m][0][k] * b[2 * o + 2 * k - 2] for k in range(3)
                          if 0 <= 2 * o + 2 * k - 2 < 3) for o in range(2)]
          for m in range(2)] for b in g]
    p = [[[max(b[c] for c in (o, o + 2) if c < 3) for o in range(2)]] for b in g]
    a = []
    for h in range(rows):
        cells = [[g[r][c] for r in (h - 1, h) if r >= 0 for c in (w, w + 1)] for w in range(2)]
        a.append([sum(c) / len(c) for c in cells])
    return {"M": g, "S": [[g[rows - 1 - r][2], g[rows - 1 - r][0]] for r in range(rows)],
            "U": [[r[1], r[2]] for r in g],
            "X": [[b] for b in g], "Y": y, "P": p, "H": [[g]], "A": [[a]]}


def auto_dim_slice_clamp(step):
    """auto_dim_slice_clamp.oi by dsl.md: M grows a row a step from @init 1 and doubles, so after
    step s row r is 2^(s - r + 1); U its first rows, at most 2."""
    m = [[2.0 ** (step - r + 1)] * 2 for r in range(step + 1)]
    return {"M": m, "U": m[:2]}


def auto_dim_reset(step):
    """auto_dim_reset.oi: every matrix x, but matrix `step` (reset) fresh @init 9."""
    x = [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0], [7.0, 8.0]][step]
    return {"C": [[[9.0, 9.0]] if l == step else [x] for l in range(3)], "n": step + 1}


def loop_settings(step):
    """loop_settings.oi: sums over j in 0..2, i in j..3 of fill(i), fill(j), -fill(i),
    relu(x, alpha=i) and relu(-sum(x), alpha=i), accumulated over the steps (te wraps at 256, tp
    at i4's -8..7)."""
    pairs = [(i, j) for j in range(2) for i in range(j, 3)]
    x = [1.0, -2.0, 3.0]
    n = step + 1
    si, sj = sum(i for i, _ in pairs), sum(j for _, j in pairs)
    return {"te": [wrap(n * si, 8, False)] * 3, "th": [float(n * sj)] * 3,
            "tp": [wrap(-n * si, 4, True)] * 3,
            "ts": [n * sum(v if v >= 0 else i * v for i, _ in pairs) for v in x],
            "tr": [n * sum(-sum(x) if -sum(x) >= 0 else i * -sum(x) for i, _ in pairs)]}


WINDOW_X = [[[1, 2, 3], [4, 5, 6]], [[7, 8, 9], [10, 11, 12]]]


def window_outputs(step):
    """window_outputs.oi: A[] = 2x - x = x; B[] = x's second row twice; F[l, pos..pos+2] =
    x + A[l] at pos = 1, 3."""
    f = [[[0.0] * 3 for _ in range(6)] for _ in range(2)]
    for s in range(step + 1):
        x, pos = WINDOW_X[s], 1 + 2 * s
        for l in range(2):
            for r in range(2):
                f[l][pos + r] = [float(x[r][c] + x[l][c]) for c in range(3)]
    return {"A": [[float(v) for v in row] for row in WINDOW_X[step]], "F": f,
            "B": [[float(v) for v in WINDOW_X[step][1]]] * 2}


AUTO_X = [[1.0, -2.0, 3.0], [0.5, 4.0, -1.0], [-3.0, 2.0, 0.25]]


def auto_dim_ops(step):
    """auto_dim_ops.oi by dsl.md: M (@init 1) += x each step, y = M * x; G grows a fresh row n
    (@init 2) per step, r = that row, G[n] = r + x, then G[0] = -r; gpad is G zero padded to
    its @fixed bound [3, 4]; C[k] += x for k = 0, 1, then C[0] += C[1]."""
    m, g, c = [[1.0] * 3 for _ in range(2)], [], [[0.0] * 3 for _ in range(2)]
    for s in range(step + 1):
        x = AUTO_X[s]
        m = [[a + b for a, b in zip(row, x)] for row in m]
        y = [[a * b for a, b in zip(row, x)] for row in m]
        g.append([2.0] * 3)
        gpad = [row + [0.0] for row in g] + [[0.0] * 4 for _ in range(2 - s)]
        r = list(g[s])
        g[s] = [a + b for a, b in zip(r, x)]
        g[0] = [-a for a in r]
        c = [[a + b for a, b in zip(row, x)] for row in c]
        c[0] = [a + b for a, b in zip(c[1], c[0])]
    return {"M": m, "y": y, "G": g, "r": [r], "C": c, "gpad": gpad}


COPY_X = [[1.0, -2.0], [3.0, 4.0], [5.0, 6.0]]


def auto_dim_copies(step):
    """auto_dim_copies.oi by dsl.md: M = x, y = M, K[n] = M, J[1] = x + y, N's part = J[1],
    H[n] = N's part, O = N, then M = K[0]; K has its @fixed 4 entries (unwritten ones zero)."""
    x = COPY_X[step]
    two = [[2 * v for v in COPY_X[s]] for s in range(step + 1)]
    return {"y": [x], "K": [[COPY_X[s]] if s <= step else [[0.0, 0.0]] for s in range(4)],
            "H": [[r] for r in two], "M": [COPY_X[0]], "N": [two[-1]], "O": [two[-1]]}


RUNTIME_X = [[[1, 2, 3], [4, 5, 6]], [[-1, 0.5, 2], [7, 8, 9]], [[3, 3, 3], [-4, -4, -4]],
             [[1, 1, 1], [1, 1, 1]]]


def window_runtime(step):
    """window_runtime.oi: rows 2s and 2s+1 of K hold 2x, of G x twice over, of R the row's
    largest value, of S both x's second row and of F x * x at step s; F keeps its @fixed 6 rows
    (unwritten ones zero)."""
    rows = [row for s in range(step + 1) for row in RUNTIME_X[s]]
    k = [[2.0 * v for v in row] for row in rows]
    g = [[float(v) for v in list(row) + list(row)] for row in rows]
    r = [[float(max(row))] for row in rows]
    f = [[float(v * v) for v in row] for row in rows]
    sl = [[float(v) for v in RUNTIME_X[s][1]] for s in range(step + 1) for _ in range(2)]
    return {"K": k, "F": f + [[0.0] * 3] * (6 - len(f)), "G": g, "R": r, "S": sl}


SPREAD_V = [[1.0, -2.0, 0.5], [3.0, 0.25, -1.0], [-4.0, 2.0, 8.0]]


def window_spread(step):
    """window_spread.oi by dsl.md: at step s rows 2s and 2s+1 of K hold v, of Q 2v, and of P[a]
    x's row a; u = v * v."""
    k = [list(SPREAD_V[s]) for s in range(step + 1) for _ in range(2)]
    q = [[2 * e for e in row] for row in k]
    p = [[[float(e) for e in RUNTIME_X[s][a]] for s in range(step + 1) for _ in range(2)]
         for a in range(2)]
    return {"K": k, "P": p, "Q": q, "u": [e * e for e in SPREAD_V[step]]}


def loop_runtime(step):
    """loop_runtime.oi: step s runs i in 0..s+1 (a persistent counter): acc sums relu(x, alpha=i),
    ai, ah and au sum fill(i), cl clamp(x, min=i, max=j) for j in i..s+1; big sums fill(j) for
    j in 0..300 (44850) each step."""
    acc, tri, cl = [0.0] * 3, 0, [0.0] * 3
    for s in range(step + 1):
        for i in range(s + 1):
            acc = [a + (v if v >= 0 else i * v) for a, v in zip(acc, AUTO_X[s])]
            tri += i
            for j in range(i, s + 1):  # clamp(x, min=i, max=j)
                cl = [c + min(max(v, i), j) for c, v in zip(cl, AUTO_X[s])]
    return {"acc": acc, "ai": [tri] * 3, "ah": [float(tri)] * 3, "au": [tri % 256] * 3,
            "big": [44850 * (step + 1)] * 3, "cl": cl}


def auto_dim_matrices(step):
    """auto_dim_matrices.oi: M grows a row a step (@init 1, then x); N and O follow it, R holds
    it zero padded to R's declared [4, 2], mpad M as it was before its new row was written."""
    m = [list(COPY_X[s]) for s in range(step + 1)]
    pad = lambda rows: rows + [[0.0, 0.0]] * (4 - len(rows))  # noqa: E731
    return {"M": m, "N": m, "O": m, "R": pad(m), "mpad": pad(m[:-1] + [[1.0, 1.0]])}


INPLACE_X = [[0.25, -1.75, 2.5], [-0.5, 3.75, -2.25], [1.0, 0.625, -4.5]]


GROWN_X = [[[1, -2, 3], [0.5, 4, -1]], [[2, 2, -3], [1, 0, 0.25]], [[-1, 5, 2], [3, -2, 1]],
           [[1, 1, 1], [1, 1, 1]]]
GROWN_W = [[[1, 0], [0, 1], [2, -1]], [[0.5, 2], [-1, 1], [3, 0]], [[1, 1], [1, -1], [0, 2]],
           [[1, 0], [0, 1], [1, 1]]]


def auto_dim_grown(step):
    """auto_dim_grown.oi by dsl.md and the op rules: M (@init 1) is the previous step's x,
    y = M @ w; A (@init 0.5) holds z = x + A; q = softmax of V's three @init 2.0: 1/3 each,
    rounded to f32 (0.3333333432674408)."""
    m, a = [[1.0] * 3 for _ in range(2)], [[0.5] * 3 for _ in range(2)]
    for st in range(step + 1):
        x, w = GROWN_X[st], GROWN_W[st]
        y = [[sum(m[i][k] * w[k][j] for k in range(3)) for j in range(2)] for i in range(2)]
        z = [[xv + av for xv, av in zip(xr, ar)] for xr, ar in zip(x, a)]
        m, a = [[float(v) for v in row] for row in x], z
    return {"y": y, "z": z, "q": [0.3333333432674408] * 3, "M": m, "A": a}


def auto_dim_copy_runtime(step):
    """auto_dim_copy_runtime.oi by dsl.md: step s reads M, grown to s + 1 rows (the new one @init
    1), into K[0..s+1], then writes x into that row; N is K's window, L[1..s+2] N's rows."""
    xs = [row[0] for row in COPY_X4]
    k = [list(xs[i]) for i in range(step)] + [[1.0, 1.0]]
    m = [list(xs[i]) for i in range(step + 1)]
    ll = [[0.0, 0.0]] + k + [[0.0, 0.0]] * (3 - len(k))
    return {"K": k, "L": ll, "M": m, "N": k}


COPY_X4 = [[[1.0, -2.0]], [[3.0, 4.0]], [[5.0, 6.0]], [[-1.0, 0.5]]]

LENGTH_X = [[1, -2, 0.5], [3, 4, -1], [-0.5, 2, 6], [2, 2, 2]]
LENGTH_W = [[[1, 0.5], [-1, 2], [0.25, 1]]] * 2 + [[[2, 0], [1, -1], [0.5, 3]]] * 2
LENGTH_C = [[1, -1], [2, 0.5], [-3, 4], [1, 1]]


def length_rows(rows):
    """M of the graphs growing it a row a step from @init 1, adding x: row r is 1 plus x of
    steps r..rows - 1."""
    return [[1 + sum(LENGTH_X[t][j] for t in range(r, rows)) for j in range(3)]
            for r in range(rows)]


def auto_dim_length(step):
    """auto_dim_length.oi by dsl.md and the op rules (every sum exact in f32): M[n, 0] grows M
    to n + 1 rows, row r made at step r from @init 1, so after step s row r is 1 plus x of steps
    r..s; y its column sums, s their running sum, a the column maxima, m the means (f32
    quotient), k the first row of each maximum, P = -(M @ w); V grows a column a step from @init
    0.5, plus c of the steps since; F's row r the product of x of steps r..s (@init 1); T is M
    transposed, K[t] the column sums of step t, Z's first row 7 plus every x so far, the rows
    below it x * x of this step; u the column sums of C[1], grown as M from @init 2."""
    rows = step + 1
    m = length_rows(rows)
    y = [sum(m[r][j] for r in range(rows)) for j in range(3)]
    acc = [sum(sum(1 + sum(LENGTH_X[t][j] for t in range(r, st + 1)) for r in range(st + 1))
               for st in range(rows)) for j in range(3)]
    w = LENGTH_W[step]
    p = [[-sum(m[r][q] * w[q][j] for q in range(3)) for j in range(2)] for r in range(rows)]
    v = [[0.5 + sum(LENGTH_C[t][i] for t in range(col, rows)) for col in range(rows)]
         for i in range(2)]
    f = [[math.prod(LENGTH_X[t][j] for t in range(r, rows)) for j in range(3)]
         for r in range(rows)]
    col = [[m[r][j] for r in range(rows)] for j in range(3)]
    return {"M": m, "y": y, "s": acc, "a": [[max(c) for c in col]],
            "m": [float(np.float32(t) / np.float32(rows)) for t in y],
            "k": [c.index(max(c)) for c in col], "P": p, "V": v, "v": [sum(r) for r in v],
            "F": f, "T": col,
            "K": [[sum(1 + sum(LENGTH_X[t][j] for t in range(r, st + 1)) for r in range(st + 1))
                   for j in range(3)] for st in range(rows)],
            "Z": [[7 + sum(LENGTH_X[t][j] for t in range(rows)) for j in range(3)]]
            + [[v * v for v in LENGTH_X[step]] for _ in range(1, rows)],
            "u": [sum(2 + sum(LENGTH_X[t][j] for t in range(r, rows)) for r in range(rows))
                  for j in range(3)]}


RESHAPE_R = [0, 0, 0, 1]


def auto_dim_reshape(step):
    """auto_dim_reshape.oi by dsl.md and the reshape rule (row-major order kept): M as in
    auto_dim_length.oi; W its elements as 3 rows of step + 1; K's entries M's rows; y V's one row,
    @init 2 plus every x so far (V grows only at the fourth step)."""
    rows = step + 1
    m = length_rows(rows)
    cells = [v for row in m for v in row]
    return {"M": m, "W": [cells[i * rows:(i + 1) * rows] for i in range(3)], "K": m,
            "y": [2 + sum(LENGTH_X[t][j] for t in range(rows)) for j in range(3)]}


def auto_dim_stops(step):
    """auto_dim_stops.oi by dsl.md and numpy broadcasting: M as in auto_dim_length.oi, S = M +
    0.5 broadcast to [2, 3] (the one row twice at the first step)."""
    rows = step + 1
    m = length_rows(rows)
    return {"M": m, "S": [[v + 0.5 for v in m[r % rows]] for r in range(2)]}


DEPTH_C = [0, 2, 4, 5]  # the column count per step past the declared 2: 2, 4, 6, then 7
DEPTH_X = [0.5, -1.5, 2.0, 1.0]


def auto_dim_rope_depth(step):
    """auto_dim_rope_depth.oi by dsl.md and ops-nn.md: M's columns made at the step that first
    reaches them (@init 1; the declared 2 before the first), each then plus x of every step
    since; R = rope(M, c) of its one row at position c: pair k (m[k], m[k + D/2]) of D = M's
    columns turned by the angle c * 10000^(-2k/D) (in f64 here; the target within ROPE_TOL)."""
    cols = DEPTH_C[step] + 2
    made = [next(s for s in range(step + 1) if DEPTH_C[s] + 2 > j) for j in range(cols)]
    m = [1 + sum(DEPTH_X[t] for t in range(made[j], step + 1)) for j in range(cols)]
    half, pos, r = cols // 2, DEPTH_C[step], [0.0] * cols
    for k in range(half):
        a, b = m[k], m[k + half]
        angle = pos * 10000 ** (-2.0 * k / cols)
        r[k] = a * math.cos(angle) - b * math.sin(angle)
        r[k + half] = a * math.sin(angle) + b * math.cos(angle)
    return {"M": [m], "R": [r]}


KEYS_Q = [[1.0, -0.5], [0.25, 2.0], [0.25, 2.0]]
KEYS_K = [[[0.5, 1.0], [-1.0, 0.25]], [[2.0, 0.0], [0.5, -0.5]], [[2.0, 0.0], [0.5, -0.5]]]
KEYS_X = [[1.0, -2.0], [0.5, 3.0], [1.0, 1.0]]
KEYS_R = [0, 0, 1]  # V's row count per step past the declared 2: 2, 2, then 3 rows


def auto_dim_attention_keys(step):
    """auto_dim_attention_keys.oi by dsl.md and ops-nn.md: V's 2 rows @init 1 plus x of every
    step so far; y = attention(q, k, V) of scale 1/sqrt(2) (attention_rows, in f64 here; the
    target within 1e-6)."""
    row = [1 + sum(KEYS_X[t][j] for t in range(step + 1)) for j in range(2)]
    v = [row, list(row)]
    return {"V": v, "y": attention_rows(KEYS_Q[step:step + 1], KEYS_K[step], v,
                                        1 / math.sqrt(2), False)}


SLICE3_X = [[1, -2, 0.5], [3, 4, -1], [-0.5, 2, 6], [2, 2, 2], [0.25, -1, 1], [4, 0, -2],
           [1, 1, -0.5], [2, -3, 1]]
SLICE3_R = [0, 0, 0, 1, 1, 1, 2, 3]  # S's rows past 1 per step: ceil((s + 1) / 3) - 1, then 3


def auto_dim_length_table(step):
    """auto_dim_length_table.oi by dsl.md and the slice rule: M grows a row a step from @init 1,
    so after step s row q is 1 plus x of steps q..s; S its rows 0, 3, 6, ... (every sum exact in
    f32)."""
    m = [[1 + sum(SLICE3_X[t][j] for t in range(q, step + 1)) for j in range(3)]
         for q in range(step + 1)]
    return {"M": m, "S": m[::3]}


EVERY_X = [[1.0, -2.0, 0.5], [3.0, 4.0, -1.0]]


def window_rule_every_length(step):
    """window_rule_every_length.oi by dsl.md: c counts the steps from @init 1; K[0]'s entries
    the x of each step so far."""
    return {"c": step + 2, "K": [[EVERY_X[t] for t in range(step + 1)]]}


ADACC_X = [[1, -2, 0], [2, 1, -1], [-3, 0, 4], [1, 1, 1]]
ADACC_Z = [[5, -1, 2], [0, 3, -2], [1, 1, 1], [2, 2, 2]]
ADACC_E = [0, 1, 2, 5]


def auto_dim_acc(step):
    """auto_dim_acc.oi by dsl.md and ops.md's acc= (the operands widened exactly, the op at
    i32): Q's row r after step s is @init 3 plus x of steps r..s; A = Q + z of this step (grown
    to Q's rows); y, K[1] and B[1] the column sums of Q (K[0] and B[0] never written: 0)."""
    q = [[3 + sum(ADACC_X[u][j] for u in range(r, step + 1)) for j in range(3)]
         for r in range(step + 1)]
    sums = [sum(row[j] for row in q) for j in range(3)]
    return {"Q": q, "A": [[v + ADACC_Z[step][j] for j, v in enumerate(row)] for row in q],
            "y": sums, "K": [[0] * 3, sums], "B": [[0] * 3, sums]}


TW_X = [[1.0, -2.0, 3.0], [0.5, 4.0, -1.0], [2.0, 2.0, -3.0], [1.0, 1.0, 1.0]]
TW_W = [[[1.0, 0.0], [0.0, 1.0], [1.0, -1.0]], [[2.0, 1.0], [-1.0, 0.5], [0.0, 1.0]],
        [[0.5, 0.5], [1.0, -1.0], [-2.0, 0.0]], [[1.0, 1.0], [1.0, 1.0], [1.0, 1.0]]]
TW_D = [0, 1, 2, 600]


def table_window_inputs(step):
    """table_window_inputs.oi by dsl.md and the op rules (every value exact in f32): K[0] and
    F[0] hold x of steps 0..s (F[0]'s other rows of its 4 zero), L[0] the same at p = s; y the
    column sums of K[0], m the column maxima of F[0]'s 4 rows, S's row r x_r * y, G's row r x_r @ W of this
    step, M (grown to s + 1 rows) x_r + y, P's rows each x's last two columns, q L's column sums
    (= y); G and P keep their 6 @fixed rows, the unwritten ones zero."""
    rows = TW_X[:step + 1]
    y = [sum(r[j] for r in rows) for j in range(3)]
    f = rows + [[0.0] * 3] * (4 - len(rows))
    w = TW_W[step]
    g = [[sum(r[q] * w[q][j] for q in range(3)) for j in range(2)] for r in rows]
    return {"y": y, "m": [max(r[j] for r in f) for j in range(3)],
            "S": [[a * b for a, b in zip(r, y)] for r in rows],
            "G": g + [[0.0] * 2] * (6 - len(g)),
            "P": [TW_X[step][1:3]] * len(rows) + [[0.0] * 2] * (6 - len(rows)),
            "M": [[a + b for a, b in zip(r, y)] for r in rows], "q": y}


TWACC_X = [[100, -2, 7], [-100, 127, 9], [50, -128, -9], [1, 1, 1]]
TWACC_Z = [[3, -128, 5], [127, 2, -7], [-3, 100, 11], [2, 2, 2]]
TWACC_E = [1, 2, 3, 5]


def table_window_acc(step):
    """table_window_acc.oi by ops.md's acc= (the i8 entries widened exactly, the op at i32): K[0]
    holds x of steps 0..s; y and P[1] its column sums (P[0] never written: 0), S and R its rows
    times this step's z."""
    rows = TWACC_X[:step + 1]
    sums = [sum(r[j] for r in rows) for j in range(3)]
    prod = [[v * TWACC_Z[step][j] for j, v in enumerate(r)] for r in rows]
    return {"y": sums, "P": [[0] * 3, sums], "S": prod, "R": prod}


def inplace_kernels(step):
    """inplace_kernels.oi: y = floor(2x) + x (exact in f32 for these x); n (@init 7) doubles
    each step; K[0] = floor(2n / -3) (Python's // floors, as floor_div), K[1] = -3."""
    n = 7 * 2 ** (step + 1)
    return {"y": [math.floor(2 * v) + v for v in INPLACE_X[step]], "n": [n] * 3,
            "k": [[(2 * n) // -3] * 3, [-3] * 3]}


ARENA_X = [[3, -7, 12, 100, -128], [5, 11, -16, 127, 1]]
ARENA_Q = [[[200, 7, 255], [1, 128, 60]], [[100, 250, 3], [9, 64, 255]]]
ARENA_H = [[[300, -200, 7], [-1000, 255, 181]], [[-300, 1, 1024], [90, -181, 2]]]
ARENA_G = [[[3, -4, 10], [-12, 7, 5]], [[-9, 11, 2], [6, -1, 13]]]
# the graphs planned with an arena of one-byte alignment
ALIGN_1 = {"packed_arena_offsets.oi"}


def packed_arena_offsets(step):
    """packed_arena_offsets.oi: sums over the steps of x * x (i8), q transposed (u8), the column
    sums of h * h (i16), g g^T (i8), x[1], x[4], q's and h's second rows, each wrapping at its
    width (ops.md)."""
    t = {"tb": [0] * 5, "tu": [[0] * 2 for _ in range(3)], "ts": [0] * 3,
         "tm": [[0] * 2 for _ in range(2)], "t3": [0], "t1": [0], "th": [[0] * 3], "tq": [[0] * 3]}
    for s in range(step + 1):
        x, q, h, g = ARENA_X[s], ARENA_Q[s], ARENA_H[s], ARENA_G[s]
        t["tb"] = [wrap(a + wrap(v * v, 8, True), 8, True) for a, v in zip(t["tb"], x)]
        t["tu"] = [[wrap(t["tu"][r][c] + q[c][r], 8, False) for c in range(2)] for r in range(3)]
        sq = [[wrap(v * v, 16, True) for v in row] for row in h]
        t["ts"] = [wrap(t["ts"][c] + wrap(sq[0][c] + sq[1][c], 16, True), 16, True)
                   for c in range(3)]
        t["tm"] = [[wrap(t["tm"][i][j] + wrap(sum(g[i][k] * g[j][k] for k in range(3)), 8, True),
                         8, True) for j in range(2)] for i in range(2)]
        t["t3"] = [wrap(t["t3"][0] + x[1], 8, True)]
        t["t1"] = [wrap(t["t1"][0] + x[4], 8, True)]
        t["th"] = [[wrap(a + v, 16, True) for a, v in zip(t["th"][0], h[1])]]
        t["tq"] = [[wrap(a + v, 8, False) for a, v in zip(t["tq"][0], q[1])]]
    return t


GRID_M, GRID_N = 65536 * 16 + 3, 65536 * 32 + 3


def matmul_grid(step):
    """matmul_grid.oi: y[i] = -3 i and yf[j] = 0.5 j (numpy arrays: compared whole)."""
    return {"y": (np.arange(GRID_M, dtype=np.int64) * -3).reshape(GRID_M, 1),
            "yf": (np.arange(GRID_N, dtype=np.float64) * 0.5).reshape(1, GRID_N)}


# Graphs whose values are not exact (rope's sines): the target within this relative bound of
# the simulator and of the values computed here, instead of byte for byte (ops-nn.md).
ROPE_TOL = 1e-5
# attention's softmax: exp within ops-nn.md's bound, not exact
TOLERANT = {"rope_runtime.oi": ROPE_TOL, "auto_dim_rope.oi": ROPE_TOL,
            "auto_dim_rope_depth.oi": ROPE_TOL, "loop_attention_flags.oi": 1e-6,
            "auto_dim_attention_keys.oi": 1e-6}


def flat(v):
    return [x for e in v for x in flat(e)] if isinstance(v, list) else [v]


def close(got, want, tol):
    g, w = flat(got), flat(want)
    return len(g) == len(w) and all(abs(a - b) <= tol * (1 + abs(b)) for a, b in zip(g, w))


# graph, steps, expected values per step, inputs (oinf text: NAME.STEP tensors) or None;
# a graph in RUN_ERRORS also runs one step more, where both stop with the same message.
RUN_ERRORS = {"window_outputs.oi": "table 'F': slice end 7 of index t exceeds its @fixed bound "
                                   "t=6",
              "window_runtime.oi": "table 'F': slice end 8 of index t exceeds its @fixed bound "
                                   "t=6",
              "loop_axis_settings.oi": "op 'iota': axis 2 is out of range for rank 2",
              "loop_axis_ops.oi": "op 'argmax_axis': axis 2 is out of range for rank 2",
              "loop_axis_shape.oi": "op 'argmax_axis' produces shape [3] but output 'y' has "
                                    "shape [2]",
              "loop_axis_rules.oi": "loop_axis_rules.oi:36:5: op 'layer_norm': input 1 has shape "
                                    "[2, 3] but must have [3], the dims of [2, 3] from axis 1",
              "loop_finite_params.oi": "loop_finite_params.oi:41:5: op 'conv': conv weight "
                                       "[2, 1, 2] has 1 input channels per group but x [1, 2, 5] "
                                       "with group 1 needs 2",
              "loop_no_fit_axis.oi": "loop_no_fit_axis.oi:13:5: op 'layer_norm': input 1 has "
                                     "shape [4] but must have [2, 3], the dims of [2, 3] from "
                                     "axis 0",
              "loop_no_fit_group.oi": "loop_no_fit_group.oi:14:5: op 'conv': conv weight "
                                      "[2, 2, 2] has 2 input channels per group but x [1, 3, 5] "
                                      "with group 1 needs 3",
              "loop_keep_index.oi": "loop_keep_index.oi:24:7: op 'argmax_axis' produces shape "
                                    "[1, 3] but output 'y' has shape [3]",
              "loop_axis_table.oi": "loop_axis_table.oi:13:34: cannot store a value of shape [2] "
                                    "into 'K' where the access has shape [3]",
              "acc_window.oi": "acc_window.oi:12:3: op 'mul' produces shape [2, 3] but the access "
                               "to 'L' has shape [3, 3]",
              "acc_window_ops.oi": "acc_window_ops.oi:12:3: op 'sum_axis' produces shape "
                                   "[2, 3] but the access to 'H' has shape [3, 3]",
              "table_window_acc.oi": "table_window_acc.oi:24:3: op 'mul' produces shape "
                                     "[4, 3] but the access to 'R' has shape [5, 3]",
              "auto_dim_grown.oi": "op 'add': input shapes [2, 3] and [3, 4] do not broadcast",
              "auto_dim_copy_runtime.oi": "table 'L': slice end 5 of index t exceeds its @fixed "
                                          "bound t=4",
              "auto_dim_length.oi": "auto_dim 'F': count i = 3 exceeds its @fixed bound i=2",
              "auto_dim_reshape.oi": "op 'reshape': cannot reshape [2, 3] (6 elements) to [3] "
                                     "(3 elements)",
              "auto_dim_acc.oi": "op 'add' produces shape [4, 3] but the access to 'A' has "
                                 "shape [6, 3]",
              "auto_dim_stops.oi": "op 'add': input shapes [3, 3] and [2, 3] do not broadcast",
              "auto_dim_length_table.oi": "cannot store a value of shape [3, 3] as auto_dim "
                                          "'S' of current shape [4, 3]",
              "window_rule_every_length.oi": "op 'matmul': matmul inner dimensions differ: "
                                             "[2, 3] x [2, 2]",
              "auto_dim_rope_depth.oi": "op 'rope': rope needs an even last dim, got 7 in "
                                        "[1, 7]",
              "auto_dim_attention_keys.oi": "op 'attention': attention v [3, 2] must have k's "
                                            "2 keys",
              "auto_dim_slice_clamp.oi": "auto_dim_slice_clamp.oi:12:50: cannot store a value "
                                         "of shape [2, 2] as auto_dim 'U' of current shape "
                                         "[3, 2]"}
# Graphs whose one step more the simulator runs but the glsl program stops with this message
# (a length past what its kernels were synthesized for, the open gap it names).
GLSL_ERRORS = {"table_window_inputs.oi": "the window L[0, 0..] of table 'L' has 601 entries "
                                         "along its axis of run-time length, but this program's "
                                         "kernels were synthesized for at most 512 (open gap "
                                         "table-window-operand)"}
GRAPHS = [("counters.oi", 4, counters, None),
          ("named_settings.oi", 2, named_settings,
           "x.0: f32[3] = { 1, -2, 3 }\nx.1: f32[3] = { -0.5, 4, -8 }\n"),
          ("loop_settings.oi", 3, loop_settings, "".join(
              f"x.{i}: f32[3] = {{ 1, -2, 3 }}\n" for i in range(3))),
          ("window_outputs.oi", 2, window_outputs, "".join(
              f"x.{i}: f32[2, 3] = {{ {', '.join(str(v) for r in x for v in r)} }}\n"
              for i, x in enumerate(WINDOW_X + [WINDOW_X[0]]))),
          ("window_runtime.oi", 3, window_runtime, "".join(
              f"x.{i}: f32[2, 3] = {{ {', '.join(str(v) for r in x for v in r)} }}\n"
              for i, x in enumerate(RUNTIME_X))),
          ("loop_bool_settings.oi", 3, loop_bool_settings, "".join(
              f"x.{i}: f32[2, 3] = {{ {', '.join(str(v) for r in x for v in r)} }}\n"
              f"y.{i}: f32[3] = {{ 3000000000, -3000000000, 1.5 }}\n"
              for i, x in enumerate(BOOL_X))),
          ("loop_axis_settings.oi", 2, loop_axis_settings,
           "".join(f"x.{i}: f32[2, 3] = {{ 0, 0, 0, 0, 0, 0 }}\n" for i in range(3))),
          ("acc_window.oi", 3, acc_window, "".join(
              f"x.{i}: i8[3] = {{ {', '.join(map(str, ACC_X[i]))} }}\n"
              f"y.{i}: i8[3] = {{ {', '.join(map(str, ACC_Y[i]))} }}\n"
              f"z.{i}: i8[2, 3] = {{ {', '.join(str(v) for r in ACC_Z[i] for v in r)} }}\n"
              f"e.{i}: i32 = {ACC_E[i]}\n" for i in range(4))),
          ("table_window_acc.oi", 3, table_window_acc, "".join(
              f"x.{i}: i8[3] = {{ {', '.join(map(str, TWACC_X[i]))} }}\n"
              f"z.{i}: i8[3] = {{ {', '.join(map(str, TWACC_Z[i]))} }}\n"
              f"ein.{i}: i32 = {TWACC_E[i]}\n" for i in range(4))),
          ("acc_window_ops.oi", 3, acc_window_ops, "".join(
              f"a.{i}: i8[2, 4] = {{ {', '.join(str(v) for r in ACCOP_A[i] for v in r)} }}\n"
              f"b.{i}: i8[4, 3] = {{ {', '.join(str(v) for r in ACCOP_B[i] for v in r)} }}\n"
              f"w.{i}: i8[2, 2, 3] = "
              f"{{ {', '.join(str(v) for m in ACCOP_W[i] for r in m for v in r)} }}\n"
              f"e.{i}: i32 = {ACC_E[i]}\n" for i in range(4))),
          ("packed_windows.oi", 3, packed_windows, "".join(
              f"x.{i}: f32[2, 3] = {{ {', '.join(str(v) for r in x for v in r)} }}\n"
              for i, x in enumerate(PACKED_X))),
          ("loop_axis_ops.oi", 2, loop_axis_ops, "".join(
              f"x.{i}: f32[3, 3] = {{ 1, 5, 2, 7, 0, 3, 4, 4, 9 }}\n"
              f"q.{i}: i8[3, 3] = {{ 1, -2, 3, 4, 5, -6, 7, 8, 9 }}\n"
              f"qs.{i}: f32[3] = {{ 0.5, 2, -1 }}\ngi.{i}: i32[3] = {{ 2, 0, 2 }}\n"
              f"v.{i}: f32[3] = {{ 2, -2, 2 }}\nvs.{i}: f32[3] = {{ 1.5, 3, -4 }}\n"
              f"sc.{i}: f32 = 2.5\n" for i in range(3))),
          ("loop_axis_shape.oi", 2, loop_axis_shape, "".join(
              f"x.{i}: f32[2, 3] = {{ 1, 5, 2, 7, 0, 3 }}\ns.{i}: i32 = {1 if i < 2 else 0}\n"
              for i in range(3))),
          ("loop_axis_rules.oi", 3, loop_axis_rules, "".join(
              f"x.{i}: f32[2, 3] = {{ {', '.join(str(v) for r in RULE_X for v in r)} }}\n"
              f"q.{i}: f32[3, 3] = {{ {', '.join(str(v) for r in RULE_Q for v in r)} }}\n"
              f"s.{i}: f32[2, 3] = {{ {', '.join(str(v) for r in RULE_S for v in r)} }}\n"
              f"w.{i}: f32[2, 1] = {{ {RULE_W[0]}, {RULE_W[1]} }}\n" + "".join(
                  f"{n}0.{i}: i32 = {lo}\n{n}1.{i}: i32 = {hi}\n"
                  for n, (lo, hi) in zip("ijk", RULE_BOUNDS[i])) for i in range(4))),
          ("loop_axis_table.oi", 3, loop_axis_table, "".join(
              f"x.{i}: f32[2, 3] = {{ {', '.join(str(v) for r in x for v in r)} }}\n"
              f"i0.{i}: i32 = {TABLE_BOUNDS[i][0]}\ni1.{i}: i32 = {TABLE_BOUNDS[i][1]}\n"
              for i, x in enumerate(TABLE_X))),
          ("loop_no_fit_axis.oi", 3, loop_no_fit_axis, "".join(
              f"x.{i}: f32[2, 3] = {{ {', '.join(str(v) for r in NOFIT_X[i] for v in r)} }}\n"
              f"s.{i}: f32[4] = {{ 1, 2, 3, 4 }}\n" + bounds_text("i", [NOFIT_AXIS_BOUNDS[i]], i)
              for i in range(4))),
          ("loop_no_fit_group.oi", 3, loop_no_fit_group, "".join(
              f"x.{i}: f32[1, 3, 5] = "
              f"{{ {', '.join(str(v) for c in NOFIT_XC[i][0] for v in c)} }}\n"
              f"w.{i}: f32[2, 2, 2] = {{ 1, -1, 2, 0.5, -2, 1, 0.25, 3 }}\n"
              + bounds_text("g", [NOFIT_GROUP_BOUNDS[i]], i) for i in range(4))),
          ("loop_keep_index.oi", 3, loop_keep_index, "".join(
              f"x.{i}: f32[3, 3] = {{ {', '.join(str(v) for r in KEEP_X[i] for v in r)} }}\n"
              + bounds_text("ijhk", KEEP_BOUNDS[i], i) for i in range(4))),
          ("loop_finite_params.oi", 3, loop_finite_params, "".join(
              f"y.{i}: f32[3] = {{ {', '.join(str(v) for v in FP_Y)} }}\n"
              f"r.{i}: f32[2, 4] = {{ {', '.join(str(v) for row in FP_R[i] for v in row)} }}\n"
              f"rs.{i}: f32[4] = {{ {', '.join(str(v) for v in FP_RS)} }}\n"
              f"xc.{i}: f32[1, 2, 5] = {{ {', '.join(str(v) for row in FP_XC for v in row)} }}\n"
              f"wc.{i}: f32[2, 1, 2] = {{ {', '.join(str(v) for row in FP_WC for v in row)} }}\n"
              + "".join(f"{n}0.{i}: i32 = {lo}\n{n}1.{i}: i32 = {hi}\n"
                        for n, (lo, hi) in zip("ijkh", FP_BOUNDS[i])) for i in range(4))),
          ("loop_attention_flags.oi", 3, loop_attention_flags, "".join(
              "".join(f"{n}.{i}: f32[1, 1, 3, 4] = "
                      f"{{ {', '.join(str(x) for r in a[n] for x in r)} }}\n" for n in "qkv")
              + f"i0.{i}: i32 = {ATT_BOUNDS[i][0]}\ni1.{i}: i32 = {ATT_BOUNDS[i][1]}\n"
              for i, a in enumerate(ATT))),
          ("rope_runtime.oi", 3, rope_runtime, "".join(
              f"q.{i}: f32[1, 2, 4] = {{ {', '.join(str(v) for v in q)} }}\n"
              for i, q in enumerate(ROPE_Q))),
          ("window_spread.oi", 3, window_spread, "".join(
              f"x.{i}: f32[2, 1, 3] = {{ {', '.join(str(v) for r in x for v in r)} }}\n"
              f"v.{i}: f32[3] = {{ {', '.join(str(e) for e in v)} }}\n"
              for i, (x, v) in enumerate(zip(RUNTIME_X, SPREAD_V)))),
          ("loop_runtime.oi", 3, loop_runtime, "".join(
              f"x.{i}: f32[3] = {{ {', '.join(str(v) for v in x)} }}\n"
              for i, x in enumerate(AUTO_X))),
          ("auto_dim_ops.oi", 3, auto_dim_ops, "".join(
              f"x.{i}: f32[3] = {{ {', '.join(str(v) for v in x)} }}\n"
              for i, x in enumerate(AUTO_X))),
          ("auto_dim_copies.oi", 3, auto_dim_copies, "".join(
              f"x.{i}: f32[1, 2] = {{ {x[0]}, {x[1]} }}\n" for i, x in enumerate(COPY_X))),
          ("auto_dim_matrices.oi", 3, auto_dim_matrices, "".join(
              f"x.{i}: f32[1, 2] = {{ {x[0]}, {x[1]} }}\n" for i, x in enumerate(COPY_X))),
          ("inplace_kernels.oi", 3, inplace_kernels, "".join(
              f"x.{i}: f32[3] = {{ {', '.join(str(v) for v in x)} }}\n"
              for i, x in enumerate(INPLACE_X))),
          ("auto_dim_grown.oi", 3, auto_dim_grown, "".join(
              f"x.{i}: f32[2, 3] = {{ {', '.join(str(v) for r in x for v in r)} }}\n"
              f"w.{i}: f32[3, 2] = {{ {', '.join(str(v) for r in w for v in r)} }}\n"
              f"rin.{i}: i32 = {int(i == 3)}\n"
              for i, (x, w) in enumerate(zip(GROWN_X, GROWN_W)))),
          ("auto_dim_copy_runtime.oi", 3, auto_dim_copy_runtime, "".join(
              f"x.{i}: f32[1, 2] = {{ {x[0][0]}, {x[0][1]} }}\n" for i, x in enumerate(COPY_X4))),
          ("auto_dim_length.oi", 3, auto_dim_length, "".join(
              f"x.{i}: f32[3] = {{ {', '.join(map(str, LENGTH_X[i]))} }}\n"
              f"w.{i}: f32[3, 2] = {{ {', '.join(str(v) for r in LENGTH_W[i] for v in r)} }}\n"
              f"c.{i}: f32[2, 1] = {{ {', '.join(map(str, LENGTH_C[i]))} }}\n"
              for i in range(4))),
          ("auto_dim_reshape.oi", 3, auto_dim_reshape, "".join(
              f"x.{i}: f32[3] = {{ {', '.join(map(str, LENGTH_X[i]))} }}\n"
              f"rin.{i}: i32 = {RESHAPE_R[i]}\n" for i in range(4))),
          ("auto_dim_stops.oi", 2, auto_dim_stops, "".join(
              f"x.{i}: f32[3] = {{ {', '.join(map(str, LENGTH_X[i]))} }}\n" for i in range(3))),
          ("auto_dim_rope_depth.oi", 3, auto_dim_rope_depth, "".join(
              f"x.{i}: f32[1] = {{ {DEPTH_X[i]} }}\ncin.{i}: i32 = {DEPTH_C[i]}\n"
              for i in range(4))),
          ("auto_dim_attention_keys.oi", 2, auto_dim_attention_keys, "".join(
              f"q.{i}: f32[1, 2] = {{ {', '.join(map(str, KEYS_Q[i]))} }}\n"
              f"k.{i}: f32[2, 2] = {{ {', '.join(str(v) for r in KEYS_K[i] for v in r)} }}\n"
              f"x.{i}: f32[2] = {{ {', '.join(map(str, KEYS_X[i]))} }}\n"
              f"rin.{i}: i32 = {KEYS_R[i]}\n" for i in range(3))),
          ("auto_dim_length_table.oi", 7, auto_dim_length_table, "".join(
              f"x.{i}: f32[3] = {{ {', '.join(map(str, SLICE3_X[i]))} }}\n"
              f"rin.{i}: i32 = {SLICE3_R[i]}\n" for i in range(8))),
          ("window_rule_every_length.oi", 1, window_rule_every_length, "".join(
              f"x.{i}: f32[3] = {{ {', '.join(map(str, EVERY_X[i]))} }}\n"
              f"W.{i}: f32[2, 2] = {{ 1, 0, 0, 1 }}\nbin.{i}: i32 = {i}\n" for i in range(2))),
          ("auto_dim_acc.oi", 3, auto_dim_acc, "".join(
              f"x.{i}: i8[3] = {{ {', '.join(map(str, ADACC_X[i]))} }}\n"
              f"z.{i}: i8[3] = {{ {', '.join(map(str, ADACC_Z[i]))} }}\n"
              f"ein.{i}: i32 = {ADACC_E[i]}\n" for i in range(4))),
          ("auto_dim_rope.oi", 4, auto_dim_rope, "".join(
              f"x.{i}: f32[4] = {{ {', '.join(map(str, ROPE_X[i]))} }}\n" for i in range(4))),
          ("auto_dim_window.oi", 4, auto_dim_window, "".join(
              f"x.{i}: f32[3] = {{ {', '.join(map(str, GW_X[i]))} }}\n"
              f"cw.{i}: f32[2, 1, 3] = {{ {', '.join(str(v) for m in GW_CW for v in m[0])} }}\n"
              f"cb.{i}: f32[2] = {{ {', '.join(map(str, GW_CB))} }}\n" for i in range(4))),
          ("auto_dim_slice_clamp.oi", 2, auto_dim_slice_clamp, None),
          ("table_window_inputs.oi", 3, table_window_inputs, "".join(
              f"x.{i}: f32[3] = {{ {', '.join(map(str, TW_X[i]))} }}\n"
              f"W.{i}: f32[3, 2] = {{ {', '.join(str(v) for r in TW_W[i] for v in r)} }}\n"
              f"d.{i}: i32 = {TW_D[i]}\n" for i in range(4))),
          ("matmul_grid.oi", 1, matmul_grid, None),
          ("packed_arena_offsets.oi", 2, packed_arena_offsets, "".join(
              f"x.{i}: i8[5] = {{ {', '.join(map(str, ARENA_X[i]))} }}\n"
              f"q.{i}: u8[2, 3] = {{ {', '.join(str(v) for r in ARENA_Q[i] for v in r)} }}\n"
              f"h.{i}: i16[2, 3] = {{ {', '.join(str(v) for r in ARENA_H[i] for v in r)} }}\n"
              f"g.{i}: i8[2, 3] = {{ {', '.join(str(v) for r in ARENA_G[i] for v in r)} }}\n"
              for i in range(2))),
          ("auto_dim_reset.oi", 4, auto_dim_reset,
           "".join(f"x.{i}: f32[1, 2] = {{ {2 * i + 1}, {2 * i + 2} }}\n" for i in range(4)))]


def run(args, cwd):
    r = subprocess.run(args, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                       timeout=300)
    return r.returncode, r.stdout


def same_as_baseline(o, folder, graph):
    """Whether `graph`'s program for --device is the one for --baseline (apart from the
    device's name), so the baseline's run of this test already held it."""
    for device, gen in ((o.device, "gen_device"), (o.baseline, "gen_baseline")):
        code, _ = run([o.openinfer, "synth", graph, "--model", "model.oinf", "--target", "glsl",
                       "--device", device, "-o", gen], folder)
        if code:
            return False
    return run([sys.executable, os.path.join(HERE, "same_program.py"), "gen_device",
                "gen_baseline"], folder)[0] == 0


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--openinfer", required=True)
    p.add_argument("--runner", required=True)
    p.add_argument("--glslc", default=shutil.which("glslc") or "glslc")
    p.add_argument("--work", required=True)
    p.add_argument("--device", default=os.path.join(ROOT, "devices", "lavapipe.json"),
                   help="the device description the graphs are planned for")
    p.add_argument("--only", action="append", default=[],
                   help="run only this graph (repeatable)")
    p.add_argument("--baseline", help="a device description whose own run of this test runs a "
                   "graph whose program for --device is the same (same_program.py): such a "
                   "graph is printed as `same:` and not run again")
    o = p.parse_args()
    shutil.rmtree(o.work, ignore_errors=True)
    os.makedirs(o.work)
    glsl = glsl_program.GlslTarget(o.openinfer, o.runner, o.glslc,
                                   o.device, o.work)
    # the description of graphs planned with an arena of one-byte alignment (ALIGN_1)
    with open(o.device) as f:
        desc = json.load(f)
    desc.setdefault("preferences", {})["arena_alignment"] = 1
    align_1 = os.path.join(o.work, "arena_alignment_1.json")
    with open(align_1, "w") as f:
        json.dump(desc, f)
    failed = 0
    for graph, steps, expect, inputs in GRAPHS:
        if o.only and graph not in o.only:
            continue
        folder = os.path.join(o.work, graph[:-3])
        os.makedirs(folder)
        shutil.copy(os.path.join(HERE, "graphs", graph), folder)
        with open(os.path.join(folder, "model.txt"), "w") as f:
            f.write("\n")
        run([o.openinfer, "oinf", "pack", "model.txt", "-o", "model.oinf"], folder)
        names = list(expect(0))
        common = ["--model", "model.oinf", "--steps", str(steps), "-q"]
        if inputs:
            with open(os.path.join(folder, "input.txt"), "w") as f:
                f.write("# openinfer oinf text v1\n" + inputs)
            run([o.openinfer, "oinf", "pack", "input.txt", "-o", "input.oinf"], folder)
            for n in sorted({line.split(".")[0] for line in inputs.splitlines() if line}):
                common += ["--input", f"{n}=input.oinf:{n}.{{step}}"]
        for n in names:
            common += ["--fetch", n]
        if o.baseline and graph not in ALIGN_1 and same_as_baseline(o, folder, graph):
            print(f"same: {graph} (the program planned for {os.path.basename(o.baseline)})")
            continue
        code, out = run([o.openinfer, "run", graph, *common, "--save", "sim.oinf"], folder)
        if code:
            print(f"FAIL: {graph}: the simulator: {out.strip()}")
            failed += 1
            continue
        glsl.device = align_1 if graph in ALIGN_1 else o.device
        stage, out = glsl.run(folder, graph, common, "glsl.oinf")
        if stage == "run" and glsl_program.NO_VULKAN in out:
            print("SKIP: no Vulkan device")
            return 77
        if stage != "ok":
            print(f"FAIL: {graph}: glsl target at {stage}: {out.strip()[-2000:]}")
            failed += 1
            continue
        sim, got = oinf.read(os.path.join(folder, "sim.oinf")), oinf.read(
            os.path.join(folder, "glsl.oinf"))
        bad = []
        for step in range(steps):
            for n, want in expect(step).items():
                key = f"{n}.step{step}" if steps > 1 else n  # --save names one step's bare
                s, g = sim.tensors[key], got.tensors[key]
                if graph in TOLERANT:
                    tol = TOLERANT[graph]
                    if s.dtype != g.dtype or not close(got[key].tolist(), sim[key].tolist(), tol):
                        bad.append(f"{key}: glsl {got[key].tolist()} vs simulator "
                                   f"{sim[key].tolist()}")
                    elif not close(got[key].tolist(), want, tol):
                        bad.append(f"{key}: {got[key].tolist()}, expected {want}")
                elif s.dtype != g.dtype or s.raw.tobytes() != g.raw.tobytes():
                    bad.append(f"{key}: glsl {got[key].tolist()} vs simulator {sim[key].tolist()}")
                elif isinstance(want, np.ndarray):  # large: compared as arrays
                    if not np.array_equal(got[key], want):
                        wrong = np.argwhere(got[key] != want)[:5].tolist()
                        bad.append(f"{key}: differs from the expected values at {wrong}")
                elif got[key].tolist() != want:
                    bad.append(f"{key}: {got[key].tolist()}, expected {want}")
        if graph in RUN_ERRORS:
            more = [a if a != str(steps) else str(steps + 1) for a in common]
            _, sim_err = run([o.openinfer, "run", graph, *more], folder)
            stage, out = glsl.run(folder, graph, more, "glsl_err.oinf")
            want = RUN_ERRORS[graph]
            if stage != "run" or want not in out or want not in sim_err:
                bad.append(f"step {steps}: expected '{want}' from both; simulator: "
                           f"{sim_err.strip()[-300:]}; glsl ({stage}): {out.strip()[-300:]}")
        if graph in GLSL_ERRORS:
            more = [a if a != str(steps) else str(steps + 1) for a in common]
            sim_code, sim_out = run([o.openinfer, "run", graph, *more], folder)
            stage, out = glsl.run(folder, graph, more, "glsl_err.oinf")
            want = GLSL_ERRORS[graph]
            if sim_code or stage != "run" or want not in out:
                bad.append(f"step {steps}: expected the simulator to run (exit {sim_code}: "
                           f"{sim_out.strip()[-300:]}) and the glsl program to stop with "
                           f"'{want}' ({stage}): {out.strip()[-300:]}")
        for b in bad[:20]:
            print(f"  {b}")
        print(f"{'FAIL' if bad else 'ok'}: {graph} ({steps} steps, {len(names)} values)")
        failed += bool(bad)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
