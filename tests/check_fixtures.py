#!/usr/bin/python3
"""Regenerates committed test fixtures from their scripts into a temporary directory and
compares them byte for byte with the committed copies (tests/README.md lists every generator).

    /usr/bin/python3 tests/check_fixtures.py [--all] [--list] [--keep DIR] [NAME ...]

By default it runs the generators whose output depends on no BLAS, PyTorch or ONNX Runtime
result (Python, numpy's elementwise arithmetic, exact sums, libm, mpmath): the CTest test
fixtures_regenerate. --all adds those that depend on BLAS or PyTorch, where installed; a
difference there may come from the machine (CPU, BLAS kernel, PyTorch build), not the script.
NAME keeps only the generators whose script path contains it. One line a generator: "ok",
"skipped (why)" or what differs; the exit status is 1 if any generator fails or differs.
"""
import argparse
import importlib.util
import os
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEBIAN = {"numpy": "python3-numpy", "mpmath": "python3-mpmath", "torch": "python3-torch",
          "torchvision": "python3-torchvision"}


class Gen:
    def __init__(self, script, files, needs=("numpy",), blocker=None):
        self.script = script  # relative to the repository root; takes --out DIR (.sh: OUT_DIR)
        # files: {name written in the output directory: [committed copies]}
        self.files = {k: v if isinstance(v, list) else [v] for k, v in files.items()}
        self.needs = needs  # Python modules
        self.blocker = blocker  # why the default run leaves it out (BLAS, PyTorch), or None


def under(folder, *names):
    return {n: f"{folder}/{n}" for n in names}


PLUGINS = "tests/plugins"
GENERATORS = [
    Gen("tests/core/gen_float_fixtures.py",
        under("tests/core/fixtures", "f16_to_f32.bin", "f32_to_f16.bin")),
    Gen("tests/frontend/gen_uuid_fixtures.py", under("tests/frontend/fixtures", "node_uuids.txt"),
        needs=()),
    Gen("tests/oinf/make_fixtures.py",
        {n: [f"tests/oinf/fixtures/{n}", f"tests/fuzz/corpus/oinf/{n}"]
         for n in ("empty.oinf", "example.oinf", "metadata.oinf", "tensors.oinf")}),
    Gen("tests/oinf_text/gen_text_fixtures.py",
        under("tests/oinf_text/fixtures", "float_cases.txt", "all_dtypes.txt", "all_dtypes.oinf")),
    Gen("tests/synth/c/gen_conv_data.py", under("tests/synth/c", "conv_model.txt", "conv_input.txt")),
    Gen("tests/synth/c/gen_matmul_data.py",
        under("tests/synth/c", "matmul_model.txt", "matmul_input.txt")),
    Gen(f"{PLUGINS}/gen_attention_cases.py", under(f"{PLUGINS}/cases", "attention.json"),
        blocker="BLAS: float64 np.matmul of random values, whose f64 results are kept"),
    Gen(f"{PLUGINS}/gen_attention_tile_cases.py", under(f"{PLUGINS}/cases", "attention_tiles.json"),
        blocker="BLAS: float64 np.matmul of random values (rounded to f32/f16/bf16)"),
    Gen(f"{PLUGINS}/gen_conv_tile_cases.py", under(f"{PLUGINS}/cases", "conv_tiles.json")),
    Gen(f"{PLUGINS}/gen_cpu_kernel_cases.py", under(PLUGINS, "cpu_kernel_cases.json")),
    Gen(f"{PLUGINS}/gen_f64_math_cases.py", under(f"{PLUGINS}/cases", "f64_math.json"),
        needs=("numpy", "mpmath")),
    Gen(f"{PLUGINS}/gen_fastpath_cases.py", under(f"{PLUGINS}/cases", "fastpath.json")),
    Gen(f"{PLUGINS}/gen_matmul_dtype_cases.py", under(f"{PLUGINS}/cases", "matmul_dtypes.json")),
    Gen(f"{PLUGINS}/gen_matmul_tile_cases.py", under(f"{PLUGINS}/cases", "matmul_tiles.json")),
    Gen(f"{PLUGINS}/gen_reduce_row_cases.py", under(f"{PLUGINS}/cases", "reduce_rows.json")),
    Gen(f"{PLUGINS}/gen_row_cases.py", under(f"{PLUGINS}/cases", "rows.json")),
    Gen(f"{PLUGINS}/gen_subnormal_cases.py", under(f"{PLUGINS}/cases", "subnormals.json")),
    Gen(f"{PLUGINS}/gen_spatial_cases.py", under(f"{PLUGINS}/cases", "spatial.json"),
        needs=("numpy", "torch"), blocker="PyTorch: float64 conv (BLAS) as the reference"),
    Gen(f"{PLUGINS}/gen_vulkan_extra_cases.py", under(f"{PLUGINS}/cases", "vulkan_extra.json"),
        needs=("numpy", "mpmath")),
    Gen(f"{PLUGINS}/gen_wide_dtypes.py", under(f"{PLUGINS}/cases", "wide_dtypes.json"), needs=()),
    Gen("tests/examples/resnet/make_fixtures.sh",
        under("tests/examples/resnet/fixtures", "model.oinf", "input.oinf", "reference.oinf"),
        needs=("numpy", "torch", "torchvision"),
        blocker="PyTorch: torch's RNG draws the weights, its forward gives the reference"),
    Gen("tests/gpt/make_fixtures.sh",
        under("tests/gpt/fixtures", "tiny_model.oinf", "tiny_reference.oinf",
              "tiny_f16_model.oinf", "tiny_f16_reference.oinf"),
        needs=("numpy", "torch"),
        blocker="PyTorch: torch's RNG draws the weights, its forward gives the reference"),
]


def first_difference(a, b):
    """A short description of where bytes a and b first differ."""
    n = next((i for i in range(min(len(a), len(b))) if a[i] != b[i]), min(len(a), len(b)))
    lines = a[:n].count(b"\n") + 1
    line = "" if b"\0" in b else f" (line {lines})"
    sizes = "" if len(a) == len(b) else f", {len(a)} bytes here, {len(b)} committed"
    return f"byte {n}{line}{sizes}"


def check(gen, tmp):
    """Runs gen into tmp; returns (ok, message)."""
    missing = [m for m in gen.needs if importlib.util.find_spec(m) is None]
    if missing:
        return None, "skipped (needs " + ", ".join(DEBIAN.get(m, m) for m in missing) + ")"
    script = os.path.join(ROOT, gen.script)
    if script.endswith(".sh"):
        cmd = ["sh", script, tmp]
    else:
        cmd = [sys.executable, script, "--out", tmp]
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    proc = subprocess.run(cmd, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          timeout=600)
    if proc.returncode != 0:
        tail = proc.stdout.decode(errors="replace").strip().splitlines()[-5:]
        return False, f"FAILED (exit {proc.returncode}):\n    " + "\n    ".join(tail)
    written = sorted(os.listdir(tmp))
    extra = [n for n in written if n not in gen.files]
    if extra:
        return False, f"DIFFERS: writes {', '.join(extra)}, which is not listed here"
    for name, copies in gen.files.items():
        if name not in written:
            return False, f"DIFFERS: did not write {name}"
        with open(os.path.join(tmp, name), "rb") as f:
            fresh = f.read()
        for copy in copies:
            with open(os.path.join(ROOT, copy), "rb") as f:
                committed = f.read()
            if fresh != committed:
                return False, f"DIFFERS: {copy} at {first_difference(fresh, committed)}"
    return True, "ok"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--all", action="store_true",
                        help="also the generators that depend on BLAS or PyTorch")
    parser.add_argument("--list", action="store_true", help="list the generators and exit")
    parser.add_argument("--keep", metavar="DIR",
                        help="write the regenerated files under DIR/<script name>, and keep them")
    parser.add_argument("names", nargs="*", metavar="NAME")
    args = parser.parse_args()

    gens = [g for g in GENERATORS if not args.names or any(n in g.script for n in args.names)]
    if args.list:
        for g in gens:
            print(f"{g.script}\n  checked: {'--all only: ' + g.blocker if g.blocker else 'yes'}"
                  f"\n  needs: {', '.join(DEBIAN.get(m, m) for m in g.needs) or 'python3'}")
            for copies in g.files.values():
                print("  writes:", ", ".join(copies))
        return 0
    if not args.all:
        gens = [g for g in gens if g.blocker is None]

    failures = 0
    started = time.monotonic()
    base = args.keep or tempfile.mkdtemp(prefix="openinfer-fixtures-")
    try:
        for g in gens:
            tmp = os.path.join(base, os.path.basename(g.script).rsplit(".", 1)[0])
            if os.path.isdir(tmp):
                shutil.rmtree(tmp)
            os.makedirs(tmp)
            t0 = time.monotonic()
            ok, message = check(g, tmp)
            failures += ok is False
            note = f"  [{g.blocker}]" if g.blocker and ok is False else ""
            print(f"{g.script}: {message} ({time.monotonic() - t0:.1f} s){note}", flush=True)
    finally:
        if not args.keep:
            shutil.rmtree(base, ignore_errors=True)
    print(f"{len(gens) - failures} of {len(gens)} generators reproduce their fixtures or were "
          f"skipped; {failures} differ or fail ({time.monotonic() - started:.1f} s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
