#!/usr/bin/env bash
# Runs the Vulkan backend's tests on a machine with an NVIDIA GPU, from a build made elsewhere.
#
#   here:  scripts/run-vulkan-on-gpu.sh pack [BUILD_DIR] [PACK_DIR]    (default build/vulkan .vkgpu)
#   there: scripts/run-vulkan-on-gpu.sh run [PACK_DIR] [DEBS_DIR]      (default .vkgpu .gl)
#          scripts/run-vulkan-on-gpu.sh bench [PACK_DIR] [DEBS_DIR]    (speed figures)
#          scripts/run-vulkan-on-gpu.sh nn [PACK_DIR] [DEBS_DIR]       (attention and conv vs
#                                                                       PyTorch CUDA)
#          scripts/run-vulkan-on-gpu.sh gpt [PACK_DIR] [DEBS_DIR]      (GPT-2-small decode vs
#                                                                       PyTorch CUDA: graph, eager)
#          scripts/run-vulkan-on-gpu.sh glsl [PACK_DIR] [DEBS_DIR] [DEVICE_JSON]  (the GLSL
#                                  target's op coverage, tests/synth/glsl_target_coverage.py)
#          scripts/run-vulkan-on-gpu.sh differential [PACK_DIR] [DEBS_DIR] [SEED] [COUNT]
#                                  [DEVICE_JSON]  (random graphs through the GLSL target
#                                  against the simulator, tests/synth/random/differential.py)
#          scripts/run-vulkan-on-gpu.sh exec PACK_DIR DEBS_DIR PROGRAM ARGS...  (any packed
#                                                                       program: openinfer run)
#          scripts/run-vulkan-on-gpu.sh examples [PACK_DIR] [DEBS_DIR]  (the examples on the
#                                  Vulkan backend against their references; `pack` copies the
#                                  Silero VAD model and chunks into PACK_DIR when present here)
#          scripts/run-vulkan-on-gpu.sh chain [PACK_DIR] [DEBS_DIR] [NODES] [STEPS]
#                                  (bench/vulkan_chain.sh: per-node cost of a chain of tiny ops)
#
# `pack` gathers the test binary, the plugin and every shared library they load; glibc and the
# dynamic loader go to a side folder, used only when the GPU machine's glibc is older (a newer
# one must stay: the driver's libraries need it). `run`
# expects Debian's libvulkan1 and glvnd .debs in DEBS_DIR and unpacks them into / first (the
# NVIDIA driver there ships its ICD but no Vulkan loader), then runs the test with the packed
# loader. Exit status: the last failing test's (77: no Vulkan device found).
set -euo pipefail
cd "$(dirname "$0")/.."

pack() {
  local build=${1:-build/vulkan} out=${2:-.vkgpu}
  rm -rf "$out"
  mkdir -p "$out/bin" "$out/lib" "$out/glibc" "$out/plugins"
  for t in vulkan_kernels_test vulkan_cache_test vulkan_batching_test vulkan_f32_math_test \
    vulkan_int64_test vulkan_bench vulkan_f16_matmul vulkan_f16_attention \
    vulkan_matmul_large_tile_test; do
    cp "$build/tests/vulkan/$t" "$out/bin/"
  done
  # bench/README.md "Per-dispatch cost of a dependent chain", when built.
  [[ -f $build/tests/vulkan/vulkan_dispatch_probe ]] && cp "$build/tests/vulkan/vulkan_dispatch_probe" "$out/bin/"
  cp "$build/lib/openinfer/plugins/libopeninfer_vulkan.so" "$out/plugins/"
  # The CPU plugin (per-node fallback) and the GPT example, when built.
  for f in openinfer gpt_example resnet_example; do [[ -f $build/bin/$f ]] && cp "$build/bin/$f" "$out/bin/"; done
  for f in nn_attention_bench nn_spatial_bench; do
    [[ -f $build/bench/$f ]] && cp "$build/bench/$f" "$out/bin/"
  done
  [[ -f $build/lib/openinfer/plugins/libopeninfer_cpu.so ]] &&
    cp "$build/lib/openinfer/plugins/libopeninfer_cpu.so" "$out/plugins/"
  # The GLSL target (`glsl` below): its emitter, the generated host program's runner and glslc.
  if [[ -f $build/lib/openinfer/plugins/libopeninfer_glsl_emitter.so ]]; then
    cp "$build/lib/openinfer/plugins/libopeninfer_glsl_emitter.so" "$out/plugins/"
    cp "$build/tests/glsl_emitter/glsl_manifest_runner" "$(command -v glslc)" "$out/bin/"
  fi
  strip --strip-debug "$out"/bin/* "$out"/plugins/*.so
  for f in "$out"/bin/* "$out"/plugins/*.so; do
    ldd "$f" | awk '/=> \// {print $3} /^\t\/.*ld-linux/ {print $1}' | while read -r lib; do
      case "$(basename "$lib")" in
        ld-linux* | libc.so* | libm.so* | libstdc++* | libgcc_s*) cp -L "$lib" "$out/glibc/" ;;
        *) cp -L "$lib" "$out/lib/" ;;
      esac
    done
  done
  ldd --version | awk 'NR == 1 {print $NF}' >"$out/glibc/version"
  # The Silero VAD model (downloaded once here, none there) and speech.wav as 212 chunks.
  local vad=${OPENINFER_CACHE_DIR:-$HOME/.cache/openinfer}/silero_vad/silero_vad_16k.oinf
  if [[ -f $vad ]]; then
    mkdir -p "$out/vad" && cp "$vad" "$out/vad/"
    /usr/bin/python3 examples/silero_vad/wav_to_chunks.py tests/silero_vad/speech.wav \
      "$out/vad/chunks.oinf" >"$out/vad/steps"
  fi
  echo "packed into $out ($(du -sh "$out" | cut -f1))"
}

# setup PACK_DIR DEBS_DIR: installs the loader .debs and sets PACK (absolute), LIBS and LOADER,
# what a packed program needs to run against the system's driver.
setup() {
  local pack debs=$2
  pack=$(cd "$1" && pwd)
  PACK=$pack
  for f in "$debs"/*.deb; do  # none: the loader is installed already
    if [[ -e $f ]]; then dpkg -x "$f" /; fi
  done
  ldconfig
  local icd=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
  if [[ -z "${VK_DRIVER_FILES:-}" && -f $icd ]]; then export VK_DRIVER_FILES=$icd; fi
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader || true
  # The Vulkan loader and the driver come from the system (ld.so.cache and LD_LIBRARY_PATH,
  # where the NVIDIA image keeps its driver libraries).
  LIBS="$pack/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  LOADER=()
  local have want
  have=$(ldd --version | awk 'NR == 1 {print $NF}')
  want=$(cat "$pack/glibc/version")
  if [[ "$(printf '%s\n%s\n' "$have" "$want" | sort -V | head -1)" != "$want" ]]; then
    echo "glibc $have is older than the build's $want: using the packed one"
    LIBS="$pack/glibc:$LIBS"
    LOADER=("$pack/glibc/ld-linux-x86-64.so.2" --library-path "$LIBS")
  fi
}

# launch PACK_DIR DEBS_DIR PROGRAM ARGS...: runs a packed program against the system's driver.
launch() {
  local program=$3
  setup "$1" "$2"
  shift 3
  OPENINFER_TEST_PLUGIN_DIR="$PACK/plugins" OPENINFER_TEST_SOURCE_DIR="$PWD" \
    OPENINFER_PLUGIN_PATH="$PACK/plugins" \
    LD_LIBRARY_PATH="$LIBS" "${LOADER[@]}" "$PACK/bin/$program" "$@"
}

run() {
  local rc=0
  launch "${1:-.vkgpu}" "${2:-.gl}" vulkan_kernels_test --log_level=message \
    --report_level=detailed || rc=$?
  launch "${1:-.vkgpu}" "${2:-.gl}" vulkan_cache_test --report_level=detailed || rc=$?
  launch "${1:-.vkgpu}" "${2:-.gl}" vulkan_batching_test --report_level=detailed || rc=$?
  # The f32 math without f64 (forced by the test itself), then every shared case with it.
  launch "${1:-.vkgpu}" "${2:-.gl}" vulkan_f32_math_test --report_level=short || rc=$?
  # i64/u64: native (the GPU has shaderInt64), then the emulated SPIR-V forced
  launch "${1:-.vkgpu}" "${2:-.gl}" vulkan_int64_test --report_level=short || rc=$?
  OPENINFER_VULKAN_INT64=emulate launch "${1:-.vkgpu}" "${2:-.gl}" vulkan_int64_test \
    --log_level=message --report_level=short || rc=$?
  OPENINFER_VULKAN_F32_MATH=f32 launch "${1:-.vkgpu}" "${2:-.gl}" vulkan_kernels_test \
    --report_level=short || rc=$?
  return $rc
}

bench() {
  launch "${1:-.vkgpu}" "${2:-.gl}" vulkan_bench
}

# bench/vulkan_chain.sh with the packed openinfer: the per-node cost of a chain of NODES (1000)
# tiny dependent adds, Vulkan next to the CPU backend, over STEPS (10; more until they take a
# second) steps.
chain() {
  setup "${1:-.vkgpu}" "${2:-.gl}"
  OPENINFER="env LD_LIBRARY_PATH=$LIBS ${LOADER[*]} $PACK/bin/openinfer --plugin-dir $PACK/plugins" \
    bench/vulkan_chain.sh "" "${3:-1000}" "${4:-10}"
}

# GPT-2-small shape (bench/gpt_tokens.sh's model), greedy decode on the Vulkan backend next to
# PyTorch CUDA (a CUDA graph and eager) running the same decoder. The machine's own python3 (with torch) exports it.
gpt() {
  # f32 weights (gpt.oi) and f16 weights (gpt_f16.oi), each after a warm-up prompt, next to
  # PyTorch CUDA: one decode step as a CUDA graph over static K/V, eagerly, and the prompt in
  # one eager pass (bench/gpt_torch_cuda_graph.py); then the eager one-position peer.
  local dir=${GPT_BENCH_DIR:-/tmp/openinfer_gpt_bench} dtype graph
  mkdir -p "$dir"
  for dtype in f32 f16; do
    [[ -f $dir/gpt2_small_$dtype.oinf ]] || python3 examples/gpt/export_gpt.py --layers 12 \
      --dim 768 --heads 12 --vocab 50257 --ctx 128 --prompt-len 8 --seed 0 --dtype $dtype \
      -o "$dir/gpt2_small_$dtype.oinf"
    graph=examples/gpt/gpt.oi
    [[ $dtype == f16 ]] && graph=examples/gpt/gpt_f16.oi
    for _ in 1 2 3; do
      launch "${1:-.vkgpu}" "${2:-.gl}" gpt_example --model "$dir/gpt2_small_$dtype.oinf" \
        --graph $graph --steps 33 --backend vulkan --warm-up -q
    done
    python3 bench/gpt_torch_cuda_graph.py --steps 33 --dtype $dtype
  done
  python3 bench/gpt_torch_peer.py --steps 33 --device cuda | tail -1
}

# The GLSL target's op coverage on the GPU (tests/synth/glsl_target_coverage.py): every shared
# case synthesized here for DEVICE_JSON (default devices/nvidia_h200.json), its shaders compiled
# by the packed glslc and run by the packed manifest runner on the GPU. Needs python3 with numpy.
# wrappers PACK_DIR DEBS_DIR: sets WRAP, a folder of scripts that run the packed openinfer,
# glsl_manifest_runner and glslc against the system's driver.
wrappers() {
  setup "${1:-.vkgpu}" "${2:-.gl}"
  local p
  WRAP=$(mktemp -d)
  for p in openinfer glsl_manifest_runner glslc; do
    printf '#!/bin/sh\nOPENINFER_PLUGIN_PATH=%s LD_LIBRARY_PATH=%s exec %s %s "$@"\n' \
      "$PACK/plugins" "$LIBS" "${LOADER[*]}" "$PACK/bin/$p" >"$WRAP/$p"
    chmod +x "$WRAP/$p"
  done
}

glsl() {
  wrappers "$1" "$2"
  ${PYTHON:-python3} tests/synth/glsl_target_coverage.py --openinfer "$WRAP/openinfer" \
    --runner "$WRAP/glsl_manifest_runner" --glslc "$WRAP/glslc" \
    --device "${3:-devices/nvidia_h200.json}" --jobs "$(nproc)" --by-op ${GLSL_COVERAGE_ARGS:-}
}

# The random-graph differential test (tests/synth/random/differential.py) through the GLSL
# target on the GPU: COUNT graphs from seed SEED, in chunks of 500 so that each prints its
# summary as it ends.
differential() {
  wrappers "$1" "$2"
  local seed=${3:-101} count=${4:-2000} dev rc=0 n
  dev=$(realpath "${5:-devices/nvidia_h200.json}")
  while ((count > 0)); do
    n=$((count < 500 ? count : 500))
    ${PYTHON:-python3} tests/synth/random/differential.py --openinfer "$WRAP/openinfer" \
      --runner "$WRAP/glsl_manifest_runner" --glslc "$WRAP/glslc" --device "$dev" \
      --work "$(mktemp -d)" --seed "$seed" --count "$n" --jobs "$(nproc)" --min-each 10 \
      --targets glsl || rc=$?
    seed=$((seed + n))
    count=$((count - n))
  done
  return $rc
}

# The examples on the Vulkan backend: the minimal one, the tiny ResNet-18 and GPT decoder of the
# tests against PyTorch's references, and Silero VAD (when packed) against ONNX Runtime's.
examples() {
  setup "${1:-.vkgpu}" "${2:-.gl}"
  local tmp rc=0
  tmp=$(mktemp -d)
  oi() { LD_LIBRARY_PATH=$LIBS "${LOADER[@]}" "$PACK/bin/openinfer" --plugin-dir "$PACK/plugins" "$@"; }
  oi run examples/minimal/minimal.oi --model examples/minimal/model.oinf \
    --input x=examples/minimal/input.oinf --backend vulkan || rc=$?
  local fx=tests/examples/resnet/fixtures
  launch "$PACK" "$2" resnet_example --model $fx/model.oinf --input $fx/input.oinf \
    --reference $fx/reference.oinf --backend vulkan || rc=$?
  launch "$PACK" "$2" gpt_example --model tests/gpt/fixtures/tiny_model.oinf \
    --reference tests/gpt/fixtures/tiny_reference.oinf --steps 32 --backend vulkan || rc=$?
  if [[ -d $PACK/vad ]]; then
    oi run examples/silero_vad/vad.oi --model "$PACK/vad/silero_vad_16k.oinf" \
      --steps "$(cat "$PACK/vad/steps")" --input "chunk=$PACK/vad/chunks.oinf:chunk.{step}" \
      --backend vulkan --fetch prob --save "$tmp/probs.oinf" --quiet || rc=$?
    PYTHONPATH=python ${PYTHON:-python3} - "$tmp" "$(cat "$PACK/vad/steps")" <<'PY' || rc=$?
import json, sys
from openinfer import oinf
pkg = oinf.read(sys.argv[1] + "/probs.oinf")
probs = [float(pkg[f"prob.step{i}"].reshape(-1)[0]) for i in range(int(sys.argv[2]))]
json.dump({"probabilities": probs, "segments": []}, open(sys.argv[1] + "/ours.json", "w"))
PY
    ${PYTHON:-python3} tests/silero_vad/compare_probs.py "$tmp/ours.json" tests/silero_vad/ort_reference.json \
      --first "$(cat "$PACK/vad/steps")" || rc=$?
  fi
  rm -rf "$tmp"
  return $rc
}

# The attention and conv cases of bench/nn_*_bench on the Vulkan backend, then PyTorch CUDA,
# then one table of the ratios (PyTorch's median over ours; above 1: the Vulkan backend faster).
# Each Vulkan sample is NN_CALLS (20) back-to-back calls and one wait, timed per call, next to
# PyTorch's CUDA-event time of one call; NN_CALLS=1 times one call's submit and wait instead.
nn() {
  local out calls="--calls ${NN_CALLS:-20}"
  out=$(mktemp -d)
  launch "${1:-.vkgpu}" "${2:-.gl}" nn_attention_bench --backend vulkan --runs 21 $calls \
    --only attention_decode_f32_h32_d128_kv2048 | tee -a "$out/ours.jsonl"
  launch "${1:-.vkgpu}" "${2:-.gl}" nn_attention_bench --backend vulkan --runs 11 $calls \
    --only attention_prefill_causal_f32_h32_d128_t512 | tee -a "$out/ours.jsonl"
  # f16 (attention_coop.comp on tensor cores for the prefill where the device has them).
  for c in attention_decode_f16_h32_d128_kv2048 attention_prefill_causal_f16_h32_d128_t512; do
    launch "${1:-.vkgpu}" "${2:-.gl}" nn_attention_bench --backend vulkan --runs 21 $calls \
      --only $c | tee -a "$out/ours.jsonl"
  done
  for c in conv3x3_f32_1x64x56x56_to64 conv3x3_f16_1x64x56x56_to64 conv_depthwise3x3_f32_1x256x28x28 \
    conv1x1s2_f32_1x256x28x28_to512 conv7x7s2_f32_1x3x224x224_to64; do
    launch "${1:-.vkgpu}" "${2:-.gl}" nn_spatial_bench --backend vulkan --runs 21 $calls --only "$c" |
      tee -a "$out/ours.jsonl"
  done
  python3 bench/nn_gpu_peers.py | tee "$out/torch.jsonl"
  python3 - "$out" <<'PY'
import json, os, sys
read = lambda name: [json.loads(l) for l in open(os.path.join(sys.argv[1], name)) if '"case"' in l]
peers = {}
for r in read("torch.jsonl"):
    if r["case"] not in peers or r["median_ms"] < peers[r["case"]]["median_ms"]:
        peers[r["case"]] = r
print("| case | Vulkan ms (min) | PyTorch CUDA ms (min) | PyTorch form | ratio |")
print("| --- | --- | --- | --- | --- |")
for o in read("ours.jsonl"):
    t = peers.get(o["case"])
    if t:
        print(f"| {o['case']} | {o['median_ms']:.4f} ({o['min_ms']:.4f}) | {t['median_ms']:.4f} "
              f"({t['min_ms']:.4f}) | {t['how']} | {t['median_ms'] / o['median_ms']:.2f}x |")
PY
  rm -rf "$out"
}

case "${1:-}" in
  pack) shift; pack "$@" ;;
  run) shift; run "$@" ;;
  bench) shift; bench "$@" ;;
  gpt) shift; gpt "$@" ;;
  nn) shift; nn "$@" ;;
  examples) shift; examples "$@" ;;
  chain) shift; chain "$@" ;;
  glsl) shift; glsl "$@" ;;
  differential) shift; differential "$@" ;;
  exec) shift; launch "$@" ;;  # exec PACK_DIR DEBS_DIR PROGRAM ARGS...: any packed program
  *)
    echo "usage: $0 pack [BUILD_DIR] [PACK_DIR] | run|bench|nn|gpt|examples|glsl|differential [PACK_DIR] [DEBS_DIR]" \
      "| chain [PACK_DIR] [DEBS_DIR] [NODES] [STEPS]" >&2
    exit 2
    ;;
esac
