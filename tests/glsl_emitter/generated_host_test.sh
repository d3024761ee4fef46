#!/usr/bin/env bash
# The generated host program of the glsl target, built with its own CMakeLists.txt, against
# `openinfer run` on the same graph, model and inputs (slow: a full C++ build per graph).
# Usage: generated_host_test.sh OPENINFER WORKDIR PLUGIN_DIR. Exits 77 without a Vulkan device.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
openinfer=$1 work=$2 plugins=$3
rm -rf "$work" && mkdir -p "$work" && cd "$work"
cat > chain.oi <<'OI'
dynamic { x: f32[N]; }
constant { w: f32[N]; }
block entry {
  op mul(x, w) >> x;
  op add(x, w) >> x;
  op max(x, w) >> x;
  return x;
}
OI
PYTHONPATH="$here/../../python" /usr/bin/python3 - <<'PY'
import numpy as np
from openinfer import oinf
n = 1000
oinf.write('model.oinf', sizevars={'N': n}, tensors={'w': (0.5 + 0.001 * np.arange(n)).astype(np.float32)})
oinf.write('input.oinf', tensors={'x': (-2.0 + 0.004 * np.arange(n)).astype(np.float32)})
PY
"$openinfer" --plugin-dir "$plugins" synth chain.oi --model model.oinf --target glsl \
  --device "$here/../../devices/lavapipe.json" --name chain -o gen
cmake -S gen -B gen/build -G Ninja -DCMAKE_BUILD_TYPE=Release > cmake.log
cmake --build gen/build > build.log
set +e
gen/build/chain --model model.oinf --input x=input.oinf --steps 2 --save got.oinf > run.log 2>&1
rc=$?
set -e
if [ $rc -eq 3 ] && grep -q "no Vulkan" run.log; then echo "SKIPPED: $(cat run.log)"; exit 77; fi
[ $rc -eq 0 ] || { cat run.log; exit 1; }
"$openinfer" --plugin-dir "$plugins" run chain.oi --model model.oinf --input x=input.oinf \
  --steps 2 --save want.oinf --quiet
cmp want.oinf got.oinf
echo "generated host program matches openinfer run"

# --embed-weights: the same program with the weights compiled in runs without --model; a
# --model given anyway is read instead (here one whose w is 0.5 everywhere: a different answer).
"$openinfer" --plugin-dir "$plugins" synth chain.oi --model model.oinf --target glsl \
  --device "$here/../../devices/lavapipe.json" --name chain --embed-weights -o gen_embedded
grep -q "oi_embedded_weights" gen_embedded/host/weights.cpp
cmake -S gen_embedded -B gen_embedded/build -G Ninja -DCMAKE_BUILD_TYPE=Release > cmake_e.log
cmake --build gen_embedded/build > build_e.log
gen_embedded/build/chain --input x=input.oinf --steps 2 --save got_embedded.oinf
cmp want.oinf got_embedded.oinf
PYTHONPATH="$here/../../python" /usr/bin/python3 -c "
import numpy as np
from openinfer import oinf
oinf.write('flat.oinf', sizevars={'N': 1000}, tensors={'w': np.full(1000, 0.5, np.float32)})"
gen_embedded/build/chain --model flat.oinf --input x=input.oinf --steps 2 --save got_flat.oinf
"$openinfer" --plugin-dir "$plugins" run chain.oi --model flat.oinf --input x=input.oinf \
  --steps 2 --save want_flat.oinf --quiet
cmp want_flat.oinf got_flat.oinf
echo "embedded weights: runs without --model and reads --model when given"
