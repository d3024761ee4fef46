#!/usr/bin/env bash
# The whole test suite, as CI runs it: install dependencies, build with the `dev` preset and
# run every test, then build core, frontend and the format code with ASan+UBSan (`asan`
# preset, clang) and run their tests and the libFuzzer smoke runs.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/install-deps.sh

cmake --preset dev
cmake --build --preset dev
ctest --preset dev

cmake --preset asan
cmake --build --preset asan
ctest --preset asan
