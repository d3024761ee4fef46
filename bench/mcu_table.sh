#!/usr/bin/env bash
# bench/mcu_table.sh [BUILD_DIR] [EXAMPLES] [BOARDS]: every example (vad resnet gpt) on every
# Cortex-M board (m4 m7 m55) through tests/mcu/mcu_test.sh (synthesized in the C target's
# freestanding profile, cross-compiled with gcc-arm-none-eabi -O2 and picolibc, run under
# qemu-system-arm with -icount shift=0, outputs checked against the simulator), then one table:
# instructions per step and per multiply-accumulate (QEMU counts instructions, not cycles), the
# MAC count (tests/mcu/mcu_check.py macs: matmul, conv and attention of one step, padding
# included), flash (weights, and code without weights: the model's functions with the libm and
# libc functions they call, from the linker map; driver, startup and semihosting apart), RAM
# (arena + state, the state holding the I/O buffers), the deepest stack painted in a call and
# the synthesis report's estimate. GPT runs 24 steps: the 8-token prompt, then 23 tokens; its
# row is per token (31 tokens) with the MACs of a token over the 32-position window.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build/dev}
examples=${2:-vad resnet gpt}
boards=${3:-m4 m7 m55}
oi=$build/bin/openinfer
work=${MCU_BENCH_DIR:-$(mktemp -d)}
mkdir -p "$work"
py=/usr/bin/python3
rows=()
for example in $examples; do
  for board in $boards; do
    dir="$work/$example-$board"
    if ! bash "$root/tests/mcu/mcu_test.sh" "$oi" "$root" "$dir" "$board" "$example" \
      > "$work/$example-$board.log" 2>&1; then
      echo "bench: $example on $board failed (or was skipped), see $work/$example-$board.log" >&2
      tail -3 "$work/$example-$board.log" >&2
      continue
    fi
    rows+=("$example $board $dir")
  done
done
[[ ${#rows[@]} -gt 0 ]] || { echo "bench: nothing ran" >&2; exit 1; }
model_vad=$("$root/examples/silero_vad/fetch_and_export.sh" --quiet 2>/dev/null || true)
printf '%s\n' "${rows[@]}" |
  PYTHONPATH="$root/python" "$py" "$root/tests/mcu/mcu_check.py" table "$oi" "$root" "$model_vad"
echo "(work files: $work)"
