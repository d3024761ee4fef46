"""Writes c/conv_model.txt and c/conv_input.txt (text form of .oinf) with deterministic
pseudo-random values in [0, 1) (no heavy cancellation, so ops.md's relative tolerance holds
between summation orders). Run from tests/synth: /usr/bin/python3 c/gen_conv_data.py [--out DIR]
(--out: write the two files in DIR instead of c/)"""
import argparse
import os

import numpy as np

parser = argparse.ArgumentParser(description="Writes conv_model.txt and conv_input.txt.")
parser.add_argument("--out", metavar="DIR", default="c",
                    help="default: c (in the working directory)")
OUT = parser.parse_args().out
os.makedirs(OUT, exist_ok=True)

rng = np.random.default_rng(20261124)


def tensor(name, dtype, shape):
    arr = rng.random(shape)
    fmt = "%.17g" if dtype == "f64" else "%.6g"
    vals = ", ".join(fmt % float(v) for v in arr.ravel())
    dims = ", ".join(str(d) for d in shape)
    return f"{name}: {dtype}[{dims}] = {{ {vals} }}\n"


with open(os.path.join(OUT, "conv_model.txt"), "w") as f:
    f.write("# openinfer oinf text v1\n")
    for name, dtype, shape in [("b1", "f32", (5,)), ("b3", "f32", (3,)), ("bd", "f64", (3,)),
                               ("w1", "f32", (5, 4, 3)), ("w2", "f32", (6, 2, 3, 2)),
                               ("w3", "f32", (3, 4, 1, 1)), ("wd", "f64", (3, 1, 3)),
                               ("w4", "f32", (16, 6, 3)), ("b4", "f32", (16,)),
                               ("w5", "f32", (16, 2, 3, 3)), ("w6", "f32", (8, 3, 3, 3)),
                               ("b6", "f32", (8,)), ("w7", "f32", (2, 1, 3, 3))]:
        f.write(tensor(name, dtype, shape))
    # conv_large.oi's patch panels (more than 256 cells): a generator of their own, so the
    # values above stay as they were.
    rng2 = np.random.default_rng(20261127)
    for name, shape in [("w8", (16, 2, 3, 3)), ("b8", (16,)), ("w9", (12, 3, 5, 5))]:
        arr = rng2.random(shape)
        f.write(f"{name}: f32[{', '.join(str(d) for d in shape)}] = {{ "
                + ", ".join("%.6g" % float(v) for v in arr.ravel()) + " }\n")
with open(os.path.join(OUT, "conv_input.txt"), "w") as f:
    f.write("# openinfer oinf text v1\n")
    for name, dtype, shape in [("x1", "f32", (2, 4, 9)), ("x2", "f32", (1, 4, 6, 7)),
                               ("xd", "f64", (1, 3, 8)), ("x4", "f32", (2, 6, 7)),
                               ("x5", "f32", (1, 4, 5, 4)), ("x6", "f32", (1, 3, 25, 23)),
                               ("x7", "f32", (1, 2, 20, 20))]:
        f.write(tensor(name, dtype, shape))
    arr = np.random.default_rng(20261128).random((1, 3, 40, 36))
    f.write("x9: f32[1, 3, 40, 36] = { " + ", ".join("%.6g" % float(v) for v in arr.ravel())
            + " }\n")
