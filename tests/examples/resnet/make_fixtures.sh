#!/bin/sh
# The tiny ResNet-18 of the resnet tests: torchvision's architecture at width 4 (stages 4, 8,
# 16, 32 channels), 32x32 inputs, a batch of 2 and 10 classes, with PyTorch's logits.
#   sh tests/examples/resnet/make_fixtures.sh [OUT_DIR]   (default: fixtures/ next to this)
set -e
here="$(cd "$(dirname "$0")" && pwd)"
out="${1:-$here/fixtures}"
mkdir -p "$out"
/usr/bin/python3 "$here/../../../examples/resnet/export_resnet.py" "$out" \
  --width 4 --size 32 --batch 2 --classes 10 --seed 7
chmod 644 "$out"/*.oinf
