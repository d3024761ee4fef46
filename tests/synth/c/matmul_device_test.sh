#!/bin/sh
# matmul_device_test.sh OPENINFER CC WORK SOURCE_DIR: the plan's device reaches the C emitter's
# SIMD matmul (matmul_simd.cpp) and conv's panels. matmul_tiles.oi and conv_large.oi are synthesized without
# --device (the built-in description: both micro-kernels, default blocking), with
# devices/x86_64_avx2.json (the AVX2 kernel only), devices/x86_64_avx512.json (both, blocking
# from its 48 KiB L1d) and an aarch64 copy of the AVX2 file (no SIMD kernel); the generated C
# holds what the device allows, and every build (-O2, and ASan+UBSan for the AVX2 device) is
# held to the simulator's result (ops.md's matmul tolerance, compare_oinf.py).
set -eu
oi=$1; cc=$2; work=$3; src=$4
here=$src/tests/synth
rm -rf "$work"
mkdir -p "$work/data"
/usr/bin/python3 "$here/c/matmul_tiles_data.py" "$work/data"
"$oi" oinf pack "$work/data/model.txt" -o "$work/tiles_model.oinf"
"$oi" oinf pack "$work/data/input.txt" -o "$work/tiles_input.oinf"
"$oi" oinf pack "$here/c/conv_model.txt" -o "$work/conv_model.oinf"
"$oi" oinf pack "$here/c/conv_input.txt" -o "$work/conv_input.oinf"
sed 's/"x86-64"/"aarch64"/' "$src/devices/x86_64_avx2.json" >"$work/aarch64.json"

tiles_inputs=""
for x in a s sb v col x1 q ba bm bx bv; do
  tiles_inputs="$tiles_inputs --input $x=$work/tiles_input.oinf"
done
conv_inputs="--input x6=$work/conv_input.oinf --input x7=$work/conv_input.oinf --input x9=$work/conv_input.oinf"

fail() {
  echo "FAIL: $*" >&2
  exit 1
}
# defines FILE NAME: how many times FILE defines the micro-kernel oi_mm_kernel_NAME.
defines() {
  grep -c "void oi_mm_kernel_$2(" "$1" || true
}
compare() {
  PYTHONPATH="$src/python" /usr/bin/python3 "$here/compare_oinf.py" "$1" "$2"
}

# case GRAPH MODEL STEPS INPUTS DEVICE(none: built-in) AVX2 AVX512 PATTERN [sanitize]: the
# generated C defines the AVX2 and AVX-512 micro-kernels AVX2 and AVX512 times (0 or 1), holds
# PATTERN (grep -F), and runs to the simulator's result.
check() {
  graph=$1; model=$2; steps=$3; inputs=$4; device=$5; want2=$6; want5=$7; pattern=$8
  tag=$(basename "$graph" .oi)_$(basename "$device" .json)
  out=$work/$tag
  dev=""
  if [ "$device" != none ]; then dev="--device $device"; fi
  # shellcheck disable=SC2086
  "$oi" synth "$graph" --model "$model" --target c -o "$out" $dev
  c=$out/model.c
  [ "$(defines "$c" avx2)" = "$want2" ] || fail "$tag: AVX2 micro-kernel defined $(defines "$c" avx2) times, expected $want2"
  [ "$(defines "$c" avx512)" = "$want5" ] || fail "$tag: AVX-512 micro-kernel defined $(defines "$c" avx512) times, expected $want5"
  if [ "$want2$want5" = 00 ]; then
    if grep -q oi_mm_ "$c"; then fail "$tag: SIMD matmul code for a device without kernels"; fi
  else
    grep -qF "$pattern" "$c" || fail "$tag: '$pattern' not in the generated C"
  fi
  "$cc" -std=c11 -Wall -Wextra -Werror -O2 "$out"/*.c -lm -o "$out/prog"
  if command -v clang >/dev/null 2>&1 && [ "$(basename "$cc")" != clang ]; then
    clang -std=c11 -Wall -Wextra -Werror -fsyntax-only "$out"/*.c
  fi
  # shellcheck disable=SC2086
  "$out/prog" --model "$model" --steps "$steps" $inputs --save "$out/gen.oinf" -q
  compare "$work/sim_$(basename "$graph" .oi).oinf" "$out/gen.oinf"
  if [ "${9:-}" = sanitize ]; then
    "$cc" -std=c11 -Wall -Wextra -Werror -O1 -g -fsanitize=address,undefined \
      -fno-sanitize-recover=all "$out"/*.c -lm -o "$out/prog_san"
    # shellcheck disable=SC2086
    "$out/prog_san" --model "$model" --steps "$steps" $inputs --save "$out/san.oinf" -q
    compare "$work/sim_$(basename "$graph" .oi).oinf" "$out/san.oinf"
  fi
  echo "ok: $tag"
}

tiles=$here/c/matmul_tiles.oi
conv=$here/c/conv_large.oi
# shellcheck disable=SC2086
"$oi" run "$tiles" --model "$work/tiles_model.oinf" --steps 2 $tiles_inputs \
  --save "$work/sim_matmul_tiles.oinf" -q
# shellcheck disable=SC2086
"$oi" run "$conv" --model "$work/conv_model.oinf" --steps 1 $conv_inputs \
  --save "$work/sim_conv_large.oinf" -q

# KC (matmul_simd.cpp): an NR-wide B micro-panel filling L1d, 32 KiB -> 512 (AVX2, NR 16) and
# 256 (AVX-512, NR 32); the AVX-512 file's 48 KiB -> 768 and 384.
tm=$work/tiles_model.oinf
check "$tiles" "$tm" 2 "$tiles_inputs" none 1 1 "mm_kc = mm_isa == 2 ? 256u : 512u"
check "$tiles" "$tm" 2 "$tiles_inputs" "$src/devices/x86_64_avx2.json" 1 0 \
  "mm_kc = mm_isa == 2 ? 256u : 512u" sanitize
check "$tiles" "$tm" 2 "$tiles_inputs" "$src/devices/x86_64_avx512.json" 1 1 \
  "mm_kc = mm_isa == 2 ? 384u : 768u"
check "$tiles" "$tm" 2 "$tiles_inputs" "$work/aarch64.json" 0 0 ""
# conv's patch panels (ops_conv.cpp, conv_gemm): oi_mm_isa's argument is the kernels allowed
# (bit 0 AVX2, bit 1 AVX-512), the depth blocks those of the matmul above.
cm=$work/conv_model.oinf
check "$conv" "$cm" 1 "$conv_inputs" none 1 1 "kcb = mm_isa == 2 ? 256u : 512u"
check "$conv" "$cm" 1 "$conv_inputs" "$src/devices/x86_64_avx2.json" 1 0 \
  "const int mm_isa = oi_mm_isa(1);" sanitize
check "$conv" "$cm" 1 "$conv_inputs" "$src/devices/x86_64_avx512.json" 1 1 \
  "kcb = mm_isa == 2 ? 384u : 768u"
check "$conv" "$cm" 1 "$conv_inputs" "$work/aarch64.json" 0 0 ""
echo "ok: the generated matmul and conv hold the micro-kernels and blocking each device allows and match the simulator"
