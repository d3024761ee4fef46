"""Writes c/matmul_model.txt and c/matmul_input.txt (text form of .oinf) with deterministic
pseudo-random values in [0, 1): ops.md's relative matmul tolerance assumes no heavy cancellation
(standard-normal data gave a 0.0294 result off by 8e-5 relative between two summation orders).
Run from tests/synth: /usr/bin/python3 c/gen_matmul_data.py [--out DIR]
(--out: write the two files in DIR instead of c/)"""
import argparse
import os

import numpy as np

parser = argparse.ArgumentParser(description="Writes matmul_model.txt and matmul_input.txt.")
parser.add_argument("--out", metavar="DIR", default="c",
                    help="default: c (in the working directory)")
OUT = parser.parse_args().out
os.makedirs(OUT, exist_ok=True)

M, K, N = 33, 129, 20
rng = np.random.default_rng(20261123)


def tensor(name, dtype, arr):
    vals = ", ".join("%.6g" % float(v) for v in arr.ravel())
    dims = ", ".join(str(d) for d in arr.shape)
    return f"{name}: {dtype}[{dims}] = {{ {vals} }}\n"


with open(os.path.join(OUT, "matmul_model.txt"), "w") as f:
    f.write(f"# openinfer oinf text v1\nK := {K}\nM := {M}\nN := {N}\n")
    f.write(tensor("bias", "f32", rng.standard_normal(N).astype(np.float32)))
    f.write(tensor("w", "f32", rng.random((K, N)).astype(np.float32)))
with open(os.path.join(OUT, "matmul_input.txt"), "w") as f:
    f.write("# openinfer oinf text v1\n")
    f.write(tensor("a", "f32", rng.random((M, K)).astype(np.float32)))
    f.write(tensor("b64", "f64", rng.random((N, K))))
    f.write(tensor("col", "f32", rng.random((K, 1)).astype(np.float32)))
with open(os.path.join(OUT, "matmul_model.txt"), "a") as f:
    f.write(tensor("gm", "f32", rng.random((N, K)).astype(np.float32)))
