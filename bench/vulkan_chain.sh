#!/bin/sh
# bench/vulkan_chain.sh [BUILD_DIR] [NODES] [STEPS]: the per-node cost of a chain of NODES tiny
# dependent ops (`op add(x, one) >> x` on f32[16], x persistent) run by `openinfer run`, on the
# Vulkan backend and on the CPU backend. Each step runs the whole chain and ends with the host
# reading x back (the return value), so a step includes the GPU's work and one download.
#
# The cost per node is (T(1 + S steps) - T(1 step)) / (S * NODES), T being the best of three
# process wall times: the difference leaves out process start, plugin loading, parsing, pipeline
# creation and the first step. S starts at STEPS and grows 4x until the S steps take at least a
# second. Each run's x is checked against NODES * steps.
#
# BUILD_DIR holds bin/openinfer and the plugins (default build/dev). OPENINFER overrides the
# command that runs openinfer (scripts/run-vulkan-on-gpu.sh chain sets it to the packed binary);
# BACKENDS the backends measured (default "vulkan cpu").
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build/dev}
nodes=${2:-1000}
steps=${3:-10}
oi=${OPENINFER:-$build/bin/openinfer}
backends=${BACKENDS:-vulkan cpu}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

printf '# openinfer oinf text v1\nB := 16\n' >"$work/model.txt"
$oi oinf pack "$work/model.txt" -o "$work/model.oinf" >/dev/null
{
  echo "// bench/vulkan_chain.sh: $nodes dependent adds on f32[16]."
  echo "persistent {"
  echo "  x: f32[B];"
  echo "}"
  echo "constant {"
  echo "  one: f32[1] @init(1.0);"
  echo "}"
  echo "block entry {"
  i=0
  while [ "$i" -lt "$nodes" ]; do
    echo "  op add(x, one) >> x;"
    i=$((i + 1))
  done
  echo "  return x;"
  echo "}"
} >"$work/chain.oi"

now_ns() { date +%s%N; }

# run BACKEND STEPS: prints the best wall time of three runs in ns, after checking x.
run() {
  best=
  for _ in 1 2 3; do
    t0=$(now_ns)
    $oi run "$work/chain.oi" --model "$work/model.oinf" --backend "$1" --steps "$2" \
      >"$work/out.txt" 2>"$work/err.txt" || {
      echo "error: openinfer run --backend $1 failed:" >&2
      cat "$work/err.txt" >&2
      exit 1
    }
    t1=$(now_ns)
    dt=$((t1 - t0))
    if [ -z "$best" ] || [ "$dt" -lt "$best" ]; then best=$dt; fi
  done
  # The last step's x (the elements printed): each is nodes * steps.
  tail -n 1 "$work/out.txt" | sed -n 's/.*{ \(.*\) }.*/\1/p' | tr ',' '\n' |
    awk -v want=$((nodes * $2)) -v b="$1" '
      $1 != "..." {n++; if ($1 + 0 != want) bad++}
      END {if (n == 0 || bad) {printf "error: %s: x is not %d\n", b, want > "/dev/stderr"; exit 1}}'
  echo "$best"
}

echo "chain of $nodes dependent adds on f32[16]; best of 3 runs each"
for backend in $backends; do
  t1=$(run "$backend" 1)
  # More steps until they take a second, so that start-up noise stays small next to them.
  n=$steps
  while :; do
    tn=$(run "$backend" $((n + 1)))
    if [ $((tn - t1)) -ge 1000000000 ] || [ "$n" -ge 5000 ]; then break; fi
    n=$((n * 4))
  done
  awk -v b="$backend" -v t1="$t1" -v tn="$tn" -v s="$n" -v n="$nodes" 'BEGIN {
    printf "%-7s %8.2f us per node (%8.2f ms per %d-node step, %d steps)\n", b,
           (tn - t1) / 1000 / (s * n), (tn - t1) / 1e6 / s, n, s}'
done
