#!/usr/bin/python3
"""Differential test of the synthesis targets against the simulator on random graphs.

  differential.py --openinfer BIN [--cc CC] --work DIR [--seed S] [--count N] [--jobs J]
                  [--targets c] [--min-each M] [--keep]

Graph k (k = 0..N-1) is gen_graph.generate(S + k): checked with `openinfer graph check --model`,
run by the simulator (`openinfer run --save`, 3 steps) and by each target (for `c`: synth,
compile with -std=c11 -Wall -Wextra -Werror, -O2 for every 4th graph and -O0 for the others,
run the program with the same inputs and --save), and each target's file compared byte for
byte with the simulator's (the data are exact, gen_graph.py says why). Prints how many graphs
held each construct and how many agreed; exits 1 if any graph disagreed or failed, or a
construct was held by fewer than M graphs. A failing graph's folder is kept under DIR.

A target is an entry of TARGETS: a function (runner, folder, graph index) that writes the
target's --save file and returns its path. A GLSL target adds its own function there.
"""

import argparse
import concurrent.futures
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_graph  # noqa: E402


class Failure(Exception):
    pass


def sh(args, cwd, what):
    r = subprocess.run(args, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True, timeout=300)
    if r.returncode != 0:
        raise Failure(f"{what} failed (exit {r.returncode}): {' '.join(args)}\n{r.stdout}")
    return r.stdout


def run_args(steps):
    args = ["--steps", str(steps), "--input", "x=input.oinf:x.{step}",
            "--input", "xr=input.oinf:xr.{step}", "-q"]
    return args


def target_c(opts, folder, k, steps):
    sh([opts.openinfer, "synth", "graph.oi", "--model", "model.oinf", "--target", "c", "-o",
        "c_gen"], folder, "synth --target c")
    level = "-O2" if k % 4 == 3 else "-O0"
    sources = sorted(os.path.join("c_gen", f) for f in os.listdir(os.path.join(folder, "c_gen"))
                     if f.endswith(".c"))
    sh([opts.cc, "-std=c11", "-Wall", "-Wextra", "-Werror", level, *sources, "-lm", "-o",
        "c_prog"], folder, f"cc {level}")
    sh(["./c_prog", "--model", "model.oinf", *run_args(steps), "--save", "c.oinf"], folder,
       "the generated C program")
    return os.path.join(folder, "c.oinf")


TARGETS = {"c": target_c}


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
        try:
            path = TARGETS[t](opts, folder, k, steps)
            with open(path, "rb") as f:
                same = f.read() == expected
            result["targets"][t] = "agrees" if same else \
                f"differs from the simulator: {path} vs {os.path.join(folder, 'sim.oinf')}"
        except (Failure, subprocess.TimeoutExpired) as e:
            result["targets"][t] = str(e)
    ok = all(v == "agrees" for v in result["targets"].values())
    if ok and not opts.keep:
        shutil.rmtree(folder, ignore_errors=True)
    return result


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--openinfer", required=True)
    p.add_argument("--cc", default="cc")
    p.add_argument("--work", required=True)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--count", type=int, default=100)
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--targets", default="c", help="comma-separated: " + ", ".join(TARGETS))
    p.add_argument("--min-each", type=int, default=0,
                   help="fail when a construct is held by fewer graphs")
    p.add_argument("--keep", action="store_true", help="keep the folders of passing graphs")
    opts = p.parse_args()
    opts.openinfer = os.path.abspath(opts.openinfer)
    opts.work = os.path.abspath(opts.work)
    opts.targets = [t for t in opts.targets.split(",") if t]
    for t in opts.targets:
        if t not in TARGETS:
            p.error(f"unknown target '{t}' (known: {', '.join(TARGETS)})")
    os.makedirs(opts.work, exist_ok=True)
    with concurrent.futures.ThreadPoolExecutor(opts.jobs) as pool:
        results = list(pool.map(lambda k: one_graph(opts, k), range(opts.count)))
    held = {f: 0 for f in gen_graph.FEATURES}
    agree = {t: 0 for t in opts.targets}
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
            elif r not in bad:
                bad.append(r)
    print(f"{opts.count} graphs (seeds {opts.seed}..{opts.seed + opts.count - 1}):")
    for f in gen_graph.FEATURES:
        print(f"  {f:14s} held by {held[f]} graphs")
    for t in opts.targets:
        print(f"  target {t}: {agree[t]}/{opts.count} agree with the simulator")
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
