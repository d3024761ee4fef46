"""Writes the model and input of bench/synth_mlp.oi (text form of .oinf): uniform values in
[-0.5, 0.5) from a fixed seed, scaled by 1/sqrt(fan-in) for the weights.
    synth_mlp_data.py MODEL.txt INPUT.txt"""
import sys

import numpy as np

B, D = 64, [512, 1024, 1024, 10]
rng = np.random.default_rng(7)


def tensor(name, arr):
    vals = ", ".join("%.6g" % float(v) for v in arr.ravel())
    return f"{name}: f32[{', '.join(str(d) for d in arr.shape)}] = {{ {vals} }}\n"


with open(sys.argv[1], "w") as f:
    f.write("# openinfer oinf text v1\n")
    f.write(f"B := {B}\n" + "".join(f"D{i} := {d}\n" for i, d in enumerate(D)))
    for l in range(3):
        f.write(tensor(f"w{l + 1}", (rng.random((D[l], D[l + 1])) - 0.5) / np.sqrt(D[l])))
        f.write(tensor(f"b{l + 1}", rng.random(D[l + 1]) - 0.5))
with open(sys.argv[2], "w") as f:
    f.write("# openinfer oinf text v1\n" + tensor("x", rng.random((B, D[0])) - 0.5))
