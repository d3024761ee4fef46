#!/usr/bin/env bash
# GPT decoder (examples/gpt/gpt.oi at GPT-2-small shape: 12 layers, d 768, 12 heads, vocab
# 50257, 128 positions, random weights, an 8-token prompt) decode tokens/s, in ONE run on this
# machine, alternating rounds, 33 steps (the prompt, then 32 tokens; the figure covers the 32):
#   - c:     `openinfer synth gpt.oi --target c --device DEV` (this machine's probed
#            description; weights read at create), `cc -O2` plus DEV's flags
#            (scripts/device_cflags.py), bench/synth_gpt_harness.c, one thread;
#   - ort:   onnxruntime-node with past key/values (bench/gpt_onnx_export.py, the same weights;
#            bench/gpt_ort.js), intraOpNumThreads 1 (and 2);
#   - torch: PyTorch eager (bench/gpt_torch_peer.py), 1 (and 2) threads.
# All must pick the same 33 tokens (checked). OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE are unset.
#
#   bench/synth_gpt.sh [BUILD_DIR] [ROUNDS]      (default build/rel, 5)
# The model (~495 MB .oinf, ~495 MB .onnx) is written once to $GPT_BENCH_DIR (default
# /tmp/openinfer_gpt_bench).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${1:-$root/build/rel}"
rounds="${2:-5}"
unset OPENBLAS_CORETYPE OPENBLAS_L2_SIZE
oi="$build/bin/openinfer"
[[ -x "$oi" ]] || { echo "error: $oi is missing" >&2; exit 2; }
dir="${GPT_BENCH_DIR:-/tmp/openinfer_gpt_bench}"
model="$dir/gpt2_small.oinf"
mkdir -p "$dir"
if [[ ! -f "$model" ]]; then
  /usr/bin/python3 "$root/examples/gpt/export_gpt.py" --layers 12 --dim 768 --heads 12 \
    --vocab 50257 --ctx 128 --prompt-len 8 --seed 0 -o "$model" >&2
fi
[[ -f "$dir/gpt.onnx" ]] || /usr/bin/python3 "$root/bench/gpt_onnx_export.py" "$dir/gpt.onnx" >&2
ort_dir="$(dirname "$("$root/examples/silero_vad/fetch_and_export.sh" --with-ort --quiet)")/ort"
prompt="$(PYTHONPATH="$root/python" /usr/bin/python3 -c "
from openinfer import oinf
print(','.join(str(int(t)) for t in oinf.read('$model')['prompt']))")"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

"$oi" devices probe --backend cpu -o "$work/device.json"
flags="$(/usr/bin/python3 "$root/scripts/device_cflags.py" "$work/device.json")"
"$oi" synth "$root/examples/gpt/gpt.oi" --model "$model" --target c --device "$work/device.json" \
  --name gpt -o "$work/gen" >/dev/null
cc="${CC:-cc}"
# shellcheck disable=SC2086
"$cc" -std=c11 -O2 $flags -I"$work/gen" "$work/gen/gpt.c" "$root/bench/synth_gpt_harness.c" -lm \
  -o "$work/gpt_c"

# Each prints "TOKENS_PER_S TOKEN,TOKEN,..."
pick='import json, sys; j = json.load(sys.stdin); print("%.3f" % j["decode_tokens_per_s"], ",".join(map(str, j["tokens"])))'
c_run() { "$work/gpt_c" "$model" 33 | /usr/bin/python3 -c "$pick"; }
ort_run() {
  node "$root/bench/gpt_ort.js" --ort-dir "$ort_dir" --model "$dir/gpt.onnx" --prompt "$prompt" \
    --steps 33 --threads "$1" | /usr/bin/python3 -c "$pick"
}
torch_run() {
  /usr/bin/python3 "$root/bench/gpt_torch_peer.py" --steps 33 --threads "$1" >"$work/torch.txt"
  printf "%s %s\n" "$(sed -n 's/.* \([0-9.e+-]*\) tokens\/s.*/\1/p' "$work/torch.txt")" \
    "$(sed -n 's/^generated: //p' "$work/torch.txt" | tr ' ' ',')"
}

echo "load before: $(uptime)"
echo "c:     $cc -std=c11 -O2 $flags (probed device); BLAS: none (generated kernels)"
echo "ort:   onnxruntime-node $(node -e "console.log(require('$ort_dir/node_modules/onnxruntime-node/package.json').version)") with past K/V (MLAS; no OpenBLAS)"
echo "torch: $(/usr/bin/python3 -c 'import torch; print("PyTorch", torch.__version__)') eager"
printf "%-6s %9s %9s %9s %9s %9s   (decode tokens/s)\n" round c ort1 torch1 ort2 torch2
declare -a C O1 T1 O2 T2
tokens=""
check() {  # LINE: the contender's rate; its tokens must equal the first contender's
  local t="${1#* }"
  if [[ -z "$tokens" ]]; then tokens="$t"; elif [[ "$t" != "$tokens" ]]; then
    echo "error: tokens differ: $t vs $tokens" >&2; exit 1
  fi
  printf "%s" "${1%% *}"
}
for ((r = 1; r <= rounds; r++)); do
  if ((r % 2)); then
    c="$(check "$(c_run)")"; o1="$(check "$(ort_run 1)")"; t1="$(check "$(torch_run 1)")"
    o2="$(check "$(ort_run 2)")"; t2="$(check "$(torch_run 2)")"
  else
    t2="$(check "$(torch_run 2)")"; o2="$(check "$(ort_run 2)")"; t1="$(check "$(torch_run 1)")"
    o1="$(check "$(ort_run 1)")"; c="$(check "$(c_run)")"
  fi
  C+=("$c"); O1+=("$o1"); T1+=("$t1"); O2+=("$o2"); T2+=("$t2")
  printf "%-6s %9.2f %9.2f %9.2f %9.2f %9.2f\n" "$r" "$c" "$o1" "$t1" "$o2" "$t2"
done
/usr/bin/python3 - "${C[*]}" "${O1[*]}" "${T1[*]}" "${O2[*]}" "${T2[*]}" <<'PY'
import statistics, sys
c, o1, t1, o2, t2 = (statistics.median(float(v) for v in a.split()) for a in sys.argv[1:6])
print(f"median {c:9.2f} {o1:9.2f} {t1:9.2f} {o2:9.2f} {t2:9.2f}")
print(f"c / ort1 = {c / o1:.2f}x (target >= 1.0x)   c / torch1 = {c / t1:.2f}x   "
      f"c / ort2 = {c / o2:.2f}x   c / torch2 = {c / t2:.2f}x (c on one thread)")
PY
echo "load after:  $(uptime)"
