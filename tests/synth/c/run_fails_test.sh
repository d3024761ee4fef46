#!/bin/sh
# run_fails_test.sh OPENINFER CC WORK GRAPH MODEL_TXT INPUT_TXT STEPS PATTERN INPUT...: the
# generated program of GRAPH (built with ASan+UBSan) runs its first step and stops at a later
# one with exit 1 and a message matching the extended regex PATTERN, with no sanitizer report.
# Each INPUT is --input's value with @IN@ standing for the packed INPUT_TXT.
set -eu
oi=$1; cc=$2; work=$3; graph=$4; model_txt=$5; input_txt=$6; steps=$7; pattern=$8
shift 8
rm -rf "$work"
mkdir -p "$work"
"$oi" oinf pack "$model_txt" -o "$work/model.oinf"
"$oi" oinf pack "$input_txt" -o "$work/input.oinf"
inputs=""
for spec in "$@"; do
  inputs="$inputs --input $(printf '%s' "$spec" | sed "s|@IN@|$work/input.oinf|")"
done
# SYNTH_FREESTANDING=DEVICE.json: the freestanding profile of that microcontroller, driven by
# tests/mcu/host_driver.c (c_vs_simulator.sh has the same).
if [ -n "${SYNTH_FREESTANDING:-}" ]; then
  "$oi" synth "$graph" --model "$work/model.oinf" --target c -o "$work/gen" --embed-weights \
    --device "$SYNTH_FREESTANDING"
  "$cc" -std=c11 -Wall -Wextra -Werror -O0 -g -fsanitize=address,undefined \
    -fno-sanitize-recover=all "$work/gen/model.c" "$(dirname "$0")/../../mcu/host_driver.c" \
    -I"$work/gen" -DOI_MODEL=model '-DOI_MODEL_HEADER="model.h"' -lm -o "$work/prog"
else
  "$oi" synth "$graph" --model "$work/model.oinf" --target c -o "$work/gen"
  "$cc" -std=c11 -Wall -Wextra -Werror -O0 -g -fsanitize=address,undefined \
    -fno-sanitize-recover=all "$work"/gen/*.c -lm -o "$work/prog"
fi
set +e
# shellcheck disable=SC2086
out=$("$work/prog" --model "$work/model.oinf" --steps "$steps" $inputs 2>&1)
rc=$?
set -e
printf '%s\n' "$out"
[ "$rc" = 1 ] || { echo "FAIL: exit code $rc, expected 1"; exit 1; }
printf '%s\n' "$out" | grep -q "step 0:" || { echo "FAIL: step 0 did not run"; exit 1; }
printf '%s\n' "$out" | grep -Eq -- "$pattern" || { echo "FAIL: no message matching $pattern"; exit 1; }
echo "ok: the program stopped with a clear error"
