#!/usr/bin/env bash
# A model synthesized in the C target's freestanding profile, cross-compiled with Debian's
# gcc-arm-none-eabi and picolibc and run under Debian's qemu-system-arm on a Cortex-M board, its
# outputs held against the simulator's (docs/synth.md, "The freestanding profile").
#
#   mcu_test.sh OPENINFER SOURCE_DIR WORK BOARD EXAMPLE [STEPS]
#
# BOARD: m4 (mps2-an386, devices/cortex_m4f_stm32l4r5.json), m7 (mps2-an500,
# devices/cortex_m7_stm32h743.json), m55 (mps3-an547, devices/cortex_m55_corstone300.json).
# EXAMPLE: vad (examples/silero_vad on tests/silero_vad/speech.wav, fetched from npm; every
# probability within 1e-4 of the simulator's and ONNX Runtime's, the same speech segments),
# resnet (examples/resnet on the tiny fixture, logits within ops-nn.md's tolerance), gpt
# (examples/gpt with its K and V tables @fixed, the tiny model of tests/gpt: the same tokens,
# logits and tables as the simulator), failed_step (tests/synth/c/failed_step.oi with its
# growable table bounded @fixed(t=8): steps failing after persistent writes leave the persistent
# values and tables as they were, byte for byte; the others as the simulator's run without the
# failed steps; the messages of the hosted C). Also checked: no malloc, free, calloc or realloc in the
# image (arm-none-eabi-nm); the synthesis report's flash and RAM within 5% of the linker map's
# and its stack estimate at least the painted stack; for the VAD on the M4F the issue's budgets
# (RAM for arena + state + I/O <= 16 KiB, stack <= 2 KiB, code without weights <= 32 KiB,
# <= 1.5 M instructions per chunk). WORK/figures.json holds the figures (bench/mcu_table.sh).
# Exit 77 (a skip) when QEMU cannot start the board, or the VAD's model cannot be downloaded.
set -euo pipefail
oi=$1; src=$2; work=$3; board=$4; example=$5; steps=${6:-}
here="$src/tests/mcu"
py=/usr/bin/python3
check() { PYTHONPATH="$src/python" "$py" "$here/mcu_check.py" "$@"; }

case $board in
  m4) device=cortex_m4f_stm32l4r5; machine=mps2-an386
      cpu=(-mcpu=cortex-m4 -mfpu=fpv4-sp-d16 -mfloat-abi=hard) ;;
  m7) device=cortex_m7_stm32h743; machine=mps2-an500
      cpu=(-mcpu=cortex-m7 -mfpu=fpv5-d16 -mfloat-abi=hard) ;;
  m55) device=cortex_m55_corstone300; machine=mps3-an547
       cpu=(-mcpu=cortex-m55 -mfloat-abi=hard) ;;
  *) echo "error: unknown board '$board' (m4, m7, m55)" >&2; exit 2 ;;
esac
for tool in arm-none-eabi-gcc arm-none-eabi-nm; do
  command -v $tool >/dev/null || {
    echo "FAIL: $tool is missing (scripts/install-deps.sh installs gcc-arm-none-eabi)"; exit 1; }
done
[[ -d /usr/lib/picolibc/arm-none-eabi ]] || {
  echo "FAIL: picolibc is missing (scripts/install-deps.sh installs picolibc-arm-none-eabi)"; exit 1; }
if ! command -v qemu-system-arm >/dev/null || ! qemu-system-arm -M help | grep -q "^$machine "; then
  echo "SKIP: qemu-system-arm cannot start the $machine board (Debian: qemu-system-arm)"
  exit 77
fi

rm -rf "$work"
mkdir -p "$work"
cd "$work"
inputs=()   # --input NAME for the driver
fetch=()    # what the driver writes, per step
run_inputs=()
mode=nn
failed=""     # steps expected to fail (the driver's --keep-going)
sim_steps=""  # the simulator's steps, when they are not the driver's
case $example in
  vad)
    graph="$src/examples/silero_vad/vad.oi"
    set +e
    model="$("$src/examples/silero_vad/fetch_and_export.sh" --quiet)"
    rc=$?
    set -e
    if [[ $rc == 77 ]]; then
      echo "SKIP: the Silero VAD model cannot be downloaded (see the message above)"
      exit 77
    fi
    [[ $rc == 0 ]] || { echo "FAIL: fetch_and_export.sh exited $rc"; exit 1; }
    all=$("$py" "$src/examples/silero_vad/wav_to_chunks.py" "$src/tests/silero_vad/speech.wav" \
      chunks.oinf)
    steps=${steps:-$all}
    check inputs chunks.oinf 'chunk.{step}' "$steps" inputs.bin
    inputs=(chunk)
    fetch=(prob)
    run_inputs=(--input 'chunk=chunks.oinf:chunk.{step}')
    ;;
  resnet)
    graph="$src/examples/resnet/resnet.oi"
    model="$src/tests/examples/resnet/fixtures/model.oinf"
    steps=${steps:-1}
    check inputs "$src/tests/examples/resnet/fixtures/input.oinf" image "$steps" inputs.bin
    inputs=(image)
    fetch=(logits)
    run_inputs=(--input "image=$src/tests/examples/resnet/fixtures/input.oinf")
    ;;
  gpt)
    # The K and V tables bounded along t too (the freestanding profile allocates nothing): the
    # 32-position window then serves positions 0..31, the prompt's 8 and 24 more steps.
    graph="$work/gpt_fixed.oi"
    sed 's/@table @fixed(l=L);/@table @fixed(l=L, t=T);/' "$src/examples/gpt/gpt.oi" > "$graph"
    grep -q '@fixed(l=L, t=T)' "$graph" || { echo "FAIL: gpt.oi's K and V are not as expected"; exit 1; }
    model="$src/tests/gpt/fixtures/tiny_model.oinf"
    steps=${steps:-24}
    : > inputs.bin
    fetch=(next logits_at tokens K V)
    mode=nn
    ;;
  failed_step)
    graph="$work/failed_step.oi"
    sed 's/H(t): f32\[2\] @table;/H(t): f32[2] @table @fixed(t=8);/' \
      "$src/tests/synth/c/failed_step.oi" > "$graph"
    grep -q '@fixed(t=8)' "$graph" || { echo "FAIL: failed_step.oi's H is not as expected"; exit 1; }
    "$oi" oinf pack "$src/tests/synth/c/loops_model.txt" -o model.oinf
    model=model.oinf
    "$oi" oinf pack "$here/failed_step_input.txt" -o in.oinf
    steps=9
    failed=1,2,5,6
    sim_steps=5
    check inputs in.oinf 'x.{step},idx.{step},a.{step},wipe.{step}' "$steps" inputs.bin
    inputs=(x idx a wipe)
    fetch=(n at acc H F)
    run_inputs=(--input 'x=in.oinf:sim_x.{step}' --input 'idx=in.oinf:sim_idx.{step}'
                --input 'a=in.oinf:sim_a.{step}' --input 'wipe=in.oinf:sim_wipe.{step}')
    mode=exact
    ;;
  *) echo "error: unknown example '$example' (vad, resnet, gpt, failed_step)" >&2; exit 2 ;;
esac

# The simulator's outputs, the reference.
run_fetch=()
for f in "${fetch[@]}"; do run_fetch+=(--fetch "$f"); done
"$oi" run "$graph" --model "$model" --steps "${sim_steps:-$steps}" "${run_inputs[@]}" "${run_fetch[@]}" \
  --save sim.oinf --quiet

# Synthesis for the device: the report (flash, RAM, stack against its budgets) is kept.
"$oi" synth "$graph" --model "$model" --target c --embed-weights --name "$example" \
  --device "$src/devices/$device.json" --report -o gen > synth.txt
sed -n "/^$example: the freestanding C/,\$p" synth.txt
if [[ $example == failed_step ]]; then
  # The undo record by hand: copies of acc (8 B), at and n (4 B each, at 8-byte offsets) 24 B;
  # records of 9 + 8 x 1 index + 8 B: one entry of H a step, and of F the one written and the
  # reset's 3 (at most its 3 entries) 100 B; 124 B in 8-byte units.
  grep -q "undo record 128 B" synth.txt || { echo "FAIL: the undo record is not 128 B"; exit 1; }
fi

# Cross-compile: the model with -fstack-usage, the driver, startup and semihosting; the model
# first on the link line, so the map charges the library functions it calls to it.
flags=("${cpu[@]}" -mthumb -O2 -std=c11 -ffunction-sections -fdata-sections -fno-math-errno
       -Wall -Wextra -Werror --specs=picolibc.specs --picolibc-buildtype=release)
arm-none-eabi-gcc "${flags[@]}" -fstack-usage -c "gen/$example.c" -o "$example.o"
arm-none-eabi-gcc "${flags[@]}" -Igen -I"$here" -DOI_MODEL="$example" \
  "-DOI_MODEL_HEADER=\"$example.h\"" -c "$here/driver.c" -o driver.o
arm-none-eabi-gcc "${flags[@]}" -c "$here/startup.c" -o startup.o
arm-none-eabi-gcc "${flags[@]}" -c "$here/semihost.c" -o semihost.o
arm-none-eabi-gcc "${flags[@]}" -nostartfiles -L"$here/boards" -T "$here/boards/$machine.ld" \
  -Wl,--gc-sections -Wl,-Map="$example.map" "$example.o" driver.o startup.o semihost.o -lm \
  -o "$example.elf"
arm-none-eabi-size "$example.elf"
if arm-none-eabi-nm "$example.elf" | grep -Ew '(malloc|free|calloc|realloc)$'; then
  echo "FAIL: the image holds an allocator symbol (above)"
  exit 1
fi
echo "ok: no malloc, free, calloc or realloc in $example.elf"

# Run: QEMU counts instructions (-icount shift=0: 1 ns of virtual time each), semihosting does
# the files; the driver prints "mcu: KEY VALUE" lines.
args="arg=$example,arg=--steps,arg=$steps,arg=--inputs,arg=inputs.bin,arg=--outputs,arg=outputs.bin"
for i in "${inputs[@]}"; do args+=",arg=--input,arg=$i"; done
for f in "${fetch[@]}"; do args+=",arg=--fetch,arg=$f"; done
[[ -z $failed ]] || args+=",arg=--keep-going"
set +e
timeout 600 qemu-system-arm -M "$machine" -nographic -monitor none -serial none -icount shift=0 \
  -semihosting-config "enable=on,target=native,$args" -kernel "$example.elf" > console.txt 2>&1
rc=$?
set -e
cat console.txt
[[ $rc == 0 ]] || { echo "FAIL: the program on $machine exited $rc"; exit 1; }

if [[ -n $failed ]]; then
  # Each failed step said why, with the hosted C's message (the file named without folders).
  for want in "failed_step.oi:19:20: table 'F': index i = 3 exceeds its @fixed bound i=3" \
      "index 2 is out of range for axis 0 of size 2" "index 5 is out of range for axis 0 of size 2" \
      "index 7 is out of range for axis 0 of size 2"; do
    grep -qF "$want" console.txt || { echo "FAIL: no failed step says: $want"; exit 1; }
  done
  [[ $(grep -c '^driver: step' console.txt) == 4 ]] || { echo "FAIL: not 4 failed steps"; exit 1; }
  check outputs sim.oinf outputs.bin "$steps" "${fetch[@]}" -o got.oinf --failed "$failed"
else
  check outputs sim.oinf outputs.bin "$steps" "${fetch[@]}" -o got.oinf
fi
if [[ $example == vad ]]; then
  check vad sim.oinf got.oinf "$steps" "$src/tests/silero_vad/ort_reference.json"
else
  PYTHONPATH="$src/python" "$py" "$src/tests/synth/compare_oinf.py" sim.oinf got.oinf $mode
fi

budgets=()
if [[ $example == vad && $board == m4 ]]; then
  budgets=(--budget ram=16384 --budget stack=2048 --budget code=32768 --budget instructions=1500000)
fi
# A toy graph without weights: its flash is the code alone, which the report estimates within
# about a third (docs/synth.md: within 25% of the code on the examples).
[[ $example != failed_step ]] || budgets+=(--flash-within 35)
check sizes --map "$example.map" --model-object "$example.o" --report synth.txt \
  --console console.txt --su-dir . --json figures.json "${budgets[@]}"
echo "ok: $example on $board ($machine) gives the simulator's outputs over $steps steps"
