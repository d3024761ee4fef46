#!/usr/bin/python3
"""Which catalog (op, dtypes, mode) kernels the C target runs right, through generated programs.

The counterpart of tests/vulkan/kernel_coverage.py and tests/c_kernels/kernel_coverage.py for
`openinfer synth --target c`: every case of the shared numpy cases (tests/plugins/
cpu_kernel_cases.json and cases/*.json, which hold a case for every CPU kernel) becomes an op of
a graph, with its inputs in a model, its settings and its mode (in place: `op(x, ...) >> x`;
accumulate: `acc=DTYPE`). Cases are batched by op into a few graphs, each case in its own
variables and separated by `barrier` (so each op is its own kernel, as it would be alone). Each
graph is synthesized to C, compiled with `-std=c11 -Wall -Wextra -Werror -O2` (with --sanitize
under ASan+UBSan as well, any report failing the batch), run one step with --save, and each
output compared with the case's expected bytes as the CPU kernel tests do (bit-exact, NaN
matches NaN, the case's tolerance or ulp). A batch that fails to synthesize, compile or run is
split until the failing cases are found.

  tests/synth/c_target_coverage.py --openinfer build/dev/bin/openinfer [--cc cc]
      [--work DIR] [--ops add,matmul] [--modes normal,inplace] [--sanitize | --sanitize-only]
      [--jobs 2]
      [--batch 400] [--by-op]

Prints one line per failing kernel and the first problem, then per mode
"normal N/1782, in place N/418, accumulate N/276". Exits 1 when a kernel fails.
"""
import argparse
import glob
import json
import math
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "python"))

import numpy as np  # noqa: E402
from openinfer import oinf  # noqa: E402
from openinfer.oinf import packing  # noqa: E402

PACKED = {"i1", "i2", "i4", "u1", "u2", "u4"}
RAW = {"f32": "<f4", "f64": "<f8", "f16": "<u2", "bf16": "<u2", "f8": "u1", "bool": "u1",
       "bitset": "u1", "i8": "i1", "i16": "<i2", "i32": "<i4", "i64": "<i8", "u8": "u1",
       "u16": "<u2", "u32": "<u4", "u64": "<u8"}
MODE_TEXT = {"normal": "normal", "inplace": "in place", "accumulate": "accumulate"}


def key_text(c):
    ins = ",".join(i["dtype"] for i in c["inputs"])
    return f"{c['op']}({ins})->{c['output']['dtype']} {c['mode']}"


def load_cases(plugin_tests):
    files = [os.path.join(plugin_tests, "cpu_kernel_cases.json")]
    files += sorted(glob.glob(os.path.join(plugin_tests, "cases", "*.json")))
    cases = []
    for f in files:
        cases += json.load(open(f))["cases"]
    return cases


# ---- the graph and the model of a batch ----

def numel(dims):
    n = 1
    for d in dims:
        n *= d
    return n


def tensor_of(t):
    data = bytes.fromhex(t["hex"])
    dims = tuple(t["dims"])
    if t["dtype"] in PACKED:
        raw = packing.unpack(data, t["dtype"], numel(dims))
    else:
        raw = np.frombuffer(data, RAW[t["dtype"]])
    return oinf.Tensor.from_raw(raw.reshape(dims) if dims else raw.reshape(()), t["dtype"], dims)


def decl(name, t):
    dims = t["dims"]
    return f"{name}: {t['dtype']}" + (f"[{', '.join(map(str, dims))}]" if dims else "") + ";"


def setting_text(s):
    v, kind = s["value"], s["type"]
    if kind == "bool":
        text = "true" if v else "false"
    elif kind == "int_list":
        text = "[" + ", ".join(str(x) for x in v) + "]"
    elif kind == "string":
        text = json.dumps(v)
    elif kind == "dtype":
        text = v
    elif isinstance(v, str):  # "inf", "-inf"
        text = v
    elif kind == "float":
        text = repr(float(v))
    else:
        text = str(v)
    return f"{s['name']}={text}"


def case_program(i, c):
    """(declarations by section, the op line, the output name) of case i."""
    sections = defaultdict(list)
    names = [f"c{i}_x{j}" for j in range(len(c["inputs"]))]
    inplace = c.get("inplace_input") if c["mode"] == "inplace" else None
    for j, t in enumerate(c["inputs"]):
        # An op never writes constant memory: the input it overwrites is volatile (reset from
        # the model every step).
        sections["volatile" if j == inplace else "constant"].append(decl(names[j], t))
    if inplace is None:
        out = f"c{i}_y"
        sections["volatile"].append(decl(out, c["output"]))
    else:
        out = names[inplace]
    settings = [setting_text(s) for s in c["settings"]]
    # The kernel is chosen by the output's dtype where a case leaves these out.
    named = {s["name"] for s in c["settings"]}
    if c["mode"] == "accumulate" and "acc" not in named:
        settings.append(f"acc={c['output']['dtype']}")
    if c["op"] == "cast" and "to" not in named:
        settings.insert(0, f"to={c['output']['dtype']}")
    line = f"  op {c['op']}({', '.join(names + settings)}) >> {out};"
    return sections, line, out


def write_batch(work, batch):
    """graph.oi and model.oinf of [(index, case)]; returns ({index: output name},
    {line of graph.oi: index})."""
    sections = defaultdict(list)
    lines, outs, tensors, at = [], {}, {}, {}
    for i, c in batch:
        s, line, out = case_program(i, c)
        for k, v in s.items():
            sections[k] += v
        if lines:
            lines.append("  barrier;")
        at[i] = len(lines)
        lines.append(line)
        outs[i] = out
        for j, t in enumerate(c["inputs"]):
            tensors[f"c{i}_x{j}"] = tensor_of(t)
    text = []
    for k in ("constant", "volatile"):
        if sections[k]:
            text.append(k + " {\n" + "\n".join("  " + d for d in sections[k]) + "\n}")
    first = sum(t.count("\n") + 1 for t in text) + 2  # the line of the block's first node
    text.append("block entry {\n" + "\n".join(lines) + "\n  return " +
                ", ".join(outs[i] for i, _ in batch) + ";\n}\n")
    with open(os.path.join(work, "graph.oi"), "w") as f:
        f.write("\n".join(text))
    oinf.write(os.path.join(work, "model.oinf"), tensors=tensors)
    return outs, {first + n: i for i, n in at.items()}


# ---- comparison (tests/plugins/cpu_kernels_test.cpp's rules, as run_cases.c) ----

def ordered(bits, width):
    sign = 1 << (width - 1)
    return -(bits & ~sign) if bits & sign else bits


def narrow_nan(dt, b):
    if dt == "f16":
        return (b & 0x7C00) == 0x7C00 and (b & 0x03FF) != 0
    if dt == "bf16":
        return (b & 0x7F80) == 0x7F80 and (b & 0x007F) != 0
    return (b & 0x7C) == 0x7C and (b & 0x03) != 0


def narrow_special(dt, b):
    if dt == "f16":
        return (b & 0x7C00) == 0x7C00
    if dt == "bf16":
        return (b & 0x7F80) == 0x7F80
    return (b & 0x7C) == 0x7C


# A zero sum, mean or product keeps the expected zero's sign within any tolerance: it does not
# depend on the order (a sum is -0.0 only when every term is -0.0; ops.md).
ZERO_SIGN_OPS = {"sum_axis", "mean_axis", "prod_axis"}


def compare(c, got):
    """None when `got` (bytes) matches the case's output, else what differs."""
    want = bytes.fromhex(c["output"]["hex"])
    dt = c["output"]["dtype"]
    if len(got) != len(want):
        return f"{len(got)} bytes, expected {len(want)}"
    tol, ulp = c.get("tolerance"), c.get("ulp")
    if dt in ("f32", "f64"):
        w = 4 if dt == "f32" else 8
        fmt, ifmt = ("<f", "<I") if w == 4 else ("<d", "<Q")
        for i in range(len(want) // w):
            g = struct.unpack_from(fmt, got, i * w)[0]
            e = struct.unpack_from(fmt, want, i * w)[0]
            gb = struct.unpack_from(ifmt, got, i * w)[0]
            eb = struct.unpack_from(ifmt, want, i * w)[0]
            if math.isnan(e):
                ok = math.isnan(g)
            elif c["op"] in ZERO_SIGN_OPS and g == 0 and e == 0:
                ok = gb == eb
            elif tol and math.isfinite(e):
                ok = abs(g - e) <= tol[0] + tol[1] * abs(e)
            elif ulp is not None and math.isfinite(e):
                ok = math.isfinite(g) and abs(ordered(gb, w * 8) - ordered(eb, w * 8)) <= ulp
            else:
                ok = gb == eb
            if not ok:
                return f"element {i}: got {g!r}, want {e!r}"
        return None
    if dt in ("f16", "bf16", "f8"):
        w = 1 if dt == "f8" else 2
        for i in range(len(want) // w):
            g = int.from_bytes(got[i * w:i * w + w], "little")
            e = int.from_bytes(want[i * w:i * w + w], "little")
            ok = narrow_nan(dt, g) if narrow_nan(dt, e) else g == e
            if not ok and ulp is not None and not narrow_special(dt, e) and \
                    not narrow_special(dt, g):
                ok = abs(ordered(g, w * 8) - ordered(e, w * 8)) <= ulp
            if not ok:
                return f"element {i}: got bits {g:#x}, want {e:#x}"
        return None
    for i, (g, e) in enumerate(zip(got, want)):
        if g != e:
            return f"byte {i}: got {g:#04x}, want {e:#04x}"
    return None


# ---- building and running a batch ----

def tail(text, n=6):
    return " | ".join(text.strip().splitlines()[-n:])


class Runner:
    def __init__(self, args):
        self.args = args

    def run(self, cmd, cwd, timeout=900):
        p = subprocess.run(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           text=True, timeout=timeout)
        return p.returncode, p.stdout

    def batch(self, work, batch):
        """{index: None (pass) or a problem} for [(index, case)]; whole-batch failures give
        every case the same problem."""
        shutil.rmtree(work, ignore_errors=True)
        os.makedirs(work)
        outs, case_at = write_batch(work, batch)
        rc, log = self.run([self.args.openinfer, "synth", "graph.oi", "--model", "model.oinf",
                            "--target", "c", "-o", "gen"], work)
        if rc:
            return self.named_or_all(work, batch, case_at, "synth", log)
        builds = [] if self.args.sanitize_only else [("prog", ["-O2"])]
        if self.args.sanitize or self.args.sanitize_only:
            builds.append(("prog_san", ["-O1", "-g", "-fsanitize=address,undefined",
                                        "-fno-sanitize-recover=all"]))
        sources = sorted(glob.glob(os.path.join(work, "gen", "*.c")))
        results = {}
        for prog, flags in builds:
            rc, log = self.run([self.args.cc, "-std=c11", "-Wall", "-Wextra", "-Werror", *flags,
                                "-o", prog, *sources, "-lm"], work)
            if rc:
                return self.named_or_all(work, batch, case_at, f"compile ({prog})", log)
            # The driver fetches at most 64 names a run: one run per 64 outputs.
            saved = {}
            names = [outs[i] for i, _ in batch]
            for at in range(0, len(names), 64):
                save = f"{prog}_{at}.oinf"
                fetch = [a for n in names[at:at + 64] for a in ("--fetch", n)]
                rc, log = self.run([os.path.join(work, prog), "--model", "model.oinf", "--steps",
                                    "1", *fetch, "--save", save, "-q"], work)
                if rc or log.strip():  # a sanitizer report fails the batch even where rc is 0
                    return self.named_or_all(work, batch, case_at, f"run ({prog})", log)
                saved.update(oinf.read(os.path.join(work, save)).tensors)
            for i, c in batch:
                t = saved.get(outs[i])
                problem = "no output saved" if t is None else compare(c, t.payload())
                if problem and results.get(i) is None:
                    results[i] = f"{prog}: {problem}"
                results.setdefault(i, None)
        if not self.args.keep:
            shutil.rmtree(work, ignore_errors=True)
        return results

    def named_or_all(self, work, batch, case_at, stage, log):
        """The cases a failure's messages name fail with them, and the rest of the batch runs
        again without them; a failure naming none fails the whole batch (isolate splits it).
        Names: graph lines ("graph.oi:L:C:" of the validator, "(line L)" of the emitter and of
        run-time errors) and, for compiler messages, the line of the kernel's comment above the
        model.c line they point at."""
        lines = []
        try:
            with open(os.path.join(work, "gen", "model.c")) as f:
                lines = f.read().splitlines()
        except OSError:
            pass
        named = {}
        for msg in log.splitlines():
            refs = [int(a or b) for a, b in re.findall(r"graph\.oi:(\d+):|\(line (\d+)\)", msg)]
            m = re.match(r".*model\.c:(\d+):\d+: (error|runtime error)", msg)
            if m and lines:
                for k in range(min(int(m.group(1)), len(lines)) - 1, -1, -1):
                    text = lines[k].lstrip()
                    if text.startswith(("/* kernel", "{ /* op")):
                        found = re.search(r"\(line (\d+)\)", text)
                        if found:
                            refs.append(int(found.group(1)))
                        break
            for ref in refs:
                i = case_at.get(ref)
                if i is not None:
                    named.setdefault(i, f"{stage}: {msg.strip()}")
        if not named:
            return {i: f"{stage}: " + tail(log, 4) for i, _ in batch}
        rest = [(i, c) for i, c in batch if i not in named]
        if rest:
            named.update(self.batch(work, rest))
        return named

    def isolate(self, work, batch):
        """Runs a batch; where the whole batch fails, halves it until the failing cases are
        alone."""
        results = self.batch(work, batch)
        whole = len(batch) > 1 and len({results[i] for i, _ in batch}) == 1 and \
            results[batch[0][0]] is not None and \
            results[batch[0][0]].split(":")[0] in ("synth", "compile (prog)", "run (prog)",
                                                   "compile (prog_san)", "run (prog_san)")
        if not whole:
            return results
        half = len(batch) // 2
        out = self.isolate(work + "a", batch[:half])
        out.update(self.isolate(work + "b", batch[half:]))
        return out


def report(cases, results, by_op, limit=None):
    """Prints the failing kernels (a kernel passes when every case of it passes; by op with
    by_op; each problem cut to its last `limit` characters) and returns (bad, totals): bad maps
    a failing kernel to its first problem, totals are the "normal N/M" texts per mode."""
    kernels = defaultdict(list)
    for i, c in cases:
        kernels[key_text(c)].append(results.get(i, "not run"))
    bad = {k: next(p for p in v if p) for k, v in kernels.items() if any(v)}
    cut = (lambda p: p[-limit:]) if limit else (lambda p: p)
    if by_op:
        per_op = defaultdict(list)
        for k in sorted(bad):
            per_op[k.split("(", 1)[0]].append(k)
        for op, keys in sorted(per_op.items()):
            kinds = " ".join(k.split("(", 1)[1] for k in keys)
            print(f"{op}: ({kinds}: {cut(bad[keys[0]])}")
    else:
        for k in sorted(bad):
            print(f"{k}: {cut(bad[k])}")
    totals = []
    for mode in ("normal", "inplace", "accumulate"):
        keys = [k for k in kernels if k.rsplit(" ", 1)[1] == mode]
        if keys:
            totals.append(f"{MODE_TEXT[mode]} {sum(k not in bad for k in keys)}/{len(keys)}")
    return bad, totals


def make_batches(cases, size):
    """Cases grouped by op (each op's library file is then compiled once), ops packed
    together up to `size` cases a batch."""
    by_op = defaultdict(list)
    for i, c in cases:
        by_op[c["op"]].append((i, c))
    batches, current = [], []
    for op in sorted(by_op, key=lambda o: -len(by_op[o])):
        group = by_op[op]
        for at in range(0, len(group), size):
            part = group[at:at + size]
            if current and len(current) + len(part) > size:
                batches.append(current)
                current = []
            current += part
    if current:
        batches.append(current)
    return batches


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--openinfer", required=True, help="the openinfer CLI")
    ap.add_argument("--cc", default=os.environ.get("CC", "cc"))
    ap.add_argument("--plugin-tests", default=os.path.join(ROOT, "tests", "plugins"))
    ap.add_argument("--work", help="working directory (default: a temporary one)")
    ap.add_argument("--ops", default="", help="comma-separated ops (default: all)")
    ap.add_argument("--modes", default="normal,inplace,accumulate")
    ap.add_argument("--sanitize", action="store_true", help="also build and run under ASan+UBSan")
    ap.add_argument("--sanitize-only", action="store_true",
                    help="only the ASan+UBSan build (-O1 -g)")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--batch", type=int, default=200, help="cases per generated program")
    ap.add_argument("--by-op", action="store_true", help="one line per op with failures")
    ap.add_argument("--keep", action="store_true", help="keep each batch's directory")
    args = ap.parse_args()
    args.openinfer = os.path.abspath(args.openinfer)
    if os.sep in args.cc:
        args.cc = os.path.abspath(args.cc)

    ops = set(filter(None, args.ops.split(",")))
    modes = set(args.modes.split(","))
    cases = [(i, c) for i, c in enumerate(load_cases(args.plugin_tests))
             if (not ops or c["op"] in ops) and c["mode"] in modes]
    work = args.work or tempfile.mkdtemp(prefix="c_target_coverage.")
    os.makedirs(work, exist_ok=True)
    runner = Runner(args)
    batches = make_batches(cases, args.batch)
    results = {}
    with ThreadPoolExecutor(max_workers=max(args.jobs, 1)) as pool:
        for r in pool.map(lambda nb: runner.isolate(os.path.join(work, f"b{nb[0]}"), nb[1]),
                          enumerate(batches)):
            results.update(r)
    if not args.work and not args.keep:
        shutil.rmtree(work, ignore_errors=True)

    bad, totals = report(cases, results, args.by_op)
    print(", ".join(totals))
    failed_cases = sum(1 for i, _ in cases if results.get(i))
    print(f"{len(cases) - failed_cases} of {len(cases)} cases pass in {len(batches)} programs" +
          (" (under ASan+UBSan only)" if args.sanitize_only
           else " (also under ASan+UBSan)" if args.sanitize else ""))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
