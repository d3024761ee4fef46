# Sourced by the example scripts: run_manifest LOG RUNNER_ARGS... runs the manifest runner
# ($runner), prints its output, and ends the script with 77 (skipped) when no Vulkan device
# exists or with 1 when the runner fails.
run_manifest() {
  local log=$1 rc
  shift
  set +e
  "$runner" "$@" > "$log" 2>&1
  rc=$?
  set -e
  cat "$log"
  if [[ $rc == 3 ]] && grep -q "no Vulkan" "$log"; then
    echo "SKIP: no Vulkan device"
    exit 77
  fi
  [[ $rc == 0 ]] || { echo "FAIL: the manifest runner exited $rc"; exit 1; }
}
