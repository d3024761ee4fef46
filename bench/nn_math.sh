#!/usr/bin/env bash
# CPU exp, tanh, sigmoid, silu, gelu (both forms), erf, log and sin over [64, 4096] and 16M f32
# vs PyTorch (CPU, 2 threads) and copy probes, in one go.
#
#   cmake --build BUILD_DIR -j2 --target nn_math_bench openinfer_cpu
#   bench/nn_math.sh [BUILD_DIR] [--runs N] [--budget-s S] [--only CASE] [--plugin-dir DIR]
#
# BUILD_DIR defaults to build/bench. Builds nothing; needs Debian's python3-torch. Runs
# BUILD_DIR/bench/nn_math_bench (--plugin-dir: another build's CPU plugin, e.g. the scalar libm
# path before vector_math, for before/after), then bench/nn_math_peers.py with /usr/bin/python3,
# and prints a table: OI/torch = torch time / OpenInfer time; GB/s = bytes the op must move (input
# read, output written, each once) / median time; "% of copy" against a memcpy of the same bytes
# on all hardware threads (in cache for 64x4096, DRAM for 16M). Raw JSON lines are kept in
# $NN_MATH_OUT (default: a temporary directory).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build_dir="build/bench"
if [[ $# -gt 0 && "$1" != --* ]]; then
  build_dir="$1"
  shift
fi
bench_args=("$@")
bin="$build_dir/bench/nn_math_bench"
if [[ ! -x "$bin" ]]; then
  echo "nn_math.sh: $bin not found; build it first:" >&2
  echo "  cmake --build $build_dir -j2 --target nn_math_bench openinfer_cpu" >&2
  exit 2
fi
py=/usr/bin/python3
if ! "$py" -c "import torch" 2>/dev/null; then
  echo "nn_math.sh: /usr/bin/python3 cannot import torch (apt-get install python3-torch)" >&2
  exit 2
fi

out="${NN_MATH_OUT:-$(mktemp -d)}"
mkdir -p "$out"
echo "# $(date -u +%Y-%m-%dT%H:%MZ) nproc=$(nproc) load=\"$(cut -d' ' -f1-3 /proc/loadavg)\""
echo "# raw JSON lines: $out"
"$bin" "${bench_args[@]}" >"$out/openinfer.jsonl"
"$py" "$root/bench/nn_math_peers.py" "${bench_args[@]}" >"$out/torch.jsonl"

"$py" - "$out" <<'PY'
import json, os, sys

out = sys.argv[1]
oi, torch, infos = {}, {}, []
for impl, table in (("openinfer", oi), ("torch", torch)):
    with open(os.path.join(out, impl + ".jsonl")) as f:
        for line in f:
            rec = json.loads(line)
            if "info" in rec:
                infos.append(f"{impl}: {rec['info']}")
            else:
                table[rec["case"]] = rec
for line in infos:
    print("#", line)
probes = {"64x4096": "copy_f32_64x4096", "16M": "copy_f32_16M"}
copy = {shape: oi.get(name, {}).get("gbps") for shape, name in probes.items()}
dram = oi.get("stream_copy", {}).get("gbps")
print(f"# copy probes (median): STREAM 16M doubles {dram or 0:.1f} GB/s, 64x4096 f32 "
      f"{copy['64x4096'] or 0:.1f} GB/s (cache), 16M f32 {copy['16M'] or 0:.1f} GB/s (DRAM)")
print("| case | OpenInfer ms (min) | torch ms (min) | OI/torch median | OI GB/s | torch GB/s "
      "| OI % of copy |")
print("| --- | --- | --- | --- | --- | --- | --- |")
for case, o in oi.items():
    if case == "stream_copy" or case.startswith("copy_"):
        continue
    t = torch.get(case)
    ref = copy.get(case.rsplit("_", 1)[-1])
    pct = f"{100 * o['gbps'] / ref:.0f}%" if ref else "-"
    tcol = f"{t['median_ms']:.3f} ({t['min_ms']:.3f})" if t else "-"
    ratio = f"{t['median_ms'] / o['median_ms']:.2f}x" if t else "-"
    tgb = f"{t['bytes'] / (t['median_ms'] * 1e6):.1f}" if t else "-"
    print(f"| {case} | {o['median_ms']:.3f} ({o['min_ms']:.3f}) | {tcol} | {ratio} | "
          f"{o['gbps']:.1f} | {tgb} | {pct} |")
print("# OI/torch above 1: OpenInfer faster.")
PY
