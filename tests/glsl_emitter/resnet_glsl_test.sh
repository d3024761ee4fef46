#!/usr/bin/env bash
# resnet_glsl_test.sh OPENINFER RUNNER GLSLC WORK SOURCE_DIR: examples/resnet/resnet.oi (prefix
# tables of weights chosen by loop indices, convs, max pool, residual adds, mean, matmul) on the
# tiny ResNet-18 fixture of tests/examples/resnet, synthesized for devices/lavapipe.json with
# the glsl target and run by the manifest runner for two steps of the same image; its logits
# are held against PyTorch's (reference.oinf) and the simulator's on the CPU backend (`openinfer
# run`, two steps too) within ops.md's tolerances (tests/synth/compare_oinf.py).
# Exit 77 (skipped): no Vulkan device.
set -euo pipefail
oi=$1; runner=$2; glslc=$3; work=$4; src=$5
source "$src/tests/glsl_emitter/run_manifest.sh"
fx=$src/tests/examples/resnet/fixtures
compare() {
  PYTHONPATH="$src/python" /usr/bin/python3 "$src/tests/synth/compare_oinf.py" "$1" "$2"
}
rm -rf "$work"
mkdir -p "$work"
"$oi" synth "$src/examples/resnet/resnet.oi" --model "$fx/model.oinf" --target glsl \
  --device "$src/devices/lavapipe.json" --name resnet -o "$work/gen"
bash "$src/tests/glsl_emitter/compile_shaders.sh" "$glslc" "$work/gen" plain
run_manifest "$work/runner.log" --manifest "$work/gen" --model "$fx/model.oinf" --steps 2 \
  --input "image=$fx/input.oinf" --save "$work/glsl.oinf" --quiet
"$oi" run "$src/examples/resnet/resnet.oi" --model "$fx/model.oinf" --steps 2 \
  --input "image=$fx/input.oinf" --save "$work/sim.oinf" -q
compare "$work/sim.oinf" "$work/glsl.oinf"
# The last step's logits against PyTorch's.
PYTHONPATH="$src/python" /usr/bin/python3 - "$work/glsl.oinf" "$work/last.oinf" <<'PY'
import sys
from openinfer import oinf
pkg = oinf.read(sys.argv[1])
oinf.write(sys.argv[2], tensors={"logits": pkg["logits"]})
PY
compare "$fx/reference.oinf" "$work/last.oinf"
echo "ok: ResNet-18 through the glsl target gives the simulator's and PyTorch's logits"
