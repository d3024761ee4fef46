"""The 23 element types of the OINF format (oinf.md): name <-> tag <-> bits, numpy mapping."""
from dataclasses import dataclass

import numpy as np

from .errors import OinfError

TAG_STRING = 14   # metadata only
TAG_NDARRAY = 15  # metadata only


@dataclass(frozen=True)
class DType:
    name: str    # as in the DSL and the text form
    tag: int     # the OINF value-type tag
    bits: int    # storage bits per element
    kind: str    # "float", "signed", "unsigned", "bool", "bitset", "ternary"
    lo: int = 0  # integer range (integer, bool, bitset, ternary kinds)
    hi: int = 0

    @property
    def packed(self):
        """Fewer than 8 bits per element: several elements share a byte, LSB first."""
        return self.bits < 8


def _int(name, tag, bits, signed):
    if signed:
        return DType(name, tag, bits, "signed", -(1 << (bits - 1)), (1 << (bits - 1)) - 1)
    return DType(name, tag, bits, "unsigned", 0, (1 << bits) - 1)


# In the order of oinf.md's list of dtypes (cli.md).
ALL = (
    DType("f8", 17, 8, "float"), DType("bf16", 16, 16, "float"), DType("f16", 9, 16, "float"),
    DType("f32", 10, 32, "float"), DType("f64", 11, 64, "float"),
    _int("i1", 20, 1, True), _int("i2", 19, 2, True), _int("i4", 18, 4, True),
    _int("i8", 1, 8, True), _int("i16", 2, 16, True), _int("i32", 3, 32, True),
    _int("i64", 4, 64, True),
    _int("u1", 23, 1, False), _int("u2", 22, 2, False), _int("u4", 21, 4, False),
    _int("u8", 5, 8, False), _int("u16", 6, 16, False), _int("u32", 7, 32, False),
    _int("u64", 8, 64, False),
    DType("t1", 25, 1, "ternary", -1, 1), DType("t2", 24, 2, "ternary", -1, 1),
    DType("bool", 12, 8, "bool", 0, 1), DType("bitset", 13, 8, "bitset", 0, 255),
)
BY_NAME = {d.name: d for d in ALL}
BY_TAG = {d.tag: d for d in ALL}

# numpy dtype of the values a user passes or gets back (decoded view).
# f8 and bf16 have no numpy type: they decode to float32. Packed types decode to one
# int8 (signed, ternary) or uint8 (unsigned) per element.
_VALUE_NUMPY = {
    "f8": "<f4", "bf16": "<f4", "f16": "<f2", "f32": "<f4", "f64": "<f8",
    "i1": "i1", "i2": "i1", "i4": "i1", "i8": "i1", "i16": "<i2", "i32": "<i4", "i64": "<i8",
    "u1": "u1", "u2": "u1", "u4": "u1", "u8": "u1", "u16": "<u2", "u32": "<u4", "u64": "<u8",
    "t1": "i1", "t2": "i1", "bool": "?", "bitset": "u1",
}
# numpy dtype of the stored bits of one element (before packing): what `raw` holds.
_RAW_NUMPY = dict(_VALUE_NUMPY, f8="u1", bf16="<u2", f16="<u2", bool="u1")

# OINF dtype inferred from a numpy array's dtype when none is given.
_FROM_NUMPY = {
    "int8": "i8", "int16": "i16", "int32": "i32", "int64": "i64",
    "uint8": "u8", "uint16": "u16", "uint32": "u32", "uint64": "u64",
    "float16": "f16", "float32": "f32", "float64": "f64", "bool": "bool",
}


def get(dtype):
    """A DType from a name ("f32"), a tag (10) or a DType; clear errors otherwise."""
    if isinstance(dtype, DType):
        return dtype
    if isinstance(dtype, str):
        if dtype in BY_NAME:
            return BY_NAME[dtype]
        raise OinfError(f"unknown dtype '{dtype}' (known: {' '.join(BY_NAME)})")
    if isinstance(dtype, int) and not isinstance(dtype, bool):
        if dtype in BY_TAG:
            return BY_TAG[dtype]
        raise OinfError(f"unknown dtype tag {dtype}")
    raise TypeError(f"a dtype is a name like 'f32', got {dtype!r}")


def value_numpy(dtype):
    return np.dtype(_VALUE_NUMPY[get(dtype).name])


def raw_numpy(dtype):
    return np.dtype(_RAW_NUMPY[get(dtype).name])


def from_numpy(np_dtype):
    """The OINF dtype of a numpy dtype (int8..uint64, float16/32/64, bool)."""
    name = _FROM_NUMPY.get(np.dtype(np_dtype).name)
    if name is None:
        raise TypeError(f"numpy dtype {np.dtype(np_dtype)} has no OINF dtype; give one "
                        f"explicitly (e.g. Tensor(values, 'f32'))")
    return BY_NAME[name]


def storage_bytes(dtype, numel):
    """ceil(numel * bits / 8)."""
    return (numel * get(dtype).bits + 7) // 8


def numel_of(dims):
    n = 1
    for d in dims:
        n *= int(d)
    return n
