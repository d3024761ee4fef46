#!/usr/bin/env bash
# `openinfer run` on vad.oi: the first 48 chunks of speech.wav as 48 steps, the probabilities
# saved and compared with the committed ONNX Runtime ones (1e-4), and a Perfetto trace written.
#   cli_run_test.sh OPENINFER_BINARY SOURCE_DIR      (exit 77: the model cannot be downloaded)
set -euo pipefail
openinfer="$1"
src="$2"
here="$src/tests/silero_vad"
model="$("$src/examples/silero_vad/fetch_and_export.sh" --quiet)"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
steps="$(/usr/bin/python3 "$src/examples/silero_vad/wav_to_chunks.py" "$here/speech.wav" \
  "$tmp/chunks.oinf" --max-chunks 48)"
"$openinfer" run "$src/examples/silero_vad/vad.oi" --model "$model" --steps "$steps" \
  --input "chunk=$tmp/chunks.oinf:chunk.{step}" --fetch prob --save "$tmp/probs.oinf" \
  --trace-events "$tmp/trace.json" --quiet
/usr/bin/python3 - "$tmp" "$steps" "$src" <<'PY'
import json, sys
tmp, steps, src = sys.argv[1], int(sys.argv[2]), sys.argv[3]
sys.path.insert(0, src + "/python")
from openinfer import oinf
pkg = oinf.read(tmp + "/probs.oinf")
probs = [float(pkg[f"prob.step{i}"].reshape(-1)[0]) for i in range(steps)]
json.dump({"probabilities": probs, "segments": []}, open(tmp + "/ours.json", "w"))
events = json.load(open(tmp + "/trace.json"))["traceEvents"]
convs = [e for e in events if e.get("cat") == "node" and e["name"] == "conv"]
step_slices = [e for e in events if e.get("cat") == "step"]
assert len(convs) == 6 * steps, f"{len(convs)} conv events for {steps} steps"
assert len(step_slices) == steps, f"{len(step_slices)} step slices for {steps} steps"
print(f"trace: {len(events)} events, {len(convs)} conv nodes, {len(step_slices)} steps")
PY
/usr/bin/python3 "$here/compare_probs.py" "$tmp/ours.json" "$here/ort_reference.json" \
  --first "$steps" --min-chunks "$steps"
