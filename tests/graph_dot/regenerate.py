#!/usr/bin/python3
"""Writes the golden pictures of tests/graph_dot/golden/ with the openinfer binary, or checks them.

    /usr/bin/python3 tests/graph_dot/regenerate.py [--openinfer BIN] [--out DIR] [--check]
                                                   [--only graph|plan]

The goldens are the output of the code under test (as frontend/fixtures/tiny_graph.json is): after
a deliberate change of the pictures, rerun this without --out, look at the differences (and at
the rendered pictures: `dot -Tsvg`), and commit them. --out DIR writes into DIR instead of
golden/. --check writes into a temporary folder and compares byte for byte with golden/ (the
CTest tests graph_dot_golden and graph_dot_plan_golden); it names each file that differs and
prints its first differing line. `graph` cases need only the binary; `plan` cases run `synth
--svg`, which renders with Graphviz's dot: without it they are skipped (exit 77 when only they
were asked for).
"""
import argparse
import difflib
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
GRAPHS = os.path.join(HERE, "graphs")
GOLDEN = os.path.join(HERE, "golden")


def graph_cases():
    """(golden file name, arguments of `openinfer graph dot` after the graph, model text)."""
    return [
        ("constructs.dot", "constructs.oi", [], None),
        ("constructs.data.dot", "constructs.oi", ["--data"], None),
        ("constructs.model.dot", "constructs.oi", [], "constructs_model.txt"),
        ("concurrency.dot", "concurrency.oi", [], None),
        ("concurrency.data.dot", "concurrency.oi", ["--data"], None),
        ("scopes.dot", "scopes.oi", [], None),
    ]


def run(cmd):
    result = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if result.returncode != 0:
        sys.exit(f"failed ({result.returncode}): {' '.join(cmd)}\n{result.stderr.decode()}")
    return result.stdout


def pack(binary, text_name, work):
    out = os.path.join(work, text_name.replace(".txt", ".oinf"))
    run([binary, "oinf", "pack", os.path.join(GRAPHS, text_name), "-o", out])
    return out


def write_graph_cases(binary, out, work):
    written = []
    for name, graph, extra, model in graph_cases():
        args = [binary, "graph", "dot", os.path.join(GRAPHS, graph)] + extra
        if model:
            args += ["--model", pack(binary, model, work)]
        with open(os.path.join(out, name), "wb") as f:
            f.write(run(args))
        written.append(name)
    return written


def write_plan_cases(binary, out, work):
    model = pack(binary, "plan_model.txt", work)
    written = []
    for name in ("plan", "scopes_plan"):
        pictures = os.path.join(work, name)
        run([binary, "synth", os.path.join(GRAPHS, name + ".oi"), "--model", model, "--plan-only",
             "--svg", pictures, "--name", name])
        for f in (name + ".plan.dot", name + ".memory.svg"):  # NAME.plan.svg: Graphviz's
            shutil.copyfile(os.path.join(pictures, f), os.path.join(out, f))
            written.append(f)
    return written


def compare(names, fresh):
    bad = 0
    for name in names:
        with open(os.path.join(fresh, name), encoding="utf-8") as f:
            new = f.read().splitlines()
        committed = os.path.join(GOLDEN, name)
        if not os.path.exists(committed):
            print(f"{name}: missing from tests/graph_dot/golden (run regenerate.py)")
            bad += 1
            continue
        with open(committed, encoding="utf-8") as f:
            old = f.read().splitlines()
        if new == old:
            print(f"{name}: ok")
            continue
        bad += 1
        diff = list(difflib.unified_diff(old, new, "golden/" + name, "now/" + name, n=0,
                                         lineterm=""))
        print(f"{name}: differs\n" + "\n".join(diff[:12]))
    return bad


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--openinfer", default=os.path.join(ROOT, "build/dev/bin/openinfer"))
    parser.add_argument("--out", help="write here instead of tests/graph_dot/golden")
    parser.add_argument("--check", action="store_true", help="compare with golden/")
    parser.add_argument("--only", choices=("graph", "plan"))
    a = parser.parse_args()
    have_dot = shutil.which("dot") is not None
    kinds = [a.only] if a.only else ["graph", "plan"]
    if "plan" in kinds and not have_dot:
        print("plan cases skipped: synth --svg needs Graphviz's dot (Debian package graphviz)")
        kinds.remove("plan")
        if not kinds:
            return 77
    with tempfile.TemporaryDirectory() as work:
        out = a.out or (os.path.join(work, "fresh") if a.check else GOLDEN)
        os.makedirs(out, exist_ok=True)
        names = []
        if "graph" in kinds:
            names += write_graph_cases(a.openinfer, out, work)
        if "plan" in kinds:
            names += write_plan_cases(a.openinfer, out, work)
        if a.check:
            return 1 if compare(names, out) else 0
        print(f"wrote {len(names)} files to {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
