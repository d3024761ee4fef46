#!/bin/sh
# Regenerates the tiny GPT fixtures of tests/gpt (committed; the build needs no Python):
# 2 layers, d = 64, 4 heads, vocab 256, 40 positions, an 8-token prompt, seed 0, and PyTorch's
# reference for 32 steps (examples/gpt/export_gpt.py).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
/usr/bin/python3 "$here/../../examples/gpt/export_gpt.py" \
  --layers 2 --dim 64 --heads 4 --vocab 256 --ctx 40 --prompt-len 8 --seed 0 \
  -o "$here/fixtures/tiny_model.oinf" --reference "$here/fixtures/tiny_reference.oinf" --steps 32
