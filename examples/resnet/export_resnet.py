#!/usr/bin/python3
"""Writes the model, input and reference packages of examples/resnet (README.md).

    /usr/bin/python3 examples/resnet/export_resnet.py OUT_DIR [--width 64] [--size 224]
        [--batch 1] [--classes 1000] [--seed 0]

The network is torchvision's ResNet-18 (Debian's python3-torchvision): `resnet18()` itself at
width 64, or the same class with every stage's width scaled (width, 2w, 4w, 8w) for the tiny
test configuration. Weights are random (torchvision's own init, seeded), and every batch norm
gets random running statistics and affine parameters so that folding them is not a no-op.

Batch norm is folded into the conv before it (inference form, eps = 1e-5): w' = w * g and
b' = beta - mean * g with g = gamma / sqrt(var + eps), computed in float64 and stored as f32.
The fc weight is stored transposed ([8w, classes]) so the graph can `matmul` with it.

Writes into OUT_DIR:
  model.oinf      size variables B (batch), C (width), S (input size / 32), K (classes) and the
                  folded weights, named after torchvision's modules (layer2.0.downsample, ...)
  input.oinf      `image`: f32[B, 3, 32S, 32S], normal noise (random images)
  reference.oinf  `logits`: f32[B, K] from PyTorch's float32 eval-mode forward of the unfolded
                  network (torch.set_num_threads(1), so the reference does not depend on threads)
  model.onnx      with --onnx: the same unfolded eval-mode network for ONNX Runtime (opset 13,
                  input `image`, output `logits`; bench/synth_resnet.sh times it), and
                  image.f32 (the input as raw little-endian f32)
"""
import argparse
import os
import pathlib
import sys

import numpy as np
import torch
import torchvision
from torchvision.models.resnet import BasicBlock

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "python"))
from openinfer import oinf  # noqa: E402


def build(width, classes, seed):
    """torchvision's ResNet-18; for width != 64 the stages are rebuilt by its own _make_layer."""
    torch.manual_seed(seed)
    m = torchvision.models.resnet18(num_classes=classes)
    if width != 64:
        m.inplanes = width
        m.conv1 = torch.nn.Conv2d(3, width, kernel_size=7, stride=2, padding=3, bias=False)
        m.bn1 = torch.nn.BatchNorm2d(width)
        m.layer1 = m._make_layer(BasicBlock, width, 2)
        m.layer2 = m._make_layer(BasicBlock, 2 * width, 2, stride=2)
        m.layer3 = m._make_layer(BasicBlock, 4 * width, 2, stride=2)
        m.layer4 = m._make_layer(BasicBlock, 8 * width, 2, stride=2)
        m.fc = torch.nn.Linear(8 * width, classes)
    gen = torch.Generator().manual_seed(seed + 1)
    with torch.no_grad():
        for mod in m.modules():
            if isinstance(mod, torch.nn.BatchNorm2d):
                c = mod.num_features
                mod.weight.copy_(torch.rand(c, generator=gen) + 0.5)
                mod.bias.copy_(torch.randn(c, generator=gen) * 0.1)
                mod.running_mean.copy_(torch.randn(c, generator=gen) * 0.1)
                mod.running_var.copy_(torch.rand(c, generator=gen) + 0.5)
    return m.eval()


def fold(conv, bn):
    w = conv.weight.detach().double()
    g = bn.weight.detach().double() / torch.sqrt(bn.running_var.double() + bn.eps)
    b = bn.bias.detach().double() - bn.running_mean.double() * g
    return (w * g[:, None, None, None]).float().numpy(), b.float().numpy()


def tensors_of(m):
    t = {}
    t["conv1.weight"], t["conv1.bias"] = fold(m.conv1, m.bn1)
    for s in range(1, 5):
        for i, block in enumerate(getattr(m, f"layer{s}")):
            p = f"layer{s}.{i}"
            t[p + ".conv1.weight"], t[p + ".conv1.bias"] = fold(block.conv1, block.bn1)
            t[p + ".conv2.weight"], t[p + ".conv2.bias"] = fold(block.conv2, block.bn2)
            if block.downsample is not None:
                t[p + ".downsample.weight"], t[p + ".downsample.bias"] = fold(
                    block.downsample[0], block.downsample[1])
    t["fc.weight_t"] = np.ascontiguousarray(m.fc.weight.detach().numpy().T)
    t["fc.bias"] = m.fc.bias.detach().numpy().copy()
    return t


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("out_dir")
    p.add_argument("--width", type=int, default=64)
    p.add_argument("--size", type=int, default=224, help="input height and width, a multiple of 32")
    p.add_argument("--batch", type=int, default=1)
    p.add_argument("--classes", type=int, default=1000)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--onnx", action="store_true", help="also write model.onnx and image.f32")
    args = p.parse_args()
    if args.size % 32 != 0 or args.size <= 0:
        p.error("--size must be a positive multiple of 32")
    torch.set_num_threads(1)
    m = build(args.width, args.classes, args.seed)
    os.makedirs(args.out_dir, exist_ok=True)
    sizevars = {"B": args.batch, "C": args.width, "S": args.size // 32, "K": args.classes}
    oinf.write(os.path.join(args.out_dir, "model.oinf"), sizevars=sizevars,
               metadata={"architecture": "torchvision.resnet18", "batch_norm": "folded"},
               tensors=tensors_of(m))
    gen = torch.Generator().manual_seed(args.seed + 2)
    image = torch.randn(args.batch, 3, args.size, args.size, generator=gen)
    oinf.write(os.path.join(args.out_dir, "input.oinf"), tensors={"image": image.numpy()})
    with torch.no_grad():
        logits = m(image)
    oinf.write(os.path.join(args.out_dir, "reference.oinf"), tensors={"logits": logits.numpy()})
    if args.onnx:
        torch.onnx.export(m, image, os.path.join(args.out_dir, "model.onnx"), opset_version=13,
                          input_names=["image"], output_names=["logits"])
        image.numpy().astype("<f4").tofile(os.path.join(args.out_dir, "image.f32"))
    print(f"wrote {args.out_dir}/model.oinf, input.oinf, reference.oinf "
          f"(width {args.width}, {args.size}x{args.size}, batch {args.batch}, "
          f"{args.classes} classes)")


if __name__ == "__main__":
    main()
