#!/bin/sh
# Greedy decoding tokens/s of examples/gpt/gpt.oi at GPT-2-small shape (12 layers, d = 768,
# 12 heads, vocab 50257, 128 positions, random weights, an 8-token prompt) next to PyTorch
# eager running the same decoder (bench/gpt_torch_peer.py), alternating, RUNS times each.
#
#   sh bench/gpt_tokens.sh [BUILD_DIR=build/dev] [RUNS=3] [BACKEND=cpu]
#   PEER_DEVICE=cuda sh bench/gpt_tokens.sh BUILD 3 vulkan     (on a GPU: PyTorch CUDA eager)
#
# The model package (~495 MB) is written once to $GPT_BENCH_DIR (default
# /tmp/openinfer_gpt_bench). The figure is decode tokens/s (steps 1..32, one position each);
# the last line gives OpenInfer / PyTorch per run. Both sides use 2 threads.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-build/dev}
runs=${2:-3}
backend=${3:-cpu}
dir=${GPT_BENCH_DIR:-/tmp/openinfer_gpt_bench}
model=$dir/gpt2_small.oinf
steps=33
mkdir -p "$dir"
if [ ! -f "$model" ]; then
  ${PYTHON:-/usr/bin/python3} "$root/examples/gpt/export_gpt.py" --layers 12 --dim 768 --heads 12 \
    --vocab 50257 --ctx 128 --prompt-len 8 --seed 0 -o "$model"
fi

ours=""
peer=""
i=0
while [ "$i" -lt "$runs" ]; do
  line=$("$root/$build/bin/gpt_example" --model "$model" --steps $steps --backend "$backend" -q)
  echo "openinfer $line"
  ours="$ours $(echo "$line" | sed -n 's/.* \([0-9.e+-]*\) tokens\/s.*/\1/p')"
  line=$(${PYTHON:-/usr/bin/python3} "$root/bench/gpt_torch_peer.py" --steps $steps --threads 2 \
    --device "${PEER_DEVICE:-cpu}" | tail -1)
  echo "$line"
  peer="$peer $(echo "$line" | sed -n 's/.* \([0-9.e+-]*\) tokens\/s.*/\1/p')"
  i=$((i + 1))
done
echo "$ours" "|" "$peer" | awk '{
  n = (NF - 1) / 2; printf "decode tokens/s, OpenInfer / PyTorch eager per run:";
  for (i = 1; i <= n; ++i) printf " %.2f", $i / $(i + n + 1); printf "\n" }'
