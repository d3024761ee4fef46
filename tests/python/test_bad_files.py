"""The bad-file corpus: every broken file is rejected with "ORIGIN: ENTRY: PROBLEM" naming the
problem, by the library, by `python -m openinfer.oinf verify` (exit 1, `error: ...`) and with
the same message as the C++ `openinfer oinf verify`."""
import os
import tempfile
import unittest

import numpy as np

from bad_files import accepted_variants, cases, example, u8
from openinfer import oinf
from support import (TEXT_FIXTURES, needs_cli, read_bytes, run_cli, run_python_inprocess,
                     run_python_tool)


class LibraryRejects(unittest.TestCase):
    def test_every_case(self):
        for name, data, fragment in cases():
            with self.subTest(case=name):
                with self.assertRaises(oinf.OinfError) as ctx:
                    oinf.parse(data, "model.oinf")
                msg = str(ctx.exception)
                self.assertTrue(msg.startswith("model.oinf: "), msg)
                self.assertIn(fragment, msg)

    def test_accepted_variants(self):
        for name, data in accepted_variants():
            with self.subTest(case=name):
                oinf.parse(data, "model.oinf")

    def test_every_single_byte_change_is_handled(self):
        # Each byte set to 0x00, 0xFF and flipped: accepted (and fully decodable) or rejected
        # with an OinfError, never another exception.
        good = example()
        for i in range(len(good)):
            for v in {0, 0xFF, good[i] ^ 0xFF}:
                try:
                    pkg = oinf.parse(u8(good, i, v), "model.oinf")
                    pkg.arrays()
                    oinf.to_bytes(pkg)
                except oinf.OinfError as e:
                    self.assertTrue(str(e).startswith("model.oinf: "))


class ToolsAgree(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)

    def files(self, items):
        for name, data, *rest in items:
            path = os.path.join(self.tmp.name, name + ".oinf")
            with open(path, "wb") as f:
                f.write(data)
            yield name, path, rest

    def test_python_verify_exits_1_naming_the_problem(self):
        # A few cases through a real subprocess; the comparison below covers them all.
        for name, path, (fragment,) in list(self.files(cases()))[::50]:
            with self.subTest(case=name):
                code, out, err = run_python_tool("verify", path)
                self.assertEqual(code, 1)
                self.assertEqual(out, "")
                self.assertTrue(err.startswith(f"error: {path}: "), err)
                self.assertIn(fragment, err)

    @needs_cli
    def test_same_message_as_the_cpp_verify(self):
        good = example()
        mutations = [(f"byte{i}", u8(good, i, good[i] ^ 0xFF)) for i in range(len(good))]
        # Truncations thinned out: 400 of them differ only in the length.
        items = [(n, d) for n, d, _ in cases() if not n.startswith("cut") or len(d) % 10 == 0]
        items += accepted_variants() + mutations
        for name, path, _ in self.files(items):
            with self.subTest(case=name):
                py = run_python_inprocess("verify", path)
                cpp = run_cli("oinf", "verify", path)
                self.assertEqual(py, cpp)

    @needs_cli
    def test_same_verdict_on_random_corruptions(self):
        # Fixed-seed random byte changes (1 to 4 per file) of the every-dtype fixture.
        good = read_bytes(os.path.join(TEXT_FIXTURES, "all_dtypes.oinf"))
        rng = np.random.default_rng(2026)
        items = []
        for k in range(150):
            data = bytearray(good)
            # Most changes in the header and tables, where the checks are.
            for at in rng.integers(0, 1200 if k % 3 else len(good), rng.integers(1, 5)):
                data[at] = rng.integers(0, 256)
            items.append((f"random{k}", bytes(data)))
        for name, path, _ in self.files(items):
            with self.subTest(case=name):
                self.assertEqual(run_python_inprocess("verify", path),
                                 run_cli("oinf", "verify", path))


if __name__ == "__main__":
    unittest.main()
