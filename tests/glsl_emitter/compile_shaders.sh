#!/usr/bin/env bash
# compile_shaders.sh GLSLC DIR [plain]: compiles every DIR/shaders/*.comp as the generated
# CMakeLists.txt does (kernel_K.spv, and kernel_K_ieee.spv with -DOI_IEEE_SPECIALS), two at a
# time. With `plain` only kernel_K.spv (the runner then uses it on any device): the example
# graphs meet no NaN or infinity, and it halves the time. The Vulkan backend's shader variants
# the manifest dispatches are compiled by compile_vulkan_variants.py.
set -euo pipefail
glslc=$1; dir=$2; mode=${3:-both}
if compgen -G "$dir/shaders/*.comp" > /dev/null; then
  ls "$dir"/shaders/*.comp | xargs -P 2 -I{} sh -c \
    'c={}; "$0" --target-env=vulkan1.1 -O "$c" -o "${c%.comp}.spv" &&
     if [ "$1" != plain ]; then
       "$0" --target-env=vulkan1.1 -O -DOI_IEEE_SPECIALS "$c" -o "${c%.comp}_ieee.spv"; fi' \
    "$glslc" "$mode"
fi
/usr/bin/python3 "$(dirname "$0")/compile_vulkan_variants.py" "$glslc" "$dir" "$mode"
