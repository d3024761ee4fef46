#!/usr/bin/python3
"""`openinfer run` (cli.md) end to end. Usage: run_cli_test.py OPENINFER SOURCE_DIR CASE.

Expected values are computed here with numpy (float32), never taken from the program."""
import json
import os
import re
import subprocess
import sys
import tempfile

import numpy as np

BIN, SRC, CASE = sys.argv[1], sys.argv[2], sys.argv[3]
DATA = os.path.join(SRC, "tests", "run", "data")
MINIMAL = os.path.join(SRC, "examples", "minimal")
TMP = tempfile.mkdtemp(prefix="oi_run_test_")
KINDS = {"Assign", "OpExecute", "CacheRead", "CacheWrite", "CacheIncrement", "CacheDecrement",
         "CacheReset", "Barrier", "Dep", "Transfer", "Yield", "Await", "Branch", "Loop", "Return"}


def run(*args, code=0):
    p = subprocess.run([BIN, *args], capture_output=True, text=True, timeout=120)
    if p.returncode != code:
        sys.exit(f"FAIL: {args}: exit {p.returncode}, wanted {code}\n{p.stdout}\n{p.stderr}")
    if code != 0:
        first = p.stderr.splitlines()[0] if p.stderr else ""
        if not re.match(r"^(\S+:\d+:\d+: )?error: ", first):
            sys.exit(f"FAIL: {args}: first stderr line is not 'error: ...': {p.stderr!r}")
    return p


def check(cond, what):
    if not cond:
        sys.exit("FAIL: " + what)


def pack(text_path, name):
    out = os.path.join(TMP, name)
    run("oinf", "pack", text_path, "-o", out)
    return out


def oinf_floats(text_line):
    """The values of one `NAME: f32[..] = { ... }` line of `oinf dump`."""
    body = text_line.split("=", 1)[1].strip().strip("{}")
    return np.array([float(v) for v in body.split(",")], dtype=np.float32)


def dump(path):
    """name -> dump line, through `oinf dump` (which reads the file with Model::open)."""
    lines = run("oinf", "dump", path).stdout.splitlines()
    return {l.split(":", 1)[0]: l for l in lines if l and not l.startswith("#") and ":=" not in l}


def model_vector(path, name):
    return oinf_floats(dump(path)[name])


def printed_values(stdout, name):
    m = re.search(r"^\s+" + re.escape(name) + r": (\w+)(\[[^\]]*\])? = (.*)$", stdout, re.M)
    check(m, f"no summary line for {name} in:\n{stdout}")
    return m


def minimal_expected():
    a = model_vector(os.path.join(MINIMAL, "model.oinf"), "a")
    x = model_vector(os.path.join(MINIMAL, "input.oinf"), "x")
    return np.float32(5.0) * (x + a)  # y @init(5.0); add(x, a) >> t0; mul(y, t0) >> y


def case_minimal():
    save = os.path.join(TMP, "y.oinf")
    p = run("run", os.path.join(MINIMAL, "minimal.oi"), "--model", os.path.join(MINIMAL, "model.oinf"),
            "--input", "x=" + os.path.join(MINIMAL, "input.oinf"), "--save", save)
    want = minimal_expected()
    m = printed_values(p.stdout, "y")
    check(m.group(1) == "f32" and m.group(2) == "[16]", "summary dtype/shape: " + m.group(0))
    shown = [float(v) for v in m.group(3).strip("{} .").split(",") if v.strip() not in ("", "...")]
    check(len(shown) == 8 and m.group(3).rstrip().endswith("... }"), "8 values then ...: " + m.group(0))
    check(np.array_equal(np.array(shown, dtype=np.float32), want[:8]), f"y printed {shown}, want {want[:8]}")
    got = model_vector(save, "y")
    check(np.array_equal(got, want), f"saved y {got}, want {want}")
    check(set(dump(save)) == {"y"}, "one step saves exactly y")
    # The graph's JSON serialization runs the same.
    gj = os.path.join(TMP, "minimal.json")
    run("graph", "json", os.path.join(MINIMAL, "minimal.oi"), "-o", gj)
    run("run", gj, "--model", os.path.join(MINIMAL, "model.oinf"), "--quiet",
        "--input", "x=" + os.path.join(MINIMAL, "input.oinf"), "--save", save)
    check(np.array_equal(model_vector(save, "y"), want), "y from the JSON graph")


def case_example_program():
    prog = sys.argv[4]
    p = subprocess.run([prog], capture_output=True, text=True, timeout=120)
    check(p.returncode == 0, f"minimal_example failed: {p.stderr}")
    m = re.search(r"y\[0\.\.16\] = \[(.*)\]", p.stdout)
    check(m, "no y line: " + p.stdout)
    got = np.array([float(v) for v in m.group(1).split(",")], dtype=np.float32)
    want = minimal_expected()
    # The program prints with 6 significant digits.
    check(np.allclose(got, want, rtol=1e-5, atol=0), f"example y {got}, want {want}")


def case_steps():
    model = pack(os.path.join(DATA, "steps_model.txt"), "steps_model.oinf")
    inp = pack(os.path.join(DATA, "steps_input.txt"), "steps_input.oinf")
    save = os.path.join(TMP, "steps.oinf")
    p = run("run", os.path.join(DATA, "steps.oi"), "--model", model, "--steps", "3",
            "--input", f"x={inp}:x.{{step}}", "--save", save)
    xs = [model_vector(inp, f"x.{k}") for k in range(3)]
    saved = dump(save)
    acc = np.zeros(3, dtype=np.float32)
    for k in range(3):
        acc = acc + xs[k]
        check(np.array_equal(oinf_floats(saved[f"acc.step{k}"]), acc), f"acc.step{k}")
        check(saved[f"count.step{k}"].strip() == f"count.step{k}: i32 = {k + 1}", saved[f"count.step{k}"])
    check(np.array_equal(oinf_floats(saved["acc"]), acc), "acc (last step)")
    check(saved["count"].strip() == "count: i32 = 3", "count is a rank-0 i32: " + saved["count"])
    check(set(saved) == {"acc", "count"} | {f"{n}.step{k}" for n in ("acc", "count") for k in range(3)},
          f"saved names {sorted(saved)}")
    check(p.stdout.count("step ") == 3 and "count: i32 = 3" in p.stdout, p.stdout)
    # --trace covers every step, in order.
    trace = os.path.join(TMP, "steps.json")
    run("run", os.path.join(DATA, "steps.oi"), "--model", model, "--steps", "2", "--quiet",
        "--input", f"x={inp}:x.{{step}}", "--trace", trace)
    kinds = [(e["step"], e["kind"]) for e in json.load(open(trace))]
    check(kinds == [(k, kind) for k in (0, 1) for kind in ("CacheIncrement", "OpExecute", "Return")],
          f"trace of two steps: {kinds}")
    # --quiet prints nothing; --fetch narrows to one name.
    q = run("run", os.path.join(DATA, "steps.oi"), "--model", model, "--steps", "2", "--quiet",
            "--input", f"x={inp}:x.{{step}}", "--fetch", "count")
    check(q.stdout == "" and q.stderr == "", "quiet: " + repr(q.stdout + q.stderr))
    f = run("run", os.path.join(DATA, "steps.oi"), "--model", model, "--steps", "2",
            "--input", f"x={inp}:x.{{step}}", "--fetch", "count")
    check("count: i32 = 2" in f.stdout and "acc" not in f.stdout, f.stdout)
    # Step 3 has no x.3: nothing is inserted, reading x fails, and no file is left behind.
    out = os.path.join(TMP, "four.oinf")
    trace = os.path.join(TMP, "four.json")
    e = run("run", os.path.join(DATA, "steps.oi"), "--model", model, "--steps", "4", "--save", out,
            "--trace", trace, "--input", f"x={inp}:x.{{step}}", code=1)
    check("'x'" in e.stderr, "error names x: " + e.stderr)
    check(not os.path.exists(out) and not os.path.exists(trace), "no output after a failed step")
    check(not [n for n in os.listdir(TMP) if ".tmp" in n], "no temporary files left")


def pipeline_files():
    model = pack(os.path.join(DATA, "steps_model.txt"), "n3.oinf")
    inp = pack(os.path.join(DATA, "pipeline_input.txt"), "pipeline_input.oinf")
    return model, inp


def case_trace():
    trace = os.path.join(TMP, "trace.json")
    run("run", os.path.join(MINIMAL, "minimal.oi"), "--model", os.path.join(MINIMAL, "model.oinf"),
        "--input", "x=" + os.path.join(MINIMAL, "input.oinf"), "--trace", trace, "--quiet")
    events = json.load(open(trace))
    graph = json.loads(run("graph", "json", os.path.join(MINIMAL, "minimal.oi")).stdout)
    nodes = graph["blocks"][0]["nodes"]
    check(len(events) == len(nodes) == 4, f"{len(events)} events")
    want = [("Assign", [], ["t0"]), ("OpExecute", ["x", "a"], ["t0"]), ("OpExecute", ["y", "t0"], ["y"]),
            ("Return", ["y"], [])]
    for i, (ev, node, (kind, params, output)) in enumerate(zip(events, nodes, want)):
        for key in ("block_name", "node_index", "node_uuid", "kind", "params", "output", "micros"):
            check(key in ev, f"event {i} lacks {key}")
        check(ev["block_name"] == "entry" and ev["node_index"] == i, f"event {i}: {ev}")
        check(ev["node_uuid"] == node["uuid"], f"event {i} uuid {ev['node_uuid']} != graph {node['uuid']}")
        check((ev["kind"], ev["params"], ev["output"]) == (kind, params, output), f"event {i}: {ev}")
        check(ev["kind"] in KINDS and ev["micros"] == [0, 0, 0], f"event {i}: {ev}")
    # --timer: durations recorded, table printed.
    p = run("run", os.path.join(MINIMAL, "minimal.oi"), "--model", os.path.join(MINIMAL, "model.oinf"),
            "--input", "x=" + os.path.join(MINIMAL, "input.oinf"), "--trace", trace, "--timer")
    events = json.load(open(trace))
    for ev in events:
        ms, us, ns = ev["micros"]
        check(ms >= 0 and 0 <= us < 1000 and 0 <= ns < 1000, f"micros parts {ev['micros']}")
    check(any(e["micros"] != [0, 0, 0] for e in events), "--timer records durations")
    check("timing" in p.stdout and "add" in p.stdout and "mul" in p.stdout, p.stdout)


def case_trace_events():
    model, inp = pipeline_files()
    out = os.path.join(TMP, "events.json")
    p = run("run", os.path.join(DATA, "pipeline.oi"), "--model", model, "--input", f"x={inp}",
            "--steps", "2", "--trace-events", out)
    x = model_vector(inp, "x")
    y = np.float32(2) * (x + np.float32(1)) + (x + x)
    sq = (x + np.float32(1)) * (x + np.float32(1))
    check(np.array_equal(np.array([float(v) for v in printed_values(p.stdout, "y").group(3).strip("{} ").split(",")],
                                  dtype=np.float32), y), "pipeline y: " + p.stdout)
    check(np.array_equal(np.array([float(v) for v in printed_values(p.stdout, "sq").group(3).strip("{} ").split(",")],
                                  dtype=np.float32), sq), "pipeline sq: " + p.stdout)
    doc = json.load(open(out))
    evs = doc["traceEvents"]
    check(isinstance(evs, list) and evs, "traceEvents is a non-empty array")
    names = {e["tid"]: e["args"]["name"] for e in evs if e["ph"] == "M" and e["name"] == "thread_name"}
    check(names == {0: "entry", 1: "doubler", 2: "squarer"}, f"thread names {names}")
    nodes = [e for e in evs if e["ph"] == "X" and e["cat"] == "node"]
    steps = [e for e in evs if e["ph"] == "X" and e["cat"] == "step"]
    for e in nodes + steps:
        check(e["pid"] == 1 and isinstance(e["ts"], (int, float)) and e["dur"] >= 0, f"event {e}")
    # entry: add, yield, add, await, add, return; each consumer: await, add, yield; two steps.
    check(len(nodes) == 2 * (6 + 3 + 3), f"{len(nodes)} node events")
    for e in nodes:
        a = e["args"]
        check(names[e["tid"]] == a["block_name"], f"node on the wrong track: {e}")
        check(a["kind"] in KINDS and re.match(r"^[0-9a-f-]{36}$", a["node_uuid"]), f"args {a}")
        check(isinstance(a["node_index"], int), f"args {a}")
    for tid in (0, 1, 2):
        for k in (0, 1):
            s = [e for e in steps if e["tid"] == tid and e["args"]["step"] == k]
            check(len(s) == 1 and s[0]["name"] == f"step {k}", f"step {k} slice on track {tid}")
            inner = [e for e in nodes if e["tid"] == tid and e["args"]["step"] == k]
            check(inner, f"nodes of step {k} on track {tid}")
            for e in inner:  # the step slice encloses its nodes
                check(s[0]["ts"] <= e["ts"] and e["ts"] + e["dur"] <= s[0]["ts"] + s[0]["dur"] + 1e-3,
                      f"step slice {s[0]} does not enclose {e}")
    s0 = [e for e in steps if e["args"]["step"] == 0][0]
    s1 = [e for e in steps if e["args"]["step"] == 1][0]
    check(s0["ts"] + s0["dur"] <= s1["ts"] + 1e-3, "step 1 starts after step 0 ends")


def scoped_graph(placement):
    """tests/run/data/scopes.oi with its body scope's hints (or none)."""
    text = open(os.path.join(DATA, "scopes.oi")).read().replace("PLACEMENT", placement)
    path = os.path.join(TMP, "scopes.oi")
    open(path, "w").write(text)
    return path


def case_scopes():
    mm = ("--model", os.path.join(MINIMAL, "model.oinf"))
    x_in = ("--input", "x=" + os.path.join(MINIMAL, "input.oinf"))
    a = model_vector(os.path.join(MINIMAL, "model.oinf"), "a")
    x = model_vector(os.path.join(MINIMAL, "input.oinf"), "x")
    want = x + a
    for _ in range(2):
        want = want * x + a  # float32 throughout: each op is one correctly rounded operation
    trace = os.path.join(TMP, "trace.json")
    events_path = os.path.join(TMP, "events.json")
    p = run("run", scoped_graph(""), *mm, *x_in, "--steps", "2", "--timer", "--trace", trace,
            "--trace-events", events_path, "--save", os.path.join(TMP, "plain.oinf"))
    # The timer's scope rows: prep entered once per step, body once per iteration.
    rows = {m.group(1): (int(m.group(2)), float(m.group(3)))
            for m in re.finditer(r"^  entry\s+(\S+)\s+(\d+)\s+([\d.]+)\s+[\d.]+$", p.stdout, re.M)}
    check("  scopes:" in p.stdout and rows.keys() == {"prep", "body"}, "scope rows: " + p.stdout)
    check(rows["prep"][0] == 2 and rows["body"][0] == 4, f"entries {rows}")
    events = json.load(open(trace))
    scoped = [(e["op_name"], e.get("scope")) for e in events if e["step"] == 0]
    check(scoped == [("add", "prep"), ("loop", None), ("mul", "body"), ("add", "body"),
                     ("mul", "body"), ("add", "body"), ("return", None)], f"trace scopes {scoped}")
    slices = [e for e in json.load(open(events_path))["traceEvents"] if e.get("cat") == "scope"]
    check(sorted((e["name"], e["args"]["step"]) for e in slices) ==
          [("body", 0), ("body", 0), ("body", 1), ("body", 1), ("prep", 0), ("prep", 1)],
          f"scope slices {slices}")
    check(np.array_equal(model_vector(os.path.join(TMP, "plain.oinf"), "y"), want), "y without placement")

    # placement="vulkan" moves the body's ops to the Vulkan backend, the rest stays on cpu.
    plugins = run("plugins").stdout
    if "vulkan" not in plugins:
        print("skipped: no vulkan backend for the placement check")
        return
    p = run("run", scoped_graph('(placement="vulkan")'), *mm, *x_in, "--steps", "2", "--trace", trace,
            "--save", os.path.join(TMP, "placed.oinf"))
    backends = [(e["op_name"], e.get("backend")) for e in json.load(open(trace)) if e["kind"] == "OpExecute"]
    check(backends[:3] == [("add", "cpu"), ("mul", "vulkan"), ("add", "vulkan")], f"backends {backends}")
    check(np.array_equal(model_vector(os.path.join(TMP, "placed.oinf"), "y"), want), "y with placement")
    check(open(os.path.join(TMP, "placed.oinf"), "rb").read() == open(os.path.join(TMP, "plain.oinf"), "rb").read(),
          "identical files with and without the placement")

    # Wrong input: the same located error as `graph check`.
    bad = scoped_graph("(placment=\"vulkan\")")
    e = run("run", bad, *mm, *x_in, code=1)
    g = run("graph", "check", bad, code=1)
    check(e.stderr.splitlines()[0] == g.stderr.splitlines()[0] or e.stderr.splitlines()[0] in g.stdout,
          f"run: {e.stderr!r} graph check: {g.stdout!r} {g.stderr!r}")
    check(re.search(r"scopes\.oi:8:17: error: unknown scope hint 'placment'.*\(in scope body\)", e.stderr),
          "located error: " + e.stderr)


def case_errors():
    mm = ("--model", os.path.join(MINIMAL, "model.oinf"))
    graph = os.path.join(MINIMAL, "minimal.oi")
    x = ("--input", "x=" + os.path.join(MINIMAL, "input.oinf"))
    e = run("run", graph, *mm, *x, "--backend", "no-such-backend", code=3)
    check("no-such-backend" in e.stderr.splitlines()[0], "names the backend: " + e.stderr)
    e = run("run", graph, *mm, *x, "--fetch", "nope", code=1)
    check("nope" in e.stderr and all(n in e.stderr for n in ("x", "a", "y")), "lists names: " + e.stderr)
    e = run("run", os.path.join(DATA, "bad_unknown_var.oi"), *mm, code=1)
    check(re.match(r"^\S*bad_unknown_var\.oi:4:13: error: ", e.stderr), "FILE:LINE:COL: " + e.stderr)
    run("run", graph, code=2)                                  # no --model
    run("run", *mm, code=2)                                    # no GRAPH
    run("run", graph, *mm, "--bogus", code=2)
    run("run", graph, *mm, "--steps", "0", code=2)
    run("run", graph, *mm, "--steps", "many", code=2)
    run("run", graph, *mm, "--input", "x", code=2)
    run("run", graph, "--model", os.path.join(TMP, "missing.oinf"), code=1)
    run("run", graph, *mm, "--input", "x=" + os.path.join(TMP, "missing.oinf"), code=1)
    run("run", graph, *mm, "--input", "nope=" + os.path.join(MINIMAL, "input.oinf"), code=1)
    run("run", graph, *mm, "--input", "a=" + os.path.join(MINIMAL, "model.oinf"), code=1)  # volatile
    e = run("run", graph, *mm, "--input", "x=" + os.path.join(MINIMAL, "model.oinf"), code=1)
    check("no tensor 'x'" in e.stderr, "NAME=FILE needs tensor NAME: " + e.stderr)
    # x is not inserted: the step fails, and an existing output file keeps its content.
    keep = os.path.join(TMP, "keep.oinf")
    open(keep, "w").write("previous")
    e = run("run", graph, *mm, "--save", keep, "--trace-events", keep + ".json", code=1)
    check(open(keep).read() == "previous" and not os.path.exists(keep + ".json"), "files untouched")
    # An unwritable --save is an input error, not a crash.
    run("run", graph, *mm, *x, "--save", os.path.join(TMP, "no", "dir", "y.oinf"), code=1)
    h = run("run", "--help")
    check("--trace-events" in h.stdout and "--steps" in h.stdout, "help lists the options")


def case_table_budget():
    # f32[2] entries of 8 bytes: a budget of 24 bytes holds three steps' entries.
    graph = os.path.join(TMP, "grow.oi")
    open(graph, "w").write("""
persistent {
  n: i32 @init(0);
  v: f32[2] @init(1.5);
  H(t): f32[2] @table;
}
block entry {
  cache.write v >> H[n];
  cache.increment n;
  return n;
}
""")
    mm = ("--model", os.path.join(MINIMAL, "model.oinf"))
    p = run("run", graph, *mm, "--steps", "3", "--max-table-bytes", "24", "--fetch", "n")
    check("n: i32 = 3" in p.stdout, p.stdout)
    e = run("run", graph, *mm, "--steps", "4", "--max-table-bytes", "24", code=1)
    first = e.stderr.splitlines()[0]
    check("table 'H'" in first and "from 24 to 32 bytes" in first and "limit of 24 bytes" in first,
          "names the table, its size and the limit: " + e.stderr)
    run("run", graph, *mm, "--steps", "40", "--quiet")  # no budget: no limit
    run("run", graph, *mm, "--max-table-bytes", "-1", code=2)
    run("run", graph, *mm, "--max-table-bytes", "lots", code=2)


CASES = {n[5:]: f for n, f in globals().items() if n.startswith("case_")}
try:
    CASES[CASE]()
finally:
    subprocess.run(["rm", "-rf", TMP])
print("ok:", CASE)
