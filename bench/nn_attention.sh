#!/usr/bin/env bash
# CPU attention, rope and dequantize vs PyTorch (CPU, 2 threads), in one go.
#
#   cmake --build BUILD_DIR -j2 --target nn_attention_bench openinfer_cpu
#   bench/nn_attention.sh [BUILD_DIR] [--runs N] [--budget-s S] [--only CASE]  # build/bench
#
# Builds nothing. Installs python3-torch with apt-get when it is missing (benchmarks are not
# part of CI). Runs BUILD_DIR/bench/nn_attention_bench, then bench/nn_attention_peers.py with
# Debian's /usr/bin/python3, and prints a table: OI/torch = torch time / OpenInfer time, against
# the faster of torch's two attention forms. Raw JSON lines are kept in $NN_ATTENTION_OUT
# (default: a temporary directory).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
source "$root/bench/peer_run.sh"
peer_run nn_attention_bench nn_attention_peers.py NN_ATTENTION_OUT "$@"
"$py" "$root/bench/peer_table.py" "$out"
