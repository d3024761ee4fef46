#!/usr/bin/env bash
# Silero VAD per 512-sample chunk, three contenders in ONE run on this machine, alternating
# rounds, on the committed tests/silero_vad/speech.wav (212 chunks), each pass after one untimed
# pass:
#   - c:   the standalone C of `openinfer synth examples/silero_vad/vad.oi --target c
#          --embed-weights --device DEV` (DEV: this machine's `openinfer devices probe`), built
#          with `cc -O2` plus exactly the flags DEV's SIMD features select
#          (scripts/device_cflags.py), driven by bench/synth_vad_harness.c (insert, step, fetch
#          per chunk; one thread: the generated C is single-threaded);
#   - sim: the simulator on the CPU backend, `vad --threads 1` (and --threads 2);
#   - ort: onnxruntime-node, the same ONNX model, intraOpNumThreads 1 (and 2),
#          tests/silero_vad/ort_reference.js --bench.
# OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE are unset for every contender alike; the BLAS each
# uses is printed. The one-thread figures are issue 19's targets (c at least 1.5x faster than
# ort, sim at least 1.0x); the two-thread ones are printed beside them.
#
#   bench/synth_vad.sh [BUILD_DIR] [ROUNDS] [PASSES]
#       BUILD_DIR: bin/openinfer, bin/vad and the plugins (default build/rel: a Release build,
#       bench/README.md); ROUNDS default 7; PASSES over the file per measurement, default 20.
#
# Prints each round's microseconds per chunk (wall, mean over the passes), then the medians and
# the ratios ort / contender (> 1: the contender is faster), with `uptime` before and after.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${1:-$root/build/rel}"
rounds="${2:-7}"
passes="${3:-20}"
unset OPENBLAS_CORETYPE OPENBLAS_L2_SIZE
oi="$build/bin/openinfer"
vad="$build/bin/vad"
for f in "$oi" "$vad"; do
  [[ -x "$f" ]] || { echo "error: $f is missing (cmake --build $build --target openinfer silero_vad)" >&2; exit 2; }
done
wav="$root/tests/silero_vad/speech.wav"
model="$("$root/examples/silero_vad/fetch_and_export.sh" --with-ort --quiet)"
cache="$(dirname "$model")"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# The C program for this machine's description.
"$oi" devices probe --backend cpu -o "$work/device.json"
flags="$(/usr/bin/python3 "$root/scripts/device_cflags.py" "$work/device.json")"
"$oi" synth "$root/examples/silero_vad/vad.oi" --model "$model" --target c --embed-weights \
  --device "$work/device.json" --name vad -o "$work/gen" >/dev/null
cc="${CC:-cc}"
# shellcheck disable=SC2086
"$cc" -std=c11 -O2 $flags -I"$work/gen" "$work/gen/vad.c" "$root/bench/synth_vad_harness.c" -lm \
  -o "$work/vad_c"
# Its probabilities, once, against ONNX Runtime's reference (1e-4, as synth_c_silero_vad).
"$work/vad_c" "$wav" 0 --probs >"$work/probs.json"
/usr/bin/python3 "$root/tests/silero_vad/compare_probs.py" "$work/probs.json" \
  "$root/tests/silero_vad/ort_reference.json" --first 212 --min-chunks 212 >&2

json() { /usr/bin/python3 -c "import json, sys; print(json.load(sys.stdin)$1)"; }
c_run() { "$work/vad_c" "$wav" "$passes" | json '["us_per_chunk"]'; }
sim_run() {  # THREADS; leaves the device line in $work/sim_device
  "$vad" --model "$model" --threads "$1" --repeat "$passes" "$wav" 2>&1 >/dev/null |
    grep '^openinfer: ' >"$work/sim_line"
  # "openinfer: 65.7 us per chunk (20 passes of 212 chunks; cpu (2 threads, OpenBLAS Cooperlake))"
  sed -n 's/^openinfer: .*; \(.*\))$/\1/p' "$work/sim_line" >"$work/sim_device_$1"
  printf "%.1f" "$(sed -n 's/^openinfer: \([0-9.]*\) us per chunk.*/\1/p' "$work/sim_line")"
}
ort_run() {  # THREADS
  node "$root/tests/silero_vad/ort_reference.js" --ort-dir "$cache/ort" \
    --model "$cache/silero_vad_op18_ifless.onnx" --wav "$wav" --bench "$passes" --threads "$1" |
    json '["bench"]["us_per_chunk"]'
}

echo "load before: $(uptime)"
echo "machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores"
echo "c:   $cc -std=c11 -O2 $flags (device: $work/device.json, probed); BLAS: none (generated kernels)"
printf "%-6s %10s %10s %10s %12s %12s\n" round "c us" "sim1 us" "ort1 us" "sim2 us" "ort2 us"
declare -a C S1 O1 S2 O2
for ((r = 1; r <= rounds; r++)); do
  # Alternate the order so that no contender always runs first after the same neighbour.
  if ((r % 2)); then
    c="$(c_run)"; s1="$(sim_run 1)"; o1="$(ort_run 1)"; s2="$(sim_run 2)"; o2="$(ort_run 2)"
  else
    o2="$(ort_run 2)"; s2="$(sim_run 2)"; o1="$(ort_run 1)"; s1="$(sim_run 1)"; c="$(c_run)"
  fi
  C+=("$c"); S1+=("$s1"); O1+=("$o1"); S2+=("$s2"); O2+=("$o2")
  printf "%-6s %10.1f %10.1f %10.1f %12.1f %12.1f\n" "$r" "$c" "$s1" "$o1" "$s2" "$o2"
done
for t in 1 2; do
  echo "sim$t device: $(cat "$work/sim_device_$t")"  # empty: an older vad; `openinfer plugins` names it
done
echo "ort: onnxruntime-node $(node -e "console.log(require('$cache/ort/node_modules/onnxruntime-node/package.json').version)") (its own MLAS kernels; no OpenBLAS)"
/usr/bin/python3 - "${C[*]}" "${S1[*]}" "${O1[*]}" "${S2[*]}" "${O2[*]}" <<'PY'
import statistics, sys
c, s1, o1, s2, o2 = ([float(v) for v in a.split()] for a in sys.argv[1:6])
m = {k: statistics.median(v) for k, v in dict(c=c, s1=s1, o1=o1, s2=s2, o2=o2).items()}
print(f"median {m['c']:10.1f} {m['s1']:10.1f} {m['o1']:10.1f} {m['s2']:12.1f} {m['o2']:12.1f}"
      "   (us per 512-sample chunk)")
print(f"one thread:  ort / c   = {m['o1'] / m['c']:.2f}x (target >= 1.5x)   "
      f"ort / sim = {m['o1'] / m['s1']:.2f}x (target >= 1.0x)")
print(f"two threads: ort / c   = {m['o2'] / m['c']:.2f}x (c on one)          "
      f"ort / sim = {m['o2'] / m['s2']:.2f}x")
PY
echo "load after:  $(uptime)"
