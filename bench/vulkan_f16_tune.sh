#!/usr/bin/env bash
# f16 matmul on tensor cores: several tunings compared in one process, next to cuBLAS in the same
# call of the device tool (bench/README.md, "Tuning f16 matmul on tensor cores"). Pack as for
# bench/vulkan_gpu_bench.sh (its `pack`), carry the pack and .gl, then:
#
#   there: VARIANTS="default;NAME=VALUE NAME=VALUE;..." bench/vulkan_f16_tune.sh [PACK_DIR] [DEBS_DIR]
#
# Runs bench/vulkan_gpu_peers.py --f16 (cuBLAS f16 4096^3), then vulkan_f16_matmul --variants
# "$VARIANTS" --sizes "$SIZES" (default 4096,8192) --rounds "$ROUNDS" (default 5) with
# OPENINFER_VULKAN_COOPMAT=force and OPENINFER_VULKAN_PIPELINE_STATS=1 (registers, spills and
# shared memory of every pipeline), then the peer again. Logs go to $OUT when it is set (else a
# temporary folder). Exit status: vulkan_f16_matmul's (1 when a check failed: probes fail them).
set -uo pipefail
cd "$(dirname "$0")/.."
pack=${1:-.vkgpu}
debs=${2:-.gl}
logs=${OUT:-}
[[ -n $logs ]] || logs=$(mktemp -d)
if [[ ! -d $pack && -f $pack.tar.xz ]]; then tar xJf "$pack.tar.xz" -C "$(dirname "$pack")" || exit; fi
[[ -d $pack ]] || { echo "no pack at $pack (bench/vulkan_gpu_bench.sh pack, then carry it)" >&2; exit 2; }
python3 bench/vulkan_gpu_peers.py --f16 2>&1 | tee "$logs/f16_peer.txt"
OPENINFER_VULKAN_COOPMAT=force OPENINFER_VULKAN_PIPELINE_STATS=1 timeout "${TUNE_S:-400}" \
  scripts/run-vulkan-on-gpu.sh exec "$pack" "$debs" vulkan_f16_matmul \
  --variants "${VARIANTS:-default}" --sizes "${SIZES:-4096,8192}" --rounds "${ROUNDS:-5}" 2>&1 |
  tee "$logs/f16_variants.txt"
rc=${PIPESTATUS[0]}
python3 bench/vulkan_gpu_peers.py --f16 2>&1 | tee -a "$logs/f16_peer.txt"
grep -E '^variant [0-9]+ matmul' "$logs/f16_variants.txt" | sort -t' ' -k4,4 -s
exit "$rc"
