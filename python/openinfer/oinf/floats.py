"""f16, bf16 and f8 (E5M2) from float32/float64 arrays by integer bit manipulation, rounding to
nearest, ties to even, overflowing to inf, NaN kept NaN with the quiet bit set: the same
algorithm as the C++ library (plugin_api/include/openinfer/float_formats.hpp), so both give the same bits.
Decoding back to float32 is exact."""
from dataclasses import dataclass

import numpy as np

_U = np.uint64
_CHUNK = 1 << 20


@dataclass(frozen=True)
class _Format:
    exp_bits: int
    man_bits: int

    @property
    def bias(self):
        return (1 << (self.exp_bits - 1)) - 1

    @property
    def max_exp(self):
        return (1 << self.exp_bits) - 1

    @property
    def sign_shift(self):
        return self.exp_bits + self.man_bits

    @property
    def inf_bits(self):
        return self.max_exp << self.man_bits


F64, F32, F16 = _Format(11, 52), _Format(8, 23), _Format(5, 10)
BF16, F8 = _Format(8, 7), _Format(5, 2)
FORMATS = {"f8": F8, "bf16": BF16, "f16": F16, "f32": F32, "f64": F64}


def _narrow(bits, src, dst):
    """Rounds `bits` (uint64 array in format src) to format dst; returns uint64 bits."""
    bits = np.asarray(bits, dtype=_U)
    sign = (bits >> _U(src.sign_shift)) & _U(1)
    exp = (bits >> _U(src.man_bits)) & _U(src.max_exp)
    man = bits & _U((1 << src.man_bits) - 1)
    sign_out = sign << _U(dst.sign_shift)

    # value = sig * 2^(e - src.man_bits), sig's leading one at bit src.man_bits.
    subnormal = exp == 0
    # bit_width(man) through frexp, exact since man < 2^53.
    width = np.frexp(man.astype(np.float64))[1].astype(np.int64)
    lead = np.maximum(width - 1, 0)
    sig = np.where(subnormal, man << (src.man_bits - lead).astype(_U),
                   man | _U(1 << src.man_bits))
    e = np.where(subnormal, 1 - src.bias - (src.man_bits - lead),
                 exp.astype(np.int64) - src.bias)

    biased = e + dst.bias
    shift = (src.man_bits - dst.man_bits) + np.where(biased < 1, 1 - biased, 0)
    underflow = shift > src.man_bits + 1  # below half the smallest subnormal
    shift = np.minimum(shift, src.man_bits + 1).astype(_U)
    rounded = sig >> shift
    rest = sig & ((_U(1) << shift) - _U(1))
    half = _U(1) << (shift - _U(1))
    round_up = (rest > half) | ((rest == half) & ((rounded & _U(1)) == _U(1)))
    rounded = rounded + round_up.astype(_U)
    # A carry out of the mantissa moves into the exponent field, which is exactly right.
    exp_field = np.where(biased < 1, 0, biased - 1).astype(_U) << _U(dst.man_bits)
    out = sign_out | (exp_field + rounded)

    out = np.where(underflow, sign_out, out)
    out = np.where(biased >= dst.max_exp, sign_out | _U(dst.inf_bits), out)
    out = np.where(subnormal & (man == 0), sign_out, out)
    special = exp == _U(src.max_exp)
    payload = (man >> _U(src.man_bits - dst.man_bits)) | _U(1 << (dst.man_bits - 1))
    out = np.where(special & (man == 0), sign_out | _U(dst.inf_bits), out)
    out = np.where(special & (man != 0), sign_out | _U(dst.inf_bits) | payload, out)
    return out


def encode(values, dtype):
    """Bits of `values` (float32 or float64 array; anything else goes through float64) in
    dtype f8/bf16/f16: uint8 for f8, uint16 otherwise."""
    values = np.asarray(values)
    out = np.empty(values.shape, np.uint8 if dtype == "f8" else np.uint16)
    flat_in, flat_out = values.reshape(-1), out.reshape(-1)
    # In chunks: the integer arithmetic needs several uint64 temporaries per element.
    for start in range(0, flat_in.size, _CHUNK):
        chunk = flat_in[start:start + _CHUNK]
        if chunk.dtype == np.float32:
            bits, src = chunk.astype("<f4").view("<u4").astype(_U), F32
        else:
            bits, src = chunk.astype("<f8").view("<u8").astype(_U), F64
        flat_out[start:start + _CHUNK] = _narrow(bits, src, FORMATS[dtype])
    return out


def decode(bits, dtype):
    """Exact float32 values of f8/bf16/f16 bits (NaN payloads kept, as the C++ widening)."""
    bits = np.asarray(bits)
    if dtype == "bf16":
        return (bits.astype(np.uint32) << np.uint32(16)).view(np.float32)
    if dtype == "f8":  # E5M2 is the upper byte of an IEEE half
        bits = bits.astype(np.uint16) << np.uint16(8)
    return bits.astype(np.uint16).view(np.float16).astype(np.float32)
