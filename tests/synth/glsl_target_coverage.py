#!/usr/bin/python3
"""Which catalog (op, dtypes, mode) kernels the GLSL target runs right, through generated programs.

The GLSL counterpart of tests/synth/c_target_coverage.py (whose case loading, graph writing,
batching and comparison it imports): every shared numpy case (tests/plugins/cpu_kernel_cases.json
and cases/*.json) becomes an op of a graph, batched by op into a few graphs, each case in its own
variables and separated by `barrier`. Each graph is synthesized with `--target glsl` for a device
description, its shaders compiled with glslc (the Vulkan backend's variants once per run, cached),
run one step on a Vulkan device (lavapipe) by the manifest runner with --save, and each output
compared with the case's expected bytes (bit-exact, NaN matches NaN, the case's tolerance or
ulp). A batch that fails to synthesize, compile or run is split until the failing cases are found.

  tests/synth/glsl_target_coverage.py --openinfer build/dev/bin/openinfer
      --runner build/dev/tests/glsl_emitter/glsl_manifest_runner [--device devices/lavapipe.json]
      [--work DIR] [--ops add,matmul] [--modes normal,inplace] [--per-op N] [--batch 200]
      [--jobs 2] [--by-op] [--own-writers-only] [--spirv-cache DIR]

--per-op N keeps the first N kernels (op, dtypes, mode) of each op (the CI subset). Cases with
an f64 operand are left out (and counted apart) for a device description whose features.fp64
is false, and so are kernels the target refuses naming it (features.fp64 false: the only
device limit for data; i64/u64 run emulated without features.int64). Prints one line per
failing kernel and the first problem, then per mode
"normal N/M, in place N/M, accumulate N/M". Exits 1 when a kernel fails (with
--allow-invalid, not for graphs the validator refuses: the script's graph, not the target).
"""
import argparse
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import threading
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)

import c_target_coverage as ctc  # noqa: E402
from c_target_coverage import oinf  # noqa: E402
import spirv_cache  # noqa: E402

LAVAPIPE_ICD = "/usr/share/vulkan/icd.d/lvp_icd.x86_64.json"

# ops.md's rules for GPU targets, as tests/vulkan/vulkan_kernels_test.cpp holds the Vulkan
# backend to them: matmul and the summing reductions within (1e-6, 1e-5) (f64: 1e-12) in any
# summation order where the case names no tolerance; div, recip and fma within 2 f32 ulp (one
# unit of a narrow dtype); and, on a device that cannot preserve f32 subnormals (the host
# program's --device-info), a subnormal result may be zero, and a result from a subnormal narrow
# operand (flushed on the way in) may be what a zero operand gives.
SUMMING_OPS = {"matmul", "sum_axis", "prod_axis", "mean_axis"}
TWO_ULP_OPS = {"div", "recip", "fma"}


def gpu_case(c):
    """The case with ops.md's GPU bounds filled in where it names none."""
    c = dict(c)
    dt = c["output"]["dtype"]
    if c["op"] in SUMMING_OPS and "tolerance" not in c and dt in ("f32", "f64"):
        c["tolerance"] = [1e-6, 1e-5] if dt == "f32" else [1e-12, 1e-12]
    if c["op"] in TWO_ULP_OPS and "ulp" not in c:
        c["ulp"] = 2 if dt in ("f32", "f64") else 1
    return c


def subnormal_bits(dt, b):
    if dt == "f16":
        return (b & 0x7C00) == 0 and (b & 0x3FF) != 0
    if dt == "bf16":
        return (b & 0x7F80) == 0 and (b & 0x7F) != 0
    if dt == "f8":
        return (b & 0x7C) == 0 and (b & 0x3) != 0
    return False


def flushed_ok(c, got):
    """Whether every element that differs is a subnormal result flushed to zero, or comes from a
    subnormal narrow operand read as zero (0, inf or NaN where a zero operand gives them)."""
    want = bytes.fromhex(c["output"]["hex"])
    dt = c["output"]["dtype"]
    sub_in = any(t["dtype"] in ("f16", "bf16", "f8") and any(
        subnormal_bits(t["dtype"], int.from_bytes(bytes.fromhex(t["hex"])[i:i + w], "little"))
        for w in [1 if t["dtype"] == "f8" else 2]
        for i in range(0, len(bytes.fromhex(t["hex"])), w)) for t in c["inputs"])
    if dt in ("f32", "f64"):
        w = 4 if dt == "f32" else 8
        fmt = "<f" if w == 4 else "<d"
        for i in range(len(want) // w):
            g = struct.unpack_from(fmt, got, i * w)[0]
            e = struct.unpack_from(fmt, want, i * w)[0]
            one = {**c, "output": {"dtype": dt, "hex": want[i * w:i * w + w].hex()}}
            if ctc.compare(one, got[i * w:i * w + w]) is None:  # within the case's bounds
                continue
            if not (e != 0 and abs(e) < (1.1754943508222875e-38 if w == 4 else 2.2250738585072014e-308)
                    and g == 0):
                return False
        return True
    if dt in ("f16", "bf16", "f8"):
        w = 1 if dt == "f8" else 2
        sign = 0x80 if dt == "f8" else 0x8000
        ulp = c.get("ulp")
        for i in range(len(want) // w):
            g = int.from_bytes(got[i * w:i * w + w], "little")
            e = int.from_bytes(want[i * w:i * w + w], "little")
            if g == e or (ctc.narrow_nan(dt, g) and ctc.narrow_nan(dt, e)):
                continue
            if ulp is not None and not ctc.narrow_special(dt, e) and \
                    not ctc.narrow_special(dt, g) and \
                    abs(ctc.ordered(g, w * 8) - ctc.ordered(e, w * 8)) <= ulp:
                continue
            g_zero, e_zero = (g & ~sign) == 0, (e & ~sign) == 0
            if subnormal_bits(dt, e) and g_zero:
                continue
            if sub_in and (g_zero or ctc.narrow_special(dt, g) or e_zero):
                continue
            return False
        return True
    return False


def compare_gpu(c, got, flushes):
    """(problem, flushed): problem None when `got` holds the case's output under ops.md's GPU
    rules, else what differs; flushed when it holds only by the subnormal allowance."""
    c = gpu_case(c)
    problem = ctc.compare(c, got)
    if problem and flushes and len(got) == len(bytes.fromhex(c["output"]["hex"])) and \
            flushed_ok(c, got):
        return None, True
    return problem, False


class GlslRunner(ctc.Runner):
    def __init__(self, args):
        super().__init__(args)
        self.spirv = spirv_cache.SpirvCompiler(
            args.glslc, args.spirv_cache or os.path.join(args.work_root, "spirv_cache"), args.jobs)
        self.env = dict(os.environ)
        if os.path.exists(LAVAPIPE_ICD) and "VK_DRIVER_FILES" not in self.env:
            self.env["VK_DRIVER_FILES"] = LAVAPIPE_ICD
        if args.own_writers_only:
            self.env["OPENINFER_GLSL_OWN_WRITERS_ONLY"] = "1"
        self.lock = threading.Lock()
        self.device_flushes = None  # asked of the host program once (flushes())
        self.flushed_cases = set()  # cases that hold only by the subnormal allowance

    def run(self, cmd, cwd, timeout=1800):
        p = subprocess.run(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           text=True, timeout=timeout, env=self.env)
        return p.returncode, p.stdout

    def compile_shaders(self, gen):
        """The SPIR-V the runner picks on a device that keeps IEEE specials (lavapipe, as
        the backend: the "_ieee" variants), compiled `--jobs` at a time through the cache."""
        return self.spirv.compile_program(gen, "ieee")

    def flushes(self, gen):
        """Whether the device may flush f32 subnormals (asked once, from any manifest)."""
        with self.lock:
            if self.device_flushes is None:
                rc, log = self.run([self.args.runner, "--manifest", gen, "--device-info"], gen)
                self.device_flushes = rc == 0 and "f32 subnormals: may be flushed" in log
                print(log.strip().replace("\n", "; "))
            return self.device_flushes

    def batch(self, work, batch):
        shutil.rmtree(work, ignore_errors=True)
        os.makedirs(work)
        outs, case_at = ctc.write_batch(work, batch)
        rc, log = self.run([self.args.openinfer, "synth", "graph.oi", "--model", "model.oinf",
                            "--target", "glsl", "--device", self.args.device, "-o", "gen"], work)
        if rc:
            return self.named_or_all(work, batch, case_at, "synth", log)
        gen = os.path.join(work, "gen")
        rc, log = self.compile_shaders(gen)
        if rc:
            return self.named_or_all(work, batch, case_at, "compile (prog)", log)
        fetch = [a for i, _ in batch for a in ("--fetch", outs[i])]
        rc, log = self.run([self.args.runner, "--manifest", gen, "--model", "model.oinf",
                            "--steps", "1", *fetch, "--save", "out.oinf", "-q"], work)
        if rc == 3 and "no Vulkan device" in log:
            print("SKIPPED: " + log.strip().splitlines()[-1])
            raise SystemExit(77)
        if rc:
            return self.named_or_all(work, batch, case_at, "run (prog)", log)
        saved = oinf.read(os.path.join(work, "out.oinf")).tensors
        results = {}
        for i, c in batch:
            t = saved.get(outs[i])
            problem, flushed = ("no output saved", False) if t is None else \
                compare_gpu(c, t.payload(), self.flushes(gen))
            if flushed:
                with self.lock:
                    self.flushed_cases.add(i)
            results[i] = problem and f"prog: {problem}"
        if not self.args.keep:
            shutil.rmtree(work, ignore_errors=True)
        return results


def has_f64(c):
    return c["output"]["dtype"] == "f64" or any(t["dtype"] == "f64" for t in c["inputs"])


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--openinfer", required=True, help="the openinfer CLI")
    ap.add_argument("--runner", required=True, help="glsl_manifest_runner (the host program)")
    ap.add_argument("--glslc", default=shutil.which("glslc") or "glslc")
    ap.add_argument("--device", default=os.path.join(ROOT, "devices", "lavapipe.json"))
    ap.add_argument("--plugin-tests", default=os.path.join(ROOT, "tests", "plugins"))
    ap.add_argument("--work", help="working directory (default: a temporary one)")
    ap.add_argument("--ops", default="", help="comma-separated ops (default: all)")
    ap.add_argument("--modes", default="normal,inplace,accumulate")
    ap.add_argument("--per-op", type=int, default=0,
                    help="only the first N kernels of each op and mode (0: all)")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--batch", type=int, default=200, help="cases per generated program")
    ap.add_argument("--by-op", action="store_true", help="one line per op with failures")
    ap.add_argument("--keep", action="store_true", help="keep each batch's directory")
    ap.add_argument("--allow-invalid", action="store_true",
                    help="exit 0 where the only failures are graphs the validator refuses")
    ap.add_argument("--spirv-cache", help="compiled shaders kept across runs (default: in --work)")
    ap.add_argument("--own-writers-only", action="store_true",
                    help="the emitter's own writers only (OPENINFER_GLSL_OWN_WRITERS_ONLY=1)")
    args = ap.parse_args()
    for a in ("openinfer", "runner", "device"):
        setattr(args, a, os.path.abspath(getattr(args, a)))

    device = json.load(open(args.device))
    no_fp64 = device.get("features", {}).get("fp64") is False
    ops = set(filter(None, args.ops.split(",")))
    modes = set(args.modes.split(","))
    cases = [(i, c) for i, c in enumerate(ctc.load_cases(args.plugin_tests))
             if (not ops or c["op"] in ops) and c["mode"] in modes]
    aside = [(i, c) for i, c in cases if no_fp64 and has_f64(c)]
    cases = [(i, c) for i, c in cases if not (no_fp64 and has_f64(c))]
    if args.per_op:
        kept, seen = [], defaultdict(list)
        for i, c in cases:
            key, group = ctc.key_text(c), (c["op"], c["mode"])
            if key in seen[group] or len(seen[group]) < args.per_op:
                if key not in seen[group]:
                    seen[group].append(key)
                kept.append((i, c))
        cases = kept
    work = args.work or tempfile.mkdtemp(prefix="glsl_target_coverage.")
    os.makedirs(work, exist_ok=True)
    args.work_root = work
    runner = GlslRunner(args)
    batches = ctc.make_batches(cases, args.batch)
    results = {}
    with ThreadPoolExecutor(max_workers=max(args.jobs, 1)) as pool:
        for r in pool.map(lambda nb: runner.isolate(os.path.join(work, f"b{nb[0]}"), nb[1]),
                          enumerate(batches)):
            results.update(r)
    if not args.work and not args.keep:
        shutil.rmtree(work, ignore_errors=True)

    # A kernel the target refuses naming fp64 where the description turns it off (the Vulkan
    # backend's kernel needs shaderFloat64: "(features.fp64 false)") is left out as a device
    # limit, not counted as a failure. Nothing else is: i64/u64 need no shaderInt64.
    features = device.get("features", {})
    off = {"fp64"} if features.get("fp64") is False else set()
    limited = {i for i, c in cases if (results.get(i) or "").startswith("synth:") and
               any(f"(features.{k} false)" in results[i] for k in off)}
    limited_kernels = {ctc.key_text(c) for i, c in cases if i in limited}
    all_cases = cases
    cases = [(i, c) for i, c in cases if i not in limited]
    bad, totals = ctc.report(cases, results, args.by_op, limit=300)
    print(f"device {device['device'].get('name', args.device)}: " + ", ".join(totals))
    if runner.flushed_cases:
        flushed = sorted({ctc.key_text(c) for i, c in cases if i in runner.flushed_cases})
        print(f"{len(runner.flushed_cases)} cases hold only by ops.md's subnormal allowance (a "
              "subnormal result zero on a device that may flush): " + "; ".join(flushed[:20]))
    if aside:
        print(f"{len({ctc.key_text(c) for _, c in aside})} kernels with f64 operands left out "
              "(features.fp64 false)")
    if limited_kernels:
        for k in sorted(off):
            ops = sorted({c["op"] for i, c in all_cases if i in limited and
                          f"(features.{k} false)" in results[i]})
            if ops:
                print(f"left out as device limits (features.{k} false): " + ", ".join(ops))
        print(f"{len(limited_kernels)} kernels left out as device limits (the target names the "
              "feature the description turns off)")
    invalid = {k for k, p in bad.items() if p.startswith("synth: graph.oi:")}
    if invalid:
        print(f"{len(invalid)} kernels fail in the graph the script writes (the validator's "
              "error, not the target's)" + (": not counted as failures" if args.allow_invalid
                                            else ""))
    failed_cases = sum(1 for i, _ in cases if results.get(i))
    print(f"{len(cases) - failed_cases} of {len(cases)} cases pass in {len(batches)} programs")
    return 1 if set(bad) - (invalid if args.allow_invalid else set()) else 0


if __name__ == "__main__":
    sys.exit(main())
