"""f16/bf16/f8 rounding from float32 and float64: known bit patterns (ties, subnormals,
overflow to inf, NaN) and an exact brute-force reference (fractions) on random values."""
import bisect
import fractions
import unittest

import numpy as np

from openinfer.oinf import floats

# (exponent bits, mantissa bits) of the narrow formats.
LAYOUT = {"f16": (5, 10), "bf16": (8, 7), "f8": (5, 2)}


def enc(values, dtype, src=np.float32):
    return [int(b) for b in floats.encode(np.array(values, src), dtype)]


def f32(bits):
    return np.array([bits], np.uint32).view(np.float32)[0]


def f64(bits):
    return np.array([bits], np.uint64).view(np.float64)[0]


def exact_value(bits, dtype):
    """The exact value of a finite narrow-format pattern, from the format's definition."""
    e_bits, m_bits = LAYOUT[dtype]
    sign = -1 if bits >> (e_bits + m_bits) else 1
    exp = (bits >> m_bits) & ((1 << e_bits) - 1)
    man = bits & ((1 << m_bits) - 1)
    bias = (1 << (e_bits - 1)) - 1
    if exp == 0:
        return sign * fractions.Fraction(man, 1 << m_bits) * fractions.Fraction(2) ** (1 - bias)
    return sign * (1 + fractions.Fraction(man, 1 << m_bits)) * fractions.Fraction(2) ** (exp - bias)


_CANDIDATES = {}


def candidates(dtype):
    """Sorted (exact value, bits) of every non-negative finite pattern, plus "inf" valued
    2^(max_exp - bias) (the next binade's first value), so overflow follows the tie rule."""
    if dtype not in _CANDIDATES:
        e_bits, m_bits = LAYOUT[dtype]
        inf = ((1 << e_bits) - 1) << m_bits
        bias = (1 << (e_bits - 1)) - 1
        values = [exact_value(b, dtype) for b in range(inf)]
        values.append(fractions.Fraction(2) ** ((1 << e_bits) - 1 - bias))
        _CANDIDATES[dtype] = values  # increasing with the bits
    return _CANDIDATES[dtype]


def reference(x, dtype):
    """Round-to-nearest-even by search over the exact values of all patterns."""
    e_bits, m_bits = LAYOUT[dtype]
    inf = ((1 << e_bits) - 1) << m_bits
    sign = (1 << (e_bits + m_bits)) if np.signbit(x) else 0
    values = candidates(dtype)
    a = abs(fractions.Fraction(float(x)))
    if np.isinf(x) or a >= values[-1]:
        return sign | inf
    hi = bisect.bisect_left(values, a)  # values[hi] >= a
    if values[hi] == a:
        return sign | hi
    lo = hi - 1
    below, above = a - values[lo], values[hi] - a
    best = lo if below < above or (below == above and lo % 2 == 0) else hi
    return sign | best


class KnownPatterns(unittest.TestCase):
    def test_f16(self):
        self.assertEqual(enc([1.0, -2.0, 65504.0, 0.0, -0.0], "f16"),
                         [0x3C00, 0xC000, 0x7BFF, 0x0000, 0x8000])
        # 1 + 2^-11 is halfway between 1.0 and the next f16: ties to even (down).
        self.assertEqual(enc([1 + 2.0 ** -11, 1 + 3 * 2.0 ** -11], "f16"), [0x3C00, 0x3C02])
        # overflow: 65520 (halfway to 65536) rounds to inf, 65519 to the max finite
        self.assertEqual(enc([65520.0, 65519.0, -1e6, np.inf], "f16"),
                         [0x7C00, 0x7BFF, 0xFC00, 0x7C00])
        # subnormals: smallest 2^-24, half of it ties to 0, 3/4 of it rounds up
        self.assertEqual(enc([2.0 ** -24, 2.0 ** -25, 1.5 * 2.0 ** -25, 2.0 ** -14], "f16"),
                         [0x0001, 0x0000, 0x0001, 0x0400])
        # a f32 subnormal underflows to signed zero
        self.assertEqual(enc([f32(0x00000001), f32(0x80000001)], "f16"), [0x0000, 0x8000])

    def test_bf16(self):
        self.assertEqual(enc([1.0, -1.0, 3.0], "bf16"), [0x3F80, 0xBF80, 0x4040])
        # ties: 0x3F808000 is halfway between 0x3F80 and 0x3F81 (down to even),
        # 0x3F818000 between 0x3F81 and 0x3F82 (up to even)
        self.assertEqual(enc([f32(0x3F808000), f32(0x3F818000), f32(0x3F808001)], "bf16"),
                         [0x3F80, 0x3F82, 0x3F81])
        # overflow to inf past the largest finite bf16
        self.assertEqual(enc([f32(0x7F7FFFFF), f32(0x7F7F7FFF)], "bf16"), [0x7F80, 0x7F7F])
        # f32 subnormals stay subnormal (same exponent range)
        self.assertEqual(enc([f32(0x00010000), f32(0x00008000), f32(0x00018000)], "bf16"),
                         [0x0001, 0x0000, 0x0002])
        # f64 below bf16's range
        self.assertEqual(enc([1e-300, -1e-300], "bf16", np.float64), [0x0000, 0x8000])

    def test_f8(self):
        # E5M2: 1.0 = 0x3C, max finite 57344 = 0x7B, smallest subnormal 2^-16 = 0x01
        self.assertEqual(enc([1.0, 57344.0, 2.0 ** -16, -2.0], "f8"), [0x3C, 0x7B, 0x01, 0xC0])
        # 1.125 is halfway between 1.0 (0x3C) and 1.25 (0x3D): even is 0x3C; 1.375 -> 0x3E
        self.assertEqual(enc([1.125, 1.375, 1.126], "f8"), [0x3C, 0x3E, 0x3D])
        # 61440 is halfway between 57344 and 65536 (inf): ties to even gives inf
        self.assertEqual(enc([61440.0, 61439.0, -70000.0], "f8"), [0x7C, 0x7B, 0xFC])
        # subnormal ties: 2^-17 ties to 0, 3 * 2^-17 ties to 2 * 2^-16 (even)
        self.assertEqual(enc([2.0 ** -17, 3 * 2.0 ** -17, 5 * 2.0 ** -17], "f8"),
                         [0x00, 0x02, 0x02])

    def test_nan_keeps_payload_high_bits_and_sets_quiet(self):
        self.assertEqual(enc([f32(0x7FC00000), f32(0xFFC00000)], "f16"), [0x7E00, 0xFE00])
        # signalling NaN with a low payload: quiet bit set, still NaN
        self.assertEqual(enc([f32(0x7F800001)], "f16"), [0x7E00])
        self.assertEqual(enc([f32(0x7FA00000)], "f16"), [0x7F00])
        self.assertEqual(enc([f32(0x7FC10000)], "bf16"), [0x7FC1])
        self.assertEqual(enc([f32(0x7F800001)], "bf16"), [0x7FC0])
        self.assertEqual(enc([f32(0x7FC00000), f32(0x7FE00000)], "f8"), [0x7E, 0x7F])
        self.assertEqual(enc([f64(0x7FF8000000000000)], "f8", np.float64), [0x7E])

    def test_f64_rounds_once(self):
        # 1 + 2^-11 + 2^-40 is just above the f16 tie: one rounding goes up, while rounding
        # through f32 first would give the tie and then round down.
        x = 1 + 2.0 ** -11 + 2.0 ** -40
        self.assertEqual(enc([x], "f16", np.float64), [0x3C01])
        self.assertEqual(enc([np.float32(x)], "f16"), [0x3C00])

    def test_decode_is_exact(self):
        for dtype, width in (("f16", 16), ("bf16", 16), ("f8", 8)):
            bits = np.arange(1 << width, dtype=np.uint16 if width == 16 else np.uint8)
            e_bits, m_bits = LAYOUT[dtype]
            finite = ((bits.astype(np.int64) >> m_bits) & ((1 << e_bits) - 1)) != (1 << e_bits) - 1
            values = floats.decode(bits, dtype)
            for b in bits[finite][:: 97 if width == 16 else 1]:
                self.assertEqual(fractions.Fraction(float(values[int(b)])),
                                 exact_value(int(b), dtype), f"{dtype} 0x{int(b):x}")
            # encode(decode(b)) == b for every non-NaN pattern
            np.testing.assert_array_equal(floats.encode(values[finite], dtype), bits[finite])


class AgainstExactReference(unittest.TestCase):
    def check(self, dtype, values):
        got = enc(values, dtype, values.dtype.type)
        for x, g in zip(values, got):
            self.assertEqual(g, reference(x, dtype), f"{dtype} of {x!r} ({values.dtype})")

    def test_random_values(self):
        rng = np.random.default_rng(7)
        for dtype in ("f16", "bf16", "f8"):
            e_bits, m_bits = LAYOUT[dtype]
            bias = (1 << (e_bits - 1)) - 1
            # values spread over the format's whole range, subnormals and overflow included
            exps = rng.uniform(-bias - m_bits - 2, bias + 2, 300)
            signs = rng.choice([-1.0, 1.0], 300)
            v64 = signs * 2.0 ** exps
            self.check(dtype, v64)
            self.check(dtype, v64.astype(np.float32))
            # exact midpoints between neighbours (ties) from random patterns
            inf = ((1 << e_bits) - 1) << m_bits
            pats = rng.integers(0, inf - 1, 100)
            mids = np.array([float((exact_value(int(p), dtype)
                                    + exact_value(int(p) + 1, dtype)) / 2) for p in pats])
            self.check(dtype, mids)

    def test_float16_agrees_with_numpy(self):
        # numpy's float16 cast is an independent round-to-nearest-even implementation
        rng = np.random.default_rng(3)
        bits = rng.integers(0, 1 << 32, 20000, dtype=np.uint64).astype(np.uint32)
        v = bits.view(np.float32)
        v = v[~np.isnan(v)]
        with np.errstate(over="ignore"):
            want = v.astype(np.float16).view(np.uint16)
        np.testing.assert_array_equal(floats.encode(v, "f16"), want)
        d = rng.standard_normal(20000) * 10.0 ** rng.integers(-9, 6, 20000)
        with np.errstate(over="ignore"):
            want = d.astype(np.float16).view(np.uint16)
        np.testing.assert_array_equal(floats.encode(d, "f16"), want)


if __name__ == "__main__":
    unittest.main()
