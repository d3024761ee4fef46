#!/bin/sh
# OINF open benchmark: writes a 1 GiB package with 1,000 tensors to a temporary directory,
# then measures Model::open time, resident memory and the first access of a 4 MiB tensor.
# The same is then measured on a 64 MiB package with the same 1,000 entries, to show that
# open time and memory depend on the number of entries, not on the file size.
# Usage: bench/oinf_open.sh [path/to/oinf_open_bench]   (default: build/oinf/bench/oinf_open_bench)
set -eu
bench=${1:-build/oinf/bench/oinf_open_bench}
[ -x "$bench" ] || { echo "oinf_open.sh: $bench not built (cmake --build DIR --target oinf_open_bench)" >&2; exit 2; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
for mib in 1024 64; do
  echo "== $mib MiB package =="
  "$bench" write "$dir/model.oinf" "$mib"
  "$bench" measure "$dir/model.oinf"
  rm -f "$dir/model.oinf"
done
