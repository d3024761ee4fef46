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
source "$root/bench/peer_run.sh"
peer_run nn_rows_bench nn_rows_peers.py NN_ROWS_OUT "$@"

"$py" - "$out" "$root/bench" <<'PY'
import sys

sys.path.insert(0, sys.argv[2])
from peer_table import read  # noqa: E402

out = sys.argv[1]
(oi_all, torch_all), infos = read(out)
oi = {case: recs[0] for case, recs in oi_all.items()}
torch = {case: recs[0] for case, recs in torch_all.items()}
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
