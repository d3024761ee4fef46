#!/usr/bin/python3
"""Differential test of the synthesis targets against the simulator on random graphs.

  differential.py --openinfer BIN --work DIR [--cc CC] [--runner RUNNER] [--glslc GLSLC]
                  [--device FILE.json] [--seed S] [--count N] [--jobs J] [--targets c,glsl]
                  [--min-each M] [--known TEXT]... [--keep]

Graph k (k = 0..N-1) is gen_graph.generate(S + k): checked with `openinfer graph check --model`,
run by the simulator (`openinfer run --save`, 3 steps) and by each target, and each target's
file compared byte for byte with the simulator's (the data are exact, gen_graph.py says why):
  c     synth, compile with -std=c11 -Wall -Wextra -Werror, -O2 for every 4th graph and -O0 for
        the others, run the program with the same inputs and --save;
  glsl  synth for --device (devices/lavapipe.json), glslc (cached across graphs), run by the
        shared manifest runner --runner (glsl_program.py); exit 77 without a Vulkan device.
Prints how many graphs held each construct, how many agreed per target (and the seconds each
target took, summed over graphs); exits 1 if any graph disagreed or failed, or a construct was
held by fewer than M graphs. A synthesis refusal whose message holds a --known text is a
documented gap: counted and printed by reason, not a failure. A failing graph's folder is kept
under DIR.

A target is an entry of TARGETS: a function (options, folder, graph index, steps) that writes
the target's --save file and returns its path, raising Failure (with its stage) otherwise.
"""

import argparse
import concurrent.futures
import os
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.dirname(HERE))
import gen_graph  # noqa: E402
import glsl_program  # noqa: E402  (tests/synth)


class Failure(Exception):
    def __init__(self, text, stage=""):
        super().__init__(text)
        self.stage = stage


class NoVulkan(Exception):
    """The machine has no Vulkan device: the test is skipped (exit 77)."""


def sh(args, cwd, what, stage=""):
    r = subprocess.run(args, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True, timeout=300)
    if r.returncode != 0:
        raise Failure(f"{what} failed (exit {r.returncode}): {' '.join(args)}\n{r.stdout}", stage)
    return r.stdout


KNOWN = "refused (known gap): "


def run_args(steps):
    args = ["--steps", str(steps), "--input", "x=input.oinf:x.{step}",
            "--input", "xr=input.oinf:xr.{step}", "-q"]
    return args


def target_c(opts, folder, k, steps):
    sh([opts.openinfer, "synth", "graph.oi", "--model", "model.oinf", "--target", "c", "-o",
        "c_gen"], folder, "synth --target c", "synth")
    level = "-O2" if k % 4 == 3 else "-O0"
    sources = sorted(os.path.join("c_gen", f) for f in os.listdir(os.path.join(folder, "c_gen"))
                     if f.endswith(".c"))
    sh([opts.cc, "-std=c11", "-Wall", "-Wextra", "-Werror", level, *sources, "-lm", "-o",
        "c_prog"], folder, f"cc {level}")
    sh(["./c_prog", "--model", "model.oinf", *run_args(steps), "--save", "c.oinf"], folder,
       "the generated C program")
    return os.path.join(folder, "c.oinf")


def target_glsl(opts, folder, k, steps):
    stage, out = opts.glsl.run(folder, "graph.oi", ["--model", "model.oinf", *run_args(steps)],
                               "glsl.oinf")
    if stage == "run" and glsl_program.NO_VULKAN in out:
        raise NoVulkan(out.strip().splitlines()[-1])
    if stage != "ok":
        raise Failure(f"glsl target: {stage} failed:\n{out}", stage)
    return os.path.join(folder, "glsl.oinf")


TARGETS = {"c": target_c, "glsl": target_glsl}


def one_graph(opts, k):
    seed = opts.seed + k
    folder = os.path.join(opts.work, f"g{seed}")
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    graph, model, inputs, features, steps = gen_graph.generate(seed)
    for name, text in (("graph.oi", graph), ("model.txt", model), ("input.txt", inputs)):
        with open(os.path.join(folder, name), "w") as f:
            f.write(text)
    result = {"seed": seed, "features": features, "targets": {}}
    try:
        sh([opts.openinfer, "oinf", "pack", "model.txt", "-o", "model.oinf"], folder, "pack")
        sh([opts.openinfer, "oinf", "pack", "input.txt", "-o", "input.oinf"], folder, "pack")
        sh([opts.openinfer, "graph", "check", "graph.oi", "--model", "model.oinf"], folder,
           "graph check (the generator made an invalid graph)")
        sh([opts.openinfer, "run", "graph.oi", "--model", "model.oinf", *run_args(steps),
            "--save", "sim.oinf"], folder, "the simulator")
        with open(os.path.join(folder, "sim.oinf"), "rb") as f:
            expected = f.read()
    except (Failure, subprocess.TimeoutExpired) as e:
        result["error"] = str(e)
        return result
    for t in opts.targets:
        start = time.monotonic()
        try:
            path = TARGETS[t](opts, folder, k, steps)
            with open(path, "rb") as f:
                same = f.read() == expected
            result["targets"][t] = "agrees" if same else \
                f"differs from the simulator: {path} vs {os.path.join(folder, 'sim.oinf')}"
        except Failure as e:
            known = e.stage == "synth" and any(k in str(e) for k in opts.known)
            result["targets"][t] = (KNOWN + next(k for k in opts.known if k in str(e))) \
                if known else str(e)
        except subprocess.TimeoutExpired as e:
            result["targets"][t] = str(e)
        result.setdefault("seconds", {})[t] = time.monotonic() - start
    ok = all(v == "agrees" or v.startswith(KNOWN) for v in result["targets"].values())
    if ok and not opts.keep:
        shutil.rmtree(folder, ignore_errors=True)
    return result


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--openinfer", required=True)
    p.add_argument("--cc", default="cc")
    p.add_argument("--runner", help="glsl_manifest_runner (the glsl target's host program)")
    p.add_argument("--glslc", default=shutil.which("glslc") or "glslc")
    p.add_argument("--device", default=os.path.join(ROOT, "devices", "lavapipe.json"),
                   help="the device description the glsl target plans for")
    p.add_argument("--work", required=True)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--count", type=int, default=100)
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--targets", default="c", help="comma-separated: " + ", ".join(TARGETS))
    p.add_argument("--min-each", type=int, default=0,
                   help="fail when a construct is held by fewer graphs")
    p.add_argument("--keep", action="store_true", help="keep the folders of passing graphs")
    p.add_argument("--known", action="append", default=[],
                   help="a synthesis refusal (part of its message) that is a documented gap: "
                        "counted and printed, not a failure")
    opts = p.parse_args()
    opts.openinfer = os.path.abspath(opts.openinfer)
    opts.work = os.path.abspath(opts.work)
    opts.targets = [t for t in opts.targets.split(",") if t]
    for t in opts.targets:
        if t not in TARGETS:
            p.error(f"unknown target '{t}' (known: {', '.join(TARGETS)})")
    os.makedirs(opts.work, exist_ok=True)
    if "glsl" in opts.targets:
        if not opts.runner:
            p.error("--targets glsl needs --runner")
        opts.glsl = glsl_program.GlslTarget(opts.openinfer, opts.runner, opts.glslc,
                                            opts.device, opts.work)
    try:
        with concurrent.futures.ThreadPoolExecutor(opts.jobs) as pool:
            results = list(pool.map(lambda k: one_graph(opts, k), range(opts.count)))
    except NoVulkan as e:
        print(f"SKIPPED: no Vulkan device ({e})")
        return 77
    held = {f: 0 for f in gen_graph.FEATURES}
    agree = {t: 0 for t in opts.targets}
    known = {t: {} for t in opts.targets}
    seconds = {t: sum(r.get("seconds", {}).get(t, 0) for r in results) for t in opts.targets}
    bad = []
    for r in results:
        for f in r["features"]:
            held[f] += 1
        if "error" in r:
            bad.append(r)
            continue
        for t, v in r["targets"].items():
            if v == "agrees":
                agree[t] += 1
            elif v.startswith(KNOWN):
                reason = v[len(KNOWN):]
                known[t][reason] = known[t].get(reason, 0) + 1
            elif r not in bad:
                bad.append(r)
    print(f"{opts.count} graphs (seeds {opts.seed}..{opts.seed + opts.count - 1}):")
    for f in gen_graph.FEATURES:
        print(f"  {f:14s} held by {held[f]} graphs")
    for t in opts.targets:
        print(f"  target {t}: {agree[t]}/{opts.count} agree with the simulator "
              f"({seconds[t]:.0f} s in all)" +
              (f", {sum(known[t].values())} refused (known gaps)" if known[t] else ""))
        for reason, n in sorted(known[t].items(), key=lambda kv: -kv[1]):
            print(f"    {n} refused with '{reason}'")
    for r in bad:
        print(f"FAIL seed {r['seed']} ({', '.join(r['features'])}), kept in "
              f"{os.path.join(opts.work, 'g' + str(r['seed']))}:")
        if "error" in r:
            print("  " + r["error"].replace("\n", "\n  "))
        for t, v in r["targets"].items():
            if v != "agrees":
                print(f"  {t}: " + v.replace("\n", "\n  "))
    few = [f for f in gen_graph.FEATURES if held[f] < opts.min_each]
    if few:
        print(f"FAIL: fewer than {opts.min_each} graphs held: {', '.join(few)}")
    return 1 if bad or few else 0


if __name__ == "__main__":
    sys.exit(main())
