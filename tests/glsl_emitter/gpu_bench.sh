#!/usr/bin/env bash
# The issue's speed check: the generated GLSL of an 8-op f32 elementwise chain (64M elements,
# one kernel after fusion) against a device-to-device copy of as many bytes, on an NVIDIA GPU.
#
#   here:  tests/glsl_emitter/gpu_bench.sh pack [BUILD_DIR] [PACK_DIR]   (default build/glsl .glslgpu)
#   there: tests/glsl_emitter/gpu_bench.sh run [PACK_DIR] [DEBS_DIR]     (default .glslgpu .gl)
#
# `pack` synthesizes bench_chain.oi for devices/nvidia_h100.json with `openinfer synth --target
# glsl`, compiles the shaders with glslc and packs the manifest runner with the shared libraries
# it loads; `run` unpacks Debian's libvulkan1 (DEBS_DIR) like scripts/run-vulkan-on-gpu.sh and
# runs the runner's --bench (median of 10 submissions of 20 chains each) on the chain and on two
# copy kernels (float and vec4 loads); the chain's GB/s over the vec4 copy's is the figure.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/../.."

pack() {
  local build=${1:-build/glsl} out=${2:-.glslgpu}
  rm -rf "$out" && mkdir -p "$out/bin" "$out/lib" "$out/glibc"
  cat >"$out/bench_chain.oi" <<'OI'
dynamic { x: f32[N]; }
volatile { y: f32[N]; }
block entry {
  assign t: f32[N];
  op mul(x, x) >> t;
  op add(t, x) >> t;
  op sub(t, x) >> t;
  op max(t, x) >> t;
  op min(t, x) >> t;
  op abs(t) >> t;
  op neg(t) >> t;
  op relu(t) >> y;
  return y;
}
OI
  PYTHONPATH=python /usr/bin/python3 -c "from openinfer import oinf; oinf.write('$out/model.oinf', sizevars={'N': 64 * 1024 * 1024})"
  "$build/bin/openinfer" --plugin-dir "$build/lib/openinfer/plugins" synth "$out/bench_chain.oi" \
    --model "$out/model.oinf" --target glsl --device devices/nvidia_h100.json --name chain -o "$out/gen"
  for s in "$out"/gen/shaders/*.comp; do
    glslc --target-env=vulkan1.1 -O "$s" -o "${s%.comp}.spv"
    glslc --target-env=vulkan1.1 -O -DOI_IEEE_SPECIALS "$s" -o "${s%.comp}_ieee.spv"
  done
  # The copy baselines: hand-written manifests of one kernel that copies x to y, as floats and
  # as vec4s (the best a shader does), run by the same runner.
  for width in float vec4; do
    local dir="$out/copy_$width" n=$((64 * 1024 * 1024)) per=1
    [[ $width == vec4 ]] && per=4
    mkdir -p "$dir/shaders"
    cat >"$dir/shaders/kernel_0.comp" <<GLSL
#version 450
layout(local_size_x = 256) in;
layout(std430, set = 0, binding = 0) readonly buffer A { $width d[]; } a;
layout(std430, set = 0, binding = 1) writeonly buffer B { $width d[]; } b;
void main() {
  const uint n = $((n / per))u;
  for (uint i = gl_GlobalInvocationID.x; i < n; i += gl_NumWorkGroups.x * 256u) b.d[i] = a.d[i];
}
GLSL
    glslc --target-env=vulkan1.1 -O "$dir/shaders/kernel_0.comp" -o "$dir/shaders/kernel_0.spv"
    cat >"$dir/manifest.json" <<JSON
{"format":"openinfer-glsl-manifest","version":1,"name":"copy","arena_bytes":0,
 "values":[{"name":"x","dtype":"f32","storage":"dynamic","bytes":$((n * 4)),"shape":[$n]},
           {"name":"y","dtype":"f32","storage":"step","bytes":$((n * 4)),"shape":[$n]}],
 "kernels":[{"id":0,"spirv":"shaders/kernel_0.spv","workgroups":[65535,1,1],
             "bindings":[{"binding":0,"value":"x"},{"binding":1,"value":"y"}]}],
 "blocks":[{"name":"entry","steps":[{"op":"dispatch","kernel":0},{"op":"return"}]}],"outputs":["y"]}
JSON
  done
  cp "$build/tests/glsl_emitter/glsl_manifest_runner" "$out/bin/"
  strip --strip-debug "$out/bin/glsl_manifest_runner"
  ldd "$out/bin/glsl_manifest_runner" | awk '/=> \// {print $3} /^\t\/.*ld-linux/ {print $1}' |
    while read -r lib; do
      case "$(basename "$lib")" in
        ld-linux* | libc.so* | libm.so* | libstdc++* | libgcc_s*) cp -L "$lib" "$out/glibc/" ;;
        *) cp -L "$lib" "$out/lib/" ;;
      esac
    done
  ldd --version | awk 'NR == 1 {print $NF}' >"$out/glibc/version"
  echo "packed into $out ($(du -sh "$out" | cut -f1))"
}

run() {
  local pack=${1:-.glslgpu} debs=${2:-.gl}
  for f in "$debs"/*.deb; do dpkg -x "$f" /; done
  ldconfig
  local icd=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
  if [[ -z "${VK_DRIVER_FILES:-}" && -f $icd ]]; then export VK_DRIVER_FILES=$icd; fi
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader || true
  local libs="$PWD/$pack/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" loader=() have want
  have=$(ldd --version | awk 'NR == 1 {print $NF}')
  want=$(cat "$pack/glibc/version")
  if [[ "$(printf '%s\n%s\n' "$have" "$want" | sort -V | head -1)" != "$want" ]]; then
    libs="$PWD/$pack/glibc:$libs"
    loader=("$pack/glibc/ld-linux-x86-64.so.2" --library-path "$libs")
  fi
  for m in gen copy_float copy_vec4; do
    echo "== $m"
    LD_LIBRARY_PATH="$libs" "${loader[@]}" "$pack/bin/glsl_manifest_runner" --manifest "$pack/$m" \
      --model "$pack/model.oinf" --quiet --bench 10
  done
}

case "${1:-}" in
  pack) shift; pack "$@" ;;
  run) shift; run "$@" ;;
  *) echo "usage: $0 pack [BUILD_DIR] [PACK_DIR] | run [PACK_DIR] [DEBS_DIR]" >&2; exit 2 ;;
esac
