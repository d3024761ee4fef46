#!/usr/bin/env bash
# CPU backend vs numpy vs PyTorch (CPU) vs a STREAM probe, in one go (issue 7).
#
#   cmake -S . -B build/bench -G Ninja -DCMAKE_BUILD_TYPE=Release
#   cmake --build build/bench -j2 --target cpu_ops_bench
#   bench/cpu_ops.sh [BUILD_DIR] [--runs N] [--budget-s S]      # BUILD_DIR: build/bench
#
# Builds nothing. Installs the peers with apt-get when they are missing (python3-numpy,
# python3-torch, libopenblas0-pthread so that numpy uses OpenBLAS rather than the reference
# BLAS, python3-threadpoolctl to report it): benchmarks are not part of CI, so these are not in
# scripts/install-deps.sh. Runs bench/cpu_ops_bench, then bench/cpu_ops_peers.py with Debian's
# /usr/bin/python3 for numpy and for torch, and prints a table. OPENBLAS_CORETYPE and
# OPENBLAS_L2_SIZE are unset for every contender alike (some machines set them, which makes a
# current OpenBLAS pick an older, slower kernel); each contender's BLAS kernel is printed.
# The raw JSON lines are kept in $CPU_OPS_OUT (default: a temporary directory).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build_dir="build/bench"
if [[ $# -gt 0 && "$1" != --* ]]; then
  build_dir="$1"
  shift
fi
bench_args=("$@")
bin="$build_dir/bench/cpu_ops_bench"
if [[ ! -x "$bin" ]]; then
  echo "cpu_ops.sh: $bin not found; build it first:" >&2
  echo "  cmake --build $build_dir -j2 --target cpu_ops_bench" >&2
  exit 2
fi

py=/usr/bin/python3
missing=()
dpkg -s python3-numpy >/dev/null 2>&1 || missing+=(python3-numpy)
dpkg -s python3-torch >/dev/null 2>&1 || missing+=(python3-torch)
dpkg -s libopenblas0-pthread >/dev/null 2>&1 || missing+=(libopenblas0-pthread)
dpkg -s python3-threadpoolctl >/dev/null 2>&1 || missing+=(python3-threadpoolctl)
if [[ ${#missing[@]} -gt 0 ]]; then
  echo "cpu_ops.sh: installing ${missing[*]}" >&2
  sudo_cmd=()
  [[ $(id -u) -ne 0 ]] && sudo_cmd=(sudo)
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq "${missing[@]}" >&2
fi

# One environment for all: OpenInfer's f32 matmul is OpenBLAS too, so a variable unset for numpy
# alone compared two different kernels.
for v in OPENBLAS_CORETYPE OPENBLAS_L2_SIZE; do
  [[ -n "${!v:-}" ]] && echo "# $v=${!v} was set: unset for every contender"
  unset "$v"
done

out="${CPU_OPS_OUT:-$(mktemp -d)}"
mkdir -p "$out"
echo "# $(date -u +%Y-%m-%dT%H:%MZ) nproc=$(nproc) cpu=\"$(grep -m1 'model name' /proc/cpuinfo |
  cut -d: -f2- | sed 's/^ //')\" load=\"$(cut -d' ' -f1-3 /proc/loadavg)\""
echo "# raw JSON lines: $out"

"$bin" "${bench_args[@]}" | tee "$out/openinfer.jsonl" >/dev/null
"$py" "$root/bench/cpu_ops_peers.py" numpy "${bench_args[@]}" >"$out/numpy.jsonl"
"$py" "$root/bench/cpu_ops_peers.py" torch "${bench_args[@]}" >"$out/torch.jsonl"

"$py" - "$out" <<'EOF'
import json, os, sys

out = sys.argv[1]
rows, infos = {}, []
for impl in ("openinfer", "numpy", "torch"):
    with open(os.path.join(out, impl + ".jsonl")) as f:
        for line in f:
            rec = json.loads(line)
            if "info" in rec:
                infos.append(f"{impl}: {rec['info']}")
            else:
                rows.setdefault(rec["case"], {})[impl] = rec
for line in infos:
    print("#", line)

stream = {k: rows[k]["openinfer"]["gbps"] for k in ("stream_copy", "stream_triad") if k in rows}
print(f"# STREAM probe: copy {stream.get('stream_copy', 0):.2f} GB/s, "
      f"triad {stream.get('stream_triad', 0):.2f} GB/s")
# Elementwise cases against the STREAM kernel that moves the same streams: relu (one read,
# one write) against copy, binary ops and sums against triad (two reads, one write / reads).
probe_of = {"relu": "stream_copy"}

errors = [f"{impl} {case}: {rec['error']}" for case, recs in rows.items()
          for impl, rec in recs.items() if "error" in rec]
for case, recs in rows.items():
    for impl in [impl for impl, rec in recs.items() if "error" in rec]:
        recs[impl] = None

def ms(rec):
    return f"{rec['median_ms']:.2f}" if rec else "-"

def ratio(a, b):
    return f"{b['median_ms'] / a['median_ms']:.2f}x" if a and b else "-"

header = ("case", "OpenInfer ms", "numpy ms", "torch ms", "OI/numpy", "OI/torch",
          "OI GB/s", "% of STREAM", "OI GFLOP/s")
print("| " + " | ".join(header) + " |")
print("|" + " --- |" * len(header))
for case, recs in rows.items():
    if case.startswith("stream_"):
        continue
    oi, npy, tch = recs.get("openinfer"), recs.get("numpy"), recs.get("torch")
    gbps = pct = gflops = "-"
    if oi and oi["bytes"] and not case.startswith("matmul"):
        probe = stream.get(probe_of.get(case.split("_")[0], "stream_triad"))
        gbps = f"{oi['gbps']:.2f}"
        pct = f"{100 * oi['gbps'] / probe:.0f}%" if probe else "-"
    if oi and oi["flops"] and (case.startswith("matmul") or case.startswith("mlp")):
        gflops = f"{oi['gflops']:.2f}"
    print(f"| {case} | {ms(oi)} | {ms(npy)} | {ms(tch)} | {ratio(oi, npy)} | {ratio(oi, tch)} "
          f"| {gbps} | {pct} | {gflops} |")
for line in errors:
    print("# error:", line)
print("# OI/peer = peer time / OpenInfer time (above 1: OpenInfer faster). % of STREAM: relu vs")
print("# copy, other elementwise ops and sums vs triad; bytes = each operand read or written once.")
EOF
