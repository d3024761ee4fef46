#!/usr/bin/env bash
# CPU conv, max_pool, avg_pool and batch_norm vs PyTorch (CPU, 2 threads), in one go.
#
#   cmake --build BUILD_DIR -j2 --target nn_spatial_bench openinfer_cpu
#   bench/nn_spatial.sh [BUILD_DIR] [--runs N] [--budget-s S] [--only CASE]  # build/bench
#
# Builds nothing. Installs python3-torch with apt-get when it is missing (benchmarks are not
# part of CI). Runs BUILD_DIR/bench/nn_spatial_bench, then bench/nn_spatial_peers.py with
# Debian's /usr/bin/python3, and prints a table: OI/torch = torch time / OpenInfer time.
# Raw JSON lines are kept in $NN_SPATIAL_OUT
# (default: a temporary directory).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
source "$root/bench/peer_run.sh"
peer_run nn_spatial_bench nn_spatial_peers.py NN_SPATIAL_OUT "$@"
"$py" "$root/bench/peer_table.py" "$out"
