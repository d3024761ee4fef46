"""Packed integer types (i1/i2/i4, u1/u2/u4, t1/t2): several elements per byte, first element
in the lowest bits, last byte zero-padded (oinf.md). Unpacked values are one int8 (signed and
ternary types) or uint8 (unsigned types) per element."""
import numpy as np

from . import dtypes


def pack(values, dtype):
    """Bytes of the unpacked `values` (already range-checked) in packed dtype."""
    dt = dtypes.get(dtype)
    v = np.asarray(values).reshape(-1).astype(np.int64)
    if dt.name == "t1":
        v = (v == 1).astype(np.int64)  # -1 is stored as 0, +1 as 1
    per_byte = 8 // dt.bits
    codes = (v & ((1 << dt.bits) - 1)).astype(np.uint8)
    codes = np.concatenate([codes, np.zeros(-len(codes) % per_byte, np.uint8)])
    codes = codes.reshape(-1, per_byte)
    shifts = (np.arange(per_byte) * dt.bits).astype(np.uint8)
    return np.bitwise_or.reduce(codes << shifts, axis=1).astype(np.uint8).tobytes() \
        if codes.size else b""


def unpack(data, dtype, numel):
    """`numel` unpacked values of packed dtype from `data` (ceil(numel * bits / 8) bytes)."""
    dt = dtypes.get(dtype)
    per_byte = 8 // dt.bits
    raw = np.frombuffer(data, np.uint8)
    shifts = (np.arange(per_byte) * dt.bits).astype(np.uint8)
    codes = ((raw[:, None] >> shifts) & np.uint8((1 << dt.bits) - 1)).reshape(-1)[:numel]
    if dt.name == "t1":
        return np.where(codes == 1, 1, -1).astype(np.int8)
    if dt.kind == "unsigned":
        return codes.astype(np.uint8)
    # Signed and t2: two's complement of `bits` bits.
    signed = codes.astype(np.int8)
    return np.where(codes >= (1 << (dt.bits - 1)), signed - (1 << dt.bits), signed).astype(np.int8)
