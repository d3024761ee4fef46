"""matmul_tiles_data.py DIR: writes DIR/model.txt and DIR/input.txt (text form of .oinf) for
matmul_tiles.oi: deterministic pseudo-random factors in [0, 1) (no cancellation, which ops.md's
relative matmul tolerance assumes), biases standard normal. matmul_tiles_test.sh runs it (the
1.8 MB of text are not kept in the repository)."""
import sys

import numpy as np

SIZES = {"M": 260, "K": 600, "N": 45, "S": 9, "KS": 5, "NS": 70, "MV": 20, "KV": 30, "Q": 4, "BA": 3, "T": 7, "D": 19, "E": 21, "C": 2}
rng = np.random.default_rng(20261124)


def tensor(name, arr):
    vals = ", ".join("%.6g" % float(v) for v in arr.ravel())
    dims = ", ".join(str(d) for d in arr.shape)
    return f"{name}: f32[{dims}] = {{ {vals} }}\n"


def unit(*shape):
    return rng.random(shape).astype(np.float32)


M, K, N, Q = SIZES["M"], SIZES["K"], SIZES["N"], SIZES["Q"]
with open(f"{sys.argv[1]}/model.txt", "w") as f:
    f.write("# openinfer oinf text v1\n")
    f.writelines(f"{k} := {v}\n" for k, v in SIZES.items())
    f.write(tensor("w", unit(K, N)))
    f.write(tensor("bias", rng.standard_normal(N).astype(np.float32)))
    f.write(tensor("rb", rng.standard_normal((M, 1)).astype(np.float32)))
    f.write(tensor("sq", unit(Q, Q)))
    f.write(tensor("bw", unit(SIZES["D"], SIZES["E"])))
with open(f"{sys.argv[1]}/input.txt", "w") as f:
    f.write("# openinfer oinf text v1\n")
    f.write(tensor("a", unit(M, K)))
    f.write(tensor("s", unit(SIZES["S"], SIZES["KS"])))
    f.write(tensor("sb", unit(SIZES["KS"], SIZES["NS"])))
    f.write(tensor("v", unit(SIZES["MV"], SIZES["KV"])))
    f.write(tensor("col", unit(SIZES["KV"], 1)))
    f.write(tensor("x1", unit(1, K)))
    f.write(tensor("q", unit(Q, Q)))
    BA, T, D, E, C = (SIZES[k] for k in ("BA", "T", "D", "E", "C"))
    f.write(tensor("ba", unit(BA, T, D)))
    f.write(tensor("bm", unit(T, D)))
    f.write(tensor("bx", unit(BA, 1, T, D)))
    f.write(tensor("bv", unit(C, D, E)))
