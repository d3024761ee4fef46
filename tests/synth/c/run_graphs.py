#!/usr/bin/python3
"""The graphs of tests/run (and the language graphs of tests/synth/c) through the C target.

  run_graphs.py OPENINFER CC WORK SOURCE_DIR

Each case is synthesized, compiled (-std=c11 -Wall -Wextra -Werror -O2) and run with its model
and inputs, and its --save output compared byte for byte with `openinfer run --save`; an error
case must fail with the simulator's message (a graph that does not validate: at synthesis; a
run-time error such as a dynamic input never inserted: from the program, word for word). Prints
one line per case (agrees / same error / refused / FAILS) and exits 1 when a case does not do
what the table below expects.
"""

import os
import shutil
import subprocess
import sys

RUN = "tests/run/data"
SC = "tests/synth/c"
LOOPS = (f"{SC}/loops_model.txt", f"{SC}/loops_input.txt")

# (name, graph, model text, input text, steps, --input specs, expected)
CASES = [
    ("run_steps", f"{RUN}/steps.oi", f"{RUN}/steps_model.txt", f"{RUN}/steps_input.txt", 3,
     ["x=@IN@:x.{step}"], "agrees"),
    ("run_pipeline", f"{RUN}/pipeline.oi", f"{RUN}/steps_model.txt",
     f"{RUN}/pipeline_input.txt", 2, ["x=@IN@"], "agrees"),
    ("run_bad_unknown_var", f"{RUN}/bad_unknown_var.oi", *LOOPS, 1, ["x=@IN@"], "error"),
    ("run_steps_no_input", f"{RUN}/steps.oi", f"{RUN}/steps_model.txt",
     f"{RUN}/steps_input.txt", 1, [], "error"),
    ("loops", f"{SC}/loops.oi", *LOOPS, 2, ["x=@IN@"], "agrees"),
    ("loop_bounds", f"{SC}/loop_bounds.oi", *LOOPS, 3, ["x=@IN@"], "agrees"),
    ("loop_axis_shape_step0", f"{SC}/loop_axis_shape.oi", LOOPS[0],
     f"{SC}/loop_axis_shape_input.txt", 1, ["x=@IN@"], "agrees"),
    ("loop_axis_shape", f"{SC}/loop_axis_shape.oi", LOOPS[0], f"{SC}/loop_axis_shape_input.txt",
     2, ["x=@IN@"], "error"),
    ("cache", f"{SC}/cache.oi", *LOOPS, 3, ["x=@IN@"], "agrees"),
    ("incdec", f"{SC}/incdec.oi", *LOOPS, 3, ["x=@IN@"], "agrees"),
    ("branch", f"{SC}/branch.oi", *LOOPS, 2, ["x=@IN@"], "agrees"),
    ("consumer", f"{SC}/consumer.oi", *LOOPS, 2, ["x=@IN@"], "agrees"),
    ("tables", f"{SC}/tables.oi", f"{SC}/loops_model.txt", f"{SC}/tables_input.txt", 3,
     ["x=@IN@:x.{step}"], "agrees"),
    ("prefix_table", f"{SC}/prefix_table.oi", f"{SC}/prefix_table_model.txt",
     f"{SC}/prefix_table_input.txt", 2, ["x=@IN@:x.{step}"], "agrees"),
    ("prefix_index", f"{SC}/prefix_index.oi", f"{SC}/prefix_index_model.txt",
     f"{SC}/prefix_index_input.txt", 3, ["x=@IN@"], "agrees"),
    ("settings_names", f"{SC}/settings_names.oi", f"{SC}/settings_model.txt",
     f"{SC}/loops_input.txt", 2, ["x=@IN@"], "agrees"),
    ("auto_dim", f"{SC}/auto_dim.oi", f"{SC}/loops_model.txt", f"{SC}/auto_dim_input.txt", 3,
     ["x=@IN@:x"], "agrees"),
    ("auto_dim_range", f"{SC}/auto_dim.oi", f"{SC}/loops_model.txt",
     f"{SC}/auto_dim_input.txt", 4, ["x=@IN@:x"], "error"),
]


def run(args, cwd):
    return subprocess.run(args, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          text=True, timeout=300)


def errors(text):
    return [line for line in text.splitlines() if "error" in line]


def one(oi, cc, work, src, case):
    name, graph, model, inputs, steps, specs, expected = case
    d = os.path.join(work, name)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    for args in ([oi, "oinf", "pack", os.path.join(src, model), "-o", "model.oinf"],
                 [oi, "oinf", "pack", os.path.join(src, inputs), "-o", "input.oinf"]):
        r = run(args, d)
        if r.returncode:
            return "FAILS", r.stdout
    ins = []
    for spec in specs:
        ins += ["--input", spec.replace("@IN@", "input.oinf")]
    common = ["--model", "model.oinf", "--steps", str(steps), *ins, "-q"]
    g = os.path.join(src, graph)
    sim = run([oi, "run", g, *common, "--save", "sim.oinf"], d)
    synth = run([oi, "synth", g, "--model", "model.oinf", "--target", "c", "-o", "gen"], d)
    if synth.returncode:
        if sim.returncode and errors(sim.stdout)[:1] and errors(sim.stdout)[0] in synth.stdout:
            return "same error", errors(sim.stdout)[0]
        if "not supported yet" in synth.stdout:
            return "refused", synth.stdout.strip().splitlines()[-1]
        return "FAILS", "synth: " + synth.stdout
    sources = sorted(os.path.join("gen", f) for f in os.listdir(os.path.join(d, "gen"))
                     if f.endswith(".c"))
    r = run([cc, "-std=c11", "-Wall", "-Wextra", "-Werror", "-O2", *sources, "-lm", "-o", "prog"],
            d)
    if r.returncode:
        return "FAILS", "cc: " + r.stdout
    prog = run(["./prog", *common, "--save", "gen.oinf"], d)
    if sim.returncode or prog.returncode:
        if sim.returncode and prog.returncode and sim.stdout == prog.stdout:
            return "same error", sim.stdout.strip()
        return "FAILS", f"simulator: {sim.stdout}\nprogram: {prog.stdout}"
    with open(os.path.join(d, "sim.oinf"), "rb") as a, open(os.path.join(d, "gen.oinf"), "rb") as b:
        if a.read() == b.read():
            return "agrees", ""
    return "FAILS", "the --save files differ"


def main():
    oi, cc, work, src = (os.path.abspath(a) if i != 1 else a for i, a in enumerate(sys.argv[1:5]))
    os.makedirs(work, exist_ok=True)
    bad = 0
    for case in CASES:
        got, detail = one(oi, cc, work, src, case)
        expected = case[-1]
        ok = got == expected or (expected == "error" and got == "same error")
        bad += not ok
        print(f"{case[0]:22s} {got}{'' if ok else ' (expected: ' + expected + ')'}"
              + (f": {detail}" if detail and (not ok or got != 'agrees') else ""))
    print(f"{len(CASES) - bad}/{len(CASES)} cases as expected")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
