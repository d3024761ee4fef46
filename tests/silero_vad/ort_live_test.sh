#!/usr/bin/env bash
# OpenInfer against ONNX Runtime run live (onnxruntime-node) on freshly synthesized speech:
# espeak-ng sentences with silence around them, >= 200 chunks; every probability within 1e-4
# and the same segments.
#   ort_live_test.sh VAD_BINARY SOURCE_DIR   (exit 77: no network for the downloads, or no
#                                             espeak-ng/sox/node)
set -euo pipefail
vad="$1"
src="$2"
here="$src/tests/silero_vad"
for tool in espeak-ng sox node; do
  command -v "$tool" >/dev/null || { echo "SKIP: $tool is not installed (scripts/install-deps.sh)"; exit 77; }
done
model="$("$src/examples/silero_vad/fetch_and_export.sh" --with-ort --quiet)"
cache="$(dirname "$model")"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
espeak-ng -v en-gb -s 150 -w "$tmp/a.wav" "The quick brown fox jumps over the lazy dog."
espeak-ng -v en-us -s 180 -w "$tmp/b.wav" "Voice activity detection, streamed in small chunks."
sox -R -n -r 16000 -c 1 -b 16 "$tmp/s.wav" trim 0 0.7
sox -R "$tmp/a.wav" -r 16000 -c 1 -b 16 "$tmp/a16.wav"
sox -R "$tmp/b.wav" -r 16000 -c 1 -b 16 "$tmp/b16.wav"
sox -R "$tmp/s.wav" "$tmp/a16.wav" "$tmp/s.wav" "$tmp/b16.wav" "$tmp/s.wav" "$tmp/speech.wav"
node "$here/ort_reference.js" --ort-dir "$cache/ort" --model "$cache/silero_vad_op18_ifless.onnx" \
  --wav "$tmp/speech.wav" >"$tmp/ort.json"
"$vad" --model "$model" --json "$tmp/speech.wav" >"$tmp/ours.json"
/usr/bin/python3 "$here/compare_probs.py" "$tmp/ours.json" "$tmp/ort.json" --min-chunks 200
