#!/usr/bin/python3
"""Draws the examples' pictures into docs/pictures/ (the README's tour, docs/synth.md).

    /usr/bin/python3 scripts/render_pictures.py [--openinfer BIN] [--out DIR]
    /usr/bin/python3 scripts/render_pictures.py --check          # CTest docs_pictures_current
    /usr/bin/python3 scripts/render_pictures.py --check-render   # CTest graph_dot_render_examples

For each example (minimal, Silero VAD, GPT, ResNet) it writes NAME.dot and NAME.svg (`openinfer
graph dot`, rendered by Graphviz's dot) and NAME.plan.dot, NAME.plan.svg and NAME.memory.svg
(`openinfer synth --plan-only --report --svg`, planned for the C target's built-in device against
the model the tests use: the examples' own for minimal, the tiny GPT and ResNet fixtures, and
Silero VAD's shapes without weights). Renderings differ with fonts and Graphviz versions, so the
checks compare text: --check regenerates the graphs' DOT and compares it with the committed
copies (needs no Graphviz); --check-render renders every example's DOT with `dot -Tsvg`, runs
`synth --report --svg` for every example and compares the plan's DOT and the memory SVG with
the committed copies (exit 77 without Graphviz). Without --out it rewrites docs/pictures/.
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PICTURES = os.path.join(ROOT, "docs", "pictures")

# name, graph, model (a .oinf, or a text form packed first)
EXAMPLES = [
    ("minimal", "examples/minimal/minimal.oi", "examples/minimal/model.oinf"),
    ("silero_vad", "examples/silero_vad/vad.oi", "tests/graph_dot/silero_vad_shapes.txt"),
    ("gpt", "examples/gpt/gpt.oi", "tests/gpt/fixtures/tiny_model.oinf"),
    ("resnet", "examples/resnet/resnet.oi", "tests/examples/resnet/fixtures/model.oinf"),
]


def run(cmd):
    result = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT)
    if result.returncode != 0:
        sys.exit(f"failed ({result.returncode}): {' '.join(cmd)}\n{result.stderr.decode()}")
    return result.stdout


def model_path(binary, model, work):
    if not model.endswith(".txt"):
        return model
    out = os.path.join(work, os.path.basename(model).replace(".txt", ".oinf"))
    run([binary, "oinf", "pack", model, "-o", out])
    return out


def write_graph(binary, name, graph, out):
    dot = run([binary, "graph", "dot", graph])
    with open(os.path.join(out, name + ".dot"), "wb") as f:
        f.write(dot)
    return dot


def write_plan(binary, name, graph, model, out, work):
    report = run([binary, "synth", graph, "--model", model_path(binary, model, work),
                  "--plan-only", "--report", "--svg", out, "--name", name])
    if not report.startswith(b"{"):
        sys.exit(f"{name}: synth --plan-only did not print the plan's JSON")


def same(a, b):
    with open(a, "rb") as f, open(b, "rb") as g:
        return f.read() == g.read()


def check(binary, render):
    bad = 0
    with tempfile.TemporaryDirectory() as work:
        for name, graph, model in EXAMPLES:
            write_graph(binary, name, graph, work)
            files = [name + ".dot"]
            if render:
                svg = run(["dot", "-Tsvg", os.path.join(work, name + ".dot")])
                ok = b"<svg" in svg and svg.rstrip().endswith(b"</svg>")
                print(f"{name}: dot -Tsvg {'ok' if ok else 'gave no SVG'} ({len(svg)} bytes)")
                bad += not ok
                write_plan(binary, name, graph, model, work, work)
                for f in (name + ".plan.svg", name + ".memory.svg"):
                    with open(os.path.join(work, f), "rb") as s:
                        if b"</svg>" not in s.read():
                            print(f"{f}: not an SVG")
                            bad += 1
                files = [name + ".plan.dot", name + ".memory.svg"]
            for f in files:
                committed = os.path.join(PICTURES, f)
                if not os.path.exists(committed) or not same(committed, os.path.join(work, f)):
                    print(f"{f}: differs from docs/pictures/{f} (run scripts/render_pictures.py)")
                    bad += 1
                else:
                    print(f"{f}: ok")
    return 1 if bad else 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--openinfer", default=os.path.join(ROOT, "build/dev/bin/openinfer"))
    parser.add_argument("--out", help="write here instead of docs/pictures")
    parser.add_argument("--check", action="store_true", help="compare the graphs' DOT text")
    parser.add_argument("--check-render", action="store_true",
                        help="render every example and compare the plans' text")
    a = parser.parse_args()
    binary = os.path.abspath(a.openinfer)
    have_dot = shutil.which("dot") is not None
    if a.check:
        return check(binary, render=False)
    if a.check_render:
        if not have_dot:
            print("skipped: needs Graphviz's dot (Debian package graphviz)")
            return 77
        return check(binary, render=True)
    if not have_dot:
        sys.exit("error: rendering needs Graphviz's dot: install the Debian package graphviz")
    out = a.out or PICTURES
    os.makedirs(out, exist_ok=True)
    with tempfile.TemporaryDirectory() as work:
        for name, graph, model in EXAMPLES:
            write_graph(binary, name, graph, out)
            run(["dot", "-Tsvg", "-o", os.path.join(out, name + ".svg"),
                 os.path.join(out, name + ".dot")])
            write_plan(binary, name, graph, model, out, work)
            print(f"{name}: {name}.dot, {name}.svg, {name}.plan.dot, {name}.plan.svg, "
                  f"{name}.memory.svg")
    return 0


if __name__ == "__main__":
    sys.exit(main())
