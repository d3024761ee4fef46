#!/usr/bin/env bash
# The performance targets of the "ops real networks need" issue, measured in one run on the CPU
# against PyTorch (CPU, 2 threads) and a STREAM-style copy probe:
#   softmax and layer_norm over [64, 4096] f32: >= 80% of the DRAM copy bandwidth;
#   conv 3x3 [1, 64, 56, 56] -> 64 and depthwise 3x3 [1, 256, 28, 28]: >= 0.7x PyTorch;
#   attention decode (32 heads, Dh 128, 2,048-token cache) and 512-token causal prefill: >= 1x.
#
#   cmake --build BUILD_DIR -j2 --target nn_rows_bench nn_spatial_bench nn_attention_bench \
#     openinfer_cpu
#   bench/nn_targets.sh [BUILD_DIR] [--runs N] [--budget-s S]      # default build/bench
#
# Runs bench/nn_rows.sh, nn_spatial.sh and nn_attention.sh one after the other (their own
# tables are printed as they go), then bench/nn_targets.py prints one table: each target, the
# measured figure and whether it is met. Raw JSON lines are kept in $NN_TARGETS_OUT (default: a
# temporary directory). Use a Release build on an otherwise idle machine.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build_dir="build/bench"
if [[ $# -gt 0 && "$1" != --* ]]; then
  build_dir="$1"
  shift
fi
out="${NN_TARGETS_OUT:-$(mktemp -d)}"
mkdir -p "$out/rows" "$out/spatial" "$out/attention"
NN_ROWS_OUT="$out/rows" "$root/bench/nn_rows.sh" "$build_dir" "$@"
NN_SPATIAL_OUT="$out/spatial" "$root/bench/nn_spatial.sh" "$build_dir" --only conv "$@"
NN_ATTENTION_OUT="$out/attention" "$root/bench/nn_attention.sh" "$build_dir" --only attention \
  "$@"
/usr/bin/python3 "$root/bench/nn_targets.py" "$out"
