#!/usr/bin/env bash
# CPU exp, tanh, sigmoid, silu, gelu (both forms), erf, log and sin over [64, 4096] and 16M f32
# vs PyTorch (CPU, 2 threads) and copy probes, in one go.
#
#   cmake --build BUILD_DIR -j2 --target nn_math_bench openinfer_cpu
#   bench/nn_math.sh [BUILD_DIR] [--runs N] [--budget-s S] [--only CASE] [--plugin-dir DIR]
#
# BUILD_DIR defaults to build/bench. Builds nothing (bench/peer_run.sh installs python3-torch). Runs
# BUILD_DIR/bench/nn_math_bench (--plugin-dir: another build's CPU plugin, e.g. the scalar libm
# path before vector_math, for before/after), then bench/nn_math_peers.py with /usr/bin/python3,
# and prints a table: OI/torch = torch time / OpenInfer time; GB/s = bytes the op must move (input
# read, output written, each once) / median time; "% of copy" against a memcpy of the same bytes
# on all hardware threads (in cache for 64x4096, DRAM for 16M). Raw JSON lines are kept in
# $NN_MATH_OUT (default: a temporary directory).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
source "$root/bench/peer_run.sh"
peer_run nn_math_bench nn_math_peers.py NN_MATH_OUT "$@"

"$py" - "$out" "$root/bench" <<'PY'
import sys

sys.path.insert(0, sys.argv[2])
from peer_table import read  # noqa: E402

(oi_all, torch_all), infos = read(sys.argv[1])
oi = {case: recs[0] for case, recs in oi_all.items()}
torch = {case: recs[0] for case, recs in torch_all.items()}
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
