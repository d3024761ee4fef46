#!/bin/sh
# Regenerates the tiny GPT fixtures of tests/gpt (committed; the build needs no Python):
# 2 layers, d = 64, 4 heads, vocab 256, 40 positions, an 8-token prompt, seed 0, and PyTorch's
# reference for 32 steps (examples/gpt/export_gpt.py): tiny_* with f32 weights (gpt.oi), and
# tiny_f16_* with the same weights rounded to f16 and PyTorch computing as gpt_f16.oi does.
#   sh tests/gpt/make_fixtures.sh [OUT_DIR]   (default: fixtures/ next to this)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-$here/fixtures}
mkdir -p "$out"
for dtype in f32 f16; do
  name=tiny
  [ "$dtype" = f32 ] || name=tiny_$dtype
  /usr/bin/python3 "$here/../../examples/gpt/export_gpt.py" \
    --layers 2 --dim 64 --heads 4 --vocab 256 --ctx 40 --prompt-len 8 --seed 0 --dtype $dtype \
    -o "$out/${name}_model.oinf" --reference "$out/${name}_reference.oinf" --steps 32
done
