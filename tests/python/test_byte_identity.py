"""Byte identity with the C++ writer in both directions: Python writes what `openinfer oinf
pack` writes for the same content, and files the C++ wrote read back to the right values and
re-write to the same bytes."""
import os
import tempfile
import unittest

import numpy as np

import all_dtypes_content
from openinfer import oinf
from support import (EXAMPLE_MODEL, OINF_FIXTURES, ROOT, TEXT_FIXTURES, needs_cli, read_bytes,
                     run_cli)

# oinf.md's example, "B := 4, mode = clamp_up, a: f32[B] = {1, 2, 3, 4}", from its hex dump.
SPEC_EXAMPLE_HEX = """
4f49 4e46 0001 0000 0000 0000 0001 0000 0001 0000 0001 0000 0000 0000 0048 0000
0000 0000 0058 0000 0000 0000 0078 0000 0000 0000 00a8 0000 0000 0000 00c8 0000
0000 0000 0000 0000 0100 0000 4200 0000 0400 0000 0000 0000 0400 0000 6d6f 6465
0e00 0000 0000 0000 1000 0000 0000 0000 a800 0000 0000 0000 0100 0000 6100 0000
0a00 0000 0100 0000 0100 0000 0400 0000 0000 0000 1000 0000 0000 0000 b800 0000
0000 0000 0000 0000 0800 0000 636c 616d 705f 7570 0000 0000 0000 803f 0000 0040
0000 4040 0000 8040"""


class PythonWritesWhatCppWrites(unittest.TestCase):
    def test_spec_example(self):
        got = oinf.to_bytes(sizevars={"B": 4}, metadata={"mode": "clamp_up"},
                            tensors={"a": np.array([1, 2, 3, 4], np.float32)})
        self.assertEqual(got, bytes.fromhex(SPEC_EXAMPLE_HEX.replace(" ", "").replace("\n", "")))

    def test_every_dtype_and_metadata_kind_matches_the_committed_pack(self):
        got = oinf.to_bytes(all_dtypes_content.package())
        self.assertEqual(got, read_bytes(os.path.join(TEXT_FIXTURES, "all_dtypes.oinf")))

    @needs_cli
    def test_every_dtype_and_metadata_kind_matches_a_fresh_pack(self):
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "packed.oinf")
            code, _, err = run_cli("oinf", "pack", os.path.join(TEXT_FIXTURES, "all_dtypes.txt"),
                                   "-o", out)
            self.assertEqual(code, 0, err)
            self.assertEqual(oinf.to_bytes(all_dtypes_content.package()), read_bytes(out))

    @needs_cli
    def test_random_content_matches_pack_of_python_dump(self):
        # Random tensors of every dtype, written by Python, dumped by Python to the text
        # form; the C++ pack of that text must give the same bytes, and the C++ dump the
        # same text.
        rng = np.random.default_rng(11)
        tensors, metadata = {}, {}
        for dt in oinf.DTYPES:
            shape = tuple(rng.integers(0, 4, rng.integers(0, 3)))
            n = int(np.prod(shape, dtype=np.int64))
            if dt.kind == "float":
                values = rng.standard_normal(n) * 10.0 ** rng.integers(-6, 6, n)
            elif dt.name == "t1":
                values = rng.choice([-1, 1], n)
            else:
                values = rng.integers(dt.lo, dt.hi, n, dtype=np.int64, endpoint=True) \
                    if dt.hi < 1 << 63 else rng.integers(0, 1 << 64, n, dtype=np.uint64)
            tensors[f"t.{dt.name}"] = oinf.Tensor(np.reshape(values, shape), dt.name)
            if dt.name != "bitset":
                metadata[f"s.{dt.name}"] = oinf.Scalar(np.reshape(values, -1)[:1].reshape(())
                                                       if n else 0, dt.name)
                metadata[f"n.{dt.name}"] = oinf.NdArray(np.reshape(values, shape), dt.name)
            tensors[f"d.{dt.name}"] = oinf.Declaration(dt.name, shape)
        tensors["long.f32"] = (rng.standard_normal(1000) * 100).astype(np.float32)
        tensors["long.i64"] = rng.integers(-2 ** 62, 2 ** 62, 50)
        tensors["long.bf16"] = oinf.Tensor(rng.standard_normal((20, 3)), "bf16")
        metadata["bits"] = oinf.Bitset(rng.integers(0, 2, 77))
        metadata["text"] = "a-b_c.9"
        pkg = oinf.Package({"N": 3, "M": 0}, metadata, tensors)
        from openinfer.oinf.views import dump_text, inspect_text
        with tempfile.TemporaryDirectory() as tmp:
            text = os.path.join(tmp, "random.txt")
            with open(text, "w") as f:
                f.write(dump_text(pkg))
            out = os.path.join(tmp, "random.oinf")
            code, _, err = run_cli("oinf", "pack", text, "-o", out)
            self.assertEqual(code, 0, err)
            self.assertEqual(oinf.to_bytes(pkg), read_bytes(out))
            code, cpp_dump, err = run_cli("oinf", "dump", out)
            self.assertEqual(code, 0, err)
            self.assertEqual(cpp_dump, dump_text(pkg))
            code, cpp_inspect, err = run_cli("oinf", "inspect", out)
            self.assertEqual(code, 0, err)
            self.assertEqual(cpp_inspect, inspect_text(pkg))

    def test_insertion_order_does_not_matter(self):
        a = oinf.to_bytes(sizevars={"b": 1, "a": 2}, metadata={"z": 1, "y": "v"},
                          tensors={"w2": np.ones(3, np.float32), "w1": np.zeros(2, np.int64)})
        b = oinf.to_bytes(sizevars={"a": 2, "b": 1}, metadata={"y": "v", "z": 1},
                          tensors={"w1": np.zeros(2, np.int64), "w2": np.ones(3, np.float32)})
        self.assertEqual(a, b)


class CppFilesReadBack(unittest.TestCase):
    FILES = [EXAMPLE_MODEL, os.path.join(ROOT, "examples", "minimal", "input.oinf"),
             os.path.join(TEXT_FIXTURES, "all_dtypes.oinf")] + \
        [os.path.join(OINF_FIXTURES, f) for f in
         ("empty.oinf", "example.oinf", "metadata.oinf", "tensors.oinf")]

    def test_rewrite_reproduces_the_bytes(self):
        for path in self.FILES:
            with self.subTest(path=os.path.relpath(path, ROOT)):
                self.assertEqual(oinf.to_bytes(oinf.read(path)), read_bytes(path))

    def test_minimal_example_values(self):
        pkg = oinf.read(EXAMPLE_MODEL)
        self.assertEqual(pkg.sizevars, {"B": 16})
        a = pkg["a"]
        self.assertEqual(a.dtype, np.float32)
        np.testing.assert_array_equal(
            a, np.array([3.4324, 53.24324, 0.5, 1.25, 7.0, -2.5, 0.125, 10.0, 42.0, 0.75, 1.5,
                         2.0, 9.75, 11.0, -1.0, 2334.2346], np.float32))
        self.assertEqual(pkg.tensors["y"], oinf.Declaration("f32", (16,)))

    def test_all_dtypes_values(self):
        # Expected values from tests/oinf_text/fixtures/all_dtypes.txt, the C++ pack's input.
        pkg = oinf.read(os.path.join(TEXT_FIXTURES, "all_dtypes.oinf"))
        self.assertEqual(pkg.sizevars, {"B": 4, "N": 3, "zero": 0})
        ints = {"t_i1": [-1, 0, -1], "t_i2": [-2, 1, 0, -1, 1], "t_i4": [-8, 7, 0, -1, 3],
                "t_u1": [1, 0, 1], "t_u2": [0, 3, 2, 1, 3], "t_u4": [15, 0, 9],
                "t_t1": [-1, 1, 1, -1, 1, 1, 1, -1, 1], "t_t2": [-1, 0, 1, 1, -1],
                "t_i8": [-128, 127, 0, -1], "t_i64": [-2 ** 63, 2 ** 63 - 1, 0, -1],
                "t_u64": [0, 2 ** 64 - 1, 1], "t_bitset": [0, 255, 170]}
        for name, want in ints.items():
            with self.subTest(name=name):
                self.assertEqual([int(v) for v in pkg[name]], want)
        self.assertEqual(pkg["t_u2"].dtype, np.uint8)
        self.assertEqual(pkg["t_t2"].dtype, np.int8)
        np.testing.assert_array_equal(pkg["t_bool"], [True, False, True])
        np.testing.assert_array_equal(pkg["grid"], [[-3, -2, -1], [0, 1, 2]])
        self.assertEqual(pkg["flag0"].shape, ())
        self.assertEqual(pkg["s"][()], 2.5)
        self.assertEqual(pkg["nothing"].shape, (0,))
        # bf16/f8 read back as float32; exact values of the rounded decimals
        bf16 = pkg["t_bf16"]
        self.assertEqual(bf16.dtype, np.float32)
        self.assertEqual(float(bf16[11]), 1.0)
        self.assertEqual(float(bf16[12]), 0.333984375)          # 0.334 -> 0x3eab
        self.assertEqual(int(pkg.tensors["t_bf16"].raw[12]), 0x3EAB)
        self.assertEqual(int(pkg.tensors["t_bf16"].raw[9]), 0x7FC1)  # NaN payload kept
        f8 = pkg["t_f8"]
        self.assertEqual(f8.dtype, np.float32)
        self.assertEqual([float(v) for v in f8[[2, 5, 12]]], [2.0 ** -16, 57344.0, 1.25])
        self.assertEqual(pkg["t_f16"].dtype, np.float16)
        self.assertEqual(float(pkg["t_f16"][12]), 0.333251953125)
        self.assertTrue(np.signbit(pkg["t_f32"][1]))
        md = pkg.metadata
        self.assertEqual(md["mode"], "clamp_up")
        self.assertEqual(md["alpha"].value, 0.5)
        self.assertEqual(md["alpha"].dtype, "f32")
        self.assertEqual(int(md["count"].value), 2 ** 64 - 1)
        self.assertIs(bool(md["flag"].value), True)
        self.assertEqual(int(md["half"].raw), 0x7E01)
        self.assertEqual((md["nib"].dtype, int(md["nib"].value)), ("i4", -8))
        self.assertEqual((md["tern"].dtype, int(md["tern"].value)), ("t2", -1))
        self.assertEqual(md["codes"].dtype, "u2")
        self.assertEqual(md["codes"].numpy().tolist(), [0, 3, 2])
        self.assertEqual(md["lut"].numpy().tolist(), [[-1, 2], [3, 4]])
        self.assertEqual(md["mask"].bits.astype(int).tolist(), [1, 0, 1, 1, 0, 0, 1, 1, 1, 0])
        self.assertEqual(md["empty_mask"].bit_count, 0)
        self.assertEqual(pkg.tensors["big"], oinf.Declaration("u4", (3, 10 ** 12)))
        self.assertEqual(pkg.tensors["z"], oinf.Declaration("t1", ()))

    @needs_cli
    def test_python_dump_and_inspect_match_the_cpp_tool(self):
        from support import run_python_tool
        for path in self.FILES:
            for sub in ("dump", "inspect"):
                with self.subTest(path=os.path.relpath(path, ROOT), sub=sub):
                    cpp = run_cli("oinf", sub, path)
                    py = run_python_tool(sub, path)
                    self.assertEqual(py, cpp)


if __name__ == "__main__":
    unittest.main()
