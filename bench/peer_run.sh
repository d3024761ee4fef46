# Sourced by the bench scripts that pair an OpenInfer benchmark with a PyTorch peer script
# (nn_rows.sh, nn_spatial.sh, nn_attention.sh, nn_math.sh):
#
#   peer_run BENCH PEER OUT_ENV "$@"    # "$@": [BUILD_DIR] [benchmark options]
#
# Takes BUILD_DIR (default build/bench) off the arguments, checks that BUILD_DIR/bench/BENCH
# exists (else says how to build it and exits 2), installs Debian's python3-torch with apt-get
# where it is missing (benchmarks are not part of CI), then runs BENCH and bench/PEER (with
# /usr/bin/python3) with the remaining options into $OUT_ENV (default: a temporary directory)
# as openinfer.jsonl and torch.jsonl. Sets `out` to that directory and `py` to the interpreter.
peer_run() {
  local bench=$1 peer=$2 out_env=$3 build_dir="build/bench"
  shift 3
  if [[ $# -gt 0 && "$1" != --* ]]; then
    build_dir="$1"
    shift
  fi
  local bin="$build_dir/bench/$bench" root
  root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
  if [[ ! -x "$bin" ]]; then
    echo "$(basename "$0"): $bin not found; build it first:" >&2
    echo "  cmake --build $build_dir -j2 --target $bench openinfer_cpu" >&2
    exit 2
  fi
  py=/usr/bin/python3
  if ! dpkg -s python3-torch >/dev/null 2>&1; then
    local sudo_cmd=()
    [[ $(id -u) -ne 0 ]] && sudo_cmd=(sudo)
    "${sudo_cmd[@]}" apt-get update -qq
    DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq python3-torch >&2
  fi
  out="${!out_env:-$(mktemp -d)}"
  mkdir -p "$out"
  echo "# $(date -u +%Y-%m-%dT%H:%MZ) nproc=$(nproc) load=\"$(cut -d' ' -f1-3 /proc/loadavg)\""
  echo "# raw JSON lines: $out"
  "$bin" "$@" >"$out/openinfer.jsonl"
  "$py" "$root/bench/$peer" "$@" >"$out/torch.jsonl"
}
