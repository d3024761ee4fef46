#!/usr/bin/env bash
# Packing TEXT reproduces the committed package OINF byte for byte, and dumping OINF gives
# TEXT back. Usage: pack_reproduces.sh OPENINFER_BINARY TEXT OINF
set -eu
BIN=$1
TEXT=$2
OINF=$3
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
"$BIN" oinf pack "$TEXT" -o "$TMP/packed.oinf"
cmp "$TMP/packed.oinf" "$OINF"
"$BIN" oinf dump "$OINF" >"$TMP/dumped.txt"
diff -u "$TEXT" "$TMP/dumped.txt"
echo "$TEXT packs to $OINF byte for byte"
