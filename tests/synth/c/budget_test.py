#!/usr/bin/python3
"""The table budget and failed steps of generated C against `openinfer run --max-table-bytes`.

  budget_test.py OPENINFER CC WORK SOURCE_DIR [--glsl RUNNER GLSLC | --freestanding DEVICE]
                 [small|tables|errors|gpt]...

A failed step leaves persistent memory as it was before it, so a run whose failed steps are
left out is what the simulator computes: the program runs a schedule with `--keep-going` (steps
refused by the budget in it, then a `wipe` step that resets the tables, then more steps), the
simulator the same schedule without the refused steps. Then

- each refused step prints the simulator's message word for word (`openinfer run` stopped at
  that step), and without `--keep-going` the program stops there as `openinfer run` does;
- after a refused step every persistent variable and table the program fetches is byte for
  byte what it held after the step before (the undo record put it back);
- every step that ran agrees with the simulator's step of the same inputs: byte for byte for
  `small` and `tables` (tests/synth/c/budget.oi and budget_tables.oi: exact values), and for `gpt` (examples/gpt/gpt.oi on the
  tiny model of tests/gpt with a `wipe` branch, growable K/V tables) the tokens and positions
  byte for byte, K, V and the logits within gpt_compare.py's tolerance;
- steps failing for other reasons (`errors`: tests/synth/c/failed_step.oi, a @fixed bound, a
  gather index, a dynamic input not inserted, each after persistent writes) print the
  simulator's message and leave persistent memory as it was;
- the same under ASan+UBSan gives the same --save file;
- `--max-table-bytes abc` and `-5` are usage errors (exit 2) naming the option.

With --glsl the same runs through the glsl target on lavapipe (devices/lavapipe.json) and the
manifest runner (no sanitizer build; the @auto_dim graph `small` is left out: the glsl target
has no run-time sized values); exit 77 without a Vulkan device.

With --freestanding DEVICE.json the C target's freestanding profile for that microcontroller,
driven on the host by tests/mcu/host_driver.c (also under ASan+UBSan): `errors` only (the
profile has no budget), on failed_step.oi with its growable table bounded `@fixed(t=8)`, the
messages naming the graph's file without its folders.
"""
import os
import shutil
import subprocess
import sys

import numpy as np

SRC = os.path.abspath(sys.argv[4]) if len(sys.argv) > 4 else "."
sys.path.insert(0, os.path.join(SRC, "python"))
from openinfer import oinf  # noqa: E402

FLAGS = ["-std=c11", "-Wall", "-Wextra", "-Werror"]
SAN = ["-O0", "-g", "-fsanitize=address,undefined", "-fno-sanitize-recover=all"]
failures = []


def check(ok, message):
    if not ok:
        failures.append(message)
        print("FAIL: " + message)


def run(args, cwd):
    r = subprocess.run(args, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                       timeout=900)
    if args[0] == TARGET["runner"] and r.returncode == 3 and "no Vulkan" in r.stderr:
        print("SKIP: no Vulkan device")
        sys.exit(77)
    return r.returncode, r.stdout, r.stderr


def must(args, cwd):
    rc, out, err = run(args, cwd)
    if rc:
        sys.exit(f"{' '.join(args)} failed ({rc}):\n{out}{err}")
    return out


def write_inputs(path, steps):
    """steps: a list of dicts NAME -> numpy value, one per step (NAME.k)."""
    tensors = {}
    for k, values in enumerate(steps):
        for name, value in values.items():
            tensors[f"{name}.{k}"] = value
    oinf.write(path, tensors=tensors)


# The target under test: "c" (the generated driver, also built under ASan+UBSan), "glsl" (the
# manifest runner on the synthesized shaders, `--glsl RUNNER GLSLC`) or "freestanding" (the
# C target's freestanding profile for `--freestanding DEVICE`, tests/mcu/host_driver.c).
TARGET = {"name": "c", "runner": None, "glslc": None, "device": None}


def build(oi, cc, d, graph, model):
    """Synthesizes and builds; returns the program commands: [plain, sanitized or None]."""
    if TARGET["name"] == "freestanding":
        must([oi, "synth", graph, "--model", model, "--target", "c", "--embed-weights", "--device",
              TARGET["device"], "--name", "model", "-o", "gen"], d)
        sources = ["gen/model.c", os.path.join(SRC, "tests/mcu/host_driver.c"), "-Igen",
                   "-DOI_MODEL=model", '-DOI_MODEL_HEADER="model.h"']
        must([cc, *FLAGS, "-O2", *sources, "-lm", "-o", "prog"], d)
        must([cc, *FLAGS, *SAN, *sources, "-lm", "-o", "prog_san"], d)
        return [["./prog"], ["./prog_san"]]
    if TARGET["name"] == "glsl":
        must([oi, "synth", graph, "--model", model, "--target", "glsl", "--device",
              os.path.join(SRC, "devices/lavapipe.json"), "--name", "model", "-o", "gen"], d)
        must(["bash", os.path.join(SRC, "tests/glsl_emitter/compile_shaders.sh"),
              TARGET["glslc"], "gen", "plain"], d)
        return [[TARGET["runner"], "--manifest", "gen"], None]
    must([oi, "synth", graph, "--model", model, "--target", "c", "--name", "model", "-o", "gen"],
         d)
    sources = sorted(os.path.join("gen", f) for f in os.listdir(os.path.join(d, "gen"))
                     if f.endswith(".c"))
    must([cc, *FLAGS, "-O2", *sources, "-lm", "-o", "prog"], d)
    must([cc, *FLAGS, *SAN, *sources, "-lm", "-o", "prog_san"], d)
    return [["./prog"], ["./prog_san"]]


def same(a, b):
    return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


def close(want, got, exact):
    if exact or want.dtype.kind in "iub":
        return same(want, got)
    w, g = want.astype(np.float64), got.astype(np.float64)
    return w.shape == g.shape and np.abs(w - g).max(initial=0) <= 2e-3 * np.abs(w).max(initial=0)


def compare(sim, gen, names, persistent, refused, steps, exact):
    """gen's step k against sim's step k minus the refused steps before it; at a refused step
    the persistent names against gen's step before it, byte for byte."""
    skipped = 0
    for k in range(steps):
        if k in refused:
            skipped += 1
            for n in persistent:
                check(same(gen[f"{n}.step{k - 1}"], gen[f"{n}.step{k}"]),
                      f"step {k} (refused): '{n}' is not what step {k - 1} left")
            continue
        for n in names:
            w, g = np.asarray(sim[f"{n}.step{k - skipped}"]), np.asarray(gen[f"{n}.step{k}"])
            check(close(w, g, exact), f"step {k}: '{n}' differs from the simulator's step "
                  f"{k - skipped}:\n{w}\n{g}")


def first_error(text):
    lines = [line for line in text.splitlines() if line.startswith("error:")]
    return lines[0] if lines else ""


def refusal(oi, d, prog, graph, common_c, common_sim, steps, budget, want_text):
    """`openinfer run` stops at the refused step; so does the program, with the same output."""
    b = ["--max-table-bytes", str(budget)]
    rc_s, out_s, err_s = run([oi, "run", graph, *common_sim, "--steps", str(steps), *b, "-q"], d)
    rc_c, out_c, err_c = run([*prog, *common_c, "--steps", str(steps), *b, "-q"], d)
    check(rc_s == 1 and rc_c == 1, f"budget {budget}: exit codes {rc_s} and {rc_c}")
    check(err_s == err_c, f"budget {budget}: the simulator says\n{err_s}the program\n{err_c}")
    check(want_text in err_s, f"budget {budget}: not the expected refusal: {err_s}")
    print(f"budget {budget}: {first_error(err_c)}")
    return first_error(err_s)


def keep_going(d, prog, common, steps, budget, fetch, save):
    rc, out, err = run([*prog, *common, "--steps", str(steps), "--max-table-bytes", str(budget),
                        "--keep-going", *fetch, "--save", save, "-q"], d)
    check(rc == 1, f"{prog} --keep-going: exit {rc} (1 expected: steps failed)\n{err}")
    check("runtime error" not in err and "AddressSanitizer" not in err, f"{prog}: {err}")
    return err


def same_save(d, san, common, steps, budget, fetch):
    """The sanitized build's --save file is the plain one's."""
    if not san:
        return
    keep_going(d, san, common, steps, budget, fetch, "san.oinf")
    with open(os.path.join(d, "gen.oinf"), "rb") as a, open(os.path.join(d, "san.oinf"), "rb") as b:
        check(a.read() == b.read(), "ASan+UBSan: another --save file")


def small(oi, cc, work, graph="tests/synth/c/budget.oi", budget=100, bytes_at_h=(24, 108),
          first_step=()):
    """A graph of budget.oi's steps: the budget refuses steps 3 and 4 at H[3] (G[0, 3] already
    written, acc and G[1, 0] overwritten: all put back); step 5 wipes and runs on. `first_step`:
    (budget, message) refused at the first step."""
    d = os.path.join(work, os.path.splitext(os.path.basename(graph))[0])
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    graph = os.path.join(SRC, graph)
    must([oi, "oinf", "pack", os.path.join(SRC, "tests/synth/c/loops_model.txt"), "-o",
          "model.oinf"], d)
    prog, san = build(oi, cc, d, graph, "model.oinf")
    xs = [[1.5, -2.0], [0.25, 4.0], [-3.0, 0.5], [2.0, 2.0], [8.0, -1.0], [0.5, 0.5],
          [-1.0, 3.0], [4.0, 0.75]]
    wipes = [False, False, False, False, False, True, False, False]
    refused = {3, 4}
    steps = [{"x": np.array(x, np.float32), "wipe": np.array(w)} for x, w in zip(xs, wipes)]
    write_inputs(os.path.join(d, "c_in.oinf"), steps)
    write_inputs(os.path.join(d, "sim_in.oinf"),
                 [s for k, s in enumerate(steps) if k not in refused])
    ins = lambda f: ["--input", f"x={f}:x.{{step}}", "--input", f"wipe={f}:wipe.{{step}}"]
    names = ["n", "acc", "H", "G", "whole"]
    fetch = [a for n in names for a in ("--fetch", n)]
    common_c = ["--model", "model.oinf", *ins("c_in.oinf")]
    common_sim = ["--model", "model.oinf", *ins("sim_in.oinf")]
    must([oi, "run", graph, *common_sim, "--steps", str(len(xs) - len(refused)),
          "--max-table-bytes", str(budget), *fetch, "--save", "sim.oinf", "-q"], d)
    want = refusal(oi, d, prog, graph, common_c, common_c, 4, budget,
                   f"table 'H' cannot grow from {bytes_at_h[0]} to {bytes_at_h[0] + 8} bytes: the "
                   f"tables would hold {bytes_at_h[1]} bytes, over the limit of {budget} bytes "
                   "(max_table_bytes)")
    err = keep_going(d, prog, common_c, len(xs), budget, fetch, "gen.oinf")
    check(err.splitlines() == [want, want], f"--keep-going: the refusals repeat cleanly:\n{err}")
    compare(oinf.read(os.path.join(d, "sim.oinf")), oinf.read(os.path.join(d, "gen.oinf")),
            names, ["n", "acc", "H", "G"], refused, len(xs), True)
    for limit, text in first_step:
        refusal(oi, d, prog, graph, common_c, common_c, 1, limit, text)
    same_save(d, san, common_c, len(xs), budget, fetch)
    # Bad budgets: usage errors naming the option.
    for bad in ("abc", "-5", ""):
        rc, out, err = run([*prog, *common_c, "--max-table-bytes", bad], d)
        check(rc == 2 and "--max-table-bytes" in err, f"--max-table-bytes '{bad}': {rc} {err}")
    print(f"{os.path.basename(graph)}: refused, undone, wiped and stepped on as the simulator")


def small_c(oi, cc, work):
    # Bytes after step k: M 36 (16 at its first access, grown to [3, 3]) + G[1, 0] + 2 x 8 per
    # step = 60 + 16k: under 100 bytes steps 0..2 run. At the first step: the @auto_dim matrix
    # refused at its growth and at its first access, and the @fixed table.
    small(oi, cc, work, first_step=[
        (30, "table 'M' cannot grow from 16 to 36 bytes: the tables would hold 36 bytes, over the "
             "limit of 30 bytes (max_table_bytes)"),
        (40, "table 'G' cannot grow from 0 to 8 bytes: the tables would hold 44 bytes, over the "
             "limit of 40 bytes (max_table_bytes)"),
        (12, "table 'M' cannot grow from 0 to 16 bytes: the tables would hold 16 bytes, over the "
             "limit of 12 bytes (max_table_bytes)")])


def small_tables(oi, cc, work):
    # budget_tables.oi is budget.oi without the @auto_dim matrix: 24 + 16k bytes after step k.
    small(oi, cc, work, "tests/synth/c/budget_tables.oi", 64, (24, 72), first_step=[
        (16, "table 'H' cannot grow from 0 to 8 bytes: the tables would hold 24 bytes, over the "
             "limit of 16 bytes (max_table_bytes)"),
        (12, "table 'G' cannot grow from 8 to 16 bytes: the tables would hold 16 bytes, over the "
             "limit of 12 bytes (max_table_bytes)")])


def errors(oi, cc, work):
    """Steps failing for other reasons than the budget leave persistent memory as it was too."""
    d = os.path.join(work, "errors")
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    graph = os.path.join(SRC, "tests/synth/c/failed_step.oi")
    if TARGET["name"] == "freestanding":  # every table @fixed
        text = open(graph).read()
        fixed = text.replace("H(t): f32[2] @table;", "H(t): f32[2] @table @fixed(t=8);")
        check(fixed != text, "failed_step.oi's H is not as expected")
        graph = os.path.join(d, "failed_step.oi")
        open(graph, "w").write(fixed)
    must([oi, "oinf", "pack", os.path.join(SRC, "tests/synth/c/loops_model.txt"), "-o",
          "model.oinf"], d)
    prog, san = build(oi, cc, d, graph, "model.oinf")
    f32, i32 = (lambda v: np.array(v, np.float32)), (lambda v: np.array(v, np.int32))
    no, yes = np.array(False), np.array(True)
    steps = [
        {"x": f32([1.5, -2.0]), "idx": i32([1]), "a": i32(0), "wipe": no},  # runs
        {"x": f32([0.25, 4.0]), "idx": i32([0]), "a": i32(3), "wipe": no},  # F[3]: past @fixed
        {"x": f32([-3.0, 0.5]), "idx": i32([2]), "a": i32(1), "wipe": no},  # gather index 2 of 2
        {"x": f32([2.0, 2.0]), "idx": i32([0]), "a": i32(1), "wipe": no},  # runs
        {"idx": i32([0]), "a": i32(2), "wipe": no},  # x not inserted
        {"x": f32([4.0, 0.75]), "idx": i32([1]), "a": i32(2), "wipe": no},  # runs
        {"x": f32([-1.0, 0.5]), "idx": i32([5]), "a": i32(1), "wipe": no},  # F[1] overwritten
        {"x": f32([3.0, 1.5]), "idx": i32([7]), "a": i32(0), "wipe": yes},  # F reset, then gather
        {"x": f32([0.5, 1.0]), "idx": i32([0]), "a": i32(1), "wipe": yes},  # runs: F reset
        {"x": f32([1.0, -1.0]), "idx": i32([1]), "a": i32(0), "wipe": no},  # runs
    ]
    refused = [1, 2, 4, 6, 7]
    ins = lambda f: [a for n in ("x", "idx", "a", "wipe")
                     for a in ("--input", f"{n}={f}:{n}.{{step}}")]
    names = ["n", "at", "acc", "H", "F", "g"]
    fetch = [a for n in names for a in ("--fetch", n)]
    write_inputs(os.path.join(d, "c_in.oinf"), steps)
    ran = [s for k, s in enumerate(steps) if k not in refused]
    write_inputs(os.path.join(d, "sim_in.oinf"), ran)
    common_c = ["--model", "model.oinf", *ins("c_in.oinf")]
    must([oi, "run", graph, "--model", "model.oinf", *ins("sim_in.oinf"), "--steps", str(len(ran)),
          *fetch, "--save", "sim.oinf", "-q"], d)
    # Each failure as the simulator reports it, on the steps that ran before it.
    want = []
    for k in refused:
        path = os.path.join(d, f"sim_in_{k}.oinf")
        write_inputs(path, [s for j, s in enumerate(steps) if j < k and j not in refused] +
                     [steps[k]])
        n = len([j for j in range(k) if j not in refused]) + 1
        rc, out, err = run([oi, "run", graph, "--model", "model.oinf", *ins(path), "--steps",
                            str(n), "-q"], d)
        check(rc == 1, f"step {k}: the simulator does not fail ({rc})")
        want.append(first_error(err))
    for p, save in ((prog, "gen.oinf"), (san, "san.oinf")):
        if not p:
            continue
        rc, out, err = run([*p, *common_c, "--steps", str(len(steps)), "--keep-going", *fetch,
                            "--save", save, "-q"], d)
        got = err.splitlines()
        # The gather's message is the C target's own (docs/synth.md), the glsl runner names the
        # step; the others word for word.
        own = [f"index {i} is out of range for axis 0 of size 2" for i in (2, 5, 7)]
        if TARGET["name"] == "glsl":
            own.append("was not inserted for this step")
        # The freestanding profile names the graph's file without its folders.
        here = (lambda w: w.replace(os.path.dirname(graph) + "/", "")) \
            if TARGET["name"] == "freestanding" else (lambda w: w)
        agree = len(got) == len(want) and all(
            g == here(w) or any(o in g and o in w for o in own) for g, w in zip(got, want))
        check(rc == 1 and agree, f"{p}: the simulator's messages\n{want}\nthe program's\n{err}")
    compare(oinf.read(os.path.join(d, "sim.oinf")), oinf.read(os.path.join(d, "gen.oinf")),
            names, ["n", "at", "acc", "H", "F"], set(refused), len(steps), True)
    if san:
        with open(os.path.join(d, "gen.oinf"), "rb") as a, \
             open(os.path.join(d, "san.oinf"), "rb") as b:
            check(a.read() == b.read(), "ASan+UBSan: another --save file")
    for line in want:
        print("errors: " + line)


def gpt_with_reset(src):
    """examples/gpt/gpt.oi with a host-driven reset (tests/exec/soak_test.cpp's): when `wipe` is
    true the step first clears K, V, the tokens, the logits and the position."""
    g = open(os.path.join(src, "examples/gpt/gpt.oi")).read()
    decide = "  op eq(pos, zero) >> first;\n"
    at = g.index(decide)
    g = g[:at] + "  branch wipe clear keep;\n" + g[at:]
    sections = g.index("\nconstant {")
    g = g[:sections + 1] + "dynamic { wipe: bool; }\n" + g[sections + 1:]
    return g + """
block clear {
  cache.reset K;
  cache.reset V;
  cache.reset tokens;
  cache.reset logits_at;
  cache.reset pos;
  cache.reset next;
  return;
}
block keep { return; }
"""


def gpt(oi, cc, work):
    d = os.path.join(work, "gpt")
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    graph = os.path.join(d, "gpt_reset.oi")
    open(graph, "w").write(gpt_with_reset(SRC))
    model = os.path.join(SRC, "tests/gpt/fixtures/tiny_model.oinf")
    prog, san = build(oi, cc, d, graph, model)
    # Per position: 2 layers x (K + V) entries of f16[4, 16], an i64 token and f32[256] logits.
    # 24 positions: step 0 feeds the 8 prompt positions, 16 more steps one each; the 18th step
    # is refused; then a wipe starts the prompt again.
    budget = 24 * (2 * 2 * 128 + 8 + 256 * 4)
    wipes = [True] + [False] * 16 + [False] + [True, False, False, False]
    refused = {17}
    steps = [{"wipe": np.array(w)} for w in wipes]
    write_inputs(os.path.join(d, "c_in.oinf"), steps)
    write_inputs(os.path.join(d, "sim_in.oinf"),
                 [s for k, s in enumerate(steps) if k not in refused])
    ins = lambda f: ["--input", f"wipe={f}:wipe.{{step}}"]
    names = ["pos", "layer", "next", "tokens", "K", "V", "logits_at"]
    fetch = [a for n in names for a in ("--fetch", n)]
    common_c = ["--model", model, *ins("c_in.oinf")]
    common_sim = ["--model", model, *ins("sim_in.oinf")]
    must([oi, "run", graph, *common_sim, "--steps", str(len(wipes) - len(refused)),
          "--max-table-bytes", str(budget), *fetch, "--save", "sim.oinf", "-q"], d)
    want = refusal(oi, d, prog, graph, common_c, common_c, 18, budget,
                   f"over the limit of {budget} bytes (max_table_bytes)")
    err = keep_going(d, prog, common_c, len(wipes), budget, fetch, "gen.oinf")
    check(err.splitlines() == [want], f"--keep-going: one refusal:\n{err}")
    compare(oinf.read(os.path.join(d, "sim.oinf")), oinf.read(os.path.join(d, "gen.oinf")),
            names, names, refused, len(wipes), False)
    same_save(d, san, common_c, len(wipes), budget, fetch)
    print(f"gpt: budget {budget} bytes refused the 18th step as the simulator; wiped and "
          "stepped on")


def main():
    oi, cc, work = os.path.abspath(sys.argv[1]), sys.argv[2], os.path.abspath(sys.argv[3])
    cases = sys.argv[5:]
    if cases[:1] == ["--glsl"]:
        TARGET.update(name="glsl", runner=os.path.abspath(cases[1]), glslc=cases[2])
        cases = cases[3:]
    if cases[:1] == ["--freestanding"]:
        TARGET.update(name="freestanding", device=os.path.abspath(cases[1]))
        cases = cases[2:]
    defaults = {"c": ["small", "tables", "errors", "gpt"], "glsl": ["tables", "errors", "gpt"],
                "freestanding": ["errors"]}
    cases = cases or defaults[TARGET["name"]]
    os.makedirs(work, exist_ok=True)
    for case in cases:
        {"small": small_c, "tables": small_tables, "errors": errors, "gpt": gpt}[case](oi, cc, work)
    if failures:
        print(f"{len(failures)} failures")
        return 1
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
