#!/usr/bin/python3
"""A yield's consumer reading a table and an @auto_dim matrix that an earlier consumer (in
source order) writes: both targets against dsl.md's deterministic result, computed here.

  yield_snapshot_test.py --openinfer BIN --work DIR
                         (--cc CC | --runner RUNNER [--glslc GLSLC] | --simulator REPEATS)

tests/synth/c/yield_table_snapshot.oi over 3 steps: 'rd' must see K[0] and M's shape as yielded,
before 'grow' and 'mat' change them (docs/synth.md "Consumers of a yield"), and K, M and n
(fetched whole) hold what dsl.md gives after each step. A fourth step fails in 'grow' (K's @fixed
bound) after 'grow' overwrote K[0] in place: the program (--keep-going) prints the simulator's
message and leaves K, M and n as after the third. The values are computed here, not taken from
the simulator: it once ran the consumers at the same time on the shared table, so what 'rd' saw
depended on scheduling; now it runs them in the targets' order (a table's writer after the
others that await it), and --simulator REPEATS holds it to the same values REPEATS times over.
With --cc: the C target, compiled with -O2 under ASan+UBSan;
with --runner: the glsl target (devices/lavapipe.json, the shared manifest runner; exit 77
without a Vulkan device).
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

GRAPH = os.path.join(HERE, "c", "yield_table_snapshot.oi")
X = np.array([0.5, -1.5, 2.0, 1e-3], dtype=np.float32)  # c/loops_input.txt
STEPS = 3  # then one that fails


def expected(step):
    """dsl.md: K[0] starts unwritten (zeros) and 'grow' adds x each step; entry writes x to
    K[step + 1] and 'grow' 2x to K[step + 2] (K fetched whole: its @fixed bound of 5 entries,
    unwritten ones zeros); M starts as one row of @init 0.5 and 'mat' appends its last row + x
    each step (fetched whole: its current rows; read back padded to [5, 5])."""
    k0 = np.zeros(4, dtype=np.float32)
    rows = [np.full(4, 0.5, dtype=np.float32)]
    for _ in range(step):
        k0 = k0 + X
        rows.append(rows[-1] + X)

    def padded(rs):
        out = np.zeros((5, 5), dtype=np.float32)
        for i, r in enumerate(rs):
            out[i, :4] = r
        return out

    table = np.zeros((5, 4), dtype=np.float32)
    table[0] = k0 + X
    table[1:step + 2] = X
    table[step + 2] = X + X
    after = rows + [rows[-1] + X]
    return {"a": k0, "seen": padded(rows), "r0": k0 + X, "after": padded(after), "K": table,
            "M": np.array(after, dtype=np.float32), "n": np.array(step + 1, dtype=np.int32)}


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
    p.add_argument("--simulator", type=int, default=0, metavar="REPEATS")
    o = p.parse_args()
    if (bool(o.cc) + bool(o.runner) + bool(o.simulator)) != 1:
        sys.exit("give one of --cc, --runner and --simulator")
    o.openinfer = os.path.abspath(o.openinfer)
    if o.runner:
        o.runner = os.path.abspath(o.runner)
    shutil.rmtree(o.work, ignore_errors=True)
    os.makedirs(o.work)
    w = o.work
    for text, out in (("loops_model.txt", "model.oinf"), ("loops_input.txt", "input.oinf")):
        code, log = run([o.openinfer, "oinf", "pack", os.path.join(HERE, "c", text), "-o", out], w)
        if code:
            sys.exit(f"FAIL: oinf pack {text}: {log}")
    common = ["--model", "model.oinf", "--steps", str(STEPS + 1), "--input", "x=input.oinf",
              "--keep-going", "-q"]
    common += [a for n in ("a", "seen", "r0", "after", "K", "M", "n") for a in ("--fetch", n)]
    code, log = run([o.openinfer, "run", GRAPH, "--model", "model.oinf", "--steps",
                     str(STEPS + 1), "--input", "x=input.oinf", "-q"], w)
    errors = [line for line in log.splitlines() if line.startswith("error:")]
    if code != 1 or not errors:
        sys.exit(f"FAIL: the simulator does not stop at step {STEPS}: {log}")
    want_error = errors[0]
    if o.simulator:
        # `openinfer run` stops at a failed step (no --keep-going): the three good steps.
        sim = [a for a in common if a != "--keep-going"]
        sim[sim.index("--steps") + 1] = str(STEPS)
        for r in range(o.simulator):
            code, log = run([o.openinfer, "run", GRAPH, *sim, "--save", "got.oinf"], w)
            if check(w, code, log, want_error, "simulator", r + 1):
                return 1
        return 0
    if o.cc:
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
        code, log = run(["./prog", *common, "--save", "got.oinf"], w)
        target = "c"
    else:
        import glsl_program
        glsl = glsl_program.GlslTarget(o.openinfer, o.runner, o.glslc,
                                       os.path.join(ROOT, "devices", "lavapipe.json"), w)
        shutil.copy(GRAPH, w)
        stage, log = glsl.run(w, os.path.basename(GRAPH), common, "got.oinf")
        if stage == "run" and glsl_program.NO_VULKAN in log:
            print("SKIP: no Vulkan device")
            return 77
        if stage not in ("ok", "run"):
            sys.exit(f"FAIL: glsl target at {stage}: {log.strip()[-2000:]}")
        code = 0 if stage == "ok" else 1
        target = "glsl"
    return check(w, code, log, want_error, target)


def check(w, code, log, want_error, target, repeat=None):
    """Prints what differs from dsl.md's result; 1 if anything does."""
    bad = []
    steps = STEPS if target == "simulator" else STEPS + 1
    if target == "simulator" and code != 0:
        bad.append(f"exit {code}: {log[-800:]}")
    # The simulator's message, with the graph's path as the program was given it.
    message = want_error.replace(GRAPH, os.path.basename(GRAPH)) if target == "glsl" else want_error
    if target != "simulator" and (code != 1 or message not in log):
        bad.append(f"step {STEPS}: exit {code}, expected 1 and '{message}'; output: {log[-800:]}")
    if not os.path.exists(os.path.join(w, "got.oinf")):
        sys.exit(f"FAIL: no --save file; output: {log[-2000:]}")
    got = oinf.read(os.path.join(w, "got.oinf"))
    for step in range(steps):
        for name, want in expected(min(step, STEPS - 1)).items():
            key = f"{name}.step{step}"
            if step == STEPS and name not in ("K", "M", "n"):
                continue  # the failed step's volatile values are not kept
            if key not in got.tensors:
                bad.append(f"{key}: not saved")
                continue
            g = got[key]
            if g.dtype != want.dtype or g.shape != want.shape or g.tobytes() != want.tobytes():
                bad.append(f"{key}: {g.tolist()}, expected {want.tolist()}")
    for b in bad:
        print(f"  {b}")
    print(f"{'FAIL' if bad else 'ok'}: {target}{f' run {repeat}' if repeat else ' target'}, "
          f"{STEPS} steps of {os.path.basename(GRAPH)} against dsl.md's result, then a failed step")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
