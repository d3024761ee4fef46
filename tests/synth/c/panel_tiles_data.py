"""panel_tiles_data.py DIR: writes DIR/model.txt and DIR/input.txt (text form of .oinf) for
panel_tiles.oi: deterministic pseudo-random values in [0, 1) (no cancellation, which the
relative matmul and conv tolerances assume), biases standard normal. panel_tiles_test.sh runs
it."""
import sys

import numpy as np

SIZES = {"R": 260, "K": 37, "RB": 37, "KB": 130, "K8": 11}
rng = np.random.default_rng(20261127)


def tensor(name, arr):
    vals = ", ".join("%.6g" % float(v) for v in arr.ravel())
    dims = ", ".join(str(d) for d in arr.shape)
    return f"{name}: f32[{dims}] = {{ {vals} }}\n"


def unit(*shape):
    return rng.random(shape).astype(np.float32)


R, K, RB, KB, K8 = (SIZES[k] for k in ("R", "K", "RB", "KB", "K8"))
with open(f"{sys.argv[1]}/model.txt", "w") as f:
    f.write("# openinfer oinf text v1\n")
    f.writelines(f"{k} := {v}\n" for k, v in SIZES.items())
    f.write(tensor("a", unit(R, K)))
    f.write(tensor("ab", unit(RB, KB)))
    f.write(tensor("a8", unit(8, K8)))
    f.write(tensor("bias", rng.standard_normal((R, 1)).astype(np.float32)))
    f.write(tensor("w1", unit(40, 13, 3)))
    f.write(tensor("c1", rng.standard_normal(40).astype(np.float32)))
    f.write(tensor("w2", unit(24, 3, 3, 3)))
    f.write(tensor("w3", unit(33, 20, 1, 1)))
    f.write(tensor("c3", rng.standard_normal(33).astype(np.float32)))
    f.write(tensor("w4", unit(19, 7, 3)))
with open(f"{sys.argv[1]}/input.txt", "w") as f:
    f.write("# openinfer oinf text v1\n")
    for name, cols in (("b1", 1), ("b3", 3), ("b5", 5), ("b9", 9)):
        f.write(tensor(name, unit(K, cols)))
    f.write(tensor("bb", unit(2, KB, 2)))
    f.write(tensor("b8", unit(K8, 4)))
    f.write(tensor("x1", unit(2, 13, 9)))
    f.write(tensor("x2", unit(1, 6, 5, 5)))
    f.write(tensor("x3", unit(1, 20, 3, 4)))
    f.write(tensor("x4", unit(1, 7, 64)))
