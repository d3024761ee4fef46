#!/usr/bin/env bash
# compile_shaders.sh GLSLC DIR [both|plain|ieee]: compiles a generated program's shaders as the
# generated CMakeLists.txt does (kernel_K.spv, kernel_K_ieee.spv with -DOI_IEEE_SPECIALS, the
# Vulkan backend's variants its manifest dispatches), two at a time, each SPIR-V cached by its
# sources and defines (tests/synth/spirv_cache.py). `plain`: only kernel_K.spv and the plain
# variants (the runner then uses them on any device: the example graphs meet no NaN or infinity).
# `ieee`: only what the manifest runner picks on lavapipe.
set -euo pipefail
exec /usr/bin/python3 "$(dirname "$0")/../synth/spirv_cache.py" "$1" "$2" "${3:-both}"
