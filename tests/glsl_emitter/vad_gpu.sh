#!/usr/bin/env bash
# Silero VAD through the glsl target on an NVIDIA GPU: all 212 chunks of
# tests/silero_vad/speech.wav, compared with the simulator (CPU backend) run here.
#
#   here:  tests/glsl_emitter/vad_gpu.sh pack [BUILD_DIR] [PACK_DIR]   (default build/glslemit,
#          BUILD_DIR/vadpack)
#   there: tests/glsl_emitter/vad_gpu.sh run PACK_DIR [DEBS_DIR] [OUT]  (default .gl, $OUT):
#          writes OUT/glsl.oinf (and the runner's timing)
#   here:  tests/glsl_emitter/vad_gpu.sh compare PACK_DIR GLSL.oinf
#
# `pack` synthesizes examples/silero_vad/vad.oi for devices/nvidia_h100.json, compiles the
# shaders with glslc, runs the simulator on the chunks and packs the manifest runner with the
# C++ runtime it loads (the GPU machine may have an older glibc), as gpu_bench.sh does.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/../.."

pack() {
  local build=${1:-build/glslemit} out=${2:-${1:-build/glslemit}/vadpack}
  rm -rf "$out" && mkdir -p "$out/bin" "$out/glibc"
  local model
  model="$(examples/silero_vad/fetch_and_export.sh --quiet)"
  cp "$model" "$out/model.oinf"
  "$build/bin/openinfer" synth examples/silero_vad/vad.oi --model "$out/model.oinf" \
    --target glsl --device devices/nvidia_h100.json --name vad -o "$out/gen"
  for s in "$out"/gen/shaders/*.comp; do
    glslc --target-env=vulkan1.1 -O "$s" -o "${s%.comp}.spv"
    glslc --target-env=vulkan1.1 -O -DOI_IEEE_SPECIALS "$s" -o "${s%.comp}_ieee.spv"
  done
  local steps
  steps="$(/usr/bin/python3 examples/silero_vad/wav_to_chunks.py tests/silero_vad/speech.wav \
    "$out/chunks.oinf")"
  echo "$steps" >"$out/steps"
  "$build/bin/openinfer" run examples/silero_vad/vad.oi --model "$out/model.oinf" \
    --steps "$steps" --input "chunk=$out/chunks.oinf:chunk.{step}" --fetch prob \
    --save "$out/sim.oinf" -q
  cp "$build/tests/glsl_emitter/glsl_manifest_runner" "$out/bin/"
  strip --strip-debug "$out/bin/glsl_manifest_runner"
  ldd "$out/bin/glsl_manifest_runner" | awk '/=> \// {print $3} /^\t\/.*ld-linux/ {print $1}' |
    while read -r lib; do cp -L "$lib" "$out/glibc/"; done
  ldd --version | awk 'NR == 1 {print $NF}' >"$out/glibc/version"
  echo "packed into $out ($(du -sh "$out" | cut -f1)), $steps chunks"
}

run() {
  local pack=$1 debs=${2:-.gl} out=${3:-${OUT:-.}}
  for f in "$debs"/*.deb; do dpkg -x "$f" /; done
  ldconfig
  local icd=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
  if [[ -z "${VK_DRIVER_FILES:-}" && -f $icd ]]; then export VK_DRIVER_FILES=$icd; fi
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader || true
  local libs="" loader=() have want
  have=$(ldd --version | awk 'NR == 1 {print $NF}')
  want=$(cat "$pack/glibc/version")
  if [[ "$(printf '%s\n%s\n' "$have" "$want" | sort -V | head -1)" != "$want" ]]; then
    libs="$PWD/$pack/glibc"
    loader=("$pack/glibc/ld-linux-x86-64.so.2" --library-path "$libs")
  fi
  local start end
  start=$(date +%s%N)
  LD_LIBRARY_PATH="$libs" "${loader[@]}" "$pack/bin/glsl_manifest_runner" --manifest "$pack/gen" \
    --model "$pack/model.oinf" --steps "$(cat "$pack/steps")" \
    --input "chunk=$pack/chunks.oinf:chunk.{step}" --fetch prob --save "$out/glsl.oinf" --quiet
  end=$(date +%s%N)
  echo "$(cat "$pack/steps") chunks in $(((end - start) / 1000000)) ms (device start included)"
}

compare() {
  local pack=$1 got=$2
  PYTHONPATH=python /usr/bin/python3 - "$got" "$pack/sim.oinf" "$(cat "$pack/steps")" <<'PY'
import sys
from openinfer import oinf
got, want, steps = oinf.read(sys.argv[1]), oinf.read(sys.argv[2]), int(sys.argv[3])
d = [abs(float(got[f"prob.step{i}"].reshape(-1)[0]) - float(want[f"prob.step{i}"].reshape(-1)[0]))
     for i in range(steps)]
worst = max(range(steps), key=lambda i: d[i])
print(f"glsl on the GPU vs simulator: {steps} chunks, largest difference {d[worst]:.3g} "
      f"(chunk {worst})")
sys.exit(0 if d[worst] <= 1e-4 else 1)
PY
}

case "${1:-}" in
  pack) shift; pack "$@" ;;
  run) shift; run "$@" ;;
  compare) shift; compare "$@" ;;
  *) echo "usage: $0 pack [BUILD_DIR] [PACK_DIR] | run PACK_DIR [DEBS_DIR] [OUT] | compare PACK_DIR GLSL.oinf" >&2; exit 2 ;;
esac
