#!/usr/bin/env bash
# Compile time and code size of the C target (issue 18): Silero VAD and the GPT example
# (the tiny committed model of tests/gpt), synthesized with --embed-weights and without, then
# compiled as a user would (cc -std=c11 -O2). Prints, per program: generated C (files, lines,
# bytes), compile wall time (median of RUNS), and the text/data sizes of the binary without the
# embedded weights' bytes counted twice (`size`).
#   bench/synth_c_build_cost.sh BUILD_DIR [RUNS]     e.g. bench/synth_c_build_cost.sh build/dev 3
set -euo pipefail
build=${1:?usage: synth_c_build_cost.sh BUILD_DIR [RUNS]}
runs=${2:-3}
src=$(cd "$(dirname "$0")/.." && pwd)
oi="$build/bin/openinfer"
cc=${CC:-cc}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

vad_model="$("$src/examples/silero_vad/fetch_and_export.sh" --quiet)" || vad_model=""

measure() {  # NAME GRAPH MODEL [synth options...]
  local name=$1 graph=$2 model=$3
  shift 3
  local out="$work/$name"
  "$oi" synth "$graph" --model "$model" --target c --name "$name" -o "$out/gen" "$@" >/dev/null
  local files lines bytes
  files=$(find "$out/gen" -name '*.c' -o -name '*.h' | wc -l)
  lines=$(find "$out/gen" \( -name '*.c' -o -name '*.h' \) -exec cat {} + | wc -l)
  bytes=$(find "$out/gen" \( -name '*.c' -o -name '*.h' \) -exec cat {} + | wc -c)
  local times=()
  for _ in $(seq "$runs"); do
    local t0 t1
    t0=$(date +%s.%N)
    "$cc" -std=c11 -O2 "$out"/gen/*.c -lm -o "$out/prog"
    t1=$(date +%s.%N)
    times+=("$(echo "$t1 - $t0" | bc)")
  done
  local median
  median=$(printf '%s\n' "${times[@]}" | sort -g | sed -n "$(((runs + 1) / 2))p")
  read -r text data bss _ < <(size "$out/prog" | tail -1)
  printf '%-16s %5s files %7s lines %9s bytes  compile %6.2f s  text %9s  data %9s  bss %9s\n' \
    "$name" "$files" "$lines" "$bytes" "$median" "$text" "$data" "$bss"
}

echo "cc: $($cc --version | head -1); load: $(cut -d' ' -f1-3 /proc/loadavg)"
if [ -n "$vad_model" ]; then
  measure vad "$src/examples/silero_vad/vad.oi" "$vad_model"
  measure vad_embedded "$src/examples/silero_vad/vad.oi" "$vad_model" --embed-weights
else
  echo "vad: skipped (the Silero VAD model cannot be downloaded)"
fi
measure gpt "$src/examples/gpt/gpt.oi" "$src/tests/gpt/fixtures/tiny_model.oinf"
measure gpt_embedded "$src/examples/gpt/gpt.oi" "$src/tests/gpt/fixtures/tiny_model.oinf" --embed-weights
