"""The Python API: dataclasses and dicts in, Packages out, every dtype round-tripping, and
clear errors for content that has no OINF form."""
import dataclasses
import os
import tempfile
import unittest

import numpy as np

from openinfer import oinf
from support import read_bytes


@dataclasses.dataclass
class Minimal:
    B: int = 4
    mode: str = "clamp_up"
    a: np.ndarray = dataclasses.field(
        default_factory=lambda: np.array([1, 2, 3, 4], np.float32))


@dataclasses.dataclass
class Tiny:
    hidden: int
    eps: float
    w: oinf.Tensor
    cache: oinf.Declaration
    flags: oinf.Bitset
    count: int = dataclasses.field(default=3, metadata={"oinf": "metadata"})
    conv_w: np.ndarray = dataclasses.field(default=None, metadata={"oinf_name": "conv1.weight"})
    skipped: object = None


class Writing(unittest.TestCase):
    def test_dataclass_is_the_same_as_the_dicts(self):
        from_dc = oinf.to_bytes(Minimal())
        from_dicts = oinf.to_bytes(sizevars={"B": 4}, metadata={"mode": "clamp_up"},
                                   tensors={"a": np.array([1, 2, 3, 4], np.float32)})
        self.assertEqual(from_dc, from_dicts)

    def test_dataclass_roles_and_names(self):
        obj = Tiny(hidden=8, eps=1e-5, w=oinf.Tensor([[1.0, 2.0]], "bf16"),
                   cache=oinf.Declaration("f16", (8, 2)), flags=oinf.Bitset([1, 0, 1]),
                   conv_w=np.ones((2, 1), np.float16))
        pkg = oinf.parse(oinf.to_bytes(obj))
        self.assertEqual(pkg.sizevars, {"hidden": 8})
        self.assertEqual(set(pkg.metadata), {"eps", "count", "flags"})
        self.assertEqual((pkg.metadata["eps"].dtype, pkg.metadata["eps"].value), ("f64", 1e-5))
        self.assertEqual((pkg.metadata["count"].dtype, int(pkg.metadata["count"].value)),
                         ("i64", 3))
        self.assertEqual(set(pkg.tensors), {"w", "cache", "conv1.weight"})
        self.assertEqual(pkg.tensors["w"].dtype, "bf16")
        np.testing.assert_array_equal(pkg["w"], [[1.0, 2.0]])
        self.assertEqual(pkg.tensors["cache"], oinf.Declaration("f16", (8, 2)))
        self.assertEqual(pkg["conv1.weight"].dtype, np.float16)

    def test_metadata_conveniences(self):
        pkg = oinf.parse(oinf.to_bytes(metadata={
            "b": True, "i": -5, "u": 2 ** 63, "f": 0.25, "n": np.int16(-3),
            "arr": np.arange(6, dtype=np.uint32).reshape(2, 3), "t": oinf.Tensor([1, 0], "u1")}))
        md = pkg.metadata
        self.assertEqual([md[k].dtype for k in ("b", "i", "u", "f", "n")],
                         ["bool", "i64", "u64", "f64", "i16"])
        self.assertEqual(int(md["u"].value), 2 ** 63)
        self.assertIsInstance(md["arr"], oinf.NdArray)
        self.assertEqual(md["arr"].numpy().tolist(), [[0, 1, 2], [3, 4, 5]])
        self.assertEqual((md["t"].dtype, md["t"].numpy().tolist()), ("u1", [1, 0]))

    def test_every_dtype_round_trips(self):
        rng = np.random.default_rng(5)
        for dt in oinf.DTYPES:
            with self.subTest(dtype=dt.name):
                shape = (3, 7)
                if dt.kind == "float":
                    values = rng.standard_normal(shape).astype(np.float32)
                elif dt.name == "t1":
                    values = rng.choice([-1, 1], shape)
                elif dt.name == "bool":
                    values = rng.integers(0, 2, shape).astype(bool)
                else:
                    values = rng.integers(dt.lo, min(dt.hi, 2 ** 62), shape, endpoint=True)
                t = oinf.Tensor(values, dt.name)
                back = oinf.parse(oinf.to_bytes(tensors={"x": t})).tensors["x"]
                self.assertEqual(back, t)
                self.assertEqual(back.shape, shape)
                if dt.kind != "float":
                    np.testing.assert_array_equal(back.numpy(), values)
                elif dt.name in ("f32", "f64"):
                    np.testing.assert_array_equal(back.numpy(), values)
                else:  # rounded: within half an ulp of the format
                    rel = {"f16": 2 ** -11, "bf16": 2 ** -8, "f8": 2 ** -3}[dt.name]
                    np.testing.assert_allclose(back.numpy(), values, rtol=rel, atol=2 ** -16)

    def test_packed_layout_lsb_first(self):
        # i4 {-8, 7, 1}: bytes 0x78, 0x01; t1 {-1, 1, 1}: 0b110; t2 {-1, 0, 1}: 0b01_00_11
        self.assertEqual(oinf.Tensor([-8, 7, 1], "i4").payload(), bytes([0x78, 0x01]))
        self.assertEqual(oinf.Tensor([-1, 1, 1], "t1").payload(), bytes([0b110]))
        self.assertEqual(oinf.Tensor([-1, 0, 1], "t2").payload(), bytes([0b010011]))
        self.assertEqual(oinf.Tensor([1] * 9, "u1").payload(), bytes([0xFF, 0x01]))

    def test_any_memory_layout_is_written_row_major_little_endian(self):
        x = np.arange(12, dtype=np.float32).reshape(3, 4)
        want = oinf.to_bytes(tensors={"w": np.ascontiguousarray(x.T)})
        self.assertEqual(oinf.to_bytes(tensors={"w": x.T}), want)
        self.assertEqual(oinf.to_bytes(tensors={"w": np.asfortranarray(x.T)}), want)
        self.assertEqual(oinf.to_bytes(tensors={"w": x.T.astype(">f4")}), want)
        self.assertEqual(oinf.Tensor(np.array([1, -2], ">i2"), "i16").payload(),
                         bytes([1, 0, 0xFE, 0xFF]))

    def test_raw_bits(self):
        t = oinf.Tensor.from_raw(np.array([0x3C00, 0x7E01], np.uint16), "f16")
        self.assertEqual(t.payload(), bytes([0x00, 0x3C, 0x01, 0x7E]))
        self.assertEqual(float(t.numpy()[0]), 1.0)
        self.assertEqual(oinf.Tensor([1.0, 0.5], "bf16").raw.tolist(), [0x3F80, 0x3F00])

    def test_write_is_atomic(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "m.oinf")
            oinf.write(path, tensors={"a": np.zeros(2, np.float32)})
            before = read_bytes(path)
            with self.assertRaises(oinf.OinfError):
                oinf.write(path, tensors={"bad name": np.zeros(2, np.float32)})
            self.assertEqual(read_bytes(path), before)
            self.assertEqual(os.listdir(tmp), ["m.oinf"])
            self.assertEqual(oinf.read(path), oinf.parse(before))


class Errors(unittest.TestCase):
    def check(self, fragment, fn, *args, **kwargs):
        with self.assertRaises(oinf.OinfError) as ctx:
            fn(*args, **kwargs)
        self.assertIn(fragment, str(ctx.exception))

    def test_names(self):
        self.check("oinf writer: tensor name 'a b' must use only the characters [A-Za-z0-9._-]",
                   oinf.to_bytes, tensors={"a b": np.zeros(1)})
        self.check("sizevar name ''", oinf.to_bytes, sizevars={"": 1})
        self.check("metadata 'm': string value must use only", oinf.to_bytes,
                   metadata={"m": "has space"})

    def test_safe_name(self):
        self.assertEqual(oinf.safe_name("onnx::Conv_7"), "onnx__Conv_7")
        self.assertEqual(oinf.safe_name("/layer1/0/conv.weight"), "_layer1_0_conv.weight")
        self.assertTrue(oinf.is_valid_name(oinf.safe_name("a b\u00e9")))
        self.check("an empty name has no safe form", oinf.safe_name, "")

    def test_values(self):
        self.check("value 8 does not fit i4 (-8..7)", oinf.Tensor, [1, 8], "i4")
        self.check("value 0 does not fit t1 (-1 or 1)", oinf.Tensor, [1, 0], "t1")
        self.check("value -1 does not fit u64", oinf.Tensor, [-1], "u64")
        self.check("float values given for i32", oinf.Tensor, [1.5], "i32")
        self.check("sizevar 'B': value -1 is outside 0..2^64-1", oinf.to_bytes,
                   sizevars={"B": -1})
        self.check("sizevar 'B': value 1.5 is not an integer", oinf.to_bytes,
                   sizevars={"B": 1.5})
        self.check("tensor name 3 is not a str", oinf.to_bytes, tensors={3: np.zeros(1)})
        self.check("metadata 'k': list has no OINF form", oinf.to_bytes, metadata={"k": [1, 2]})
        self.check("tensor 'w': list is not a numpy array", oinf.to_bytes, tensors={"w": [1]})
        self.check("a metadata scalar must have rank 0", oinf.Scalar, [1, 2], "i8")
        self.check("cannot store numpy <U1 values as f32", oinf.Tensor, ["a"], "f32")
        self.check("raw values of f32 must be float32, got uint32", oinf.Tensor.from_raw,
                   np.zeros(2, np.uint32), "f32")
        self.check("raw values of f16 must be uint16, got float16", oinf.Tensor.from_raw,
                   np.zeros(2, np.float16), "f16")
        self.check("value 4 does not fit u2", oinf.Tensor.from_raw, [4], "u2")
        self.check("bitset of 10 bits needs 2 bytes, got 1", oinf.Bitset.from_bytes, 10, b"\0")
        self.check("unknown dtype 'f12'", oinf.Tensor, [1], "f12")
        with self.assertRaises(TypeError):
            oinf.Tensor(np.array([1 + 2j]))

    def test_unreadable_files(self):
        with tempfile.TemporaryDirectory() as tmp:
            missing = os.path.join(tmp, "missing.oinf")
            self.check(f"{missing}: cannot open the file: No such file or directory",
                       oinf.read, missing)
            self.check(f"{tmp}: not a regular file", oinf.read, tmp)
            empty = os.path.join(tmp, "empty.oinf")
            open(empty, "wb").close()
            self.check(f"{empty}: header: file is 0 bytes, shorter than the 72-byte header",
                       oinf.read, empty)


if __name__ == "__main__":
    unittest.main()
