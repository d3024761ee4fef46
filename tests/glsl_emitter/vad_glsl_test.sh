#!/usr/bin/env bash
# Silero VAD (examples/silero_vad/vad.oi) synthesized for devices/lavapipe.json (or DEVICE) with
# the glsl target, its shaders compiled with glslc, the first 40 chunks of
# tests/silero_vad/speech.wav (silence, then the onset of speech: probabilities from 0.005 to
# 1.0) streamed through the manifest runner one per step, and every probability held within
# 1e-4 of the simulator's on the CPU backend (`openinfer run`) and of ONNX Runtime's
# (tests/silero_vad/ort_reference.json). For a DEVICE without fp64 (devices/generic_vulkan.json)
# the LSTM's sigmoid and tanh are computed in f32 arithmetic (math_f32.glsl) and no kernel may
# need shaderFloat64.
#   vad_glsl_test.sh OPENINFER RUNNER GLSLC WORK SOURCE_DIR [DEVICE]
# Exit 77 (skipped): the model cannot be downloaded, or no Vulkan device.
set -euo pipefail
oi=$1; runner=$2; glslc=$3; work=$4; src=$5
device=${6:-$src/devices/lavapipe.json}
source "$src/tests/glsl_emitter/run_manifest.sh"
here="$src/tests/silero_vad"
steps=40
set +e
model="$("$src/examples/silero_vad/fetch_and_export.sh" --quiet)"
rc=$?
set -e
if [[ $rc == 77 ]]; then
  echo "SKIP: the Silero VAD model cannot be downloaded (see the message above)"
  exit 77
fi
[[ $rc == 0 ]] || { echo "FAIL: fetch_and_export.sh exited $rc"; exit 1; }
rm -rf "$work"
mkdir -p "$work"
"$oi" synth "$src/examples/silero_vad/vad.oi" --model "$model" --target glsl \
  --device "$device" --name vad -o "$work/gen"
if [[ $(/usr/bin/python3 -c "import json, sys; print(json.load(open(sys.argv[1])).get('features', {}).get('fp64', False))" "$device") == False ]] &&
  grep -q '"float64":true' "$work/gen/manifest.json"; then
  echo "FAIL: a kernel needs shaderFloat64 on $(basename "$device"), which has no fp64"; exit 1
fi
bash "$src/tests/glsl_emitter/compile_shaders.sh" "$glslc" "$work/gen"
/usr/bin/python3 "$src/examples/silero_vad/wav_to_chunks.py" "$here/speech.wav" \
  "$work/chunks.oinf" > /dev/null
run_manifest "$work/runner.log" --manifest "$work/gen" --model "$model" --steps $steps \
  --input "chunk=$work/chunks.oinf:chunk.{step}" --fetch prob --save "$work/glsl.oinf" --quiet
"$oi" run "$src/examples/silero_vad/vad.oi" --model "$model" --steps $steps \
  --input "chunk=$work/chunks.oinf:chunk.{step}" --fetch prob --save "$work/sim.oinf" -q
to_json() {  # PROBS.oinf OUT.json: the per-chunk probabilities as compare_probs.py reads them
  PYTHONPATH="$src/python" /usr/bin/python3 - "$1" "$steps" "$2" <<'PY'
import json, sys
from openinfer import oinf
pkg, steps = oinf.read(sys.argv[1]), int(sys.argv[2])
probs = [float(pkg[f"prob.step{i}"].reshape(-1)[0]) for i in range(steps)]
json.dump({"probabilities": probs, "segments": []}, open(sys.argv[3], "w"))
PY
}
to_json "$work/glsl.oinf" "$work/glsl.json"
to_json "$work/sim.oinf" "$work/sim.json"
/usr/bin/python3 - "$work/glsl.json" "$work/sim.json" <<'PY'
import json, sys
got = json.load(open(sys.argv[1]))["probabilities"]
want = json.load(open(sys.argv[2]))["probabilities"]
worst = max(range(len(want)), key=lambda i: abs(got[i] - want[i]))
diff = abs(got[worst] - want[worst])
print(f"glsl vs simulator: {len(want)} chunks, largest difference {diff:.3g} (chunk {worst}: "
      f"{got[worst]:.6f} vs {want[worst]:.6f}); probabilities {min(want):.3f} to {max(want):.3f}")
sys.exit(0 if diff <= 1e-4 else 1)
PY
/usr/bin/python3 "$here/compare_probs.py" "$work/glsl.json" "$here/ort_reference.json" \
  --first $steps --min-chunks $steps
echo "ok: the glsl target gives the simulator's probabilities on $steps chunks ($(basename "$device"))"
