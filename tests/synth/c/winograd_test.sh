#!/bin/sh
# winograd_test.sh OPENINFER CC WORK SOURCE_DIR: winograd.oi (3x3 stride-1 convs, Winograd
# F(2x2, 3x3) where the CPU has AVX-512F) as C against the simulator through c_vs_simulator.sh
# (the conv tolerance; -O2 and ASan+UBSan), then the same generated C built to take the other
# paths (-DOI_MM_KERNELS=1: the AVX2 micro-kernels, 0: the portable loops), each held to the
# simulator's result too.
set -eu
oi=$1; cc=$2; work=$3; src=$4
here=$src/tests/synth
mkdir -p "$work/data"
/usr/bin/python3 "$here/c/winograd_data.py" "$work/data"
names="x1 x2 x3 x4"
spec=""
for x in $names; do spec="$spec $x=@IN@"; done
# shellcheck disable=SC2086
SYNTH_TOLERANCE=1 sh "$here/c_vs_simulator.sh" "$oi" "$cc" "$work/sim" "$here/c/winograd.oi" \
  "$work/data/model.txt" "$work/data/input.txt" 2 $spec
run=$work/sim
inputs=""
for x in $names; do inputs="$inputs --input $x=$run/input.oinf"; done
for kernels in 1 0; do
  "$cc" -std=c11 -Wall -Wextra -Werror -O2 -DOI_MM_KERNELS=$kernels "$run"/gen/*.c -lm \
    -o "$work/prog_$kernels"
  # shellcheck disable=SC2086
  "$work/prog_$kernels" --model "$run/model.oinf" --steps 2 $inputs --save "$work/gen_$kernels.oinf" -q
  PYTHONPATH="$src/python" /usr/bin/python3 "$here/compare_oinf.py" "$run/sim.oinf" \
    "$work/gen_$kernels.oinf"
done
if grep -q "_gemm(" "$run"/gen/*.c && grep -q avx512f /proc/cpuinfo; then
  echo "ok: winograd matches the simulator (Winograd F(2x2, 3x3) on AVX-512F, AVX2 kernels, portable loops)"
else
  echo "ok: winograd matches the simulator (no AVX-512F here: the other paths only)"
fi
