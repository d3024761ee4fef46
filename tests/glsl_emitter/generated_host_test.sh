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
