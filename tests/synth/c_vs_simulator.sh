#!/bin/sh
# c_vs_simulator.sh OPENINFER CC WORK GRAPH MODEL_TXT INPUT_TXT STEPS INPUT...
# Synthesizes GRAPH to C, compiles it with CC (-std=c11 -Wall -Wextra -Werror -O2, then again
# under ASan+UBSan; Clang, where installed, checks the same warnings), runs STEPS steps and holds its --save output byte for byte (or by SYNTH_COMPARE's mode) against
# `openinfer run --save` (the simulator on the CPU backend). Each INPUT is `openinfer run`'s
# --input value with @IN@ standing for the packed INPUT_TXT (no spaces).
set -eu
oi=$1; cc=$2; work=$3; graph=$4; model_txt=$5; input_txt=$6; steps=$7
shift 7
rm -rf "$work"
mkdir -p "$work"
"$oi" oinf pack "$model_txt" -o "$work/model.oinf"
"$oi" oinf pack "$input_txt" -o "$work/input.oinf"
inputs=""
for spec in "$@"; do
  inputs="$inputs --input $(printf '%s' "$spec" | sed "s|@IN@|$work/input.oinf|")"
done
# SYNTH_EMBED=1: --embed-weights (the model's tensors become arrays of model.c).
embed=""
if [ "${SYNTH_EMBED:-0}" = 1 ]; then embed=--embed-weights; fi
# SYNTH_FREESTANDING=DEVICE.json: the freestanding profile of that microcontroller (docs/synth.md:
# weights embedded, no main of its own), driven by tests/mcu/host_driver.c, which takes the
# hosted driver's options. `sources CC FLAGS...` compiles the program's sources.
if [ -n "${SYNTH_FREESTANDING:-}" ]; then
  embed="--embed-weights --device $SYNTH_FREESTANDING"
  driver="$(cd "$(dirname "$0")/../mcu" && pwd)/host_driver.c"
  sources() {
    # shellcheck disable=SC2086
    "$@" "$work/gen/model.c" "$driver" -I"$work/gen" -DOI_MODEL=model \
      '-DOI_MODEL_HEADER="model.h"' $libs
  }
else
  # shellcheck disable=SC2086
  sources() { "$@" "$work"/gen/*.c $libs; }
fi
libs=""
build() {
  libs=-lm
  sources "$@"
  libs=""
}
# shellcheck disable=SC2086
"$oi" synth "$graph" --model "$work/model.oinf" --target c -o "$work/gen" --report $embed
build "$cc" -std=c11 -Wall -Wextra -Werror -O2 -o "$work/prog"
# Clang's warnings differ from GCC's (unused static functions of a macro, say): where Clang is
# installed and CC is not it, the same flags must pass there too (syntax and warnings only).
if command -v clang >/dev/null 2>&1 && [ "$(basename "$cc")" != clang ]; then
  sources clang -std=c11 -Wall -Wextra -Werror -fsyntax-only
fi
# shellcheck disable=SC2086
"$work/prog" --model "$work/model.oinf" --steps "$steps" $inputs --save "$work/gen.oinf" -q
# shellcheck disable=SC2086
"$oi" run "$graph" --model "$work/model.oinf" --steps "$steps" $inputs --save "$work/sim.oinf" -q
# SYNTH_TOLERANCE=1: matmul and reductions, whose summation order may differ (ops.md).
# SYNTH_COMPARE=MODE: compare_oinf.py's MODE (ulp: the transcendental math, where the CPU
# backend's vector functions and the generated C's libm may differ within ops-nn.md's bound).
same() {
  if [ -n "${SYNTH_COMPARE:-}" ]; then
    PYTHONPATH="$(dirname "$0")/../../python" /usr/bin/python3 "$(dirname "$0")/compare_oinf.py" "$1" "$2" "$SYNTH_COMPARE"
  elif [ "${SYNTH_TOLERANCE:-0}" = 1 ]; then
    PYTHONPATH="$(dirname "$0")/../../python" /usr/bin/python3 "$(dirname "$0")/compare_oinf.py" "$1" "$2"
  else
    cmp "$1" "$2"
  fi
}
same "$work/sim.oinf" "$work/gen.oinf"
build "$cc" -std=c11 -Wall -Wextra -Werror -O0 -g -fsanitize=address,undefined \
  -fno-sanitize-recover=all -o "$work/prog_san"
# shellcheck disable=SC2086
"$work/prog_san" --model "$work/model.oinf" --steps "$steps" $inputs --save "$work/san.oinf" -q
same "$work/sim.oinf" "$work/san.oinf"
echo "ok: generated C matches the simulator over $steps steps (also under ASan+UBSan)"
