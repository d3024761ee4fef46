#!/usr/bin/python3
"""Temporaries fetched from generated programs (`openinfer synth --fetchable NAME`).

  fetchable_test.py --openinfer BIN --work DIR [--cc CC] [--runner GLSL_RUNNER --glslc GLSLC]

fetchable.oi through the C target (and the glsl target when a runner is given): t = x*x and
u = t + x, y = u @ w, acc += y, fetched after each of 3 steps and compared with values computed
here (small integers and halves: every sum is exact in f32) and with `openinfer run`. Then the
errors: fetching a temporary the program does not keep names --fetchable; --fetchable of a name
the graph lacks is a synthesis error listing the temporaries."""
import argparse
import os
import shutil
import subprocess
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
sys.path.insert(0, os.path.join(ROOT, "python"))
sys.path.insert(0, os.path.dirname(HERE))
from openinfer import oinf  # noqa: E402

GRAPH = os.path.join(HERE, "fetchable.oi")
STEPS = 3
W = np.array([[0.5, -1.0], [2.0, 0.25], [-0.5, 1.5]], dtype=np.float32)
XS = [(np.arange(6, dtype=np.float32).reshape(2, 3) - 2 + s) * 0.5 for s in range(STEPS)]
FETCH = ["t", "u", "y", "acc"]


def expected():
    acc = np.zeros((2, 2), np.float32)
    out = {}
    for s, x in enumerate(XS):
        t = x * x
        u = t + x
        y = u @ W
        acc = acc + y
        for name, v in zip(FETCH, (t, u, y, acc)):
            out[f"{name}.step{s}"] = v.astype(np.float32)
    return out


def run(args, cwd):
    r = subprocess.run(args, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                       timeout=600)
    return r.returncode, r.stdout


def check(label, path, want, problems):
    got = oinf.read(path)
    for key, v in want.items():
        g = got[key]
        if g.shape != v.shape or g.tobytes() != v.tobytes():
            problems.append(f"{label}: {key} = {g.tolist()}, expected {v.tolist()}")


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--openinfer", required=True)
    p.add_argument("--work", required=True)
    p.add_argument("--cc", default="cc")
    p.add_argument("--runner")
    p.add_argument("--glslc")
    o = p.parse_args()
    oi = os.path.abspath(o.openinfer)
    w = o.work
    shutil.rmtree(w, ignore_errors=True)
    os.makedirs(w)
    with open(os.path.join(w, "input.txt"), "w") as f:
        f.write("# openinfer oinf text v1\n")
        for s, x in enumerate(XS):
            f.write(f"x.{s}: f32[2, 3] = {{ {', '.join(repr(float(v)) for v in x.ravel())} }}\n")
    for text, out in ((os.path.join(HERE, "model.txt"), "model.oinf"), ("input.txt", "input.oinf")):
        code, log = run([oi, "oinf", "pack", text, "-o", out], w)
        if code:
            sys.exit(f"FAIL: oinf pack {text}: {log}")
    common = ["--steps", str(STEPS), "--input", "x=input.oinf:x.{step}", "-q"]
    fetch = [a for n in FETCH for a in ("--fetch", n)]
    want = expected()
    problems = []

    code, log = run([oi, "run", GRAPH, "--model", "model.oinf", *common, *fetch, "--save",
                     "sim.oinf"], w)
    if code:
        sys.exit(f"FAIL: openinfer run: {log}")
    check("simulator", os.path.join(w, "sim.oinf"), want, problems)

    keep = ["--fetchable", "t", "--fetchable", "u"]
    synth = [oi, "synth", GRAPH, "--model", "model.oinf"]
    code, log = run([*synth, "--target", "c", *keep, "-o", "c_gen"], w)
    if code:
        sys.exit(f"FAIL: synth --target c: {log}")
    sources = sorted(os.path.join("c_gen", f) for f in os.listdir(os.path.join(w, "c_gen"))
                     if f.endswith(".c"))
    code, log = run([o.cc, "-std=c11", "-Wall", "-Wextra", "-Werror", "-O2", *sources, "-lm", "-o",
                     "c_prog"], w)
    if code:
        sys.exit(f"FAIL: cc: {log}")
    code, log = run(["./c_prog", "--model", "model.oinf", *common, *fetch, "--save", "c.oinf"], w)
    if code:
        problems.append(f"c: the program failed: {log}")
    else:
        check("c", os.path.join(w, "c.oinf"), want, problems)
        print("c: t, u, y, acc fetched after each step")

    if o.runner:
        import glsl_program
        glsl = glsl_program.GlslTarget(oi, o.runner, o.glslc,
                                       os.path.join(ROOT, "devices", "lavapipe.json"), w)
        code, log = glsl.shaders.run([*synth, "--target", "glsl", "--device",
                                      os.path.join(ROOT, "devices", "lavapipe.json"), *keep,
                                      "-o", "glsl_gen"], w, timeout=300)
        if code:
            sys.exit(f"FAIL: synth --target glsl: {log}")
        code, log = glsl.shaders.compile_shaders(os.path.join(w, "glsl_gen"))
        if code:
            sys.exit(f"FAIL: glslc: {log}")
        code, log = run([os.path.abspath(o.runner), "--manifest", "glsl_gen", "--model",
                         "model.oinf", *common, *fetch, "--save", "glsl.oinf"], w)
        if code == 3 and glsl_program.NO_VULKAN in log:
            print(f"glsl: skipped ({log.strip()})")
        elif code:
            problems.append(f"glsl: the program failed: {log}")
        else:
            check("glsl", os.path.join(w, "glsl.oinf"), want, problems)
            print("glsl: t, u, y, acc fetched after each step")

    # Errors. A program synthesized without --fetchable t cannot fetch t, and says how to.
    code, log = run([*synth, "--target", "c", "-o", "c_plain"], w)
    sources = sorted(os.path.join("c_plain", f) for f in os.listdir(os.path.join(w, "c_plain"))
                     if f.endswith(".c"))
    code, log = run([o.cc, "-std=c11", "-O1", *sources, "-lm", "-o", "c_plain_prog"], w)
    code, log = run(["./c_plain_prog", "--model", "model.oinf", *common, "--fetch", "t"], w)
    if code != 1 or "--fetchable t" not in log:
        problems.append(f"c without --fetchable: exit {code}, expected 1 naming --fetchable: {log}")
    code, log = run([*synth, "--target", "c", "--fetchable", "nosuch", "-o", "c_bad"], w)
    if code != 1 or "--fetchable 'nosuch'" not in log or "temporaries: t, u, y" not in log:
        problems.append(f"--fetchable nosuch: exit {code}, expected 1 listing t, u, y: {log}")

    if problems:
        print("\n".join(f"  {q}" for q in problems))
        print("FAIL")
        return 1
    print("ok: temporaries kept with --fetchable are fetched as the simulator fetches them")
    return 0


if __name__ == "__main__":
    sys.exit(main())
