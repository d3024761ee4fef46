#!/usr/bin/env bash
# CPU softmax, layer_norm, rms_norm and log_softmax over [64, 4096] f32 vs PyTorch (CPU,
# 2 threads) and two copy probes, in one go.
#
#   cmake --build BUILD_DIR -j2 --target nn_rows_bench openinfer_cpu
#   bench/nn_rows.sh [BUILD_DIR] [--runs N] [--budget-s S] [--only CASE]  # build/bench
#
# Builds nothing; needs Debian's python3-torch (bench/nn_spatial.sh installs it). Runs
# BUILD_DIR/bench/nn_rows_bench, then bench/nn_rows_peers.py with /usr/bin/python3, and prints
# a table: OI/torch = torch time / OpenInfer time; GB/s = bytes the op must move (input read,
# output written, weights read, each once) / median time; "% of DRAM copy" against the
# STREAM-style copy over 16M doubles, "% of cache copy" against a memcpy of the same 1 MiB.
# Raw JSON lines are kept in $NN_ROWS_OUT (default: a temporary directory).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build_dir="build/bench"
if [[ $# -gt 0 && "$1" != --* ]]; then
  build_dir="$1"
  shift
fi
bench_args=("$@")
bin="$build_dir/bench/nn_rows_bench"
if [[ ! -x "$bin" ]]; then
  echo "nn_rows.sh: $bin not found; build it first:" >&2
  echo "  cmake --build $build_dir -j2 --target nn_rows_bench openinfer_cpu" >&2
  exit 2
fi
py=/usr/bin/python3
if ! "$py" -c "import torch" 2>/dev/null; then
  echo "nn_rows.sh: /usr/bin/python3 cannot import torch (apt-get install python3-torch)" >&2
  exit 2
fi

out="${NN_ROWS_OUT:-$(mktemp -d)}"
mkdir -p "$out"
echo "# $(date -u +%Y-%m-%dT%H:%MZ) nproc=$(nproc) load=\"$(cut -d' ' -f1-3 /proc/loadavg)\""
echo "# raw JSON lines: $out"
"$bin" "${bench_args[@]}" >"$out/openinfer.jsonl"
"$py" "$root/bench/nn_rows_peers.py" "${bench_args[@]}" >"$out/torch.jsonl"

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
dram = oi.get("stream_copy", {}).get("gbps")
cache = oi.get("copy_f32_64x4096", {}).get("gbps")
print(f"# copy probes (median): DRAM {dram or 0:.1f} GB/s, same-size in cache {cache or 0:.1f} GB/s")
print("| case | OpenInfer ms (min) | torch ms (min) | OI/torch median | OI GB/s | torch GB/s "
      "| OI % of DRAM copy | OI % of cache copy |")
print("| --- | --- | --- | --- | --- | --- | --- | --- |")
for case, o in oi.items():
    if case in ("stream_copy", "copy_f32_64x4096"):
        continue
    t = torch.get(case)
    pct = lambda ref: f"{100 * o['gbps'] / ref:.0f}%" if ref else "-"
    tcol = f"{t['median_ms']:.3f} ({t['min_ms']:.3f})" if t else "-"
    ratio = f"{t['median_ms'] / o['median_ms']:.2f}x" if t else "-"
    tgb = f"{t['bytes'] / (t['median_ms'] * 1e6):.1f}" if t else "-"
    print(f"| {case} | {o['median_ms']:.3f} ({o['min_ms']:.3f}) | {tcol} | {ratio} | "
          f"{o['gbps']:.1f} | {tgb} | {pct(dram)} | {pct(cache)} |")
print("# OI/torch above 1: OpenInfer faster.")
PY
