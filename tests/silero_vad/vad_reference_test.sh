#!/usr/bin/env bash
# The `vad` tool on the committed speech.wav (212 chunks) against the committed ONNX Runtime
# probabilities: every chunk within 1e-4, the same speech segments.
#   vad_reference_test.sh VAD_BINARY SOURCE_DIR      (exit 77: the model cannot be downloaded)
set -euo pipefail
vad="$1"
src="$2"
here="$src/tests/silero_vad"
model="$("$src/examples/silero_vad/fetch_and_export.sh" --quiet)"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
"$vad" --model "$model" --json "$here/speech.wav" >"$tmp/ours.json"
/usr/bin/python3 "$here/compare_probs.py" "$tmp/ours.json" "$here/ort_reference.json"
# The human output: one "start end" line per segment, in seconds.
"$vad" --model "$model" "$here/speech.wav" | tee "$tmp/segments.txt"
[[ "$(wc -l <"$tmp/segments.txt")" == 2 ]] || { echo "FAIL: expected 2 segments"; exit 1; }
