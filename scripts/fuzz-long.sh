#!/usr/bin/env bash
# Long fuzzing runs (tests/README.md "Fuzzing"): every fuzz target of the `fuzz` preset (all
# libraries instrumented, ASan+UBSan) for SECONDS each, two at a time, on a copy of its
# committed corpus. Prints per target the covered edges, the corpus size and the findings
# (crash-, leak-, timeout-, oom- files), then the line coverage (llvm-cov, `fuzz-cov` preset)
# of the files the target is meant to exercise, measured by replaying the grown corpus.
#
#   bash scripts/fuzz-long.sh SECONDS [--merge] [--no-cov] [TARGET...]
#   FUZZ_JOBS=N (default 2) runs at a time; FUZZ_NO_BUILD=1 skips building.
#
# --merge adds what the runs found that covers more (libFuzzer -merge=1) to tests/fuzz/corpus/.
# Work files, logs and findings: build/fuzz-long/TARGET/. Exit status 1 when anything was found.
set -euo pipefail
cd "$(dirname "$0")/.."

usage() { echo "usage: $0 SECONDS [--merge] [--no-cov] [TARGET...]" >&2; exit 2; }
[[ $# -ge 1 && "$1" =~ ^[0-9]+$ ]] || usage
seconds=$1
shift
merge=0 cov=1 targets=()
for a in "$@"; do
  case "$a" in
    --merge) merge=1 ;;
    --no-cov) cov=0 ;;
    -*) usage ;;
    *) targets+=("$a") ;;
  esac
done

# Target, its corpus folder under tests/fuzz/corpus, the files whose coverage it answers for.
declare -A corpus_of=(
  [oinf_reader_fuzz]=oinf [oinf_text_fuzz]=oinf_text [dsl_parser_fuzz]=dsl
  [graph_json_fuzz]=json [device_json_fuzz]=device [plan_json_fuzz]=plan
  [cli_input_fuzz]=cli_input [exec_run_fuzz]=exec_run)
declare -A files_of=(
  [oinf_reader_fuzz]="core/src/oinf/reader.cpp core/src/oinf/model.cpp core/src/oinf/meta_value.cpp core/src/oinf/file_mapping.cpp"
  [oinf_text_fuzz]="core/src/oinf_text/"
  [dsl_parser_fuzz]="frontend/src/ core/src/validate/"
  [graph_json_fuzz]="core/src/graph/graph_json_read.cpp core/src/graph/graph_json_write.cpp"
  [device_json_fuzz]="core/src/synth/device_arch.cpp"
  [plan_json_fuzz]="plugins/glsl_emitter/plan_input.cpp"
  [cli_input_fuzz]="cli/run_inputs.cpp"
  [exec_run_fuzz]="core/src/exec/")
all=(oinf_reader_fuzz oinf_text_fuzz dsl_parser_fuzz graph_json_fuzz device_json_fuzz
  plan_json_fuzz cli_input_fuzz exec_run_fuzz)
[[ ${#targets[@]} -gt 0 ]] || targets=("${all[@]}")
for t in "${targets[@]}"; do
  [[ -n "${corpus_of[$t]:-}" ]] || { echo "fuzz-long: unknown target '$t'" >&2; exit 2; }
done

# FUZZ_JOBS: runs (and build jobs) at a time; FUZZ_NO_BUILD=1 uses the builds as they are.
jobs=${FUZZ_JOBS:-2}
if [[ -z "${FUZZ_NO_BUILD:-}" ]]; then
  cmake --preset fuzz >/dev/null
  cmake --build --preset fuzz -j "$jobs" --target "${targets[@]}"
fi
if [[ $cov == 1 && -z "${FUZZ_NO_BUILD:-}" ]]; then
  cmake --preset fuzz-cov >/dev/null
  cmake --build --preset fuzz-cov -j "$jobs" --target "${targets[@]}"
fi

work=build/fuzz-long
export ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

run_one() {  # TARGET: one libFuzzer run on a fresh copy of the corpus
  local t=$1 dir=$work/$1
  rm -rf "$dir" && mkdir -p "$dir/corpus" "$dir/findings"
  cp -r "tests/fuzz/corpus/${corpus_of[$t]}/." "$dir/corpus/"
  "build/fuzz/tests/fuzz/$t" -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=10 \
    -print_final_stats=1 -artifact_prefix="$dir/findings/" "$dir/corpus" >"$dir/fuzz.log" 2>&1 || true
}
export -f run_one
export seconds work
export corpus_of_list="$(for t in "${!corpus_of[@]}"; do echo "$t=${corpus_of[$t]}"; done)"
# Bash cannot export arrays: each job rebuilds corpus_of from the exported list.
printf '%s\n' "${targets[@]}" | xargs -P "$jobs" -I{} bash -c \
  'declare -A corpus_of; while IFS== read -r k v; do corpus_of[$k]=$v; done <<<"$corpus_of_list"; run_one {}'

found=0
printf '\n%-18s %8s %8s %9s %9s\n' target edges corpus exec/s findings
for t in "${targets[@]}"; do
  log=$work/$t/fuzz.log
  last=$(grep -E '^#[0-9]+' "$log" | tail -1 || true)
  edges=$(sed -nE 's/.* cov: ([0-9]+).*/\1/p' <<<"$last")
  corp=$(sed -nE 's/.* corp: ([0-9]+)\/.*/\1/p' <<<"$last")
  rate=$(sed -nE 's/^stat::average_exec_per_sec: *([0-9]+)/\1/p' "$log")
  n=$(find "$work/$t/findings" -type f | wc -l)
  [[ $n == 0 ]] || found=1
  printf '%-18s %8s %8s %9s %9s\n' "$t" "${edges:-?}" "${corp:-?}" "${rate:-?}" "$n"
done

if [[ $merge == 1 ]]; then
  # libFuzzer's merge into the committed corpus: its files (hand-written seeds, regression
  # inputs) stay, and only grown inputs that add coverage join them.
  for t in "${targets[@]}"; do
    dst=tests/fuzz/corpus/${corpus_of[$t]}
    before=$(find "$dst" -type f | wc -l)
    "build/fuzz/tests/fuzz/$t" -merge=1 -rss_limit_mb=2048 -timeout=10 "$dst" "$work/$t/corpus" \
      >"$work/$t/merge.log" 2>&1
    echo "fuzz-long: $t corpus $before -> $(find "$dst" -type f | wc -l) files ($dst)"
  done
fi

if [[ $cov == 1 ]]; then
  printf '\n%-18s %7s  %s\n' target lines files
  for t in "${targets[@]}"; do
    dir=$work/$t
    rm -f "$dir"/*.profraw
    LLVM_PROFILE_FILE="$dir/%p.profraw" "build/fuzz-cov/tests/fuzz/$t" -runs=0 "$dir/corpus" \
      >"$dir/cov.log" 2>&1 || true
    llvm-profdata merge -sparse "$dir"/*.profraw -o "$dir/cov.profdata"
    objects=("build/fuzz-cov/tests/fuzz/$t")
    plugin=build/fuzz-cov/lib/openinfer/plugins/libopeninfer_cpu.so
    [[ $t != exec_run_fuzz || ! -f $plugin ]] || objects+=(-object "$plugin")
    llvm-cov report "${objects[@]}" -instr-profile="$dir/cov.profdata" >"$dir/cov.txt" 2>/dev/null || true
    # Lines (column 8) and missed lines (9) summed over the rows of the target's files.
    total=$(awk -v pre="${files_of[$t]}" 'BEGIN { n = split(pre, p, " ") }
      { for (i = 1; i <= n; i++) if (index($1, p[i]) > 0) { l += $8; m += $9; break } }
      END { if (l > 0) printf "%.1f%%", 100 * (l - m) / l }' "$dir/cov.txt")
    printf '%-18s %7s  %s\n' "$t" "${total:-?}" "${files_of[$t]}"
  done
fi
exit $found
