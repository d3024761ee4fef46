"""Checks a run of examples/minimal/minimal.oi on an out-of-tree backend: y = 5 * (x + a) in f32,
every value, and the add and mul nodes placed on that backend in the --trace JSON and in the
--timer table.

Usage: check_run.py MODEL.txt INPUT.txt SAVED_DUMP.txt TRACE.json RUN_STDOUT.txt BACKEND
"""
import json
import re
import struct
import sys


def f32(v):
    return struct.unpack("<f", struct.pack("<f", v))[0]


def values(text, name):
    m = re.search(r"^" + name + r": f32\[\d+\] = \{([^}]*)\}", text, re.M)
    if not m:
        sys.exit(f"no '{name}: f32[...] = {{...}}' in:\n{text}")
    return [float(v) for v in m.group(1).split(",")]


def main():
    model, inp, dump, trace, stdout, backend = sys.argv[1:7]
    a = values(open(model).read(), "a")
    x = values(open(inp).read(), "x")
    y = values(open(dump).read(), "y")
    if not (len(a) == len(x) == len(y)):
        sys.exit(f"lengths differ: a {len(a)}, x {len(x)}, y {len(y)}")
    for i, (xi, ai, yi) in enumerate(zip(x, a, y)):
        want = f32(f32(5.0) * f32(f32(xi) + f32(ai)))
        if f32(yi) != want:
            sys.exit(f"y[{i}] = {yi}, expected 5 * ({xi} + {ai}) = {want}")

    events = json.load(open(trace))
    ops = [e for e in events if e["kind"] == "OpExecute"]
    names = sorted(e["op_name"] for e in ops)
    if names != ["add", "mul"]:
        sys.exit(f"expected one add and one mul event, got {names}")
    for e in ops:
        if e.get("backend") != backend or "declined_by" in e:
            sys.exit(f"{e['op_name']} did not run on '{backend}': {e}")

    text = open(stdout).read()
    for op in ("add", "mul"):
        if not re.search(r"^\s+entry\s+\d+\s+" + op + r"\s.*\s" + re.escape(backend) + r"$",
                         text, re.M):
            sys.exit(f"the timing table does not place {op} on '{backend}':\n{text}")
    print(f"y = 5 * (x + a) for {len(y)} values; add and mul ran on '{backend}'")


main()
