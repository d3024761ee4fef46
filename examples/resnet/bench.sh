#!/usr/bin/env bash
# ResNet-18 images/s on the CPU backend next to PyTorch CPU (2 threads), batch 1 and 8.
#
#   cmake --build BUILD_DIR -j2 --target resnet_example openinfer_cpu
#   examples/resnet/bench.sh [BUILD_DIR] [--runs N]           # BUILD_DIR: build/dev
#
# Exports the full-size model (width 64, 224x224, random weights) for each batch into
# $RESNET_OUT (default: a temporary directory), checks it against PyTorch's logits, times it
# with resnet_example, then times PyTorch with examples/resnet/resnet_torch_speed.py.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
build_dir="build/dev"
if [[ $# -gt 0 && "$1" != --* ]]; then
  build_dir="$1"
  shift
fi
runs=11
if [[ $# -ge 2 && "$1" == --runs ]]; then runs="$2"; fi
bin="$build_dir/bin/resnet_example"
[[ -x "$bin" ]] || { echo "bench.sh: $bin not found; build resnet_example first" >&2; exit 2; }
out="${RESNET_OUT:-$(mktemp -d)}"
echo "# $(date -u +%Y-%m-%dT%H:%MZ) nproc=$(nproc) load=\"$(cut -d' ' -f1-3 /proc/loadavg)\""
for batch in 1 8; do
  /usr/bin/python3 "$root/examples/resnet/export_resnet.py" "$out/b$batch" --batch "$batch" >/dev/null
  "$bin" --model "$out/b$batch/model.oinf" --input "$out/b$batch/input.oinf" \
    --reference "$out/b$batch/reference.oinf" --runs "$runs" | grep -v "^  image"
  /usr/bin/python3 "$root/examples/resnet/resnet_torch_speed.py" --batch "$batch" --runs "$runs"
done
