#!/usr/bin/python3
"""A failed step among the consumers of a yield whose table is copied (a cycle): the step is
undone in both targets and the simulator, against values computed here.

  yield_cycle_fail_test.py --openinfer BIN --work DIR (--cc CC | --runner RUNNER [--glslc G]
                           [--device FILE.json] | --simulator)

tests/synth/c/yield_table_cycle_fail.oi with x = c/loops_input.txt's x every step. dsl.md: step 0
(n = 0) K[0] = x, 'wl' reads K[0] as yielded (zeros) and writes x to L[0]; step 1 K[0] = 2x,
L[1] = x + x = 2x; step 2 'wk' makes K[0] 3x, then 'wl' (K copied at the yield: it reads 2x)
fails writing L[2] past the bound: the step is undone, K = [2x, 0], L = [x, 2x], n = 2; step 3
fails the same way. The targets run 4 steps with --keep-going and must print the simulator's
message and leave K, L and n so; `openinfer run` stops at step 2 (--simulator: its first two
steps and its message).
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

GRAPH = os.path.join(HERE, "c", "yield_table_cycle_fail.oi")
X = np.array([0.5, -1.5, 2.0, 1e-3], dtype=np.float32)  # c/loops_input.txt
MESSAGE = "table 'L': index t = 2 exceeds its @fixed bound t=2"


def expected(step):
    z = np.zeros(4, dtype=np.float32)
    if step == 0:
        return {"K": np.stack([X, z]), "L": np.stack([X, z]), "n": np.array(1, np.int32),
                "a": X, "m": z}
    two = X + X
    after = {"K": np.stack([two, z]), "L": np.stack([X, two]), "n": np.array(2, np.int32)}
    if step == 1:
        after.update({"a": two, "m": X})
    return after  # steps 2 and 3 fail: persistent memory as after step 1


def run(args, cwd):
    r = subprocess.run(args, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                       timeout=300)
    return r.returncode, r.stdout


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--openinfer", required=True)
    p.add_argument("--work", required=True)
    p.add_argument("--cc")
    p.add_argument("--runner")
    p.add_argument("--glslc", default=shutil.which("glslc") or "glslc")
    p.add_argument("--device", default=os.path.join(ROOT, "devices", "lavapipe.json"))
    p.add_argument("--simulator", action="store_true")
    o = p.parse_args()
    if bool(o.cc) + bool(o.runner) + o.simulator != 1:
        sys.exit("give one of --cc, --runner and --simulator")
    o.openinfer = os.path.abspath(o.openinfer)
    shutil.rmtree(o.work, ignore_errors=True)
    os.makedirs(o.work)
    w = o.work
    for text, out in (("loops_model.txt", "model.oinf"), ("loops_input.txt", "input.oinf")):
        code, log = run([o.openinfer, "oinf", "pack", os.path.join(HERE, "c", text), "-o", out], w)
        if code:
            sys.exit(f"FAIL: oinf pack {text}: {log}")
    steps = 2 if o.simulator else 4
    common = ["--model", "model.oinf", "--input", "x=input.oinf", "-q"]
    common += [a for n in ("a", "m", "K", "L", "n") for a in ("--fetch", n)]
    if o.simulator:
        code, log = run([o.openinfer, "run", GRAPH, "--steps", "3", *common], w)
        if code != 1 or MESSAGE not in log:
            sys.exit(f"FAIL: the simulator's step 2: exit {code}, expected '{MESSAGE}': {log}")
        code, log = run([o.openinfer, "run", GRAPH, "--steps", "2", *common, "--save",
                         "got.oinf"], w)
        target = "simulator"
    elif o.cc:
        code, log = run([o.openinfer, "synth", GRAPH, "--model", "model.oinf", "--target", "c",
                         "-o", "gen"], w)
        if code:
            sys.exit(f"FAIL: synth: {log}")
        sources = sorted(os.path.join("gen", f) for f in os.listdir(os.path.join(w, "gen"))
                         if f.endswith(".c"))
        code, log = run([o.cc, "-std=c11", "-Wall", "-Wextra", "-Werror", "-O0", "-g",
                         "-fsanitize=address,undefined", "-fno-sanitize-recover=all", "-o", "prog",
                         *sources, "-lm"], w)
        if code:
            sys.exit(f"FAIL: compile: {log}")
        code, log = run(["./prog", "--steps", "4", "--keep-going", *common, "--save", "got.oinf"],
                        w)
        target = "c"
    else:
        import glsl_program
        glsl = glsl_program.GlslTarget(o.openinfer, os.path.abspath(o.runner), o.glslc, o.device,
                                       w)
        shutil.copy(GRAPH, w)
        stage, log = glsl.run(w, os.path.basename(GRAPH), ["--steps", "4", "--keep-going",
                                                           *common], "got.oinf")
        if stage == "run" and glsl_program.NO_VULKAN in log:
            print("SKIP: no Vulkan device")
            return 77
        if stage not in ("ok", "run"):
            sys.exit(f"FAIL: glsl target at {stage}: {log.strip()[-2000:]}")
        code = 0 if stage == "ok" else 1
        target = "glsl"
    bad = []
    if target != "simulator" and (code != 1 or log.count(MESSAGE) != 2):
        bad.append(f"exit {code}, expected 1 and '{MESSAGE}' at steps 2 and 3: {log[-1500:]}")
    if target == "simulator" and code:
        bad.append(f"exit {code}: {log[-1500:]}")
    got = oinf.read(os.path.join(w, "got.oinf"))
    for step in range(steps):
        for name, want in expected(step).items():
            key = f"{name}.step{step}"
            if key not in got.tensors:
                bad.append(f"{key}: not saved")
                continue
            g = got[key]
            if g.dtype != want.dtype or g.shape != want.shape or g.tobytes() != want.tobytes():
                bad.append(f"{key}: {g.tolist()}, expected {want.tolist()}")
    for b in bad:
        print(f"  {b}")
    if bad:
        print(f"FAIL: {target}")
        return 1
    print(f"ok: {target}: {steps} steps of yield_table_cycle_fail.oi hold dsl.md's result")
    return 0


if __name__ == "__main__":
    sys.exit(main())
