#!/usr/bin/python3
"""Failed steps leave persistent memory as before them, with the glsl target's newer table work.

  failed_layout_test.py --openinfer BIN --runner glsl_manifest_runner --glslc GLSLC --work DIR

tests/glsl_emitter/graphs/failed_layout.oi runs six steps through the glsl target (planned for
devices/lavapipe.json and for devices/generic_vulkan.json, run by the manifest runner with
`--keep-going`) and through `openinfer run` without the two steps that fail: step 1 first
writes a table growing along two indices past its first capacity (the table laid out again)
and then stops at a @fixed bound, step 3 stops at a negative index of a reset of @auto_dim
matrices after its writes. Then
- each failed step prints the simulator's message word for word;
- after a failed step every persistent value, table and matrix is byte for byte what the
  step before left (the undo record, the sizes and the matrices put back);
- every other step is byte for byte the simulator's step of the same inputs.
Exit 77 without a Vulkan device.
"""
import argparse
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

# x, a (F's index), k (G's first index), r (the reset's key); steps 1 and 3 fail
STEPS = [([1, 2], 0, 0, 5), ([3, 4], 3, 20, 5), ([5, 6], 1, 2, 1), ([7, 8], 1, 1, -1),
         ([9, 1], 2, 17, 0), ([2, 2], 0, 3, 9)]
FAILED = {1: "table 'F': index i = 3 exceeds its @fixed bound i=3",
          3: "table 'C': index l = -1 is negative"}
NAMES = ["n", "pa", "pk", "pr", "acc", "G", "F", "C"]


def write_inputs(path, steps):
    tensors = {}
    for s, (x, a, k, r) in enumerate(steps):
        tensors[f"x.{s}"] = np.array(x, np.float32)
        for name, v in (("a", a), ("k", k), ("r", r)):
            tensors[f"{name}.{s}"] = np.array(v, np.int32)
    oinf.write(path, tensors=tensors)


def run(args, cwd):
    r = subprocess.run(args, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                       timeout=300)
    return r.returncode, r.stdout


def errors(text):
    return [line for line in text.splitlines() if line.startswith("error:")]


def same(a, b):
    return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


def check_device(o, device):
    folder = os.path.join(o.work, os.path.splitext(os.path.basename(device))[0])
    os.makedirs(folder)
    shutil.copy(os.path.join(HERE, "graphs", "failed_layout.oi"), folder)
    with open(os.path.join(folder, "model.txt"), "w") as f:
        f.write("# openinfer oinf text v1\n")
    run([o.openinfer, "oinf", "pack", "model.txt", "-o", "model.oinf"], folder)
    write_inputs(os.path.join(folder, "all.oinf"), STEPS)
    ran = [s for k, s in enumerate(STEPS) if k not in FAILED]
    write_inputs(os.path.join(folder, "ran.oinf"), ran)
    ins = lambda f: [a for n in "xakr" for a in ("--input", f"{n}={f}:{n}.{{step}}")]
    fetch = [a for n in NAMES for a in ("--fetch", n)]
    graph = "failed_layout.oi"
    code, out = run([o.openinfer, "run", graph, "--model", "model.oinf", *ins("ran.oinf"),
                     "--steps", str(len(ran)), *fetch, "--save", "sim.oinf", "-q"], folder)
    if code:
        return [f"the simulator: {out.strip()}"]
    bad = []
    want = []
    for k in sorted(FAILED):  # the simulator's message at each failing step
        path = os.path.join(folder, f"upto{k}.oinf")
        before = [s for j, s in enumerate(STEPS) if j < k and j not in FAILED]
        write_inputs(path, before + [STEPS[k]])
        _, err = run([o.openinfer, "run", graph, "--model", "model.oinf", *ins(path), "--steps",
                      str(len(before) + 1), "-q"], folder)
        msg = errors(err)
        if not msg or FAILED[k] not in msg[0]:
            bad.append(f"step {k}: the simulator does not stop with '{FAILED[k]}': {err}")
        want += msg[:1]
    glsl = glsl_program.GlslTarget(o.openinfer, o.runner, o.glslc, device, folder)
    stage, out = glsl.run(folder, graph, ["--model", "model.oinf", *ins("all.oinf"), "--steps",
                                          str(len(STEPS)), "--keep-going", *fetch, "-q"],
                          "glsl.oinf")
    if stage == "run" and glsl_program.NO_VULKAN in out:
        return None
    if stage not in ("ok", "run") or not os.path.exists(os.path.join(folder, "glsl.oinf")):
        return bad + [f"glsl target at {stage}: {out.strip()[-2000:]}"]
    if errors(out) != want:
        bad.append(f"the messages: glsl {errors(out)}, simulator {want}")
    sim, got = oinf.read(os.path.join(folder, "sim.oinf")), oinf.read(
        os.path.join(folder, "glsl.oinf"))
    skipped = 0
    for k in range(len(STEPS)):
        for n in NAMES:
            g = got.tensors[f"{n}.step{k}"].raw
            if k in FAILED:
                w, what = got.tensors[f"{n}.step{k - 1}"].raw, f"what step {k - 1} left"
            else:
                w, what = sim.tensors[f"{n}.step{k - skipped}"].raw, "the simulator's"
            if not same(w, g):
                bad.append(f"step {k}: '{n}' is not {what}:\n{w}\n{g}")
        skipped += k in FAILED
    return bad


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--openinfer", required=True)
    p.add_argument("--runner", required=True)
    p.add_argument("--glslc", default=shutil.which("glslc") or "glslc")
    p.add_argument("--work", required=True)
    o = p.parse_args()
    shutil.rmtree(o.work, ignore_errors=True)
    os.makedirs(o.work)
    failed = 0
    for device in ("lavapipe.json", "generic_vulkan.json"):
        bad = check_device(o, os.path.join(ROOT, "devices", device))
        if bad is None:
            print("SKIP: no Vulkan device")
            return 77
        for b in bad[:20]:
            print(f"  {b}")
        print(f"{'FAIL' if bad else 'ok'}: {device}: {len(STEPS)} steps, {len(FAILED)} failed "
              "and undone")
        failed += bool(bad)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
