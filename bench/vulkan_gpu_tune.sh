#!/usr/bin/env bash
# Tuning sweeps for issue 22's f32 figures on an NVIDIA GPU, in one call of the device tool
# (bench/README.md, "Tuning f32 matmul and elementwise on a GPU"), next to PyTorch CUDA in the
# same run. Pack as for bench/vulkan_gpu_bench.sh (its `pack`), carry the pack and .gl, then:
#
#   there: bench/vulkan_gpu_tune.sh [PACK_DIR] [DEBS_DIR]   (default .vkgpu .gl)
#
# Prints, and writes under $OUT when it is set (else a temporary folder):
#   1. the device line (`openinfer plugins`);
#   2. add and relu f32 64M (vulkan_bench --no-matmul: 20 back-to-back calls, one synchronize)
#      for each OPENINFER_VULKAN_ELTWISE_UNROLL in ELTWISE_UNROLLS (1 2 4 8) and the default;
#   3. bench/vulkan_gpu_peers.py (PyTorch: add, relu, matmul f32 4096^3 with TF32 off, ...);
#   4. vulkan_bench --matmul --quick for the default tile and every tile of TILES
#      (BM,BN,BK,TM,TN;...), once for each setting of MODES (default: the defaults,
#      OPENINFER_VULKAN_MATMUL_SUBNORMALS=inline, i.e. the per-slice bookkeeping instead of a scan
#      and the fast pass, and OPENINFER_VULKAN_MATMUL_VEC4=0, scalar loads), 4096^3 also with a
#      subnormal in A (the careful pass);
#   5. f16 matmul on tensor cores (vulkan_f16_matmul --bench --sizes 4096,2048 with
#      OPENINFER_VULKAN_COOPMAT=force) for the default and every tile of COOP_TILES
#      (BM,BN,BK,WM,DEPTH[,SG[,STAGES[,EARLY]]][/G,W];...: /G,W adds G loader groups of W
#      subgroups, OPENINFER_VULKAN_COOPMAT_LOADERS; COOP_TILES=none skips it), each run also
#      checking its 144 shapes;
#   6. a summary: each figure against PyTorch's, the best tiles.
# Each part has a time limit (TUNE_PART_S, default 150 s). Exit status: 1 when a matmul check
# failed, else 0.
set -uo pipefail
cd "$(dirname "$0")/.."
gpu=scripts/run-vulkan-on-gpu.sh
pack=${1:-.vkgpu}
debs=${2:-.gl}
logs=${OUT:-}
[[ -n $logs ]] || logs=$(mktemp -d)
limit=${TUNE_PART_S:-150}
tiles=${TILES:-"128,128,8,8,8;128,128,16,8,8;256,128,8,16,8;128,256,8,8,16;128,128,8,16,8;128,128,8,8,16;128,128,16,16,8;256,64,8,16,8;64,256,8,8,16;128,64,8,8,4"}
if [[ ! -d $pack && -f $pack.tar.xz ]]; then tar xJf "$pack.tar.xz" -C "$(dirname "$pack")" || exit; fi
[[ -d $pack ]] || { echo "no pack at $pack (bench/vulkan_gpu_bench.sh pack, then carry it)" >&2; exit 2; }
abs=$(cd "$pack" && pwd)
t0=$SECONDS
part() { echo; echo "== $1 ($((SECONDS - t0)) s in)"; }
rc=0

part "1. device"
"$gpu" exec "$pack" "$debs" openinfer --plugin-dir "$abs/plugins" plugins 2>&1 | grep -i -A2 vulkan |
  tee "$logs/tune_device.txt"

part "2. add and relu per eltwise unroll"
for u in ${ELTWISE_UNROLLS:-1 2 4 8} default; do
  if [[ $u == default ]]; then setting=(); else setting=(OPENINFER_VULKAN_ELTWISE_UNROLL=$u); fi
  env "${setting[@]}" timeout "$limit" "$gpu" exec "$pack" "$debs" vulkan_bench --no-matmul \
    --elements-m 64 2>&1 | grep -E '^(add|relu) ' | sed "s/^/unroll=$u /" | tee -a "$logs/tune_eltwise.txt"
done

part "3. PyTorch CUDA"
timeout "$limit" python3 bench/vulkan_gpu_peers.py 2>&1 | tee "$logs/tune_torch.txt"

part "4. matmul tiles"
for mode in ${MODES:-default OPENINFER_VULKAN_MATMUL_SUBNORMALS=inline OPENINFER_VULKAN_MATMUL_VEC4=0}; do
  if [[ $mode == default ]]; then setting=(); else setting=("$mode"); fi
  env "${setting[@]}" timeout "$limit" "$gpu" exec "$pack" "$debs" \
    vulkan_bench --matmul --quick --tiles "$tiles" 2>&1 | grep -v '^device:' |
    sed "s/^/${mode#OPENINFER_VULKAN_MATMUL_} /" | tee -a "$logs/tune_matmul.txt"
  [[ ${PIPESTATUS[0]} -eq 0 ]] || rc=1
done

part "5. f16 matmul tiles on tensor cores"
coop_tiles=${COOP_TILES:-"128,128,16,2;128,256,16,2,1,8,3/2,2;128,256,16,2,1,8,2/2,2;128,128,32,2,1,8,2/2,2;256,128,32,4,1,16,1;128,128,64,2,1,8,1"}
if [[ $coop_tiles != none ]]; then
  for tile in default ${coop_tiles//;/ }; do
    if [[ $tile == default ]]; then setting=(); else setting=(OPENINFER_VULKAN_COOPMAT_TILE=${tile%%/*}); fi
    [[ $tile == */* ]] && setting+=(OPENINFER_VULKAN_COOPMAT_LOADERS=${tile#*/})
    env OPENINFER_VULKAN_COOPMAT=force "${setting[@]}" timeout "$limit" "$gpu" exec "$pack" "$debs" \
      vulkan_f16_matmul --bench --sizes 4096,2048 2>&1 | grep -E '^(checks|matmul|vulkan)|rror' |
      sed "s/^/coop=$tile /" | tee -a "$logs/tune_coop.txt"
    [[ ${PIPESTATUS[0]} -eq 0 ]] || { rc=1; echo "coop=$tile exit ${PIPESTATUS[0]}" | tee -a "$logs/tune_coop.txt"; }
  done
fi

part "6. summary"
python3 - "$logs" <<'PY' | tee "$logs/tune_summary.txt"
import os, re, sys
logs = sys.argv[1]
def lines(name):
    p = os.path.join(logs, name)
    return open(p).read().splitlines() if os.path.exists(p) else []
torch = {}
for l in lines("tune_torch.txt"):
    if m := re.match(r"(add|relu) f32 64M: ([0-9.]+) ms", l):
        torch[m.group(1)] = float(m.group(2))
    if m := re.match(r"matmul f32 4096\^3 \(TF32 off\): .* ([0-9.]+) TFLOP/s", l):
        torch["matmul"] = float(m.group(1))
    if m := re.match(r"matmul f16 4096\^3: .* ([0-9.]+) TFLOP/s", l):
        torch["f16"] = float(m.group(1))
print("| figure | Vulkan | PyTorch CUDA | ratio |")
print("| --- | --- | --- | --- |")
for l in lines("tune_eltwise.txt"):
    if m := re.match(r"unroll=(\S+) (add|relu) f32 64M: ([0-9.]+) ms", l):
        t = torch.get(m.group(2))
        print(f"| {m.group(2)} f32 64M, unroll {m.group(1)} | {float(m.group(3)):.4f} ms | "
              f"{t if t else '-'} ms | {t / float(m.group(3)):.2f}x |" if t else "")
best = None
for l in lines("tune_matmul.txt"):
    m = re.match(r"(\S+) matmul f32 \[(\d+),\d+\] x \[\d+,\d+\] \[([^\]]+)\]( WRONG \d+)?: "
                 r"[0-9.]+ ms, ([0-9.]+) TFLOP/s", l)
    if not m:
        continue
    mode, size, label, wrong, tf = m.group(1), m.group(2), m.group(3), m.group(4), float(m.group(5))
    if size != "4096":
        continue
    peer = torch.get("matmul")
    ratio = f"{tf / peer:.2f}x" if peer else "-"
    print(f"| matmul f32 4096^3 {mode} [{label}]{wrong or ''} | {tf:.1f} TFLOP/s | "
          f"{peer if peer else '-'} TFLOP/s | {ratio} |")
    if not wrong and "subnormal" not in label and (best is None or tf > best[0]):
        best = (tf, mode, label)
if best:
    print(f"best 4096^3: {best[0]:.1f} TFLOP/s ({best[1]}, {best[2]})")
best = None
for l in lines("tune_coop.txt"):
    m = re.match(r"coop=(\S+) matmul f16 4096\^3: [0-9.]+ ms, ([0-9.]+) TFLOP/s \((\d+) wrong", l)
    if not m:
        continue
    tf, peer = float(m.group(2)), torch.get("f16")
    ratio = f"{tf / peer:.2f}x" if peer else "-"
    print(f"| matmul f16 4096^3 tensor cores [{m.group(1)}]{' WRONG ' + m.group(3) if m.group(3) != '0' else ''} | "
          f"{tf:.1f} TFLOP/s | {peer if peer else '-'} TFLOP/s | {ratio} |")
    if m.group(3) == "0" and (best is None or tf > best[0]):
        best = (tf, m.group(1))
if best:
    print(f"best f16 4096^3: {best[0]:.1f} TFLOP/s (tile {best[1]})")
PY
grep -E 'WRONG' "$logs/tune_matmul.txt" && rc=1
grep -E 'checks: .* [1-9][0-9]* wrong|[1-9][0-9]* wrong of' "$logs/tune_coop.txt" 2>/dev/null && rc=1
echo "total $((SECONDS - t0)) s; logs in $logs"
exit $rc
