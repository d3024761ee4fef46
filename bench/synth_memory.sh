#!/usr/bin/env bash
# Peak memory the synthesizer plans for every example, against the unplanned sum (every
# temporary at its own address): the `memory:` line of `openinfer synth --plan-only --report`.
#   bench/synth_memory.sh [BUILD_DIR]     (default build/dev)
# The models are exported at their real sizes into a temporary folder (GPT-2-small shape with
# random weights, ResNet-18 at 224x224, batch 1 and 8); the Silero VAD package comes from the
# download cache (skipped when it cannot be fetched).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build/dev}
oi="$build/bin/openinfer"
py=/usr/bin/python3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

plan() {  # NAME GRAPH MODEL
  local line
  line=$("$oi" synth "$2" --model "$3" --plan-only --report 2>&1 >/dev/null | grep '^memory:')
  printf '%-28s %s\n' "$1" "${line#memory: }"
}

plan "minimal" examples/minimal/minimal.oi examples/minimal/model.oinf
if vad=$(examples/silero_vad/fetch_and_export.sh --quiet 2>/dev/null); then
  plan "silero_vad (16 kHz)" examples/silero_vad/vad.oi "$vad"
else
  echo "silero_vad: skipped (the model package could not be downloaded)"
fi
"$py" examples/gpt/export_gpt.py -o "$tmp/gpt.oinf" --layers 12 --dim 768 --heads 12 \
  --vocab 50257 --ctx 1024 --prompt-len 8 >/dev/null
plan "gpt (GPT-2 small, T=1024)" examples/gpt/gpt.oi "$tmp/gpt.oinf"
for batch in 1 8; do
  "$py" examples/resnet/export_resnet.py --batch "$batch" "$tmp/resnet$batch" >/dev/null
  plan "resnet18 (224x224, B=$batch)" examples/resnet/resnet.oi "$tmp/resnet$batch/model.oinf"
done
