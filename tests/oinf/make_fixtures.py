#!/usr/bin/python3
"""Writes the OINF fixtures the C++ tests compare against, independently of the C++ code:
an OINF canonical writer (oinf.md) in a few lines of Python, values encoded with numpy.
Also copies them into tests/fuzz/corpus/oinf as the reader fuzzer's seeds.
Run: /usr/bin/python3 tests/oinf/make_fixtures.py [--out DIR]
(--out: write the four files in DIR instead, and copy nothing into the corpus)"""
import argparse
import os
import shutil
import struct

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "fixtures")
CORPUS = os.path.join(HERE, "..", "fuzz", "corpus", "oinf")

TAGS = {"i8": 1, "i16": 2, "i32": 3, "i64": 4, "u8": 5, "u16": 6, "u32": 7, "u64": 8,
        "f16": 9, "f32": 10, "f64": 11, "bool": 12, "bitset": 13, "bf16": 16, "f8": 17,
        "i4": 18, "i2": 19, "i1": 20, "u4": 21, "u2": 22, "u1": 23, "t2": 24, "t1": 25}
STRING, NDARRAY = 14, 15
BITS = {"i1": 1, "u1": 1, "t1": 1, "i2": 2, "u2": 2, "t2": 2, "i4": 4, "u4": 4}
NUMPY = {"i8": "<i1", "i16": "<i2", "i32": "<i4", "i64": "<i8", "u8": "<u1", "u16": "<u2",
         "u32": "<u4", "u64": "<u8", "f16": "<f2", "f32": "<f4", "f64": "<f8", "bool": "<u1",
         "bitset": "<u1"}


def pad8(b):
    return b + b"\0" * (-len(b) % 8)


def string(s):
    return pad8(struct.pack("<I", len(s)) + s.encode())


def encode(dtype, values):
    """Element data of a tensor or ndarray: raw little-endian, packed types LSB first."""
    if dtype in BITS:
        bits = BITS[dtype]
        if dtype == "t1":
            raws = [1 if v == 1 else 0 for v in values]
        else:
            raws = [v & ((1 << bits) - 1) for v in values]
        out = bytearray((len(raws) * bits + 7) // 8)
        for i, r in enumerate(raws):
            out[i * bits // 8] |= r << (i * bits % 8)
        return bytes(out)
    if dtype == "bf16":
        return (np.array(values, "<f4").view("<u4") >> 16).astype("<u2").tobytes()
    if dtype == "f8":  # E5M2 is the upper byte of an f16 for values exact in both
        return (np.array(values, "<f2").view("<u2") >> 8).astype("<u1").tobytes()
    return np.array(values, NUMPY[dtype]).tobytes()


def write(name, sizevars, metadata, tensors):
    """metadata: (key, tag, payload bytes, value_nbytes); tensors: (name, dtype, dims, data|None)."""
    sizevars, metadata, tensors = sorted(sizevars), sorted(metadata), sorted(tensors)
    off_sv = 72
    sv = b"".join(string(n) + struct.pack("<Q", v) for n, v in sizevars)
    off_md = off_sv + len(pad8(sv))
    md_len = sum(len(string(k)) + 24 for k, *_ in metadata)
    off_t = off_md + len(pad8(b"\0" * md_len))
    t_len = sum(len(string(n)) + 12 + 8 * len(d) + 16 for n, _, d, _ in tensors)
    off_data = off_t + len(pad8(b"\0" * t_len))
    data = b""
    md = b""
    for key, tag, payload, nbytes in metadata:
        md += string(key) + struct.pack("<IIQQ", tag, 0, nbytes, off_data + len(data))
        data += pad8(payload)
    tt = b""
    for tname, dtype, dims, blob in tensors:
        offset = off_data + len(data) if blob is not None else 0
        tt += string(tname) + struct.pack("<III", TAGS[dtype], len(dims), blob is not None)
        tt += b"".join(struct.pack("<Q", d) for d in dims)
        tt += struct.pack("<QQ", len(blob) if blob is not None else 0, offset)
        if blob is not None:
            data += pad8(blob)
    size = off_data + len(data)
    header = b"OINF\0" + struct.pack("<IIIIIIQQQQQ", 1, 0, len(sizevars), len(metadata),
                                     len(tensors), 0, off_sv, off_md, off_t, off_data, size)
    blob = pad8(header) + pad8(sv) + pad8(md) + pad8(tt) + data
    assert len(blob) == size
    with open(os.path.join(OUT, name), "wb") as f:
        f.write(blob)


def scalar(key, dtype, value):
    raw = encode(dtype, [value])
    return (key, TAGS[dtype], raw, len(raw))


def ndarray(key, dtype, dims, values):
    payload = struct.pack("<II", TAGS[dtype], len(dims)) + b"".join(
        struct.pack("<Q", d) for d in dims) + encode(dtype, values)
    return (key, NDARRAY, payload, len(pad8(payload)))


def bitset(key, bits):
    raw = bytearray((len(bits) + 7) // 8)
    for i, b in enumerate(bits):
        raw[i // 8] |= b << (i % 8)
    payload = struct.pack("<II", len(bits), len(raw)) + bytes(raw)
    return (key, TAGS["bitset"], payload, len(pad8(payload)))


def text(key, s):
    return (key, STRING, string(s), len(string(s)))


# The same element values as tests/oinf/fixture_values.hpp, element i of a 15-element tensor.
def values_of(dtype, n=15):
    if dtype in ("f16", "f32", "f64", "bf16", "f8"):
        return [0.5 * (i - 7) for i in range(n)]
    ranges = {"i8": (-128, 127), "i16": (-32768, 32767), "i32": (-2**31, 2**31 - 1),
              "i64": (-2**63, 2**63 - 1), "u8": (0, 255), "u16": (0, 65535), "u32": (0, 2**32 - 1),
              "u64": (0, 2**64 - 1), "i4": (-8, 7), "i2": (-2, 1), "i1": (-1, 0), "u4": (0, 15),
              "u2": (0, 3), "u1": (0, 1), "bool": (0, 1), "bitset": (0, 255)}
    if dtype == "t2":
        return [(i % 3) - 1 for i in range(n)]
    if dtype == "t1":
        return [1 if i % 2 else -1 for i in range(n)]
    lo, hi = ranges[dtype]
    # Both ends of the range, then a walk through it.
    return [lo if i == 0 else hi if i == 1 else lo + (i * 37) % (hi - lo + 1) for i in range(n)]


def main():
    global OUT
    parser = argparse.ArgumentParser(description="Writes the OINF fixtures.")
    parser.add_argument("--out", metavar="DIR", help=f"default: {OUT}, copied into {CORPUS}")
    out = parser.parse_args().out
    if out is not None:
        OUT = out
    os.makedirs(OUT, exist_ok=True)
    write("example.oinf", [("B", 4)], [text("mode", "clamp_up")],
          [("a", "f32", [4], encode("f32", [1, 2, 3, 4]))])

    scalars = [scalar("s_" + d, d, values_of(d, 2)[1]) for d in TAGS if d != "bitset"]
    write("metadata.oinf", [("B", 4), ("N", 2**40)],
          scalars + [
              text("str", "clamp_up"),
              text("str9", "a.b_c-D09"),
              bitset("bits10", [1, 0, 1, 0, 0, 1, 0, 1, 0, 1]),
              bitset("bits0", []),
              ndarray("nd_i16", "i16", [2, 2], [-1, 2, 3, 4]),
              ndarray("nd_i4", "i4", [3], [-1, 2, 3]),
              ndarray("nd_t2", "t2", [5], [-1, 0, 1, 1, -1]),
              ndarray("nd_f32_rank0", "f32", [], [2.5]),
              ndarray("nd_u8_empty", "u8", [2, 0], []),
          ], [])

    tensors = [("t_" + d, d, [3, 5], encode(d, values_of(d))) for d in TAGS]
    tensors += [
        ("decl_f32", "f32", [2, 3], None),
        ("decl_u4", "u4", [7], None),
        ("decl_rank0", "i8", [], None),
        ("empty_f32", "f32", [2, 0, 3], encode("f32", [])),
        ("empty_i1", "i1", [0], encode("i1", [])),
        ("scalar_i64", "i64", [], encode("i64", [-2])),
        ("scalar_t1", "t1", [], encode("t1", [1])),
    ]
    write("tensors.oinf", [], [], tensors)
    write("empty.oinf", [], [], [])

    if out is not None:
        return
    os.makedirs(CORPUS, exist_ok=True)
    for name in os.listdir(OUT):
        shutil.copy(os.path.join(OUT, name), os.path.join(CORPUS, name))


if __name__ == "__main__":
    main()
