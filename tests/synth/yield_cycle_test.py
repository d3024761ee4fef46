#!/usr/bin/python3
"""The simulator on a yield whose consumers each await a table another writes (a cycle: no
order runs every reader before the writer): dsl.md's result, computed here, REPEATS times over.

  yield_cycle_test.py --openinfer BIN --work DIR [--repeats N]

tests/synth/c/yield_table_cycle.oi: 'wk' reads the matrix M and writes the table K, 'wm' reads K
and writes M. dsl.md: each consumer sees what it awaits as yielded, never another consumer's
writes, whatever the scheduling. So at step s (x_s the input): K[0] = x_s after it; 'wm' reads
K[0] as yielded, a_s = x_(s-1) (zeros at step 0), and writes it to M; 'wk' reads M as yielded,
m_s = M after step s-1 = x_(s-2) (zeros before step 2). The simulator once let them race on the
live tables (a or m changed from run to run); it now gives each reader a copy as yielded.
"""
import argparse
import os
import shutil
import subprocess
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "python"))
from openinfer import oinf  # noqa: E402

GRAPH = os.path.join(HERE, "c", "yield_table_cycle.oi")
STEPS = 4
XS = [np.arange(4, dtype=np.float32) * 0.5 + s + 1 for s in range(STEPS)]


def expected(s):
    zero = np.zeros(4, dtype=np.float32)
    a = XS[s - 1] if s >= 1 else zero
    return {"a": a, "m": XS[s - 2] if s >= 2 else zero, "K": XS[s].reshape(1, 4), "M": a}


def run(args, cwd):
    r = subprocess.run(args, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                       timeout=300)
    return r.returncode, r.stdout


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--openinfer", required=True)
    p.add_argument("--work", required=True)
    p.add_argument("--repeats", type=int, default=30)
    o = p.parse_args()
    o.openinfer = os.path.abspath(o.openinfer)
    shutil.rmtree(o.work, ignore_errors=True)
    os.makedirs(o.work)
    w = o.work
    with open(os.path.join(w, "input.txt"), "w") as f:
        f.write("# openinfer oinf text v1\n")
        for s, x in enumerate(XS):
            f.write(f"x.{s}: f32[4] = {{ {', '.join(repr(float(v)) for v in x)} }}\n")
    for text, out in ((os.path.join(HERE, "c", "loops_model.txt"), "model.oinf"),
                      ("input.txt", "input.oinf")):
        code, log = run([o.openinfer, "oinf", "pack", text, "-o", out], w)
        if code:
            sys.exit(f"FAIL: oinf pack {text}: {log}")
    args = [o.openinfer, "run", GRAPH, "--model", "model.oinf", "--steps", str(STEPS), "--input",
            "x=input.oinf:x.{step}", "-q", "--save", "got.oinf"]
    args += [a for n in ("a", "m", "K", "M") for a in ("--fetch", n)]
    for r in range(o.repeats):
        code, log = run(args, w)
        if code:
            sys.exit(f"FAIL: run {r + 1}: {log}")
        got = oinf.read(os.path.join(w, "got.oinf"))
        bad = []
        for s in range(STEPS):
            for name, want in expected(s).items():
                g = got[f"{name}.step{s}"]
                if g.dtype != want.dtype or g.shape != want.shape or g.tobytes() != want.tobytes():
                    bad.append(f"{name}.step{s}: {g.tolist()}, expected {want.tolist()}")
        if bad:
            print("\n".join(f"  {b}" for b in bad))
            print(f"FAIL: run {r + 1} of {o.repeats}")
            return 1
    print(f"ok: {o.repeats} runs of {STEPS} steps of yield_table_cycle.oi hold dsl.md's result")
    return 0


if __name__ == "__main__":
    sys.exit(main())
