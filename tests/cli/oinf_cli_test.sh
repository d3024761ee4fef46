#!/usr/bin/env bash
# CLI contract of `openinfer oinf` (cli.md): exit codes 0/1/2, `error: ...` as the first
# stderr line, `TEXT:LINE:COL: error:` for pack errors, nothing written on failure, --help.
# Usage: oinf_cli_test.sh OPENINFER_BINARY SOURCE_DIR
set -u
BIN=$1
SRC=$2
FIX=$SRC/tests/oinf_text/fixtures
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
failures=0

fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}

# run EXPECTED_EXIT ARGS...: runs the binary, keeps stdout/stderr in $TMP/out and $TMP/err.
run() {
  local expected=$1
  shift
  "$BIN" "$@" >"$TMP/out" 2>"$TMP/err"
  local code=$?
  [ "$code" -eq "$expected" ] || fail "openinfer $* exited $code, expected $expected: $(head -3 "$TMP/err")"
}

# first_err_matches REGEX: the first stderr line matches REGEX.
first_err_matches() {
  head -1 "$TMP/err" | grep -Eq -- "$1" || fail "first stderr line '$(head -1 "$TMP/err")' does not match '$1'"
}

out_contains() {
  grep -Fq -- "$1" "$TMP/out" || fail "stdout lacks '$1'"
}

# --help for the group and every sub-command: exit 0, usage on stdout.
run 0 oinf --help
out_contains "pack TEXT -o FILE"
for sub in inspect verify dump pack; do
  run 0 oinf "$sub" --help
  out_contains "Usage: openinfer oinf $sub"
  out_contains "--help"
done

# Usage errors: exit 2 with `error:` first.
run 2 oinf
first_err_matches '^error: missing sub-command'
run 2 oinf frobnicate
first_err_matches "^error: unknown sub-command 'oinf frobnicate'"
run 2 oinf inspect
first_err_matches '^error: missing FILE'
run 2 oinf inspect --bogus "$FIX/all_dtypes.oinf"
first_err_matches '^error: .*bogus'
run 2 oinf dump a.oinf b.oinf
first_err_matches '^error: '
run 2 oinf pack "$FIX/all_dtypes.txt"
first_err_matches '^error: missing -o FILE'

# Missing or corrupt input: exit 1.
run 1 oinf inspect "$TMP/does-not-exist.oinf"
first_err_matches '^(.*: )?error: '
run 1 oinf pack "$TMP/does-not-exist.txt" -o "$TMP/x.oinf"
first_err_matches "^error: cannot read '.*does-not-exist.txt'"
[ ! -e "$TMP/x.oinf" ] || fail "pack of a missing text left $TMP/x.oinf"
head -c 100 "$FIX/all_dtypes.oinf" >"$TMP/truncated.oinf"
run 1 oinf verify "$TMP/truncated.oinf"
first_err_matches '^(.*: )?error: '
[ ! -s "$TMP/out" ] || fail "verify of a corrupt file printed '$(cat "$TMP/out")'"

# verify, inspect, dump, pack on good files.
run 0 oinf verify "$FIX/all_dtypes.oinf"
[ "$(cat "$TMP/out")" = "ok" ] || fail "verify printed '$(cat "$TMP/out")', expected ok"
run 0 oinf dump "$FIX/all_dtypes.oinf"
cmp -s "$TMP/out" "$FIX/all_dtypes.txt" || fail "dump differs from all_dtypes.txt"
run 0 oinf pack "$FIX/all_dtypes.txt" -o "$TMP/packed.oinf"
cmp -s "$TMP/packed.oinf" "$FIX/all_dtypes.oinf" || fail "pack differs from all_dtypes.oinf"
run 0 oinf pack --output "$TMP/packed2.oinf" "$FIX/all_dtypes.txt"
cmp -s "$TMP/packed2.oinf" "$FIX/all_dtypes.oinf" || fail "pack --output differs"
run 0 oinf inspect "$SRC/examples/minimal/model.oinf"
out_contains "B := 16"
out_contains "a: f32[B] = { 3.4324, 53.24324, 0.5, 1.25, 7.0, ..., 2.0, 9.75, 11.0, -1.0, 2334.2346 }"
out_contains "- [nbytes: 64, min: -2.5, max: 2334.2346, mean: "
out_contains "y: f32[B] -- uninitialized"

# pack errors: TEXT:LINE:COL first, exit 1, no output file, an existing output untouched.
printf '# bad\na: u8[2] = { 1, 256 }\n' >"$TMP/bad.txt"
run 1 oinf pack "$TMP/bad.txt" -o "$TMP/bad.oinf"
first_err_matches "^$TMP/bad.txt:2:17: error: value 256 does not fit u8 \(0\.\.255\)$"
[ ! -e "$TMP/bad.oinf" ] || fail "failed pack left bad.oinf behind"
printf 'a: f32[3] = { 1, 2 }\n' >"$TMP/count.txt"
echo "keep" >"$TMP/existing.oinf"
run 1 oinf pack "$TMP/count.txt" -o "$TMP/existing.oinf"
first_err_matches "^$TMP/count.txt:1:13: error: 'a' has 2 values but f32\[3\] holds 3$"
[ "$(cat "$TMP/existing.oinf")" = "keep" ] || fail "failed pack changed an existing output"
printf 'x: q7[2]\n' >"$TMP/dtype.txt"
run 1 oinf pack "$TMP/dtype.txt" -o "$TMP/dtype.oinf"
first_err_matches "^$TMP/dtype.txt:1:4: error: unknown dtype 'q7'$"
printf 'a: f32[2] = { 1, 2 } }\n' >"$TMP/malformed.txt"
run 1 oinf pack "$TMP/malformed.txt" -o "$TMP/malformed.oinf"
first_err_matches "^$TMP/malformed.txt:1:22: error: "
[ -z "$(ls "$TMP" | grep -v -E '^(out|err|bad.txt|count.txt|existing.oinf|dtype.txt|malformed.txt|truncated.oinf|packed.oinf|packed2.oinf)$')" ] ||
  fail "stray files left: $(ls "$TMP")"

if [ "$failures" -ne 0 ]; then
  echo "$failures failure(s)"
  exit 1
fi
echo "all oinf CLI checks passed"
