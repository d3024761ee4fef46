#!/usr/bin/python3
"""Several ops fused into one kernel around an @auto_dim matrix of run-time shape, through the C
target (-O1 under ASan+UBSan), against values computed here and the simulator byte for byte:

  fused_plan_test.py --openinfer BIN --emit-plan EMIT_PLAN --plugins DIR --cc CC --work DIR

The planner gives an op on such a matrix a kernel of its own, so the plan of
c/auto_dim_runtime_fused.oi is fused here by hand: its kernels become one (the add growing M, the
sum_axis of M, and the elementwise mul and add after it), y and t kept internal. The C emitter runs
the ops one after another (c_generator.cpp split_kernel), as the simulator runs them.
"""
import argparse
import copy
import json
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
X = [np.array(v, dtype=F) for v in ([0.5, -1.5, 2.0, 1.0], [3.0, 4.0, -5.0, 6.5],
                                     [-0.125, 7.0, 8.0, -9.0])]  # c/copy_tables_input.txt


def expected():
    """M and s after each step (every value exact in f32; the rows summed in order)."""
    m, s = np.ones((1, 4), dtype=F), np.zeros(4, dtype=F)
    steps = []
    for n, x in enumerate(X):
        m = np.vstack([m, np.ones((n + 1 - m.shape[0], 4), dtype=F)]) + x  # add(M[n, 0], x) >> M
        y = m.sum(axis=0, dtype=F)                                            # sum_axis >> y
        s = s + y * x                                                         # mul >> t, add >> s
        steps.append({"M": m.copy(), "s": s.copy()})
    return steps


def fused(plan):
    """The plan with its kernels fused into the first, y and t internal."""
    p = copy.deepcopy(plan)
    ks = p["kernels"]
    if len(ks) < 2:
        sys.exit(f"FAIL: the plan has {len(ks)} kernels, expected several to fuse")
    one = ks[0]
    for k in ks[1:]:
        one["ops"] += k["ops"]
        one["reads"] = sorted(set(one["reads"]) | set(k["reads"]))
        one["writes"] = sorted(set(one["writes"]) | set(k["writes"]))
    one["internal"] = ["t", "y"]
    p["kernels"] = [one]
    for v in p["values"]:
        if v["name"] in ("y", "t"):
            v["storage"] = "internal"
            v.pop("offset", None)
    steps = p["blocks"][0]["steps"]
    p["blocks"][0]["steps"] = [s for s in steps if s["kind"] != "kernel" or s["kernel"] == 0]
    return p


def run(cmd, cwd):
    r = subprocess.run(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if r.returncode:
        sys.exit(f"FAIL: {' '.join(cmd)}: exit {r.returncode}: {r.stdout[-1500:]}")
    return r.stdout


def main():
    ap = argparse.ArgumentParser()
    for a in ("--openinfer", "--emit-plan", "--plugins", "--cc", "--work"):
        ap.add_argument(a, required=True)
    o = ap.parse_args()
    w = o.work
    os.makedirs(w, exist_ok=True)
    graph = os.path.join(C, "auto_dim_runtime_fused.oi")
    run([o.openinfer, "oinf", "pack", os.path.join(C, "auto_dim_runtime_model.txt"), "-o",
         "model.oinf"], w)
    run([o.openinfer, "oinf", "pack", os.path.join(C, "copy_tables_input.txt"), "-o",
         "input.oinf"], w)
    plan = json.loads(run([o.openinfer, "synth", graph, "--model", "model.oinf", "--target", "c",
                           "--plan-only"], w))
    with open(os.path.join(w, "fused.json"), "w") as f:
        json.dump(fused(plan), f)
    out = os.path.join(w, "gen")
    if os.path.isdir(out):
        for name in sorted(os.listdir(out)):
            if name.endswith(".c"):
                os.remove(os.path.join(out, name))
    run([o.emit_plan, o.plugins, "fused.json", "gen"], w)
    sources = sorted(os.path.join("gen", f) for f in os.listdir(out) if f.endswith(".c"))
    run([o.cc, "-std=c11", "-Wall", "-Wextra", "-Werror", "-O0", "-g",
         "-fsanitize=address,undefined", "-fno-sanitize-recover=all", "-o", "gen/prog", *sources,
         "-lm"], w)
    common = ["--model", "model.oinf", "--input", "x=input.oinf:x.{step}", "--steps", "3"]
    run(["./gen/prog", *common, "--save", "gen.oinf", "-q"], w)
    run([o.openinfer, "run", graph, *common, "--save", "sim.oinf", "-q"], w)
    bad = []
    got = oinf.read(os.path.join(w, "gen.oinf"))
    for step, want in enumerate(expected()):
        for name, value in want.items():
            g = got[f"{name}.step{step}"]
            if g.dtype != value.dtype or g.shape != value.shape or g.tobytes() != value.tobytes():
                bad.append(f"{name}.step{step}: {g.tolist()}, expected {value.tolist()}")
    with open(os.path.join(w, "gen.oinf"), "rb") as a, open(os.path.join(w, "sim.oinf"), "rb") as b:
        if a.read() != b.read():
            bad.append("gen.oinf differs from the simulator's sim.oinf")
    for b in bad:
        print(f"  {b}")
    print(f"{'FAIL' if bad else 'ok'}: a plan fused by hand around a matrix of run-time shape, "
          "3 steps against the values computed here and the simulator")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
