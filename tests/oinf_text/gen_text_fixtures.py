#!/usr/bin/python3
"""Independent reference for the OINF text form (cli.md) and the canonical binary (oinf.md).

Writes, next to this script, in fixtures/:
  float_cases.txt   "DTYPE RAWHEX TEXT" lines: the shortest round-trip text of float bit patterns
                    (f8 exhaustive, f16/bf16 every 11th pattern plus edges, f32/f64 samples)
  all_dtypes.txt    the canonical text of a package with every dtype at its edge values
  all_dtypes.oinf   that package as written by a canonical writer (written here, in Python)

Shortest decimals: f64 from Python's repr, f32/f16 from numpy's Dragon4 (unique=True), bf16/f8
from an exact brute force with fractions (checked against numpy on f16). Layout as Python repr:
positional for decimal exponents -4..15, scientific otherwise.
Run with Debian's /usr/bin/python3 (numpy): /usr/bin/python3 tests/oinf_text/gen_text_fixtures.py
(--out DIR: write the three files in DIR instead of fixtures/)
"""
import argparse
import math
import os
import random
import struct
from fractions import Fraction

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "fixtures")

# (exponent bits, mantissa bits) of the float dtypes.
FLOATS = {"f8": (5, 2), "bf16": (8, 7), "f16": (5, 10), "f32": (8, 23), "f64": (11, 52)}
TAGS = {"i8": 1, "i16": 2, "i32": 3, "i64": 4, "u8": 5, "u16": 6, "u32": 7, "u64": 8, "f16": 9,
        "f32": 10, "f64": 11, "bool": 12, "bitset": 13, "bf16": 16, "f8": 17, "i4": 18, "i2": 19,
        "i1": 20, "u4": 21, "u2": 22, "u1": 23, "t2": 24, "t1": 25}
BITS = {"i8": 8, "i16": 16, "i32": 32, "i64": 64, "u8": 8, "u16": 16, "u32": 32, "u64": 64,
        "f16": 16, "f32": 32, "f64": 64, "bool": 8, "bitset": 8, "bf16": 16, "f8": 8, "i4": 4,
        "i2": 2, "i1": 1, "u4": 4, "u2": 2, "u1": 1, "t2": 2, "t1": 1}


# ---- exact float model -------------------------------------------------------------------

def float_value(dtype, raw):
    """Exact value of a finite, positive bit pattern as a Fraction."""
    e_bits, m_bits = FLOATS[dtype]
    bias = (1 << (e_bits - 1)) - 1
    exp = raw >> m_bits
    man = raw & ((1 << m_bits) - 1)
    if exp == 0:
        return Fraction(man) * Fraction(2) ** (1 - bias - m_bits)
    return Fraction(man + (1 << m_bits)) * Fraction(2) ** (exp - bias - m_bits)


def round_to(dtype, q):
    """Bits of the positive Fraction q rounded to nearest even (overflow to inf)."""
    e_bits, m_bits = FLOATS[dtype]
    bias = (1 << (e_bits - 1)) - 1
    emin, emax = 1 - bias, bias
    e = q.numerator.bit_length() - q.denominator.bit_length()
    while Fraction(2) ** e > q:
        e -= 1
    while Fraction(2) ** (e + 1) <= q:
        e += 1
    e = max(e, emin)
    n = round(q / Fraction(2) ** (e - m_bits))  # round() on a Fraction is half-even
    if n == 1 << (m_bits + 1):
        n >>= 1
        e += 1
    if e > emax:
        return ((1 << e_bits) - 1) << m_bits
    if n < (1 << m_bits):
        return n  # subnormal (or zero)
    return ((e + bias) << m_bits) | (n - (1 << m_bits))


def digits_at(q, p):
    """q rounded half-even to p significant digits: (digit integer D, exponent of D's lead)."""
    e10 = 0
    while Fraction(10) ** e10 > q:
        e10 -= 1
    while Fraction(10) ** (e10 + 1) <= q:
        e10 += 1
    d = round(q / Fraction(10) ** (e10 - p + 1))
    if d == 10 ** p:
        d //= 10
        e10 += 1
    return d, e10


def shortest_brute(dtype, raw):
    """(digits string, exponent) of the shortest decimal reading back to raw (positive)."""
    q = float_value(dtype, raw)
    for p in range(1, 40):
        d, e10 = digits_at(q, p)
        candidates = [d]
        if Fraction(d) * Fraction(10) ** (e10 - p + 1) < q:
            candidates.append(d + 1)
        else:
            candidates.append(d - 1)
        for c in candidates:
            if c <= 0:
                continue
            if round_to(dtype, Fraction(c) * Fraction(10) ** (e10 - p + 1)) == raw:
                s = str(c)
                exp = e10 + len(s) - p  # c may have p+1 digits (carry)
                return s.rstrip("0") or "0", exp
    raise AssertionError("no shortest decimal")


def shortest_numpy(value):
    s = np.format_float_scientific(value, unique=True, trim="-")
    mant, exp = s.split("e")
    return mant.replace(".", "").rstrip("0") or "0", int(exp)


def layout(digits, exp):
    if -4 <= exp < 16:
        if exp < 0:
            return "0." + "0" * (-exp - 1) + digits
        whole = exp + 1
        if len(digits) <= whole:
            return digits + "0" * (whole - len(digits)) + ".0"
        return digits[:whole] + "." + digits[whole:]
    s = digits[0] + ("." + digits[1:] if len(digits) > 1 else "")
    return s + ("e-" if exp < 0 else "e+") + "%02d" % abs(exp)


def float_text(dtype, raw):
    e_bits, m_bits = FLOATS[dtype]
    total = 1 + e_bits + m_bits
    sign = raw >> (total - 1)
    mag = raw & ((1 << (total - 1)) - 1)
    inf = ((1 << e_bits) - 1) << m_bits
    if mag > inf:
        canonical = inf | (1 << (m_bits - 1))
        return "nan" if raw == canonical else "nan(0x%0*x)" % (total // 4, raw)
    prefix = "-" if sign else ""
    if mag == inf:
        return prefix + "inf"
    if mag == 0:
        return prefix + "0.0"
    if dtype == "f64":
        return prefix + repr(struct.unpack("<d", struct.pack("<Q", mag))[0])
    if dtype == "f32":
        digits, exp = shortest_numpy(np.frombuffer(struct.pack("<I", mag), dtype=np.float32)[0])
    elif dtype == "f16":
        digits, exp = shortest_numpy(np.frombuffer(struct.pack("<H", mag), dtype=np.float16)[0])
        assert (digits, exp) == shortest_brute("f16", mag), hex(mag)
    else:
        digits, exp = shortest_brute(dtype, mag)
    return prefix + layout(digits, exp)


def element_text(dtype, raw):
    bits = BITS[dtype]
    if dtype in FLOATS:
        return float_text(dtype, raw)
    if dtype == "bool":
        return "true" if raw else "false"
    if dtype == "t1":
        return "1" if raw else "-1"
    if dtype == "t2" or dtype.startswith("i"):
        return str(raw - (1 << bits) if raw >> (bits - 1) else raw)
    return str(raw)


# ---- float cases -------------------------------------------------------------------------

def float_cases():
    lines = []
    for raw in range(256):
        lines.append(("f8", raw))
    edges16 = [0x0001, 0x0002, 0x03FF, 0x0400, 0x0401, 0x3BFF, 0x3C00, 0x3C01, 0x7BFF, 0x7C00,
               0x7C01, 0x7E00, 0x7E01, 0x7FFF, 0x8000, 0xFC00, 0xFE00, 0x3555, 0x4000]
    for dtype in ("f16", "bf16"):
        for raw in sorted(set(list(range(0, 1 << 16, 11)) + edges16 + [0x7F7F, 0x7F80, 0x7FC0,
                                                                      0x7FC1, 0x0080, 0x3F80])):
            lines.append((dtype, raw))
    rng = random.Random(20240611)
    f32 = [0, 1, 0x007FFFFF, 0x00800000, 0x3DCCCCCD, 0x3F800000, 0x3EAAAAAB, 0x7F7FFFFF,
           0x7F800000, 0x7FC00000, 0x7FC00001, 0xFFC00000, 0x80000000, 0xFF800000, 0x4B189680,
           0x5A0E1BCA, 0x38D1B717, 0x3727C5AC]
    f32 += [rng.getrandbits(32) for _ in range(1000)]
    lines += [("f32", r) for r in f32]
    f64 = [0, 1, 0x000FFFFFFFFFFFFF, 0x0010000000000000, 0x3FB999999999999A, 0x3FF0000000000000,
           0x7FEFFFFFFFFFFFFF, 0x7FF0000000000000, 0x7FF8000000000000, 0x7FF8000000000001,
           0xFFF8000000000000, 0x8000000000000000, 0x4341C37937E08000, 0x4340000000000000,
           0x3EE4F8B588E368F1, 0x3F1A36E2EB1C432D, 0x430C6BF526340000]
    f64 += [rng.getrandbits(64) for _ in range(1000)]
    lines += [("f64", r) for r in f64]
    width = {"f8": 2, "f16": 4, "bf16": 4, "f32": 8, "f64": 16}
    with open(os.path.join(OUT, "float_cases.txt"), "w") as f:
        f.write("# DTYPE RAWHEX TEXT (generated by gen_text_fixtures.py)\n")
        for dtype, raw in lines:
            f.write("%s %0*x %s\n" % (dtype, width[dtype], raw, float_text(dtype, raw)))


# ---- all-dtypes package ------------------------------------------------------------------

def pack_elements(dtype, raws):
    bits = BITS[dtype]
    if bits >= 8:
        return b"".join(r.to_bytes(bits // 8, "little") for r in raws)
    out = bytearray((len(raws) * bits + 7) // 8)
    for i, r in enumerate(raws):
        out[(i * bits) // 8] |= r << ((i * bits) % 8)
    return bytes(out)


def pad8(b):
    return b + b"\0" * (-len(b) % 8)


def enc_str(s):
    return pad8(struct.pack("<I", len(s)) + s.encode())


def write_oinf(sizevars, metadata, tensors):
    """sizevars {name: int}; metadata {key: (tag, payload)}; tensors {name: (dtype, dims, data)}."""
    sv = b"".join(enc_str(n) + struct.pack("<Q", v) for n, v in sorted(sizevars.items()))
    off_sv = 72
    off_meta = off_sv + len(pad8(sv))
    meta_entries = []
    tensor_entries = []
    mkeys = sorted(metadata)
    tnames = sorted(tensors)
    meta_len = sum(len(enc_str(k)) + 24 for k in mkeys)
    off_t = off_meta + len(pad8(b"\0" * meta_len))
    t_len = sum(len(enc_str(n)) + 12 + 8 * len(tensors[n][1]) + 16 for n in tnames)
    off_data = off_t + len(pad8(b"\0" * t_len))
    data = b""
    for k in mkeys:
        tag, payload = metadata[k]
        meta_entries.append(enc_str(k) + struct.pack("<IIQQ", tag, 0, len(payload),
                                                     off_data + len(data)))
        data += pad8(payload)
    for n in tnames:
        dtype, dims, blob = tensors[n]
        head = enc_str(n) + struct.pack("<III", TAGS[dtype], len(dims), 0 if blob is None else 1)
        head += b"".join(struct.pack("<Q", d) for d in dims)
        if blob is None:
            head += struct.pack("<QQ", 0, 0)
        else:
            head += struct.pack("<QQ", len(blob), off_data + len(data))
            data += pad8(blob)
        tensor_entries.append(head)
    file_size = off_data + len(data)
    header = b"OINF\0" + struct.pack("<IIIIIIQQQQQ", 1, 0, len(sizevars), len(metadata),
                                     len(tensors), 0, off_sv, off_meta, off_t, off_data, file_size)
    out = pad8(header) + pad8(sv) + pad8(b"".join(meta_entries)) + pad8(b"".join(tensor_entries))
    assert len(out) == off_data
    return out + data


def two(bits, v):
    return v & ((1 << bits) - 1)


EDGES = {
    "i8": [-128, 127, 0, -1], "i16": [-32768, 32767, 0, -1],
    "i32": [-2 ** 31, 2 ** 31 - 1, 0, -1], "i64": [-2 ** 63, 2 ** 63 - 1, 0, -1],
    "u8": [0, 255, 1], "u16": [0, 65535, 1], "u32": [0, 2 ** 32 - 1, 1],
    "u64": [0, 2 ** 64 - 1, 1],
    "i1": [-1, 0, -1], "i2": [-2, 1, 0, -1, 1], "i4": [-8, 7, 0, -1, 3],
    "u1": [1, 0, 1], "u2": [0, 3, 2, 1, 3], "u4": [15, 0, 9],
    "t1": [-1, 1, 1, -1, 1, 1, 1, -1, 1], "t2": [-1, 0, 1, 1, -1],
    "bool": [1, 0, 1], "bitset": [0, 255, 170],
}
FLOAT_EDGES = {
    "f8": [0x00, 0x80, 0x01, 0x03, 0x04, 0x7B, 0x7C, 0xFC, 0x7E, 0x7F, 0xFE, 0x3C, 0x3D],
    "f16": [0x0000, 0x8000, 0x0001, 0x03FF, 0x0400, 0x7BFF, 0x7C00, 0xFC00, 0x7E00, 0x7E01,
            0xFE00, 0x3C00, 0x3555],
    "bf16": [0x0000, 0x8000, 0x0001, 0x007F, 0x0080, 0x7F7F, 0x7F80, 0xFF80, 0x7FC0, 0x7FC1,
             0xFFC0, 0x3F80, 0x3EAB],
    "f32": [0, 0x80000000, 1, 0x007FFFFF, 0x00800000, 0x7F7FFFFF, 0x7F800000, 0xFF800000,
            0x7FC00000, 0x7FA00001, 0xFFC00000, 0x3DCCCCCD, 0x4B189680],
    "f64": [0, 0x8000000000000000, 1, 0x000FFFFFFFFFFFFF, 0x0010000000000000,
            0x7FEFFFFFFFFFFFFF, 0x7FF0000000000000, 0xFFF0000000000000, 0x7FF8000000000000,
            0x7FF0000000000001, 0xFFF8000000000000, 0x3FB999999999999A, 0x4340000000000000],
}


def raws_of(dtype):
    if dtype in FLOATS:
        return FLOAT_EDGES[dtype]
    return [two(BITS[dtype], v) if dtype != "t1" else (1 if v > 0 else 0) for v in EDGES[dtype]]


def all_dtypes_package():
    sizevars = {"B": 4, "N": 3, "zero": 0}
    metadata = {}
    text_meta = []
    tensors = {}
    text_tensors = []

    def scalar_meta(key, dtype, raw):
        nbytes = max(1, BITS[dtype] // 8)
        metadata[key] = (TAGS[dtype], raw.to_bytes(nbytes, "little"))
        text_meta.append((key, "@%s: %s = %s" % (key, dtype, element_text(dtype, raw))))

    scalar_meta("alpha", "f32", 0x3F000000)
    scalar_meta("count", "u64", 2 ** 64 - 1)
    scalar_meta("flag", "bool", 1)
    scalar_meta("nib", "i4", two(4, -8))
    scalar_meta("tern", "t2", two(2, -1))
    scalar_meta("half", "f16", 0x7E01)
    metadata["mode"] = (14, enc_str("clamp_up"))
    text_meta.append(("mode", '@mode: str = "clamp_up"'))
    bits = "1011001110"
    bitbytes = bytearray(2)
    for i, b in enumerate(bits):
        if b == "1":
            bitbytes[i // 8] |= 1 << (i % 8)
    metadata["mask"] = (13, pad8(struct.pack("<II", 10, 2) + bytes(bitbytes)))
    text_meta.append(("mask", "@mask: bitset[10] = 0b" + bits))
    metadata["empty_mask"] = (13, pad8(struct.pack("<II", 0, 0)))
    text_meta.append(("empty_mask", "@empty_mask: bitset[0] = 0b"))
    lut = [two(16, v) for v in (-1, 2, 3, 4)]
    metadata["lut"] = (15, pad8(struct.pack("<IIQQ", 2, 2, 2, 2) + pack_elements("i16", lut)))
    text_meta.append(("lut", "@lut: ndarray i16[2, 2] = { -1, 2, 3, 4 }"))
    u2s = [0, 3, 2]
    metadata["codes"] = (15, pad8(struct.pack("<IIQ", TAGS["u2"], 1, 3) + pack_elements("u2", u2s)))
    text_meta.append(("codes", "@codes: ndarray u2[3] = { 0, 3, 2 }"))

    def dims_text(dims):
        return "[" + ", ".join(str(d) for d in dims) + "]"

    for dtype in TAGS:
        raws = raws_of(dtype)
        name = "t_" + dtype
        tensors[name] = (dtype, [len(raws)], pack_elements(dtype, raws))
        values = ", ".join(element_text(dtype, r) for r in raws)
        text_tensors.append((name, "%s: %s%s = { %s }" % (name, dtype, dims_text([len(raws)]),
                                                          values)))
    grid = [two(8, v) for v in range(-3, 3)]
    tensors["grid"] = ("i8", [2, 3], pack_elements("i8", grid))
    text_tensors.append(("grid", "grid: i8[2, 3] = { -3, -2, -1, 0, 1, 2 }"))
    tensors["s"] = ("f64", [], struct.pack("<d", 2.5))
    text_tensors.append(("s", "s: f64 = 2.5"))
    tensors["flag0"] = ("bool", [], b"\x00")
    text_tensors.append(("flag0", "flag0: bool = false"))
    tensors["nothing"] = ("f32", [0], b"")
    text_tensors.append(("nothing", "nothing: f32[0] = { }"))
    tensors["y"] = ("i16", [4], None)
    text_tensors.append(("y", "y: i16[4]"))
    tensors["z"] = ("t1", [], None)
    text_tensors.append(("z", "z: t1"))
    tensors["big"] = ("u4", [3, 1000000000000], None)
    text_tensors.append(("big", "big: u4[3, 1000000000000]"))

    lines = ["# openinfer oinf text v1"]
    lines += ["%s := %d" % kv for kv in sorted(sizevars.items())]
    lines += [t for _, t in sorted(text_meta)]
    lines += [t for _, t in sorted(text_tensors)]
    with open(os.path.join(OUT, "all_dtypes.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")
    with open(os.path.join(OUT, "all_dtypes.oinf"), "wb") as f:
        f.write(write_oinf(sizevars, metadata, tensors))


def check_writer_against_spec_example():
    """oinf.md's 200-byte example: B := 4, mode = "clamp_up", a: f32[B] = {1, 2, 3, 4}."""
    got = write_oinf({"B": 4}, {"mode": (14, enc_str("clamp_up"))},
                     {"a": ("f32", [4], struct.pack("<4f", 1, 2, 3, 4))})
    assert len(got) == 200
    assert got[0x48:0x58] == bytes.fromhex("0100000042000000 0400000000000000")
    assert got[0x78:0xA8] == bytes.fromhex(
        "0100000061000000 0a00000001000000 0100000004000000 0000000010000000"
        "00000000b8000000 0000000000000000")
    assert got[0x25:0x45] == bytes.fromhex(
        "5800000000000000" "7800000000000000" "a800000000000000" "c800000000000000")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="Writes float_cases.txt, all_dtypes.txt/.oinf.")
    parser.add_argument("--out", metavar="DIR", default=OUT, help=f"default: {OUT}")
    OUT = parser.parse_args().out
    check_writer_against_spec_example()
    os.makedirs(OUT, exist_ok=True)
    float_cases()
    all_dtypes_package()
