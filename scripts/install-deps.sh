#!/usr/bin/env bash
# Installs every system package OpenInfer needs on Debian 12 (bookworm).
# Idempotent: packages already present are skipped; nothing is downloaded by hand.
set -euo pipefail

packages=(
  build-essential cmake ninja-build ccache pkg-config git
  clang libclang-rt-14-dev            # libFuzzer and the asan preset
  clang-format                        # tests: scripts/check-format.sh
  libboost1.81-dev libboost-json1.81-dev libboost-program-options1.81-dev
  libboost-test1.81-dev libboost-filesystem1.81-dev
  libtbb-dev libxsimd-dev libopenblas-dev   # libopenblas-dev: f32/f64 matmul in the CPU plugin
  libvulkan-dev vulkan-tools glslc libshaderc-dev mesa-vulkan-drivers
  python3 python3-numpy python3-venv
  python3-mpmath                      # tests: fixtures_regenerate (f64_math, vulkan_extra cases)
  python3-onnx espeak-ng   # examples/silero_vad: weights from ONNX, test speech
  python3-setuptools python3-wheel   # python/: the offline `pip install --no-build-isolation`
  gcc-arm-none-eabi picolibc-arm-none-eabi qemu-system-arm   # tests/mcu: Cortex-M under QEMU
  graphviz fonts-dejavu-core   # graph dot --svg, synth --svg; DejaVu: the pictures' font everywhere
)

# examples/silero_vad's reference (onnxruntime-node) needs node and npm; a machine that has
# them from elsewhere (nodesource) keeps them: Debian's npm would conflict with that nodejs.
if ! command -v npm >/dev/null 2>&1; then packages+=(nodejs npm); fi

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages present"
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
echo "install-deps: installing ${missing[*]}"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
