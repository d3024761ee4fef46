#!/usr/bin/python3
"""Hand-broken plans through the C emitter: each must give the one invalid-plan error.

  invalid_plans.py OPENINFER EMIT_PLAN PLUGIN_DIR WORK SOURCE_DIR

A plan the planner never produces (docs/synth.md "What the C target refuses") is refused with
`c emitter: invalid plan: ...`, exit 1, never a crash, a refusal as a gap or an internal error.
The plans start from real ones (`openinfer synth --plan-only` of tests/synth/c/branch.oi,
loops.oi and prefix_table.oi) and each breaks one thing; the unbroken plans must emit (the driver works).
"""

import copy
import json
import os
import subprocess
import sys


def plan_of(oi, src, work, graph, model_txt="loops_model.txt"):
    model = os.path.join(work, "model.oinf")
    subprocess.run([oi, "oinf", "pack", os.path.join(src, "tests/synth/c", model_txt), "-o",
                    model], check=True, stdout=subprocess.DEVNULL)
    out = subprocess.run([oi, "synth", os.path.join(src, "tests/synth/c", graph), "--model", model,
                          "--target", "c", "--plan-only"], check=True, stdout=subprocess.PIPE,
                         text=True).stdout
    return json.loads(out)


def first(items, pred):
    return next(x for x in items if pred(x))


def steps(plan):
    def walk(ss):
        for st in ss:
            yield st
            if st["kind"] == "loop":
                yield from walk(st["body"])
    for b in plan["blocks"]:
        yield from walk(b["steps"])


def cases(branch, loops, prefix):
    """(name, plan text) pairs, each breaking one thing of a good plan."""
    out = []

    def broken(name, base, edit):
        p = copy.deepcopy(base)
        edit(p)
        out.append((name, json.dumps(p)))

    out.append(("not JSON", "{\"format\": "))
    out.append(("not an object", "[1, 2]"))
    broken("another format", branch, lambda p: p.update(format="something-else"))
    broken("another version", branch, lambda p: p.update(version=2))
    broken("no values", branch, lambda p: p.pop("values"))
    broken("no blocks", branch, lambda p: p.pop("blocks"))
    broken("no memory", branch, lambda p: p.pop("memory"))
    broken("a value's shape is text", branch,
           lambda p: p["values"][0].update(shape="four"))
    broken("a block of an unknown role", branch,
           lambda p: p["blocks"][1].update(role="mystery"))
    broken("a step of an unknown kind", branch,
           lambda p: p["blocks"][0]["steps"].insert(0, {"id": 99, "kind": "teleport", "line": 1}))
    broken("a kernel step naming no kernel", branch,
           lambda p: p["blocks"][0]["steps"].insert(0, {"id": 98, "kind": "kernel",
                                                        "kernel": 4096}))
    broken("an op reading an undeclared value", branch,
           lambda p: p["kernels"][0]["ops"][0].update(inputs=["nowhere", "x"]))
    broken("a branch on a non-bool", branch,
           lambda p: first(steps(p), lambda s: s["kind"] == "branch" and s["cond"]).update(
               cond="acc"))
    broken("a branch to no block", branch,
           lambda p: first(steps(p), lambda s: s["kind"] == "branch" and s["cond"]).update(
               then="nowhere"))
    broken("a loop bound naming nothing", loops,
           lambda p: first(steps(p), lambda s: s["kind"] == "loop").update(end="zz"))
    broken("a counter of f32", loops,
           lambda p: p["blocks"][0]["steps"].insert(0, {"id": 97, "kind": "cache.increment",
                                                        "var": "acc", "amount": 1, "line": 1}))
    broken("a setting naming nothing", loops,
           lambda p: p["kernels"][0]["ops"][0]["settings"].update(alpha={"name": "ghost"}))
    def op_of(p, name):
        return first((o for k in p["kernels"] for o in k["ops"]), lambda o: o["op"] == name)

    broken("a prefix table used whole", prefix,
           lambda p: op_of(p, "mul")["inputs"].__setitem__(1, "scale"))
    broken("an op writing a prefix table's entry", prefix,
           lambda p: op_of(p, "add").update(output="scale[0]"))
    broken("a prefix table's slice as an op input", prefix,
           lambda p: op_of(p, "mul")["inputs"].__setitem__(1, "scale[0..2]"))
    # The validator allows tables only in constant, volatile (prefix) and persistent memory.
    broken("a dynamic prefix table", prefix,
           lambda p: first(p["values"], lambda v: v["name"] == "scale").update(
               memory="dynamic", storage="dynamic"))
    broken("a run-time sized value that is no table", loops,
           lambda p: p["values"][0].update(storage="runtime"))
    return out


def main():
    oi, emit, plugins, work, src = sys.argv[1:6]
    os.makedirs(work, exist_ok=True)
    branch = plan_of(oi, src, work, "branch.oi")
    loops = plan_of(oi, src, work, "loops.oi")
    prefix = plan_of(oi, src, work, "prefix_table.oi", "prefix_table_model.txt")
    bad = 0
    for name, base in (("branch.oi as planned", branch), ("loops.oi as planned", loops),
                       ("prefix_table.oi as planned", prefix)):
        path = os.path.join(work, "good.json")
        with open(path, "w") as f:
            json.dump(base, f)
        r = subprocess.run([emit, plugins, path], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True)
        ok = r.returncode == 0
        bad += not ok
        print(f"{name:36s} {'emits' if ok else 'FAILS: ' + r.stdout.strip()}")
    for name, text in cases(branch, loops, prefix):
        path = os.path.join(work, "plan.json")
        with open(path, "w") as f:
            f.write(text)
        r = subprocess.run([emit, plugins, path], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True)
        msg = r.stdout.strip().splitlines()[-1] if r.stdout.strip() else ""
        ok = r.returncode == 1 and "c emitter: invalid plan: " in msg
        bad += not ok
        print(f"{name:36s} {'ok' if ok else 'FAILS (exit ' + str(r.returncode) + ')'}: {msg}")
    print(f"{'all' if not bad else bad} {'as expected' if not bad else 'not as expected'}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
