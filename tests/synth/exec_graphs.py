#!/usr/bin/python3
"""The graphs of the executor tests (tests/exec) through the synthesis targets.

  exec_graphs.py --openinfer BIN --exec-test BIN [--exec-test BIN]... --work DIR
                 [--targets c,glsl] [--cc CC] [--runner RUNNER] [--glslc GLSLC]
                 [--device FILE.json] [--steps 3] [--jobs 2] [--known TEXT]... [--keep]

Each executor test binary runs once with OPENINFER_DUMP_GRAPHS=DIR/dump, which makes
tests/exec/test_support.hpp write every graph a test simulates, with its model. Each distinct
graph then goes through `openinfer graph check --model`:
  - a graph that validates is run by the simulator (`openinfer run`, --steps N, inputs made up
    here: exact small values, the same for every target) and by each target (c: synth,
    compile with -std=c11 -Wall -Wextra -Werror -O2, run with the same inputs; glsl: synth
    for --device, glslc, run by the shared manifest runner --runner, glsl_program.py;
    exit 77 without a Vulkan device), fetching the entry's
    return and every persistent variable; the --save files must be byte-identical, or within
    ops.md's bound (compare_oinf.py `nn` mode) where floats differ; a run-time error must be
    the simulator's, word for word;
  - a graph that does not validate must be refused by synthesis with the same first error;
  - a graph that uses an op outside the catalog (the fixture backends' ops) is left out.
Prints one line per graph and a summary; exits 1 when a graph disagrees. A synthesis refusal
whose message holds a --known text counts as a known gap (printed, not a failure): the
target's documented refusals (docs/synth.md, docs/synth-glsl.md), listed where the CTest runs
this; so does a run-time error holding a --known-run-error text where the simulator stops too
(the same failure in other words).
"""
import argparse
import concurrent.futures
import json
import os
import random
import re
import shutil
import subprocess
import sys
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

sys.path.insert(0, HERE)
import glsl_program  # noqa: E402

FLOATS = {"f8", "bf16", "f16", "f32", "f64"}


class NoVulkan(Exception):
    """The machine has no Vulkan device: the glsl target is skipped (exit 77)."""


def run(args, cwd, timeout=300):
    r = subprocess.run(args, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True, timeout=timeout)
    return r.returncode, r.stdout


def kernel_message(text):
    """An error's own words: without the file position, `error:`, the simulator's
    "op 'gather' failed on backend ... (kernel from plugin ...): gather: " and a target's
    "gather (line 16): " (the same failure, each runner naming where it ran)."""
    m = first_error(text)
    m = re.sub(r"^error: ", "", m)
    m = re.sub(r"^op '\w+' failed on backend '[^']*' \(kernel from plugin '[^']*'\): \w+: ", "", m)
    m = re.sub(r"^(step \d+: )?\w+ \(line \d+\): ", "", m)
    return m


def first_error(text):
    for line in text.splitlines():
        if "error" in line:
            return line[line.index("error"):].strip()
    return text.strip().splitlines()[-1] if text.strip() else ""


def input_text(values, steps, seed):
    """oinf text with NAME.{step} for every dynamic value: exact small numbers."""
    rnd = random.Random(seed)
    lines = ["# openinfer oinf text v1"]
    for v in values:
        n = 1
        for d in v["shape"]:
            n *= d
        for step in range(steps):
            if v["dtype"] in FLOATS:
                vals = [repr(rnd.randint(-8, 8) / 4) for _ in range(n)]
            elif v["dtype"] == "bool":
                vals = [rnd.choice(["true", "false"]) for _ in range(n)]
            elif v["dtype"] == "bitset":
                vals = [str(rnd.randint(0, 1)) for _ in range(n)]
            else:
                vals = [str(rnd.randint(0, 2)) for _ in range(n)]
            dims = ", ".join(str(d) for d in v["shape"])
            head = f"{v['name']}.{step}: {v['dtype']}" + (f"[{dims}]" if v["shape"] else "")
            lines.append(f"{head} = {{ {', '.join(vals)} }}" if v["shape"] else
                         f"{head} = {vals[0]}")
    return "\n".join(lines) + "\n"


def fetch_names(oi, folder):
    """The entry block's return and every persistent variable, from the graph's JSON."""
    code, out = run([oi, "graph", "json", "graph.oi"], folder)
    if code != 0:
        return []
    g = json.loads(out)
    names = []
    for d in g.get("decls", []):
        if d.get("memory") == "persistent":
            names.append(d["name"])
    for b in g.get("blocks", []):
        if b.get("name") != "entry":
            continue
        for n in b.get("nodes", []):
            if n.get("kind") == "Return":
                names += [v["name"] if isinstance(v, dict) else v for v in n.get("names", [])]
    seen = []
    for n in names:
        if n not in seen:
            seen.append(n)
    return seen


def target_c(opts, folder, common):
    code, out = run([opts.openinfer, "synth", "graph.oi", "--model", "model.oinf", "--target",
                     "c", "-o", "c_gen"], folder)
    if code != 0:
        return "synth", out
    sources = sorted(os.path.join("c_gen", f) for f in os.listdir(os.path.join(folder, "c_gen"))
                     if f.endswith(".c"))
    code, out = run([opts.cc, "-std=c11", "-Wall", "-Wextra", "-Werror", "-O2", *sources, "-lm",
                     "-o", "c_prog"], folder)
    if code != 0:
        return "compile", out
    code, out = run(["./c_prog", *common, "--save", "c.oinf"], folder)
    return ("ok" if code == 0 else "run"), out


def target_glsl(opts, folder, common):
    return opts.glsl.run(folder, "graph.oi", common, "glsl.oinf")


TARGETS = {"c": target_c, "glsl": target_glsl}


def one_graph(opts, name):
    folder = os.path.join(opts.work, "g", name)
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    shutil.copy(os.path.join(opts.work, "dump", name + ".oi"), os.path.join(folder, "graph.oi"))
    shutil.copy(os.path.join(opts.work, "dump", name + ".oinf"),
                os.path.join(folder, "model.oinf"))
    oi = opts.openinfer
    code, check = run([oi, "graph", "check", "graph.oi", "--model", "model.oinf"], folder)
    if code != 0:
        if "unknown op" in check or "no op named" in check:
            return name, "left out (not a catalog op)", True
        results = []
        for t in opts.targets:
            c2, out = run([oi, "synth", "graph.oi", "--model", "model.oinf", "--target", t, "-o",
                           f"{t}_gen"], folder)
            same = c2 != 0 and first_error(check) in out
            results.append(f"{t}: {'same error' if same else 'DIFFERS: ' + first_error(out)}")
        return name, "invalid; " + ", ".join(results), all("same error" in r for r in results)
    code, plan = run([oi, "synth", "graph.oi", "--model", "model.oinf", "--plan-only"], folder)
    if code != 0:
        return name, f"plan FAILS: {first_error(plan)}", False
    dynamic = [v for v in json.loads(plan)["values"] if v.get("storage") == "dynamic"]
    with open(os.path.join(folder, "input.txt"), "w") as f:
        f.write(input_text(dynamic, opts.steps, zlib.crc32(name.encode())))  # stable per graph
    run([oi, "oinf", "pack", "input.txt", "-o", "input.oinf"], folder)
    common = ["--model", "model.oinf", "--steps", str(opts.steps), "-q"]
    for v in dynamic:
        common += ["--input", f"{v['name']}=input.oinf:{v['name']}.{{step}}"]
    for n in fetch_names(oi, folder):
        common += ["--fetch", n]
    sim_code, sim_out = run([oi, "run", "graph.oi", *common, "--save", "sim.oinf"], folder)
    results, ok = [], True
    for t in opts.targets:
        stage, out = TARGETS[t](opts, folder, common)
        if t == "glsl" and stage == "run" and glsl_program.NO_VULKAN in out:
            raise NoVulkan(out.strip().splitlines()[-1])
        if sim_code != 0 and stage == "synth" and any(k in out for k in opts.known):
            results.append(f"{t}: refused (known gap): {first_error(out)}")
            continue
        if sim_code != 0 and stage == "run" and any(k in out for k in opts.known_run_error):
            results.append(f"{t}: another run-time error (known gap): {first_error(out)}")
            continue
        if sim_code != 0:
            same = stage == "run" and kernel_message(out) == kernel_message(sim_out)
            results.append(f"{t}: " + ("same run-time error" if same else
                                       f"DIFFERS ({stage}): {first_error(out)} vs the "
                                       f"simulator's {first_error(sim_out)}"))
            ok &= same
            continue
        if stage == "synth" and any(k in out for k in opts.known):
            results.append(f"{t}: refused (known gap): {first_error(out)}")
            continue
        if stage != "ok":
            results.append(f"{t}: FAILS at {stage}: {first_error(out)}")
            ok = False
            continue
        with open(os.path.join(folder, "sim.oinf"), "rb") as a, \
                open(os.path.join(folder, f"{t}.oinf"), "rb") as b:
            if a.read() == b.read():
                results.append(f"{t}: agrees")
                continue
        c2, cmp_out = run(["env", f"PYTHONPATH={os.path.join(ROOT, 'python')}", "/usr/bin/python3",
                           os.path.join(HERE, "compare_oinf.py"), "sim.oinf", f"{t}.oinf", "nn"],
                          folder)
        if c2 == 0:
            results.append(f"{t}: agrees within ops-nn.md's bound")
        else:
            results.append(f"{t}: DIFFERS: {cmp_out.strip().splitlines()[-1:]}")
            ok = False
    if ok and not opts.keep:
        shutil.rmtree(folder, ignore_errors=True)
    return name, ", ".join(results), ok


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--openinfer", required=True)
    p.add_argument("--exec-test", action="append", required=True)
    p.add_argument("--work", required=True)
    p.add_argument("--targets", default="c")
    p.add_argument("--cc", default="cc")
    p.add_argument("--runner", help="glsl_manifest_runner (the glsl target's host program)")
    p.add_argument("--glslc", default=shutil.which("glslc") or "glslc")
    p.add_argument("--device", default=os.path.join(ROOT, "devices", "lavapipe.json"),
                   help="the device description the glsl target plans for")
    p.add_argument("--steps", type=int, default=3)
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--keep", action="store_true")
    p.add_argument("--known", action="append", default=[],
                   help="a refusal message (part) that is a documented gap, not a failure")
    p.add_argument("--known-run-error", action="append", default=[],
                   help="a target's run-time error (part) that differs from the simulator's "
                        "in words only: a documented gap, not a failure")
    opts = p.parse_args()
    opts.openinfer = os.path.abspath(opts.openinfer)
    opts.targets = opts.targets.split(",")
    for t in opts.targets:
        if t not in TARGETS:
            p.error(f"unknown target '{t}' (known: {', '.join(TARGETS)})")
    opts.work = os.path.abspath(opts.work)
    dump = os.path.join(opts.work, "dump")
    shutil.rmtree(opts.work, ignore_errors=True)
    os.makedirs(dump)
    if "glsl" in opts.targets:
        if not opts.runner:
            p.error("--targets glsl needs --runner")
        opts.glsl = glsl_program.GlslTarget(opts.openinfer, opts.runner, opts.glslc, opts.device,
                                            opts.work)
    env = dict(os.environ, OPENINFER_DUMP_GRAPHS=dump)
    for binary in opts.exec_test:
        r = subprocess.run([binary], env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           text=True)
        if r.returncode != 0:
            sys.exit(f"{binary} failed:\n{r.stdout[-3000:]}")
    names = sorted(f[:-3] for f in os.listdir(dump) if f.endswith(".oi"))
    counts = {"agree": 0, "invalid": 0, "left out": 0, "run-time error": 0, "known": 0, "fail": 0}
    try:
        with concurrent.futures.ThreadPoolExecutor(opts.jobs) as pool:
            results = list(pool.map(lambda n: one_graph(opts, n), names))
    except NoVulkan as e:
        print(f"SKIPPED: no Vulkan device ({e})")
        return 77
    for name, text, ok in results:
        print(f"{name}: {text}", flush=True)
        if not ok:
            counts["fail"] += 1
        elif text.startswith("left out"):
            counts["left out"] += 1
        elif text.startswith("invalid"):
            counts["invalid"] += 1
        elif "known gap" in text:
            counts["known"] += 1
        elif "run-time error" in text:
            counts["run-time error"] += 1
        else:
            counts["agree"] += 1
    print(f"{len(names)} graphs: {counts['agree']} agree, {counts['run-time error']} give the "
          f"simulator's run-time error, {counts['invalid']} give its validation error, "
          f"{counts['left out']} left out (ops outside the catalog), {counts['known']} refused "
          f"(known gaps), {counts['fail']} fail")
    return 1 if counts["fail"] else 0


if __name__ == "__main__":
    sys.exit(main())
