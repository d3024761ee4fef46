#!/usr/bin/env bash
# ResNet-18 (examples/resnet, 224x224, batch 1, random weights) per image, in ONE run on this
# machine, alternating rounds:
#   - c:   `openinfer synth examples/resnet/resnet.oi --target c --device DEV` (DEV: this
#          machine's `openinfer devices probe`; the weights read from the .oinf at create),
#          built with `cc -O2` plus the flags DEV's SIMD features select
#          (scripts/device_cflags.py), timed by bench/synth_resnet_harness.c (one thread);
#   - ort: onnxruntime-node on the same network exported to ONNX (export_resnet.py --onnx,
#          batch norm unfolded: ORT folds it itself), intraOpNumThreads 1 (and 2),
#          bench/ort_time.js.
# OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE are unset for both. Before timing, the C program's
# logits are held to ORT's (max |d| <= 1e-4 max |ort|).
#
#   bench/synth_resnet.sh [BUILD_DIR] [ROUNDS] [STEPS]
#       BUILD_DIR: bin/openinfer and its plugins (default build/rel); ROUNDS default 5; STEPS
#       images per measurement (median), default 5. The model is written once to
#       $RESNET_BENCH_DIR (default /tmp/openinfer_resnet_bench, ~95 MB).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${1:-$root/build/rel}"
rounds="${2:-5}"
steps="${3:-5}"
unset OPENBLAS_CORETYPE OPENBLAS_L2_SIZE
oi="$build/bin/openinfer"
[[ -x "$oi" ]] || { echo "error: $oi is missing" >&2; exit 2; }
dir="${RESNET_BENCH_DIR:-/tmp/openinfer_resnet_bench}"
mkdir -p "$dir"
if [[ ! -f "$dir/model.onnx" ]]; then
  /usr/bin/python3 "$root/examples/resnet/export_resnet.py" "$dir" --batch 1 --onnx >&2
fi
ort_dir="$(dirname "$("$root/examples/silero_vad/fetch_and_export.sh" --with-ort --quiet)")/ort"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

"$oi" devices probe --backend cpu -o "$work/device.json"
flags="$(/usr/bin/python3 "$root/scripts/device_cflags.py" "$work/device.json")"
"$oi" synth "$root/examples/resnet/resnet.oi" --model "$dir/model.oinf" --target c \
  --device "$work/device.json" --name resnet -o "$work/gen" >/dev/null
cc="${CC:-cc}"
# shellcheck disable=SC2086
"$cc" -std=c11 -O2 $flags -I"$work/gen" "$work/gen/resnet.c" "$root/bench/synth_resnet_harness.c" \
  -lm -o "$work/resnet_c"
"$work/resnet_c" "$dir/model.oinf" "$dir/input.oinf" 1 "$work/c.f32" >/dev/null
node "$root/bench/ort_time.js" --ort-dir "$ort_dir" --model "$dir/model.onnx" \
  --input "image=$dir/image.f32:1x3x224x224" --runs 1 --out "$work/ort.f32" >/dev/null
/usr/bin/python3 - "$work/c.f32" "$work/ort.f32" <<'PY' >&2
import sys
import numpy as np
c, o = (np.fromfile(p, "<f4") for p in sys.argv[1:3])
d, m = float(np.abs(c - o).max()), float(np.abs(o).max())
print(f"logits: max |c - ort| = {d:.3g} ({d / m:.2g} of max |ort| {m:.3g})")
sys.exit(0 if d <= 1e-4 * m else 1)
PY

json() { /usr/bin/python3 -c "import json, sys; print(json.load(sys.stdin)$1)"; }
c_run() { "$work/resnet_c" "$dir/model.oinf" "$dir/input.oinf" "$steps" | json '["ms_per_image_median"]'; }
ort_run() {
  node "$root/bench/ort_time.js" --ort-dir "$ort_dir" --model "$dir/model.onnx" \
    --input "image=$dir/image.f32:1x3x224x224" --runs "$steps" --threads "$1" | json '["ms_median"]'
}
echo "load before: $(uptime)"
echo "c:   $cc -std=c11 -O2 $flags (probed device); BLAS: none (generated kernels)"
echo "ort: onnxruntime-node $(node -e "console.log(require('$ort_dir/node_modules/onnxruntime-node/package.json').version)") (MLAS; no OpenBLAS)"
printf "%-6s %10s %10s %10s\n" round "c ms" "ort1 ms" "ort2 ms"
declare -a C O1 O2
for ((r = 1; r <= rounds; r++)); do
  if ((r % 2)); then
    c="$(c_run)"; o1="$(ort_run 1)"; o2="$(ort_run 2)"
  else
    o2="$(ort_run 2)"; o1="$(ort_run 1)"; c="$(c_run)"
  fi
  C+=("$c"); O1+=("$o1"); O2+=("$o2")
  printf "%-6s %10.2f %10.2f %10.2f\n" "$r" "$c" "$o1" "$o2"
done
/usr/bin/python3 - "${C[*]}" "${O1[*]}" "${O2[*]}" <<'PY'
import statistics, sys
c, o1, o2 = (statistics.median(float(v) for v in a.split()) for a in sys.argv[1:4])
print(f"median {c:10.2f} {o1:10.2f} {o2:10.2f}   (ms per 224x224 image)")
print(f"ort1 / c = {o1 / c:.2f}x (target >= 1.0x)   ort2 / c = {o2 / c:.2f}x (c on one thread)")
PY
echo "load after:  $(uptime)"
