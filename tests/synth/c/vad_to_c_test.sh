#!/usr/bin/env bash
# Silero VAD (examples/silero_vad/vad.oi) synthesized to a standalone C program, weights
# embedded: compiled with the strict flags, the 212 chunks of tests/silero_vad/speech.wav
# streamed through it one per step (insert chunk, step, fetch prob) and every probability held
# within 1e-4 of ONNX Runtime's (tests/silero_vad/ort_reference.json). Then the same program
# under ASan+UBSan on the first chunks, with no report and the same probabilities.
#   vad_to_c_test.sh OPENINFER CC WORK SOURCE_DIR   (exit 77: the model cannot be downloaded)
set -euo pipefail
oi=$1; cc=$2; work=$3; src=$4
here="$src/tests/silero_vad"
set +e
model="$("$src/examples/silero_vad/fetch_and_export.sh" --quiet)"
rc=$?
set -e
if [[ $rc == 77 ]]; then
  echo "SKIP: the Silero VAD model cannot be downloaded (see the message above)"
  exit 77
fi
[[ $rc == 0 ]] || { echo "FAIL: fetch_and_export.sh exited $rc"; exit 1; }
rm -rf "$work"
mkdir -p "$work"
"$oi" synth "$src/examples/silero_vad/vad.oi" --model "$model" --target c --embed-weights \
  --name vad -o "$work/gen"
"$cc" -std=c11 -Wall -Wextra -Werror -O2 "$work"/gen/*.c -lm -o "$work/vad"
if command -v clang >/dev/null 2>&1 && [ "$(basename "$cc")" != clang ]; then
  clang -std=c11 -Wall -Wextra -Werror -fsyntax-only "$work"/gen/*.c
fi
steps="$(/usr/bin/python3 "$src/examples/silero_vad/wav_to_chunks.py" "$here/speech.wav" \
  "$work/chunks.oinf")"
# Standalone: no --model, the weights are arrays of vad.c.
"$work/vad" --steps "$steps" --input "chunk=$work/chunks.oinf:chunk.{step}" --fetch prob \
  --save "$work/probs.oinf" -q
to_json() {  # PROBS.oinf STEPS OUT.json: the per-chunk probabilities as compare_probs.py reads
  PYTHONPATH="$src/python" /usr/bin/python3 - "$@" <<'PY'
import json, sys
from openinfer import oinf
pkg, steps = oinf.read(sys.argv[1]), int(sys.argv[2])
probs = [float(pkg[f"prob.step{i}"].reshape(-1)[0]) for i in range(steps)]
json.dump({"probabilities": probs, "segments": []}, open(sys.argv[3], "w"))
PY
}
to_json "$work/probs.oinf" "$steps" "$work/probs.json"
/usr/bin/python3 "$here/compare_probs.py" "$work/probs.json" "$here/ort_reference.json" \
  --first "$steps" --min-chunks 212
# Sanitizers: a few chunks are enough to run every kernel over several steps.
"$cc" -std=c11 -Wall -Wextra -Werror -O1 -g -fsanitize=address,undefined \
  -fno-sanitize-recover=all "$work"/gen/*.c -lm -o "$work/vad_san"
"$work/vad_san" --steps 6 --input "chunk=$work/chunks.oinf:chunk.{step}" --fetch prob \
  --save "$work/probs_san.oinf" -q
to_json "$work/probs_san.oinf" 6 "$work/probs_san.json"
/usr/bin/python3 "$here/compare_probs.py" "$work/probs_san.json" "$here/ort_reference.json" \
  --first 6 --min-chunks 6
echo "ok: the synthesized C program gives ONNX Runtime's probabilities on $steps chunks"
