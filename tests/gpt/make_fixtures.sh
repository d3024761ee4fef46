#!/bin/sh
# Regenerates the tiny GPT fixtures of tests/gpt (committed; the build needs no Python):
# 2 layers, d = 64, 4 heads, vocab 256, 40 positions, an 8-token prompt, seed 0, and PyTorch's
# reference for 32 steps (examples/gpt/export_gpt.py).
#   sh tests/gpt/make_fixtures.sh [OUT_DIR]   (default: fixtures/ next to this)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-$here/fixtures}
mkdir -p "$out"
/usr/bin/python3 "$here/../../examples/gpt/export_gpt.py" \
  --layers 2 --dim 64 --heads 4 --vocab 256 --ctx 40 --prompt-len 8 --seed 0 \
  -o "$out/tiny_model.oinf" --reference "$out/tiny_reference.oinf" --steps 32
