#!/usr/bin/python3
"""Which catalog (op, dtypes, mode) kernels the C kernel library has and passes.

The CPU backend implements every (op, dtypes, mode) of the op catalog, so its kernel table is
the list (as for tests/vulkan/kernel_coverage.py). With --plugin-dir that table is read from the
built CPU plugin through the plugin ABI; without it, from the shared numpy cases
(tests/plugins/cpu_kernel_cases.json and cases/*.json), which hold at least one case for every
CPU kernel and none for anything else (plugins_cpu_kernels_test checks both). The library's
side comes from tests/c_kernels/run_cases --report: for each kernel of the cases, whether the
library has an entry point for it and whether all its cases pass.

  tests/c_kernels/kernel_coverage.py --runner build/dev/tests/c_kernels/c_kernels_cases
      [--plugin-dir build/dev/lib/openinfer/plugins] [--by-op] [--ops add,matmul]
      [--modes normal,inplace] [--fail-on-missing]

Prints one line per missing or failing kernel ("op(in0,in1)->out mode: missing"), or one line
per op with --by-op, then the totals per mode. Exits 1 when a kernel fails its cases (and, with
--fail-on-missing, when one is missing), 2 when the runner or the plugin cannot be used.
"""
import argparse
import glob
import json
import os
import subprocess
import sys
import tempfile
from collections import defaultdict

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def key_text(op, ins, out, mode):
    return f"{op}({','.join(ins)})->{out} {mode}"


def cases_keys(plugin_tests):
    files = [os.path.join(plugin_tests, "cpu_kernel_cases.json")]
    files += sorted(glob.glob(os.path.join(plugin_tests, "cases", "*.json")))
    keys = set()
    for f in files:
        for c in json.load(open(f))["cases"]:
            keys.add(key_text(c["op"], [i["dtype"] for i in c["inputs"]], c["output"]["dtype"],
                              c["mode"]))
    return keys


def cpu_plugin_keys(plugin_dir, catalog):
    sys.path.insert(0, os.path.join(ROOT, "tests", "vulkan"))
    from kernel_coverage import load_backend  # the ctypes view of the plugin ABI
    for name in ("libopeninfer_cpu.so", "openinfer_cpu.so"):
        path = os.path.join(plugin_dir, name)
        if os.path.exists(path):
            _, _, kernels = load_backend(path)
            return {key_text(op, ins, out, mode) for op, ins, out, mode in kernels
                    if op in catalog}
    raise RuntimeError(f"no cpu plugin in {plugin_dir}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runner", required=True, help="the run_cases executable")
    ap.add_argument("--plugin-tests", default=os.path.join(ROOT, "tests", "plugins"))
    ap.add_argument("--plugin-dir", help="read the list from the built CPU plugin")
    ap.add_argument("--catalog", default=os.path.join(ROOT, "core", "data", "op_catalog.json"))
    ap.add_argument("--by-op", action="store_true", help="one line per op")
    ap.add_argument("--ops", default="", help="comma-separated ops to report (default: all)")
    ap.add_argument("--modes", default="normal,inplace,accumulate")
    ap.add_argument("--fail-on-missing", action="store_true")
    args = ap.parse_args()

    catalog = json.load(open(args.catalog))["ops"]
    try:
        wanted = (cpu_plugin_keys(args.plugin_dir, catalog) if args.plugin_dir
                  else cases_keys(args.plugin_tests))
    except (OSError, RuntimeError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as tmp:
        report = os.path.join(tmp, "report.txt")
        run = subprocess.run([args.runner, args.plugin_tests, "--quiet", "--report", report],
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if not os.path.exists(report):
            print(run.stdout, end="")
            print(f"error: {args.runner} wrote no report", file=sys.stderr)
            return 2
        state = {}
        for line in open(report):
            key, status = line.rstrip("\n").split("\t")
            state[key] = status

    ops = set(filter(None, args.ops.split(",")))
    modes = set(args.modes.split(","))

    def op_of(k):
        return k.split("(", 1)[0]

    def mode_of(k):
        return k.rsplit(" ", 1)[1]

    selected = sorted(k for k in wanted if (not ops or op_of(k) in ops) and mode_of(k) in modes)
    status = {k: state.get(k, "no case") for k in selected}
    bad = [k for k in selected if status[k] != "pass"]
    if args.by_op:
        per_op = defaultdict(lambda: defaultdict(list))
        for k in bad:
            per_op[op_of(k)][status[k]].append("(" + k.split("(", 1)[1].rsplit(" ", 1)[0])
        for op in sorted(per_op):
            print(f"{op}: " + "; ".join(f"{s}: {' '.join(sorted(v))}"
                                        for s, v in sorted(per_op[op].items())))
    else:
        for k in bad:
            print(f"{k}: {status[k]}")
    for k in sorted(set(state) - wanted):
        print(f"note: the cases hold {k}, which the list lacks")
    by_mode = defaultdict(lambda: defaultdict(int))
    for k in selected:
        by_mode[mode_of(k)][status[k]] += 1
    for mode in ("normal", "inplace", "accumulate"):
        if mode not in by_mode:
            continue
        c = by_mode[mode]
        total = sum(c.values())
        print(f"{mode}: c_kernels has {total - c['missing'] - c['no case']} of {total} kernels, "
              f"{c['pass']} pass their cases, {c['fail']} fail, {c['missing']} missing")
    print(f"ops with every kernel passing: "
          f"{len({op_of(k) for k in selected} - {op_of(k) for k in bad})} of "
          f"{len({op_of(k) for k in selected})}")
    print(run.stdout.strip().splitlines()[-1])  # the runner's "N passed, N failed"
    failing = any(status[k] == "fail" for k in selected) or run.returncode not in (0, 1)
    missing = any(status[k] in ("missing", "no case") for k in selected)
    return 1 if failing or (args.fail_on_missing and missing) else 0


if __name__ == "__main__":
    sys.exit(main())
