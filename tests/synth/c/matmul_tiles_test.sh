#!/bin/sh
# matmul_tiles_test.sh OPENINFER CC WORK SOURCE_DIR: matmul_tiles.oi (edge tiles of the packed
# SIMD matmul) as C against the simulator through c_vs_simulator.sh (ops.md's matmul
# tolerance; -O2 and ASan+UBSan), then the same generated C built to run the AVX2 kernel
# (-DOI_MM_KERNELS=1, where the CPU has AVX-512 the first run took that one) and the portable
# loops (-DOI_MM_KERNELS=0), each held to the simulator's result too.
set -eu
oi=$1; cc=$2; work=$3; src=$4
here=$src/tests/synth
mkdir -p "$work/data"
/usr/bin/python3 "$here/c/matmul_tiles_data.py" "$work/data"
SYNTH_TOLERANCE=1 sh "$here/c_vs_simulator.sh" "$oi" "$cc" "$work/sim" "$here/c/matmul_tiles.oi" \
  "$work/data/model.txt" "$work/data/input.txt" 2 a=@IN@ s=@IN@ sb=@IN@ v=@IN@ col=@IN@ x1=@IN@ q=@IN@ ba=@IN@ bm=@IN@ bx=@IN@ bv=@IN@
run=$work/sim
inputs=""
for x in a s sb v col x1 q ba bm bx bv; do inputs="$inputs --input $x=$run/input.oinf"; done
for kernels in 1 0; do
  "$cc" -std=c11 -Wall -Wextra -Werror -O1 -g -fsanitize=address,undefined \
    -fno-sanitize-recover=all -DOI_MM_KERNELS=$kernels "$run"/gen/*.c -lm -o "$work/prog_$kernels"
  # shellcheck disable=SC2086
  "$work/prog_$kernels" --model "$run/model.oinf" --steps 2 $inputs --save "$work/gen_$kernels.oinf" -q
  PYTHONPATH="$src/python" /usr/bin/python3 "$here/compare_oinf.py" "$run/sim.oinf" \
    "$work/gen_$kernels.oinf"
done
echo "ok: matmul_tiles matches the simulator with the default kernel, AVX2 (-DOI_MM_KERNELS=1) and the portable loops (0)"
