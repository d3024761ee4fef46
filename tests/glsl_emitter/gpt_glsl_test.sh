#!/usr/bin/env bash
# gpt_glsl_test.sh OPENINFER RUNNER GLSLC WORK SOURCE_DIR [f16]: examples/gpt/gpt.oi (prefix tables of
# weights, persistent K/V tables of f16 entries growing with the position, token and logits
# tables, bool conditions driving host branches, i64 tokens, attention over windows of 32 and T
# positions) on the tiny model of tests/gpt, synthesized for devices/lavapipe.json with the glsl
# target and run by the manifest runner for 32 steps (the 8 prompt tokens, then 32 generated:
# positions up to 39, past the 32-position window and the tables' first capacity of 16). Every
# step's token and logits are held against the simulator's on the CPU backend (`openinfer run`)
# within ops.md's tolerances (tests/synth/compare_oinf.py), and the greedy tokens against
# PyTorch's (tests/gpt/fixtures/tiny_reference.oinf). With `f16`: examples/gpt/gpt_f16.oi on the
# f16 weights of tests/gpt/fixtures/tiny_f16_model.oinf, against tiny_f16_reference.oinf.
# Exit 77 (skipped): no Vulkan device.
set -euo pipefail
oi=$1; runner=$2; glslc=$3; work=$4; src=$5; dtype=${6:-f32}
source "$src/tests/glsl_emitter/run_manifest.sh"
fx=$src/tests/gpt/fixtures
graph=$src/examples/gpt/gpt.oi model=$fx/tiny_model.oinf reference=$fx/tiny_reference.oinf
if [[ $dtype == f16 ]]; then
  graph=$src/examples/gpt/gpt_f16.oi model=$fx/tiny_f16_model.oinf
  reference=$fx/tiny_f16_reference.oinf
fi
steps=32
rm -rf "$work"
mkdir -p "$work"
"$oi" synth "$graph" --model "$model" --target glsl \
  --device "$src/devices/lavapipe.json" --name gpt -o "$work/gen"
bash "$src/tests/glsl_emitter/compile_shaders.sh" "$glslc" "$work/gen" plain
run_manifest "$work/runner.log" --manifest "$work/gen" --model "$model" --steps $steps \
  --save "$work/glsl.oinf" --quiet
"$oi" run "$graph" --model "$model" --steps $steps \
  --save "$work/sim.oinf" -q
if [[ $dtype == f32 ]]; then
  PYTHONPATH="$src/python" /usr/bin/python3 "$src/tests/synth/compare_oinf.py" "$work/sim.oinf" \
    "$work/glsl.oinf"
else  # f16 roundings of one ulp carry through the layers: examples/gpt/gpt_check.hpp's bound
  PYTHONPATH="$src/python" /usr/bin/python3 - "$work/sim.oinf" "$work/glsl.oinf" <<'PY'
import sys
import numpy as np
from openinfer import oinf
want, got = oinf.read(sys.argv[1]), oinf.read(sys.argv[2])
if sorted(want.tensors) != sorted(got.tensors):
    sys.exit(f"tensor names differ: {sorted(want.tensors)} vs {sorted(got.tensors)}")
worst = 0.0
for name in want.tensors:
    w, g = np.asarray(want[name]), np.asarray(got[name])
    if w.dtype.kind in "iub":
        if not np.array_equal(w, g):
            sys.exit(f"{name}: {g.tolist()} vs the simulator's {w.tolist()}")
        continue
    w, g = w.astype(np.float64), g.astype(np.float64)
    tol = 2e-3 * float(np.abs(w).max()) if w.size else 0.0
    d = float(np.abs(w - g).max()) if w.size else 0.0
    if not d <= tol:
        sys.exit(f"{name}: max |d| {d:.3g} > {tol:.3g} (2e-3 * max |simulator|)")
    worst = max(worst, d / tol if tol else 0.0)
print(f"ok: tokens exact, floats within {worst:.2f} of 2e-3 * max |simulator| each")
PY
fi
PYTHONPATH="$src/python" /usr/bin/python3 - "$work/glsl.oinf" "$reference" $steps <<'PY'
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
echo "ok: the GPT decoder ($dtype weights) through the glsl target gives the simulator's tokens and logits"
