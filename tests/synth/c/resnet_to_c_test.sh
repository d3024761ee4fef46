#!/bin/sh
# resnet_to_c_test.sh OPENINFER CC WORK SOURCE_DIR: examples/resnet/resnet.oi (prefix tables
# of weights indexed by loops, convs, max pool, mean, matmul) on the tiny ResNet-18 fixture of
# tests/examples/resnet, synthesized to C with the weights embedded, compiled with the strict
# flags (and under ASan+UBSan), its logits held against PyTorch's (reference.oinf) and the
# simulator's within ops.md's tolerances.
set -eu
oi=$1; cc=$2; work=$3; src=$4
fx=$src/tests/examples/resnet/fixtures
compare() {
  PYTHONPATH="$src/python" /usr/bin/python3 "$src/tests/synth/compare_oinf.py" "$1" "$2"
}
rm -rf "$work"
mkdir -p "$work"
"$oi" synth "$src/examples/resnet/resnet.oi" --model "$fx/model.oinf" --target c --embed-weights \
  --name resnet -o "$work/gen"
"$cc" -std=c11 -Wall -Wextra -Werror -O2 "$work"/gen/*.c -lm -o "$work/resnet"
"$work/resnet" --input "image=$fx/input.oinf" --save "$work/gen.oinf" -q
compare "$fx/reference.oinf" "$work/gen.oinf"
"$oi" run "$src/examples/resnet/resnet.oi" --model "$fx/model.oinf" --input "image=$fx/input.oinf" \
  --save "$work/sim.oinf" -q
compare "$work/sim.oinf" "$work/gen.oinf"
"$cc" -std=c11 -Wall -Wextra -Werror -O1 -g -fsanitize=address,undefined \
  -fno-sanitize-recover=all "$work"/gen/*.c -lm -o "$work/resnet_san"
"$work/resnet_san" --input "image=$fx/input.oinf" --save "$work/san.oinf" -q
compare "$fx/reference.oinf" "$work/san.oinf"
echo "ok: ResNet-18 as generated C gives PyTorch's logits"
