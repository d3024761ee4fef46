"""The corpus of broken files of tests/oinf/bad_input_test.cpp, rebuilt in Python: each case
is (bytes, a fragment the error message must contain). Offsets of the example file are those
of the hex dump in oinf.md (header fields at 5, 9, 13, ...; "B" at 0x48; "mode" at 0x58;
tensor "a" at 0x78; data at 0xa8)."""
import os

import numpy as np

from openinfer import oinf
from support import OINF_FIXTURES, read_bytes

VERSION, FLAGS, N_SIZEVARS, N_METADATA, N_TENSORS = 5, 9, 13, 17, 21
RESERVED, OFF_SIZEVARS, OFF_METADATA, OFF_TENSORS, OFF_DATA, FILE_SIZE = 25, 29, 37, 45, 53, 61
T_NAME_LEN, T_NAME, T_DTYPE, T_NDIM, T_FLAGS, T_DIM0, T_NBYTES, T_OFFSET = (
    0x78, 0x7C, 0x80, 0x84, 0x88, 0x8C, 0x94, 0x9C)
M_KEY, M_TYPE, M_FLAGS, M_NBYTES, M_OFFSET, M_STRING_LEN = 0x5C, 0x60, 0x64, 0x68, 0x70, 0xA8
S_NAME_LEN = 0x48
U64_MAX = (1 << 64) - 1
SINGLE_NBYTES, SINGLE_PAYLOAD = 88, 104  # one metadata entry "k": nbytes at 88, payload at 104


def example():
    return read_bytes(os.path.join(OINF_FIXTURES, "example.oinf"))


def patch(b, at, value, size):
    b = bytearray(b)
    b[at:at + size] = value.to_bytes(size, "little")
    return bytes(b)


def u8(b, at, v):
    return patch(b, at, v, 1)


def u32(b, at, v):
    return patch(b, at, v, 4)


def u64(b, at, v):
    return patch(b, at, v, 8)


def truncated(b, n, patch_file_size):
    b = b[:n]
    return u64(b, FILE_SIZE, n) if patch_file_size and n >= 72 else b


def single_metadata(value):
    return oinf.to_bytes(metadata={"k": value})


def cases():
    """[(name, bytes, fragment)]"""
    good = example()
    out = []

    def add(name, data, fragment):
        out.append((name, data, fragment))

    for n in range(len(good)):
        if n < 72:
            add(f"cut{n}", truncated(good, n, False),
                f"header: file is {n} bytes, shorter than the 72-byte header")
        else:
            add(f"cut{n}", truncated(good, n, False),
                f"header: file_size 200 does not match the file length {n}")
            add(f"cut{n}-patched", truncated(good, n, True), "")
    add("cut-tensors", truncated(good, 0x58, True),
        "header: offset_tensors 120 is past the end of the file (file_size 88)")
    add("cut-data", truncated(good, 0x78, True),
        "header: offset_data 168 is past the end of the file (file_size 120)")
    add("cut-meta-payload", truncated(good, 0xA8, True),
        "metadata 'mode' (entry 0): payload [168, 184) is outside the data section [168, 168)")
    add("cut-tensor-payload", truncated(good, 0xB8, True),
        "tensor 'a' (entry 0): payload [184, 200) is outside the data section [168, 184)")

    # header fields
    add("magic0", u8(good, 0, ord("X")), "header: bad magic")
    add("magic4", u8(good, 4, ord("1")), "header: bad magic")
    add("version2", u32(good, VERSION, 2), "header: version 2 is not supported (expected 1)")
    add("version0", u32(good, VERSION, 0), "header: version 0 is not supported")
    add("flags", u32(good, FLAGS, 1), "header: flags 1 must be 0")
    add("reserved", u32(good, RESERVED, 9), "header: reserved field 9 must be 0")
    add("file-size", u64(good, FILE_SIZE, 300),
        "header: file_size 300 does not match the file length 200")

    # table offsets
    add("meta-unaligned", u64(good, OFF_METADATA, 0x59),
        "header: offset_metadata 89 is not a multiple of 8")
    add("tensors-before-meta", u64(good, OFF_TENSORS, 0x50),
        "header: offset_tensors 80 is before offset_metadata 88")
    add("data-past-end", u64(good, OFF_DATA, 0x100),
        "header: offset_data 256 is past the end of the file (file_size 200)")
    add("data-huge", u64(good, OFF_DATA, U64_MAX - 7),
        "header: offset_data 18446744073709551608 is past the end of the file")
    add("sizevars-in-header", u64(good, OFF_SIZEVARS, 0x40),
        "header: offset_sizevars 64 lies inside the 72-byte header")
    add("meta-table-small", u64(good, OFF_TENSORS, 0x70),
        "header: n_metadata 1 cannot fit in the metadata table [88, 112) (24 bytes; an entry "
        "takes at least 32)")
    add("ndim-past-table", u32(good, T_NDIM, 2),
        "tensor 'a' (entry 0): data_offset at offset 164 runs past the end of the tensor table "
        "[120, 168)")

    # huge counts
    add("n-tensors", u32(good, N_TENSORS, 0xFFFFFFFF),
        "header: n_tensors 4294967295 cannot fit in the tensor table [120, 168)")
    add("n-metadata", u32(good, N_METADATA, 0xFFFFFFFF),
        "header: n_metadata 4294967295 cannot fit in the metadata table [88, 120)")
    add("n-sizevars", u32(good, N_SIZEVARS, 2),
        "header: n_sizevars 2 cannot fit in the sizevars table [72, 88)")
    tiny = u64((oinf.to_bytes() + bytes(100))[:100], FILE_SIZE, 100)
    add("tiny-n-tensors", u32(tiny, N_TENSORS, 0xFFFFFFFF),
        "header: n_tensors 4294967295 cannot fit in the tensor table [72, 72)")

    # strings
    add("name-len-huge", u32(good, T_NAME_LEN, 0xFFFFFFFF),
        "tensor entry 0: name length 4294967295 at offset 124 runs past the end of the tensor "
        "table [120, 168)")
    add("sizevar-len-huge", u32(good, S_NAME_LEN, 0xFFFFFFFF),
        "sizevar entry 0: name length 4294967295")
    add("name-empty", u32(good, T_NAME_LEN, 0), "tensor entry 0: name is empty")
    add("name-percent", u8(good, T_NAME, ord("%")),
        "tensor entry 0: name contains byte 0x25 '%' at position 0 (allowed: [A-Za-z0-9._-])")
    add("key-nul", u8(good, M_KEY + 2, 0), "metadata entry 0: key contains byte 0x00 at position 2")
    add("key-e9", u8(good, M_KEY + 3, 0xE9), "key contains byte 0xe9 at position 3")
    add("value-space", u8(good, 0xAC + 5, ord(" ")),
        "metadata 'mode' (entry 0): string value contains byte 0x20 ' ' at position 5")
    add("value-len-huge", u32(good, M_STRING_LEN, 0xFFFFFFFF),
        "metadata 'mode' (entry 0): value_nbytes 16 does not match the string length "
        "4294967295 (4294967304 bytes with padding)")
    add("value-empty", u32(good, M_STRING_LEN, 0),
        "metadata 'mode' (entry 0): string value is empty")

    # duplicate names
    dup_base = oinf.to_bytes(sizevars={"x": 1, "y": 2}, metadata={"k1": "v", "k2": "v"},
                             tensors={"a": np.float32(1), "b": np.float32(2)})
    at = dup_base.index(b"\x01\0\0\0b") + 4
    add("dup-tensor", u8(dup_base, at, ord("a")),
        "tensor 'a' (entry 1): duplicate name (entry 0 has the same name)")
    at = dup_base.index(b"\x01\0\0\0y") + 4
    add("dup-sizevar", u8(dup_base, at, ord("x")), "sizevar 'x' (entry 1): duplicate name")
    add("dup-metadata", u8(dup_base, dup_base.index(b"k2") + 1, ord("1")),
        "metadata 'k1' (entry 1): duplicate name")

    # tensor entries
    add("nbytes", u64(good, T_NBYTES, 10),
        "tensor 'a' (entry 0): data_nbytes 10 does not match dtype f32 and dims [4] (16 bytes)")
    add("dtype26", u32(good, T_DTYPE, 26), "tensor 'a' (entry 0): unknown dtype tag 26")
    add("dtype0", u32(good, T_DTYPE, 0), "tensor 'a' (entry 0): unknown dtype tag 0")
    add("dtype14", u32(good, T_DTYPE, 14),
        "tensor 'a' (entry 0): dtype string (tag 14) is only allowed in metadata")
    add("dtype15", u32(good, T_DTYPE, 15), "dtype ndarray (tag 15) is only allowed")
    add("tensor-flags3", u32(good, T_FLAGS, 3),
        "tensor 'a' (entry 0): flags 3 has unknown bits (only bit 0, HAS_DATA, is defined)")
    add("tensor-flags0", u32(good, T_FLAGS, 0),
        "tensor 'a' (entry 0): a declaration without data (HAS_DATA = 0) has data_nbytes 16 "
        "and data_offset 184 (both must be 0)")
    add("ndim-huge", u32(good, T_NDIM, 0xFFFFFFFF),
        "tensor 'a' (entry 0): ndim 4294967295 runs past the end of the tensor table")
    add("dim-huge", u64(good, T_DIM0, 1 << 62),
        "tensor 'a' (entry 0): dtype f32 and dims [4611686018427387904] need more than 2^64 "
        "bytes")
    add("f32-as-f16", u32(good, T_DTYPE, 9),
        "data_nbytes 16 does not match dtype f16 and dims [4] (8 bytes)")

    # dims products
    decl = oinf.to_bytes(tensors={"w": oinf.Declaration("f32", (2, 3))})
    add("dims-overflow", u64(u64(decl, 92, 1 << 32), 100, (1 << 32) + 1),
        "tensor 'w' (entry 0): dims [4294967296, 4294967297] overflow 64 bits")
    add("declaration-with-offset", u64(decl, 116, 8),
        "tensor 'w' (entry 0): a declaration without data (HAS_DATA = 0) has data_nbytes 0 and "
        "data_offset 8")

    # payload ranges
    add("offset-unaligned", u64(good, T_OFFSET, 0xB9),
        "tensor 'a' (entry 0): payload offset 185 is not a multiple of 8")
    add("overlap", u64(good, T_OFFSET, 0xB0),
        "tensor 'a' (entry 0): payload [176, 192) overlaps the payload [168, 184) of metadata "
        "'mode' (entry 0)")
    add("overlap-same", u64(good, T_OFFSET, 0xA8),
        "payload [168, 184) overlaps the payload [168, 184)")
    add("meta-past-end", u64(good, M_OFFSET, 0xC8),
        "metadata 'mode' (entry 0): payload [200, 216) is outside the data section [168, 200)")
    add("meta-before-data", u64(good, M_OFFSET, 0x70),
        "metadata 'mode' (entry 0): payload [112, 128) is outside the data section")
    add("offset-overflow", u64(good, T_OFFSET, U64_MAX - 7),
        "tensor 'a' (entry 0): payload at offset 18446744073709551608 with 16 bytes overflows "
        "64 bits")
    add("nbytes-overflow", u64(good, M_NBYTES, U64_MAX),
        "metadata 'mode' (entry 0): payload at offset 168 with 18446744073709551615 bytes "
        "overflows 64 bits")

    # metadata entries
    add("type99", u32(good, M_TYPE, 99), "metadata 'mode' (entry 0): unknown value type 99")
    add("type0", u32(good, M_TYPE, 0), "metadata 'mode' (entry 0): unknown value type 0")
    add("value-flags", u32(good, M_FLAGS, 1), "metadata 'mode' (entry 0): value_flags 1 must be 0")
    add("string-nbytes", u64(good, M_NBYTES, 24),
        "value_nbytes 24 does not match the string length 8 (16 bytes with padding)")
    add("string-short", u64(good, M_NBYTES, 2),
        "metadata 'mode' (entry 0): string payload of 2 bytes is shorter than its 4-byte header")
    add("string-as-f64", u32(good, M_TYPE, 11),
        "metadata 'mode' (entry 0): value_nbytes 16 does not match the 8-byte f64 scalar")
    scalar = single_metadata(oinf.Scalar(7, "i32"))
    add("scalar-nbytes", u64(scalar, SINGLE_NBYTES, 3),
        "metadata 'k' (entry 0): value_nbytes 3 does not match the 4-byte i32 scalar")

    # bitsets: bit_count at 104, byte_count 108, bytes 112
    bits = single_metadata(oinf.Bitset.from_bytes(10, b"\xa5\x02"))
    add("bitset-byte-count", u32(bits, SINGLE_PAYLOAD + 4, 5),
        "metadata 'k' (entry 0): bitset byte_count 5 does not match bit_count 10 (2 bytes)")
    add("bitset-longer", u32(u32(bits, SINGLE_PAYLOAD, 100), SINGLE_PAYLOAD + 4, 13),
        "metadata 'k' (entry 0): value_nbytes 16 does not match the bitset of 100 bits (24 "
        "bytes with padding)")
    add("bitset-short", u64(bits, SINGLE_NBYTES, 4),
        "metadata 'k' (entry 0): bitset payload of 4 bytes is shorter than its 8-byte header")

    # ndarrays: element type at 104, ndim 108, dims 112 and 120, data 128
    nd = single_metadata(oinf.NdArray(np.zeros((2, 2), np.int16)))
    add("ndarray-ndim-huge", u32(nd, SINGLE_PAYLOAD + 4, 0xFFFFFFFF),
        "metadata 'k' (entry 0): ndarray ndim 4294967295 does not fit in its 32-byte payload")
    add("ndarray-ndim1", u32(nd, SINGLE_PAYLOAD + 4, 1),
        "metadata 'k' (entry 0): value_nbytes 32 does not match the ndarray i16[2] (24 bytes "
        "with padding)")
    add("ndarray-bitset", u32(nd, SINGLE_PAYLOAD, 13),
        "metadata 'k' (entry 0): ndarray element type bitset is not a numeric, bool or packed "
        "dtype")
    add("ndarray-string", u32(nd, SINGLE_PAYLOAD, 14), "ndarray element type string is not")
    add("ndarray-tag77", u32(nd, SINGLE_PAYLOAD, 77), "ndarray element type tag 77 is not")
    add("ndarray-dims-overflow", u64(u64(nd, 112, 1 << 32), 120, 1 << 32),
        "metadata 'k' (entry 0): ndarray dims [4294967296, 4294967296] overflow 64 bits")
    add("ndarray-too-big", u64(nd, 112, 1 << 62),
        "value_nbytes 32 does not match the ndarray i16[4611686018427387904, 2] (more than 2^64 "
        "bytes)")
    return out


def accepted_variants():
    """Files the reader must accept: gap bytes in the data section, an empty dim."""
    tiny = u64((oinf.to_bytes() + bytes(100))[:100], FILE_SIZE, 100)
    decl = oinf.to_bytes(tensors={"w": oinf.Declaration("f32", (2, 3))})
    return [("tiny-gap", tiny), ("zero-dim", u64(decl, 92, 0))]
