#!/usr/bin/python3
"""Writes the numpy-computed fixtures for float_formats_test.cpp.

Run with Debian's numpy:  /usr/bin/python3 tests/core/gen_float_fixtures.py [--out DIR]
(--out: write the two files in DIR instead of fixtures/)
  fixtures/f16_to_f32.bin  65536 little-endian u32: float32 bits of every float16 pattern.
  fixtures/f32_to_f16.bin  records of (u32 float32 bits, u16 float16 bits), little-endian,
                           edge cases, midpoints between adjacent float16 values and random
                           float32 patterns, each with numpy's float16 conversion.
"""
import argparse
import os

import numpy as np

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures")


def f16_to_f32():
    halves = np.arange(65536, dtype=np.uint32).astype(np.uint16).view(np.float16)
    return halves.astype(np.float32).view(np.uint32).astype("<u4")


def f32_inputs(rng):
    special = [0x00000000, 0x80000000, 0x7F800000, 0xFF800000, 0x7FC00000, 0xFFC00000,
               0x7F800001, 0x7FBFFFFF, 0x7FFFFFFF, 0x00000001, 0x807FFFFF, 0x7F7FFFFF,
               0x3F800000, 0xBF800000]
    named = [65504.0, 65505.0, 65519.0, 65519.99609375, 65520.0, 65536.0, 1e9,
             2.0 ** -14, 2.0 ** -24, 2.0 ** -25, 2.0 ** -26, 1.5 * 2.0 ** -25, 3 * 2.0 ** -25,
             6.1e-5, 1.0 / 3, 0.1, 2049.0, 2051.0, 4097.0, 4099.0]
    vals = [np.float32(v).view(np.uint32) for v in named]
    special += [int(v) for v in vals] + [int(v) | 0x80000000 for v in vals]
    for v in list(special):  # neighbours one ulp away
        if (v & 0x7F800000) != 0x7F800000:
            special += [(v + 1) & 0xFFFFFFFF, (v - 1) & 0xFFFFFFFF]

    # Midpoints between adjacent finite float16 values (and to 65536 above the max), and the
    # float32 values one ulp either side of them: the round-to-nearest-even decisions.
    lows = np.concatenate([np.arange(0, 64), np.arange(0x7BC0, 0x7C00),
                           rng.integers(0, 0x7C00, 1200)]).astype(np.uint16)
    lo = lows.view(np.float16).astype(np.float64)
    hi = np.where(lows == 0x7BFF, 65536.0,
                  (lows + 1).astype(np.uint16).view(np.float16).astype(np.float64))
    mid = ((lo + hi) / 2).astype(np.float32).view(np.uint32).astype(np.int64)
    mids = np.concatenate([mid, mid + 1, mid - 1])
    mids = mids[mids >= 0]
    signs = rng.integers(0, 2, mids.size).astype(np.int64) << 31

    # Random patterns: most with exponents near the float16 range, some anywhere.
    exps = rng.integers(96, 146, 4000).astype(np.int64)
    near = (exps << 23) | rng.integers(0, 1 << 23, 4000) | (rng.integers(0, 2, 4000) << 31)
    anywhere = rng.integers(0, 1 << 32, 1000, dtype=np.uint64).astype(np.int64)

    return np.concatenate([np.array(special, dtype=np.int64), mids | signs, near,
                           anywhere]).astype(np.uint32)


def main():
    parser = argparse.ArgumentParser(description="Writes f16_to_f32.bin and f32_to_f16.bin.")
    parser.add_argument("--out", metavar="DIR", default=HERE, help=f"default: {HERE}")
    out = parser.parse_args().out
    os.makedirs(out, exist_ok=True)
    f16_to_f32().tofile(os.path.join(out, "f16_to_f32.bin"))

    inputs = f32_inputs(np.random.default_rng(20240611))
    halves = inputs.view(np.float32).astype(np.float16).view(np.uint16)
    records = np.zeros(inputs.size, dtype=[("f32", "<u4"), ("f16", "<u2")])
    records["f32"] = inputs
    records["f16"] = halves
    records.tofile(os.path.join(out, "f32_to_f16.bin"))
    print(f"{inputs.size} f32 -> f16 records")


if __name__ == "__main__":
    main()
