#!/usr/bin/env bash
# Issue 22's Vulkan figures on an NVIDIA GPU, next to PyTorch CUDA on the same GPU, in one call
# of the device tool (bench/README.md, "Vulkan on a GPU in one call").
#
#   here:  bench/vulkan_gpu_bench.sh pack [BUILD_DIR] [PACK_DIR]   (default build/dev .vkgpu)
#   there: bench/vulkan_gpu_bench.sh run [PACK_DIR] [DEBS_DIR]     (default .vkgpu .gl)
#
# `pack` is scripts/run-vulkan-on-gpu.sh's (the test and bench binaries, openinfer, the plugins
# and their libraries), then a .tar.xz of it beside PACK_DIR when the folder passes 60 MiB (the
# device tool carries 64 MiB); `run` unpacks PACK_DIR.tar.xz when there is no PACK_DIR folder.
# `run` needs only the pack, the repository's tree (scripts, bench, tests/vulkan), Debian's
# libvulkan1/glvnd .debs in DEBS_DIR, python3 with torch, and prints:
#   1. vulkan_bench --no-matmul for each OPENINFER_VULKAN_ELTWISE_UNROLL (1 2 4 8; 1 is the
#      default): add/relu f32 64M (20 back-to-back calls), upload/download 256 MiB, the in-process
#      chain of 1,000 adds recorded and replayed; vulkan_bench --matmul --quick (f32 4096^3);
#   2. the transfers again with other staging settings (OPENINFER_VULKAN_COPY_THREADS 1 and 8,
#      OPENINFER_VULKAN_STAGING=rebar and =wc, OPENINFER_VULKAN_STAGING_MB=64);
#   3. bench/vulkan_gpu_peers.py (PyTorch CUDA: add, relu, the chain eager and as a CUDA graph,
#      256 MiB copies from pageable and pinned memory);
#   4. bench/vulkan_chain.sh through `openinfer run` (1,000 adds a step) with replay off and on;
#   5. vulkan_kernels_test once, vulkan_batching_test, tests/vulkan/vulkan_replay_test.py and
#      vulkan_gpt_replay_test.py (the tiny GPT decoder replayed, against its reference);
#   6. a summary table against the targets.
# BENCH_ELEMENTS_M (64) sizes the elementwise and transfer figures; BENCH_SKIP_KERNELS=1 leaves
# the kernel suite out (for a quick try on lavapipe). Each part has a time limit (BENCH_PART_S, default 240 s; the kernel suite 420 s) so that the
# call ends inside the tool's 600 s; seven logs go to $OUT when it is set (the device tool brings
# back at most eight files), else to a temporary folder. Exit status: 1 when a test failed, else 0.
set -uo pipefail
cd "$(dirname "$0")/.."
root=$PWD
gpu=scripts/run-vulkan-on-gpu.sh

pack() {
  local build=${1:-build/dev} out=${2:-.vkgpu}
  "$gpu" pack "$build" "$out" || return
  if [[ $(du -sm "$out" | cut -f1) -gt 60 ]]; then
    tar cJf "$out.tar.xz" -C "$(dirname "$out")" "$(basename "$out")" && echo "also $out.tar.xz ($(du -sh "$out.tar.xz" | cut -f1)):" \
      "carry it instead of $out"
  fi
}

run() {
  local pack=${1:-.vkgpu} debs=${2:-.gl} logs=${OUT:-} limit=${BENCH_PART_S:-240} rc=0
  [[ -n $logs ]] || logs=$(mktemp -d)
  if [[ ! -d $pack && -f $pack.tar.xz ]]; then tar xJf "$pack.tar.xz" -C "$(dirname "$pack")" || return; fi
  [[ -d $pack ]] || { echo "no pack at $pack (bench/vulkan_gpu_bench.sh pack, then carry it)" >&2; return 2; }
  local t0=$SECONDS
  part() { echo; echo "== $1 ($((SECONDS - t0)) s in)"; }

  local abs m=${BENCH_ELEMENTS_M:-64}
  abs=$(cd "$pack" && pwd)
  part "device"
  "$gpu" exec "$pack" "$debs" openinfer --plugin-dir "$abs/plugins" plugins 2>&1 |
    grep -i -A2 vulkan | tee "$logs/vulkan_bench.txt"

  part "1. vulkan_bench --no-matmul per eltwise unroll"
  for u in 1 2 4 8; do
    echo "-- OPENINFER_VULKAN_ELTWISE_UNROLL=$u"
    OPENINFER_VULKAN_ELTWISE_UNROLL=$u timeout "$limit" "$gpu" exec "$pack" "$debs" vulkan_bench \
      --no-matmul --elements-m "$m" 2>&1 | grep -v '^device:' | sed "s/^/unroll$u /" | tee -a "$logs/vulkan_bench.txt"
  done
  echo "-- default"
  timeout "$limit" "$gpu" exec "$pack" "$debs" vulkan_bench --no-matmul --elements-m "$m" 2>&1 |
    grep -v '^device:' | sed 's/^/default /' | tee -a "$logs/vulkan_bench.txt"
  echo "-- f32 matmul (4096^3, 2048^3)"
  timeout "$limit" "$gpu" exec "$pack" "$debs" vulkan_bench --matmul --quick 2>&1 |
    grep -v '^device:' | sed 's/^/default /' | tee -a "$logs/vulkan_bench.txt"

  part "2. transfers with other staging settings"
  for setting in OPENINFER_VULKAN_COPY_THREADS=1 OPENINFER_VULKAN_COPY_THREADS=8 \
    OPENINFER_VULKAN_STAGING=rebar OPENINFER_VULKAN_STAGING=wc OPENINFER_VULKAN_STAGING_MB=64; do
    echo "-- $setting"
    env "$setting" timeout "$limit" "$gpu" exec "$pack" "$debs" vulkan_bench --no-matmul \
      --elements-m "$m" 2>&1 |
      grep -E '^(upload|download)' | sed "s/^/$setting /" | tee -a "$logs/staging.txt"
  done

  part "3. PyTorch CUDA"
  timeout "$limit" python3 bench/vulkan_gpu_peers.py 2>&1 | tee "$logs/torch.txt"

  part "4. chain of 1,000 adds through openinfer run"
  for replay in 0 1; do
    echo "-- OPENINFER_VULKAN_REPLAY=$replay"
    OPENINFER_VULKAN_REPLAY=$replay BACKENDS=vulkan timeout "$limit" "$gpu" chain "$pack" "$debs" \
      1000 10 2>&1 | grep -E 'us per node|error' | sed "s/^/replay$replay /" |
      tee -a "$logs/chain.txt"
  done

  part "5. tests"
  if [[ -n ${BENCH_SKIP_KERNELS:-} ]]; then
    echo "vulkan_kernels_test: skipped (BENCH_SKIP_KERNELS)" >"$logs/kernels.txt"
  else
    timeout 420 "$gpu" exec "$pack" "$debs" vulkan_kernels_test --report_level=short \
      >"$logs/kernels.txt" 2>&1
  fi
  local k=$?
  tail -4 "$logs/kernels.txt"
  if [[ -n ${BENCH_SKIP_KERNELS:-} ]]; then
    echo "vulkan_kernels_test: skipped" | tee -a "$logs/tests.txt"
  else
    echo "vulkan_kernels_test: exit $k" | tee -a "$logs/tests.txt"
  fi
  [[ $k -eq 0 ]] || rc=1
  timeout "$limit" "$gpu" exec "$pack" "$debs" vulkan_batching_test --report_level=short \
    >>"$logs/tests.txt" 2>&1
  k=$?
  tail -3 "$logs/tests.txt"
  echo "vulkan_batching_test: exit $k" | tee -a "$logs/tests.txt"
  [[ $k -eq 0 ]] || rc=1
  # openinfer through a wrapper with the pack's libraries and the driver (the loader .debs are
  # installed by now), as scripts/run-vulkan-on-gpu.sh's setup() runs packed programs.
  local wrapper=/tmp/openinfer_packed loader=""
  if [[ "$(printf '%s\n%s\n' "$(ldd --version | awk 'NR == 1 {print $NF}')" \
    "$(cat "$abs/glibc/version")" | sort -V | head -1)" != "$(cat "$abs/glibc/version")" ]]; then
    loader="$abs/glibc/ld-linux-x86-64.so.2 --library-path $abs/glibc:$abs/lib:\${LD_LIBRARY_PATH:-}"
  fi
  cat >"$wrapper" <<WRAP
#!/bin/sh
icd=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
if [ -z "\${VK_DRIVER_FILES:-}" ] && [ -f \$icd ]; then export VK_DRIVER_FILES=\$icd; fi
export LD_LIBRARY_PATH=$abs/lib\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}
exec $loader $abs/bin/openinfer "\$@"
WRAP
  chmod +x "$wrapper"
  timeout "$limit" python3 tests/vulkan/vulkan_replay_test.py "$wrapper" "$abs/plugins" "$root" \
    /tmp/vulkan_replay_test >>"$logs/tests.txt" 2>&1
  k=$?
  tail -6 "$logs/tests.txt"
  echo "vulkan_replay_test: exit $k" | tee -a "$logs/tests.txt"
  [[ $k -eq 0 ]] || rc=1
  if [[ -f $abs/bin/gpt_example ]]; then
    sed "s|/bin/openinfer|/bin/gpt_example|" "$wrapper" >/tmp/gpt_example_packed
    chmod +x /tmp/gpt_example_packed
    timeout "$limit" python3 tests/vulkan/vulkan_gpt_replay_test.py /tmp/gpt_example_packed \
      "$abs/plugins" "$root" >>"$logs/tests.txt" 2>&1
    k=$?
    tail -3 "$logs/tests.txt"
    echo "vulkan_gpt_replay_test: exit $k" | tee -a "$logs/tests.txt"
    [[ $k -eq 0 ]] || rc=1
  fi

  part "6. summary"
  python3 - "$logs" "$m" <<'PY' | tee "$logs/summary.txt"
import os, re, sys
logs, size = sys.argv[1], sys.argv[2]
def lines(name):
    p = os.path.join(logs, name)
    return open(p).read().splitlines() if os.path.exists(p) else []
num = r"([0-9.]+)"
ours = {}
for l in lines("vulkan_bench.txt"):
    if m := re.match(r"(\S+) (add|relu) f32 " + size + "M: " + num + " ms", l):
        ours.setdefault(m.group(2), {})[m.group(1)] = float(m.group(3))
    if m := re.match(r"default (upload|download) \d+ MiB: .* " + num + " GB/s", l):
        ours[m.group(1)] = float(m.group(2))
    if m := re.match(r"default chain of 1000 adds of 256 f32 \((\w+)\): .* " + num + " us/call", l):
        ours["bench chain " + m.group(1)] = float(m.group(2))
    if m := re.match(r"default matmul f32 \[4096,4096\] x \[4096,4096\] \[default\]: .* " + num +
                     " TFLOP/s", l):
        ours["matmul"] = float(m.group(1))
for l in lines("staging.txt"):
    if m := re.match(r"(\S+) (upload|download) \d+ MiB: .* " + num + " GB/s", l):
        ours[f"{m.group(2)} {m.group(1)}"] = float(m.group(3))
for l in lines("chain.txt"):
    if m := re.match(r"replay(\d) vulkan\s+" + num + " us per node", l):
        ours["run chain " + ("replayed" if m.group(1) == "1" else "recorded")] = float(m.group(2))
torch = {}
for l in lines("torch.txt"):
    if m := re.match(r"(add|relu) f32 64M: " + num + " ms", l):
        torch[m.group(1)] = float(m.group(2))
    if m := re.match(r"matmul f32 4096\^3 \(TF32 off\): .* " + num + " TFLOP/s", l):
        torch["matmul"] = float(m.group(1))
    if m := re.match(r"chain of 1000 adds \((.*)\): .* " + num + " us/op", l):
        torch["chain " + m.group(1)] = float(m.group(2))
    if m := re.match(r"(host to device|device to host) 256 MiB \((\w+)\): .* " + num + " GB/s", l):
        torch[f"{m.group(1)} {m.group(2)}"] = float(m.group(3))
print("| figure | Vulkan | PyTorch CUDA | ratio | target |")
print("| --- | --- | --- | --- | --- |")
for op in ("add", "relu"):
    for variant, ms in sorted(ours.get(op, {}).items()):
        t = torch.get(op)
        ratio = f"{t / ms:.2f}x" if t else "-"
        print(f"| {op} f32 {size}M ({variant}) | {ms:.4f} ms | {t if t else '-'} ms | {ratio} | >= 0.9x |")
if "matmul" in ours:
    t = torch.get("matmul")
    print(f"| matmul f32 4096^3 | {ours['matmul']:.1f} TFLOP/s | {t if t else '-'} TFLOP/s (TF32 off) | "
          f"{ours['matmul'] / t:.2f}x | >= 0.85x |" if t else
          f"| matmul f32 4096^3 | {ours['matmul']:.1f} TFLOP/s | - | - | >= 0.85x |")
for key, label in (("run chain recorded", "chain, openinfer run, recorded every step"),
                   ("run chain replayed", "chain, openinfer run, replayed"),
                   ("bench chain recorded", "chain, in process, recorded"),
                   ("bench chain replayed", "chain, in process, replayed")):
    if key in ours:
        print(f"| {label} | {ours[key]:.2f} us/node | eager {torch.get('chain eager', '-')}, "
              f"graph {torch.get('chain CUDA graph', '-')} us/op | - | <= 2 us (replayed) |")
for key in sorted(k for k in ours if k.startswith(("upload", "download"))):
    peer = "host to device pinned" if key.startswith("upload") else "device to host pinned"
    print(f"| {key}, {int(size) * 4} MiB | {ours[key]:.1f} GB/s | {torch.get(peer, '-')} GB/s (pinned) | - | >= 20 GB/s |")
PY
  grep -E '^vulkan_[a-z_]+: ' "$logs/tests.txt" | tee -a "$logs/summary.txt"
  echo "total $((SECONDS - t0)) s; logs in $logs"
  return $rc
}

case "${1:-}" in
  pack) shift; pack "$@" ;;
  run) shift; run "$@" ;;
  *)
    echo "usage: $0 pack [BUILD_DIR] [PACK_DIR] | run [PACK_DIR] [DEBS_DIR]" >&2
    exit 2
    ;;
esac
