#!/bin/sh
# gather_range_test.sh OPENINFER CC WORK SOURCE_DIR: the generated program of gather_range.oi
# (built with ASan+UBSan) runs step 0 (indices 2, -3: in range) and stops at step 1 (index 3 of
# an axis of 3) with exit 1 and a message naming the line, the index and the bound.
set -eu
oi=$1; cc=$2; work=$3; c=$4/tests/synth/c
rm -rf "$work"
mkdir -p "$work"
"$oi" oinf pack "$c/loops_model.txt" -o "$work/model.oinf"
"$oi" oinf pack "$c/gather_range_input.txt" -o "$work/input.oinf"
"$oi" synth "$c/gather_range.oi" --model "$work/model.oinf" --target c -o "$work/gen"
"$cc" -std=c11 -Wall -Wextra -Werror -O1 -g -fsanitize=address,undefined \
  -fno-sanitize-recover=all "$work"/gen/*.c -lm -o "$work/prog"
set +e
out=$("$work/prog" --model "$work/model.oinf" --steps 2 --input "x=$work/input.oinf" \
  --input "idx=$work/input.oinf:idx.{step}" 2>&1)
rc=$?
set -e
printf '%s\n' "$out"
[ "$rc" = 1 ] || { echo "FAIL: exit code $rc, expected 1"; exit 1; }
printf '%s\n' "$out" | grep -q "step 0:" || { echo "FAIL: step 0 did not run"; exit 1; }
printf '%s\n' "$out" | grep -Eq "gather \(line 11\): index 3 is out of range for axis 0 of size 3" ||
  { echo "FAIL: no message naming the line, the index and the bound"; exit 1; }
if printf '%s\n' "$out" | grep -q "step 1:"; then echo "FAIL: step 1 printed values"; exit 1; fi
echo "ok: the out-of-range index stopped the step with a clear error"
