#!/bin/sh
# panel_tiles_test.sh OPENINFER CC WORK SOURCE_DIR: panel_tiles.oi (edge tiles of the panel
# products: matmul with a constant A, conv with constant weights) as C against the simulator
# through c_vs_simulator.sh (the matmul and conv tolerances; -O2 and ASan+UBSan), then the same
# generated C built to run the AVX2 kernels (-DOI_MM_KERNELS=1; where the CPU has AVX-512 the
# first run took those) and the portable loops (-DOI_MM_KERNELS=0), each held to the
# simulator's result too.
set -eu
oi=$1; cc=$2; work=$3; src=$4
here=$src/tests/synth
mkdir -p "$work/data"
/usr/bin/python3 "$here/c/panel_tiles_data.py" "$work/data"
names="b1 b3 b5 b9 bb b8 x1 x2 x3 x4"
spec=""
for x in $names; do spec="$spec $x=@IN@"; done
# shellcheck disable=SC2086
SYNTH_TOLERANCE=1 sh "$here/c_vs_simulator.sh" "$oi" "$cc" "$work/sim" "$here/c/panel_tiles.oi" \
  "$work/data/model.txt" "$work/data/input.txt" 2 $spec
run=$work/sim
inputs=""
for x in $names; do inputs="$inputs --input $x=$run/input.oinf"; done
for kernels in 1 0; do
  "$cc" -std=c11 -Wall -Wextra -Werror -O1 -g -fsanitize=address,undefined \
    -fno-sanitize-recover=all -DOI_MM_KERNELS=$kernels "$run"/gen/*.c -lm -o "$work/prog_$kernels"
  # shellcheck disable=SC2086
  "$work/prog_$kernels" --model "$run/model.oinf" --steps 2 $inputs --save "$work/gen_$kernels.oinf" -q
  PYTHONPATH="$src/python" /usr/bin/python3 "$here/compare_oinf.py" "$run/sim.oinf" \
    "$work/gen_$kernels.oinf"
done
echo "ok: panel_tiles matches the simulator with the default kernels, AVX2 (-DOI_MM_KERNELS=1) and the portable loops (0)"
