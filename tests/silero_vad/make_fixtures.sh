#!/usr/bin/env bash
# Regenerates the committed fixtures of the Silero VAD test:
#   speech.wav          6.8 s of 16 kHz mono PCM16: 0.8 s silence, a sentence (espeak-ng),
#                       1.0 s silence, a shorter sentence, 0.8 s silence (212 chunks of 512)
#   ort_reference.json  ONNX Runtime's per-chunk probabilities and speech segments for it
#
#   tests/silero_vad/make_fixtures.sh
#
# Needs espeak-ng, sox, node and the model with onnxruntime-node in the cache
# (examples/silero_vad/fetch_and_export.sh --with-ort fetches both).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$here/../.."
cache="$("$root/examples/silero_vad/fetch_and_export.sh" --with-ort --quiet)"
cache="$(dirname "$cache")"

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
espeak-ng -v en-us -s 165 -w "$tmp/a.wav" "Silero finds the speech in this file."
espeak-ng -v en-us -s 165 -w "$tmp/b.wav" "One chunk at a time."
# -R: repeatable (no random dither); every piece 16 kHz mono PCM16.
sox -R -n -r 16000 -c 1 -b 16 "$tmp/s08.wav" trim 0 0.8
sox -R -n -r 16000 -c 1 -b 16 "$tmp/s10.wav" trim 0 1.0
sox -R "$tmp/a.wav" -r 16000 -c 1 -b 16 "$tmp/a16.wav"
sox -R "$tmp/b.wav" -r 16000 -c 1 -b 16 "$tmp/b16.wav"
sox -R "$tmp/s08.wav" "$tmp/a16.wav" "$tmp/s10.wav" "$tmp/b16.wav" "$tmp/s08.wav" "$here/speech.wav"

node "$here/ort_reference.js" --ort-dir "$cache/ort" --model "$cache/silero_vad_op18_ifless.onnx" \
  --wav "$here/speech.wav" >"$here/ort_reference.json"
echo "wrote $here/speech.wav and $here/ort_reference.json"
