"""`python -m openinfer.oinf`: exit codes and messages as cli.md (0 ok, 1 bad input, 2 usage;
`error: WHAT` as the first stderr line)."""
import os
import tempfile
import unittest

from support import EXAMPLE_MODEL, TEXT_FIXTURES, read_bytes, run_python_tool


class PythonTool(unittest.TestCase):
    def test_verify_ok(self):
        self.assertEqual(run_python_tool("verify", EXAMPLE_MODEL), (0, "ok\n", ""))

    def test_inspect(self):
        code, out, err = run_python_tool("inspect", EXAMPLE_MODEL)
        self.assertEqual((code, err), (0, ""))
        self.assertEqual(out.splitlines(), [
            "B := 16",
            "a: f32[B] = { 3.4324, 53.24324, 0.5, 1.25, 7.0, ..., 2.0, 9.75, 11.0, -1.0, "
            "2334.2346 }",
            "- [nbytes: 64, min: -2.5, max: 2334.2346, mean: 154.5803, std: 562.9899]",
            "y: f32[B] -- uninitialized"])

    def test_dump_is_the_text_fixture(self):
        code, out, _ = run_python_tool("dump", os.path.join(TEXT_FIXTURES, "all_dtypes.oinf"))
        self.assertEqual(code, 0)
        self.assertEqual(out.encode(), read_bytes(os.path.join(TEXT_FIXTURES, "all_dtypes.txt")))

    def test_bad_input_exits_1(self):
        with tempfile.TemporaryDirectory() as tmp:
            missing = os.path.join(tmp, "missing.oinf")
            code, out, err = run_python_tool("verify", missing)
            self.assertEqual((code, out), (1, ""))
            self.assertEqual(err, f"error: {missing}: cannot open the file: No such file or "
                                  f"directory\n")
            truncated = os.path.join(tmp, "t.oinf")
            with open(truncated, "wb") as f:
                f.write(read_bytes(EXAMPLE_MODEL)[:100])
            code, out, err = run_python_tool("inspect", truncated)
            self.assertEqual((code, out), (1, ""))
            self.assertRegex(err, r"^error: .*t\.oinf: header: file_size \d+ does not match the "
                                  r"file length 100\n$")

    def test_usage_errors_exit_2(self):
        for args, fragment in [((), "error: missing sub-command"),
                               (("frobnicate",), "error: unknown sub-command 'frobnicate'"),
                               (("verify",), "error: missing FILE"),
                               (("verify", "--bogus", "x"), "error: unrecognised option '--bogus'"),
                               (("verify", "a", "b"), "error: too many arguments")]:
            with self.subTest(args=args):
                code, out, err = run_python_tool(*args)
                self.assertEqual((code, out), (2, ""))
                self.assertTrue(err.startswith(fragment), err)

    def test_help(self):
        code, out, _ = run_python_tool("--help")
        self.assertEqual(code, 0)
        self.assertIn("verify FILE", out)
        for sub in ("inspect", "verify", "dump"):
            code, out, _ = run_python_tool(sub, "--help")
            self.assertEqual(code, 0)
            self.assertIn(f"Usage: python -m openinfer.oinf {sub} FILE", out)


if __name__ == "__main__":
    unittest.main()
