#!/usr/bin/env bash
# Fails when a tracked C or C++ file differs from what clang-format (.clang-format) would write,
# listing each file; `bash scripts/check-format.sh --fix` rewrites them in place. CTest runs the
# check (repo_format_check). Tables laid out by hand sit between `clang-format off/on` comments.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v clang-format >/dev/null 2>&1; then
  echo "check-format: clang-format is missing (Debian: apt-get install clang-format)" >&2
  exit 1
fi
mapfile -t files < <(git ls-files '*.c' '*.h' '*.cpp' '*.hpp')
if [[ "${1:-}" == "--fix" ]]; then
  clang-format -i "${files[@]}"
  exit 0
fi
# One clang-format process for all files; its warnings start with "FILE:LINE:COL: ".
mapfile -t bad < <(clang-format --dry-run "${files[@]}" 2>&1 | grep -oE '^[^:]+:[0-9]+:[0-9]+: (warning|error)' |
  cut -d: -f1 | sort -u)
if [[ ${#bad[@]} -gt 0 ]]; then
  echo "check-format: ${#bad[@]} file(s) are not clang-formatted (fix: bash scripts/check-format.sh --fix):" >&2
  printf '  %s\n' "${bad[@]}" >&2
  exit 1
fi
echo "check-format: ${#files[@]} files clang-formatted ($(clang-format --version))"
