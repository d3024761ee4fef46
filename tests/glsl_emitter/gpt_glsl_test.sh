#!/usr/bin/env bash
# gpt_glsl_test.sh OPENINFER RUNNER GLSLC WORK SOURCE_DIR: examples/gpt/gpt.oi (prefix tables of
# weights, persistent K/V tables of f16 entries growing with the position, token and logits
# tables, bool conditions driving host branches, i64 tokens, attention over windows of 32 and T
# positions) on the tiny model of tests/gpt, synthesized for devices/lavapipe.json with the glsl
# target and run by the manifest runner for 32 steps (the 8 prompt tokens, then 32 generated:
# positions up to 39, past the 32-position window and the tables' first capacity of 16). Every
# step's token and logits are held against the simulator's on the CPU backend (`openinfer run`)
# within ops.md's tolerances (tests/synth/compare_oinf.py), and the greedy tokens against
# PyTorch's (tests/gpt/fixtures/tiny_reference.oinf).
# Exit 77 (skipped): no Vulkan device.
set -euo pipefail
oi=$1; runner=$2; glslc=$3; work=$4; src=$5
source "$src/tests/glsl_emitter/run_manifest.sh"
fx=$src/tests/gpt/fixtures
steps=32
rm -rf "$work"
mkdir -p "$work"
"$oi" synth "$src/examples/gpt/gpt.oi" --model "$fx/tiny_model.oinf" --target glsl \
  --device "$src/devices/lavapipe.json" --name gpt -o "$work/gen"
bash "$src/tests/glsl_emitter/compile_shaders.sh" "$glslc" "$work/gen" plain
run_manifest "$work/runner.log" --manifest "$work/gen" --model "$fx/tiny_model.oinf" --steps $steps \
  --save "$work/glsl.oinf" --quiet
"$oi" run "$src/examples/gpt/gpt.oi" --model "$fx/tiny_model.oinf" --steps $steps \
  --save "$work/sim.oinf" -q
PYTHONPATH="$src/python" /usr/bin/python3 "$src/tests/synth/compare_oinf.py" "$work/sim.oinf" \
  "$work/glsl.oinf"
PYTHONPATH="$src/python" /usr/bin/python3 - "$work/glsl.oinf" "$fx/tiny_reference.oinf" $steps <<'PY'
import sys
import numpy as np
from openinfer import oinf
got, ref, steps = oinf.read(sys.argv[1]), oinf.read(sys.argv[2]), int(sys.argv[3])
tokens = [int(got[f"next.step{i}"]) for i in range(steps)]
want = [int(t) for t in ref["generated"][:steps]]
if tokens != want:
    sys.exit(f"greedy tokens {tokens}, PyTorch's {want}")
print(f"ok: the {steps} greedy tokens are PyTorch's")
PY
echo "ok: the GPT decoder through the glsl target gives the simulator's tokens and logits"
