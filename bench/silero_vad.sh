#!/usr/bin/env bash
# Silero VAD per-chunk latency: OpenInfer's CPU backend (the `vad` tool, vad.oi) next to
# ONNX Runtime (onnxruntime-node, the same ONNX model), both on ONE thread, on the committed
# 6.8 s speech.wav (212 chunks of 512 samples), alternating ROUNDS times in the same run.
#
#   bench/silero_vad.sh [VAD_BINARY] [ROUNDS] [PASSES]
#       VAD_BINARY default build/vad/bin/vad; ROUNDS default 5; PASSES over the file per
#       measurement, default 20 (each after one untimed pass)
#
# Prints each round's microseconds per chunk and the ratio ORT / OpenInfer (> 1: OpenInfer is
# faster), then the medians.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
vad="${1:-$root/build/vad/bin/vad}"
rounds="${2:-5}"
passes="${3:-20}"
wav="$root/tests/silero_vad/speech.wav"
model="$("$root/examples/silero_vad/fetch_and_export.sh" --with-ort --quiet)"
cache="$(dirname "$model")"

ours=()
theirs=()
printf "%-6s %14s %14s %10s\n" round "openinfer us" "ort-node us" "ort/oi"
for ((r = 1; r <= rounds; r++)); do
  oi_us="$("$vad" --model "$model" --threads 1 --repeat "$passes" "$wav" 2>&1 >/dev/null |
    sed -n 's/^openinfer: \([0-9.]*\) us per chunk.*/\1/p')"
  ort_us="$(node "$root/tests/silero_vad/ort_reference.js" --ort-dir "$cache/ort" \
    --model "$cache/silero_vad_op18_ifless.onnx" --wav "$wav" --bench "$passes" |
    /usr/bin/python3 -c 'import json, sys; print("%.1f" % json.load(sys.stdin)["bench"]["us_per_chunk"])')"
  ours+=("$oi_us")
  theirs+=("$ort_us")
  printf "%-6s %14s %14s %10s\n" "$r" "$oi_us" "$ort_us" \
    "$(/usr/bin/python3 -c "print('%.2f' % ($ort_us / $oi_us))")"
done
/usr/bin/python3 - "${ours[*]}" "${theirs[*]}" <<'PY'
import statistics, sys
ours = [float(v) for v in sys.argv[1].split()]
theirs = [float(v) for v in sys.argv[2].split()]
mo, mt = statistics.median(ours), statistics.median(theirs)
print(f"median {mo:14.1f} {mt:14.1f} {mt / mo:10.2f}   (us per 512-sample chunk, one thread)")
PY
