#!/bin/sh
# gpt_to_c_test.sh OPENINFER CC WORK SOURCE_DIR [f16]: examples/gpt/gpt.oi (KV cache in growable f16
# tables, branches, loops, attention) on the tiny committed model of tests/gpt, synthesized to C
# (loaded and --embed-weights), compiled with -std=c11 -Wall -Wextra -Werror -O2 (Clang's
# warnings too where installed), run for 32 steps (the 8-token prompt, then 31 more positions:
# the 32- and 64-position windows) and held against PyTorch's reference and the simulator
# (gpt_compare.py). Then under ASan+UBSan: the same 32 steps, and 34 steps, where position 40
# passes tokens' @fixed bound: the program stops with the simulator's message. With f16:
# examples/gpt/gpt_f16.oi (f16 weights) on tests/gpt's tiny_f16 fixtures.
set -eu
oi=$1; cc=$2; work=$3; src=$4; variant=${5:-}
graph=$src/examples/gpt/gpt.oi
model=$src/tests/gpt/fixtures/tiny_model.oinf
ref=$src/tests/gpt/fixtures/tiny_reference.oinf
if [ "$variant" = f16 ]; then
  graph=$src/examples/gpt/gpt_f16.oi
  model=$src/tests/gpt/fixtures/tiny_f16_model.oinf
  ref=$src/tests/gpt/fixtures/tiny_f16_reference.oinf
fi
steps=32
fetch="--fetch next --fetch logits_at --fetch tokens --fetch K --fetch V"
rm -rf "$work"
mkdir -p "$work"
"$oi" synth "$graph" --model "$model" --target c -o "$work/gen"
"$oi" synth "$graph" --model "$model" --target c --embed-weights -o "$work/emb"
"$cc" -std=c11 -Wall -Wextra -Werror -O2 "$work"/gen/*.c -lm -o "$work/prog"
"$cc" -std=c11 -Wall -Wextra -Werror -O2 "$work"/emb/*.c -lm -o "$work/prog_emb"
if command -v clang >/dev/null 2>&1 && [ "$(basename "$cc")" != clang ]; then
  clang -std=c11 -Wall -Wextra -Werror -fsyntax-only "$work"/gen/*.c
fi
# shellcheck disable=SC2086
"$work/prog" --model "$model" --steps $steps $fetch --save "$work/gen.oinf" -q
# shellcheck disable=SC2086
"$work/prog_emb" --steps $steps $fetch --save "$work/emb.oinf" -q
# shellcheck disable=SC2086
"$oi" run "$graph" --model "$model" --steps $steps $fetch --save "$work/sim.oinf" -q
compare() {
  PYTHONPATH="$src/python" /usr/bin/python3 "$src/tests/synth/c/gpt_compare.py" "$ref" "$@"
}
compare "$work/sim.oinf" "$work/gen.oinf" "$work/emb.oinf"
"$cc" -std=c11 -Wall -Wextra -Werror -O0 -g -fsanitize=address,undefined \
  -fno-sanitize-recover=all "$work"/gen/*.c -lm -o "$work/prog_san"
# shellcheck disable=SC2086
"$work/prog_san" --model "$model" --steps $steps $fetch --save "$work/san.oinf" -q
compare "$work/sim.oinf" "$work/san.oinf"
# Past the context: the same run-time error as the simulator, and no sanitizer report.
set +e
got=$("$work/prog_san" --model "$model" --steps 34 -q 2>&1)
got_rc=$?
want=$("$oi" run "$graph" --model "$model" --steps 34 -q 2>&1)
want_rc=$?
set -e
printf '%s\n' "$got"
[ "$got_rc" = 1 ] && [ "$want_rc" = 1 ] || { echo "FAIL: exit codes $got_rc and $want_rc"; exit 1; }
[ "$got" = "$want" ] || { echo "FAIL: the simulator says: $want"; exit 1; }
printf '%s\n' "$got" | grep -q "table 'tokens': index t = 40 exceeds its @fixed bound t=40" ||
  { echo "FAIL: not the @fixed bound error"; exit 1; }
echo "ok: $(basename "$graph") as C gives the simulator's and PyTorch's tokens (also under ASan+UBSan)"
