#!/usr/bin/env bash
# CPU attention, rope and dequantize vs PyTorch (CPU, 2 threads), in one go.
#
#   cmake --build BUILD_DIR -j2 --target nn_attention_bench openinfer_cpu
#   bench/nn_attention.sh [BUILD_DIR] [--runs N] [--budget-s S] [--only CASE]  # build/bench
#
# Builds nothing. Installs python3-torch with apt-get when it is missing (benchmarks are not
# part of CI). Runs BUILD_DIR/bench/nn_attention_bench, then bench/nn_attention_peers.py with
# Debian's /usr/bin/python3, and prints a table: OI/torch = torch time / OpenInfer time, against
# the faster of torch's two attention forms. Raw JSON lines are kept in $NN_ATTENTION_OUT
# (default: a temporary directory).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build_dir="build/bench"
if [[ $# -gt 0 && "$1" != --* ]]; then
  build_dir="$1"
  shift
fi
bench_args=("$@")
bin="$build_dir/bench/nn_attention_bench"
if [[ ! -x "$bin" ]]; then
  echo "nn_attention.sh: $bin not found; build it first:" >&2
  echo "  cmake --build $build_dir -j2 --target nn_attention_bench openinfer_cpu" >&2
  exit 2
fi
py=/usr/bin/python3
if ! dpkg -s python3-torch >/dev/null 2>&1; then
  sudo_cmd=()
  [[ $(id -u) -ne 0 ]] && sudo_cmd=(sudo)
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq python3-torch >&2
fi

out="${NN_ATTENTION_OUT:-$(mktemp -d)}"
mkdir -p "$out"
echo "# $(date -u +%Y-%m-%dT%H:%MZ) nproc=$(nproc) load=\"$(cut -d' ' -f1-3 /proc/loadavg)\""
echo "# raw JSON lines: $out"
"$bin" "${bench_args[@]}" >"$out/openinfer.jsonl"
"$py" "$root/bench/nn_attention_peers.py" "${bench_args[@]}" >"$out/torch.jsonl"

"$py" - "$out" <<'PY'
import json, os, sys

out = sys.argv[1]
oi, torch, infos = {}, {}, []
for impl, table in (("openinfer", oi), ("torch", torch)):
    with open(os.path.join(out, impl + ".jsonl")) as f:
        for line in f:
            rec = json.loads(line)
            if "info" in rec:
                infos.append(f"{impl}: {rec['info']}")
            else:
                table.setdefault(rec["case"], []).append(rec)
for line in infos:
    print("#", line)
print("| case | OpenInfer ms (min) | torch ms (min) | torch form | OI/torch median | OI/torch min |"
      " OI GFLOP/s |")
print("| --- | --- | --- | --- | --- | --- | --- |")
for case, recs in oi.items():
    o = recs[0]
    peers = torch.get(case, [])
    t = min(peers, key=lambda r: r["median_ms"]) if peers else None
    gf = f"{o['flops'] / (o['median_ms'] * 1e6):.1f}" if o.get("flops") else "-"
    if t:
        print(f"| {case} | {o['median_ms']:.2f} ({o['min_ms']:.2f}) | {t['median_ms']:.2f} "
              f"({t['min_ms']:.2f}) | {t['how']} | {t['median_ms'] / o['median_ms']:.2f}x | "
              f"{t['min_ms'] / o['min_ms']:.2f}x | {gf} |")
    else:
        print(f"| {case} | {o['median_ms']:.2f} ({o['min_ms']:.2f}) | - | - | - | - | {gf} |")
print("# OI/torch above 1: OpenInfer faster.")
PY
