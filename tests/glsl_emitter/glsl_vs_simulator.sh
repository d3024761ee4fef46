#!/usr/bin/env bash
# glsl_vs_simulator.sh OPENINFER RUNNER GLSLC WORK SOURCE_DIR [NAME...]: every graph the C
# target is held against the simulator with (tests/synth/CMakeLists.txt's synth_c_test list,
# read from there, with the same graph, model, input files and steps; c_graph_list.py), and
# tests/synth/c/matmul_tiles.oi on its generated data, synthesized with `--target glsl` for
# devices/lavapipe.json (or GLSL_VS_DEVICE, below), run by the manifest runner (built once) and compared with `openinfer
# run --save` on the CPU backend (tests/synth/compare_oinf.py, docs/synth-glsl.md's tolerance per graph).
# A graph the glsl target cannot run is listed below with its reason and printed as
# `skip: NAME (reason)`. A graph new to the list runs with the C test's tolerance; where the glsl
# emitter refuses it (an UNIMPLEMENTED error naming what it lacks) it is reported as
# `skip: NAME (new in the C list; ...the emitter's message)`, any other failure fails the test.
# NAMEs: run only those. Exit 77 (skipped): no Vulkan device.
# GLSL_VS_DEVICE=FILE.json plans for another device description (devices/generic_vulkan.json:
# no fp64, so the f32 math is computed in f32 arithmetic); there a graph the emitter refuses for
# a feature the description lacks (an error naming `features.fp64 false` or `features.fp16
# false`: f64 or f16 values; i64 arithmetic runs emulated) is printed as `skip: NAME (device: ...)`, and a kernel that would
# still need shaderFloat64 fails the graph.
set -uo pipefail
oi=$1; runner=$2; glslc=$3; work=$4; src=$5
shift 5
only=" $* "
here=$src/tests/glsl_emitter
device=${GLSL_VS_DEVICE:-$src/devices/lavapipe.json}
# GLSL_VS_BASELINE=FILE.json: a graph whose program for `device` is the one planned for FILE
# (apart from the device's name) is not run again: the test for FILE runs it. Printed as `same:`.
baseline=${GLSL_VS_BASELINE:-}
no_fp64=$(/usr/bin/python3 -c "import json, sys; print(int(not json.load(open(sys.argv[1])).get('features', {}).get('fp64', False)))" "$device")

# The graphs the glsl target does not run, with why (docs/synth-glsl.md says the same).
declare -A skip=()
# Tolerance per graph (compare_oinf.py's modes; ops.md and docs/synth-glsl.md's table).
declare -A mode=(
  [minimal]=exact [chain]=ulp [loops]=exact [cache]=exact [branch]=exact [run_steps]=exact
  [run_pipeline]=exact [consumer]=exact [matmul]=reduce [cast]=exact [f16_cast]=exact
  [logic]=exact [packed_cast]=exact [tables]=exact [table_ops]=reduce [reduce]=reduce
  [math]=ulp [movement]=exact [conv]=nn [conv_large]=nn [pool]=nn [norm]=nn [nn_extra]=nn
  [argmax]=exact [prefix_table]=exact [matmul_tiles]=reduce [narrow_arith]=exact [packed_arith]=exact [int_arith]=exact
  [narrow_heads]=exact [settings_loop]=exact [index_dtypes]=exact [yield_table]=exact [yield_table_write]=exact
  [reset_parts]=exact [auto_dim_reset]=exact [transfer_auto_dim]=exact [transfer_tables]=exact [table_grow2]=exact
  [chain_embedded]=ulp [tables_embedded]=exact [prefix_table_embedded]=exact
  [auto_dim_runtime]=exact [auto_dim_runtime_slice_out]=exact [copy_runtime]=exact
  [auto_dim_runtime_gather_pad]=exact [auto_dim_runtime_dequantize]=exact
  [auto_dim_runtime_attention]=nn [auto_dim_table_runtime]=exact [auto_dim_runtime_norm_rope]=nn
  [auto_dim_runtime_window]=exact [auto_dim_runtime_rules]=nn [auto_dim_runtime_operands]=nn
  [slice_runtime_inputs]=exact [slice_runtime_unplanned]=exact
)

rm -rf "$work"
mkdir -p "$work"
list=$work/list.tsv
PYTHONPATH="$src/python" /usr/bin/python3 "$here/c_graph_list.py" "$src/tests/synth/CMakeLists.txt" \
  "$src" > "$list" || { echo "FAIL: cannot read the C target's list"; exit 1; }
# matmul_tiles (its own script in tests/synth/c): the same graph on data generated the same way.
mkdir -p "$work/matmul_tiles_data"
/usr/bin/python3 "$src/tests/synth/c/matmul_tiles_data.py" "$work/matmul_tiles_data" > /dev/null
printf 'matmul_tiles\ttolerance\t%s\t%s\t%s\t2\t%s\n' "$src/tests/synth/c/matmul_tiles.oi" \
  "$work/matmul_tiles_data/model.txt" "$work/matmul_tiles_data/input.txt" \
  "a=@IN@ s=@IN@ sb=@IN@ v=@IN@ col=@IN@ x1=@IN@ q=@IN@ ba=@IN@ bm=@IN@ bx=@IN@ bv=@IN@" >> "$list"

passed=(); skipped=(); failed=(); same=()
run_graph() {  # NAME ENV GRAPH MODEL_TXT INPUT_TXT STEPS SPECS: 0 when the results agree
  local name=$1 env=$2 graph=$3 model_txt=$4 input_txt=$5 steps=$6 specs=$7 dir=$work/$1
  mkdir -p "$dir"
  "$oi" oinf pack "$model_txt" -o "$dir/model.oinf" > /dev/null &&
    "$oi" oinf pack "$input_txt" -o "$dir/input.oinf" > /dev/null || return 1
  local inputs=() spec embed=()
  for spec in $specs; do inputs+=(--input "${spec//@IN@/$dir/input.oinf}"); done
  [[ $env == embed ]] && embed=(--embed-weights)
  "$oi" synth "$graph" --model "$dir/model.oinf" --target glsl "${embed[@]}" \
    --device "$device" --name "$name" -o "$dir/gen" > "$dir/synth.log" 2>&1 ||
    { cat "$dir/synth.log"; return 1; }
  if [[ $no_fp64 == 1 ]] && grep -q '"float64":true' "$dir/gen/manifest.json"; then
    echo "a kernel needs shaderFloat64 on a device description without fp64"; return 1
  fi
  if [[ -n $baseline ]]; then
    # The same program as for the baseline description (the run that tests it): nothing new to
    # run. Only the manifest's device name may differ.
    "$oi" synth "$graph" --model "$dir/model.oinf" --target glsl "${embed[@]}" \
      --device "$baseline" --name "$name" -o "$dir/gen_baseline" > "$dir/synth_baseline.log" 2>&1 &&
      /usr/bin/python3 "$here/same_program.py" "$dir/gen" "$dir/gen_baseline" && return 78
  fi
  local rc
  if [[ $env == embed ]]; then
    # The weights are compiled into the program: build it as a user would (its CMakeLists.txt)
    # and run it without --model.
    { cmake -S "$dir/gen" -B "$dir/gen/build" -G Ninja && cmake --build "$dir/gen/build"; } \
      > "$dir/build.log" 2>&1 || { tail -20 "$dir/build.log"; return 1; }
    "$dir/gen/build/$name" --steps "$steps" "${inputs[@]}" \
      --save "$dir/glsl.oinf" --quiet > "$dir/runner.log" 2>&1
    rc=$?
  else
    bash "$here/compile_shaders.sh" "$glslc" "$dir/gen" ieee > "$dir/glslc.log" 2>&1 ||
      { tail -20 "$dir/glslc.log"; return 1; }
    "$runner" --manifest "$dir/gen" --model "$dir/model.oinf" --steps "$steps" "${inputs[@]}" \
      --save "$dir/glsl.oinf" --quiet > "$dir/runner.log" 2>&1
    rc=$?
  fi
  # Exit code 3 and "no Vulkan": the machine has no device (the whole test is skipped).
  if [[ $rc == 3 ]] && grep -q "no Vulkan" "$dir/runner.log"; then cat "$dir/runner.log"; return 77; fi
  [[ $rc == 0 ]] || { echo "the manifest runner failed (exit $rc):"; cat "$dir/runner.log"; return 1; }
  "$oi" run "$graph" --model "$dir/model.oinf" --steps "$steps" "${inputs[@]}" \
    --save "$dir/sim.oinf" -q > "$dir/sim.log" 2>&1 || { cat "$dir/sim.log"; return 1; }
  PYTHONPATH="$src/python" /usr/bin/python3 "$src/tests/synth/compare_oinf.py" "$dir/sim.oinf" \
    "$dir/glsl.oinf" "${mode[$name]}"
}

while IFS=$'\t' read -r name env graph model_txt input_txt steps specs; do
  if [[ "$only" != "  " && "$only" != *" $name "* ]]; then continue; fi
  if [[ -n "${skip[$name]:-}" ]]; then
    echo "skip: $name (${skip[$name]})"; skipped+=("$name"); continue
  fi
  missing=""
  for f in "$graph" "$model_txt" "$input_txt"; do [[ -f $f ]] || missing="$missing $f"; done
  if [[ -n $missing ]]; then  # a CMake variable c_graph_list.py does not know, say
    echo "FAIL: $name: cannot find$missing (as read from tests/synth/CMakeLists.txt)"
    failed+=("$name"); continue
  fi
  new=0
  if [[ -z "${mode[$name]:-}" ]]; then  # new in the C list: its C test's tolerance
    new=1
    if [[ $env == tolerance ]]; then mode[$name]=reduce; else mode[$name]=exact; fi
  fi
  echo "== $name ($steps steps, ${mode[$name]}$([[ $new == 1 ]] && echo ', new in the C list'))"
  out=$(run_graph "$name" "$env" "$graph" "$model_txt" "$input_txt" "$steps" "$specs" 2>&1)
  rc=$?
  if [[ $rc == 77 ]]; then
    echo "SKIP: no Vulkan device ($(echo "$out" | tail -1))"
    exit 77
  fi
  if [[ $rc == 0 ]]; then
    echo "$out" | tail -1; passed+=("$name")
  elif [[ $rc == 78 ]]; then
    echo "same: the program planned for $(basename "$baseline"), run by the test for it"
    same+=("$name")
  elif [[ -n ${GLSL_VS_DEVICE:-} ]] &&
    refusal=$(grep -m1 -E "glsl emitter: .*\(features\.(fp64|fp16) false\)" "$work/$name/synth.log" 2>/dev/null); then
    echo "skip: $name (device: ${refusal#*glsl emitter: })"; skipped+=("$name")
  elif [[ $new == 1 ]] && refusal=$(grep -m1 "glsl emitter: " "$work/$name/synth.log" 2>/dev/null); then
    echo "skip: $name (new in the C list; ${refusal#*glsl emitter: })"; skipped+=("$name")
  else
    echo "$out" | tail -15 | sed 's/^/  /'; echo "FAIL: $name"; failed+=("$name")
  fi
done < "$list"

# A program synthesized without --embed-weights and run without --model: its constants are an
# error naming the first, never zeros.
if [[ " ${passed[*]} " == *" chain "* ]]; then
  "$runner" --manifest "$work/chain/gen" --steps 1 --quiet > "$work/no_model.log" 2>&1
  rc=$?
  if [[ $rc == 1 ]] && grep -q "constant '.*' is read from the model (tensor '.*'): give --model" \
    "$work/no_model.log"; then
    echo "ok: chain without --model: $(cat "$work/no_model.log")"
  else
    echo "FAIL: chain without --model gave exit $rc: $(cat "$work/no_model.log")"
    failed+=(no_model)
  fi
  # A model whose tensor has another dtype: an error naming it (it used to crash the runner
  # while it released the pipelines it had made).
  PYTHONPATH="$src/python" /usr/bin/python3 -c "
import sys, numpy as np
from openinfer import oinf
pkg = oinf.read(sys.argv[1])
oinf.write(sys.argv[2], sizevars=pkg.sizevars,
           tensors={k: v.astype(np.float64) for k, v in pkg.arrays().items()})" \
    "$work/chain/model.oinf" "$work/wrong_dtype.oinf" 2> "$work/wrong_dtype.py.log"
  "$runner" --manifest "$work/chain/gen" --model "$work/wrong_dtype.oinf" --steps 1 --quiet \
    > "$work/wrong_dtype.log" 2>&1
  rc=$?
  if [[ $rc == 1 ]] && grep -q "wrong_dtype.oinf: tensor '.*' is not f32" "$work/wrong_dtype.log"; then
    echo "ok: chain with an f64 model: $(cat "$work/wrong_dtype.log")"
  else
    echo "FAIL: chain with an f64 model gave exit $rc: $(cat "$work/wrong_dtype.log" "$work/wrong_dtype.py.log")"
    failed+=(wrong_dtype)
  fi
fi

echo "glsl vs simulator: ${#passed[@]} passed, ${#skipped[@]} skipped, ${#failed[@]} failed$(
  [[ -n $baseline ]] && echo ", ${#same[@]} the same program as for $(basename "$baseline")")"
[[ ${#failed[@]} == 0 ]] || { echo "failed: ${failed[*]}"; exit 1; }
echo "ok: every graph of the list runs through the glsl target and matches the simulator"
