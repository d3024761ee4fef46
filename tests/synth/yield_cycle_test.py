#!/usr/bin/python3
"""The simulator on a yield whose consumers each await a table another writes (a cycle: no
order runs every reader before the writer): dsl.md's result, computed here, REPEATS times over.

  yield_cycle_test.py --openinfer BIN --work DIR [--repeats N]
                      [--cc CC | --runner RUNNER [--glslc GLSLC]] [--graph FILE.oi]

tests/synth/c/yield_table_cycle.oi: 'wk' reads the matrix M and writes the table K, 'wm' reads K
and writes M. dsl.md: each consumer sees what it awaits as yielded, never another consumer's
writes, whatever the scheduling. So at step s (x_s the input): K[0] = x_s after it; 'wm' reads
K[0] as yielded, a_s = x_(s-1) (zeros at step 0), and writes it to M; 'wk' reads M as yielded,
m_s = M after step s-1 = x_(s-2) (zeros before step 2). The simulator once let them race on the
live tables (a or m changed from run to run); it now gives each reader a copy as yielded.
c/yield_table_cycle2.oi lists the consumers the other way round ('wm' first): the same values.

With --cc: the C target instead (docs/synth.md "Consumers of a yield": the table whose writer
runs before a reader is copied at the yield), compiled with -O2 under ASan+UBSan; with --runner:
the glsl target (devices/lavapipe.json or --device, the shared manifest runner; exit 77 without
a Vulkan device). Both used to refuse the graph (yield-table-cycle).
"""
import argparse
import os
import shutil
import subprocess
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
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
    p.add_argument("--cc")
    p.add_argument("--runner")
    p.add_argument("--glslc", default=shutil.which("glslc") or "glslc")
    p.add_argument("--device", default=os.path.join(ROOT, "devices", "lavapipe.json"))
    p.add_argument("--graph", default=GRAPH)
    o = p.parse_args()
    o.openinfer = os.path.abspath(o.openinfer)
    o.graph = os.path.abspath(o.graph)
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
    common = ["--model", "model.oinf", "--steps", str(STEPS), "--input", "x=input.oinf:x.{step}",
              "-q"]
    common += [a for n in ("a", "m", "K", "M") for a in ("--fetch", n)]
    name = os.path.basename(o.graph)
    if o.cc or o.runner:
        if o.cc:
            code, log = run([o.openinfer, "synth", o.graph, "--model", "model.oinf", "--target",
                             "c", "-o", "gen"], w)
            if code:
                sys.exit(f"FAIL: synth: {log}")
            sources = sorted(os.path.join("gen", f) for f in os.listdir(os.path.join(w, "gen"))
                             if f.endswith(".c"))
            code, log = run([o.cc, "-std=c11", "-Wall", "-Wextra", "-Werror", "-O0", "-g",
                             "-fsanitize=address,undefined", "-fno-sanitize-recover=all", "-o",
                             "prog", *sources, "-lm"], w)
            if code:
                sys.exit(f"FAIL: compile: {log}")
            code, log = run(["./prog", *common, "--save", "got.oinf"], w)
            target = "c"
        else:
            import glsl_program
            glsl = glsl_program.GlslTarget(o.openinfer, os.path.abspath(o.runner), o.glslc,
                                           o.device, w)
            shutil.copy(o.graph, w)
            stage, log = glsl.run(w, name, common, "got.oinf")
            if stage == "run" and glsl_program.NO_VULKAN in log:
                print("SKIP: no Vulkan device")
                return 77
            if stage != "ok":
                sys.exit(f"FAIL: glsl target at {stage}: {log.strip()[-2000:]}")
            code = 0
            target = "glsl"
        if code:
            sys.exit(f"FAIL: {target} run: {log}")
        if differs(w, f"the {target} target"):
            return 1
        print(f"ok: the {target} target's {STEPS} steps of {name} hold dsl.md's result")
        return 0
    args = [o.openinfer, "run", o.graph, *common, "--save", "got.oinf"]
    for r in range(o.repeats):
        code, log = run(args, w)
        if code:
            sys.exit(f"FAIL: run {r + 1}: {log}")
        if differs(w, f"run {r + 1} of {o.repeats}"):
            return 1
    print(f"ok: {o.repeats} runs of {STEPS} steps of {name} hold dsl.md's result")
    return 0


def differs(w, what):
    """Prints what differs from dsl.md's result; True if anything does."""
    got = oinf.read(os.path.join(w, "got.oinf"))
    bad = []
    for s in range(STEPS):
        for name, want in expected(s).items():
            key = f"{name}.step{s}"
            if key not in got.tensors:
                bad.append(f"{key}: not saved")
                continue
            g = got[key]
            if g.dtype != want.dtype or g.shape != want.shape or g.tobytes() != want.tobytes():
                bad.append(f"{key}: {g.tolist()}, expected {want.tolist()}")
    if bad:
        print("\n".join(f"  {b}" for b in bad))
        print(f"FAIL: {what}")
    return bool(bad)


if __name__ == "__main__":
    sys.exit(main())
