#!/usr/bin/env bash
# The whole test suite, as CI runs it: install dependencies, build with the `dev` preset and
# run every test, run the float-comparing ones again under the other OPENBLAS_CORETYPE setting,
# then one clang build with ASan+UBSan and libFuzzer's coverage instrumentation (`asan` preset:
# core, frontend, the CLI, the CPU plugin, the fault fixtures, their tests and the fuzz targets)
# and its tests: the executor, fault and bounded-memory tests on the CPU plugin under the
# sanitizers, and a short instrumented libFuzzer run of every fuzz target
# (OPENINFER_FUZZ_SMOKE_SECONDS, 10 s each; scripts/fuzz-long.sh runs them for longer).
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/install-deps.sh

cmake --preset dev
cmake --build --preset dev
ctest --preset dev

# The float-comparing tests once more under the other OpenBLAS kernel: the CPU backend's f32
# matmul is OpenBLAS, whose kernel (and so summation order) follows the processor and
# OPENBLAS_CORETYPE, which some machines set. These tests compare it with generated C, shaders,
# numpy, PyTorch or ONNX Runtime, so their data must be exact in any order, or their bounds
# cover the magnitudes summed (tests/README.md). The GLSL target's graph sweeps are left out:
# glsl_vs_simulator holds the C list's graphs and data, which the synth_c_ tests rerun against
# the same simulator, the language and emitter tests use data exact in any order, and the
# shaders' side does not depend on OpenBLAS (FLOAT_ORDER=all runs them too).
float_order='^(synth_c_|gpt_|resnet_|silero_vad_|exec_|glsl_(gpt|resnet|silero_vad)|plugins_cpu_kernels_test$|plugins_cpu_blas_matmul_test$)'
[ "${FLOAT_ORDER:-}" = all ] &&
  float_order='^(synth_c_|glsl_|gpt_|resnet_|silero_vad_|exec_|plugins_cpu_kernels_test$|plugins_cpu_blas_matmul_test$)'
if [ -n "${OPENBLAS_CORETYPE:-}" ]; then
  echo "test-all: the float-order tests again with OPENBLAS_CORETYPE unset (it was ${OPENBLAS_CORETYPE})"
  env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE ctest --preset dev -R "$float_order"
else
  other=Sandybridge
  grep -qw avx2 /proc/cpuinfo && other=Haswell
  echo "test-all: the float-order tests again with OPENBLAS_CORETYPE=$other"
  OPENBLAS_CORETYPE=$other ctest --preset dev -R "$float_order"
fi

cmake --preset asan
cmake --build --preset asan
ctest --preset asan
