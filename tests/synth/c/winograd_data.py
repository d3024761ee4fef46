"""winograd_data.py DIR: writes DIR/model.txt and DIR/input.txt (text form of .oinf) for
winograd.oi: deterministic pseudo-random inputs and weights in [0, 1) (no cancellation, which
the relative conv tolerance assumes; the table's weights scaled by 1/64 so the three layers
stay near the inputs' size), biases standard normal. winograd_test.sh runs it."""
import sys

import numpy as np

rng = np.random.default_rng(20261127)


def tensor(name, arr):
    vals = ", ".join("%.6g" % float(v) for v in arr.ravel())
    dims = ", ".join(str(d) for d in arr.shape)
    return f"{name}: f32[{dims}] = {{ {vals} }}\n"


def unit(*shape):
    return rng.random(shape).astype(np.float32)


with open(f"{sys.argv[1]}/model.txt", "w") as f:
    f.write("# openinfer oinf text v1\n")
    f.write(tensor("w1", unit(16, 16, 3, 3)))
    f.write(tensor("c1", rng.standard_normal(16).astype(np.float32)))
    for b in range(3):
        f.write(tensor(f"w2.{b}", unit(64, 64, 3, 3) / 64))
        f.write(tensor(f"c2.{b}", rng.standard_normal(64).astype(np.float32)))
    f.write(tensor("w3", unit(24, 20, 3, 3)))
    f.write(tensor("w4", unit(160, 128, 3, 3)))
    f.write(tensor("c4", rng.standard_normal(160).astype(np.float32)))
with open(f"{sys.argv[1]}/input.txt", "w") as f:
    f.write("# openinfer oinf text v1\n")
    f.write(tensor("x1", unit(1, 16, 11, 13)))
    f.write(tensor("x2", unit(1, 64, 20, 20)))
    f.write(tensor("x3", unit(2, 20, 13, 40)))
    f.write(tensor("x4", unit(1, 128, 6, 6)))
