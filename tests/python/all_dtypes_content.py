"""The content of tests/oinf_text/fixtures/all_dtypes.txt written with the Python API, so that
its bytes can be compared with the C++ `oinf pack` of that text (the fixture .oinf)."""
import numpy as np

from openinfer import oinf


def _floats(dtype, finite, nan_bits):
    """A float tensor: the 13 values of the fixture with the NaNs given as raw bits.
    `finite` holds the 13 values, NaN placeholders where nan_bits has bits."""
    t = oinf.Tensor(np.array(finite, np.float64), dtype)
    raw = t.raw.copy()
    for i, bits in nan_bits.items():
        raw[i] = bits
    return oinf.Tensor.from_raw(raw, dtype)


_SPECIAL = [0.0, -0.0]
_INF = [np.inf, -np.inf]


def package():
    nan = np.nan
    t = {
        "big": oinf.Declaration("u4", (3, 1000000000000)),
        "flag0": oinf.Tensor(False, "bool"),
        "grid": np.array([[-3, -2, -1], [0, 1, 2]], np.int8),
        "nothing": np.zeros(0, np.float32),
        "s": np.float64(2.5),
        "t_bf16": _floats("bf16", _SPECIAL + [9e-41, 1.17e-38, 1.18e-38, 3.39e+38] + _INF
                          + [nan, nan, nan, 1.0, 0.334], {9: 0x7fc1, 10: 0xffc0}),
        "t_bitset": oinf.Tensor([0, 255, 170], "bitset"),
        "t_bool": np.array([True, False, True]),
        "t_f16": _floats("f16", _SPECIAL + [6e-08, 6.1e-05, 6.104e-05, 65500.0] + _INF
                         + [nan, nan, nan, 1.0, 0.3333], {9: 0x7e01, 10: 0xfe00}),
        "t_f32": _floats("f32", _SPECIAL + [1e-45, 1.1754942e-38, 1.1754944e-38,
                                            3.4028235e+38] + _INF + [nan, nan, nan, 0.1, 1e7],
                         {9: np.uint32(0x7fa00001).view(np.float32),
                          10: np.uint32(0xffc00000).view(np.float32)}),
        "t_f64": _floats("f64", _SPECIAL + [5e-324, 2.225073858507201e-308,
                                            2.2250738585072014e-308, 1.7976931348623157e+308]
                         + _INF + [nan, nan, nan, 0.1, 9007199254740992.0],
                         {9: np.uint64(0x7ff0000000000001).view(np.float64),
                          10: np.uint64(0xfff8000000000000).view(np.float64)}),
        "t_f8": _floats("f8", _SPECIAL + [2e-05, 5e-05, 6e-05, 60000.0] + _INF
                        + [nan, nan, nan, 1.0, 1.2], {9: 0x7f, 10: 0xfe}),
        "t_i1": oinf.Tensor([-1, 0, -1], "i1"),
        "t_i16": np.array([-32768, 32767, 0, -1], np.int16),
        "t_i2": oinf.Tensor([-2, 1, 0, -1, 1], "i2"),
        "t_i32": np.array([-2147483648, 2147483647, 0, -1], np.int32),
        "t_i4": oinf.Tensor([-8, 7, 0, -1, 3], "i4"),
        "t_i64": np.array([-9223372036854775808, 9223372036854775807, 0, -1], np.int64),
        "t_i8": np.array([-128, 127, 0, -1], np.int8),
        "t_t1": oinf.Tensor([-1, 1, 1, -1, 1, 1, 1, -1, 1], "t1"),
        "t_t2": oinf.Tensor([-1, 0, 1, 1, -1], "t2"),
        "t_u1": oinf.Tensor([1, 0, 1], "u1"),
        "t_u16": np.array([0, 65535, 1], np.uint16),
        "t_u2": oinf.Tensor([0, 3, 2, 1, 3], "u2"),
        "t_u32": np.array([0, 4294967295, 1], np.uint32),
        "t_u4": oinf.Tensor([15, 0, 9], "u4"),
        "t_u64": np.array([0, 18446744073709551615, 1], np.uint64),
        "t_u8": np.array([0, 255, 1], np.uint8),
        "y": oinf.Declaration("i16", (4,)),
        "z": oinf.Declaration("t1", ()),
    }
    m = {
        "alpha": oinf.Scalar(0.5, "f32"),
        "codes": oinf.NdArray([0, 3, 2], "u2"),
        "count": np.uint64(18446744073709551615),
        "empty_mask": oinf.Bitset([]),
        "flag": True,
        "half": oinf.Scalar.from_raw(np.uint16(0x7e01), "f16"),
        "lut": oinf.NdArray([[-1, 2], [3, 4]], "i16"),
        "mask": oinf.Bitset([1, 0, 1, 1, 0, 0, 1, 1, 1, 0]),
        "mode": "clamp_up",
        "nib": oinf.Scalar(-8, "i4"),
        "tern": oinf.Scalar(-1, "t2"),
    }
    return oinf.Package({"B": 4, "N": 3, "zero": 0}, m, t)
