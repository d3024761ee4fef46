"""Shared helpers: the repository root, the C++ CLI (OPENINFER_CLI, set by CTest), runners."""
import contextlib
import io
import os
import subprocess
import sys
import unittest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
PYTHON_DIR = os.path.join(ROOT, "python")
CLI = os.environ.get("OPENINFER_CLI", "")
TEXT_FIXTURES = os.path.join(ROOT, "tests", "oinf_text", "fixtures")
OINF_FIXTURES = os.path.join(ROOT, "tests", "oinf", "fixtures")
EXAMPLE_MODEL = os.path.join(ROOT, "examples", "minimal", "model.oinf")

needs_cli = unittest.skipUnless(CLI and os.path.exists(CLI),
                                "set OPENINFER_CLI to the openinfer binary (CTest does)")


def read_bytes(path):
    with open(path, "rb") as f:
        return f.read()


def run_cli(*args):
    """(exit code, stdout, stderr) of the C++ `openinfer`."""
    r = subprocess.run([CLI, *args], capture_output=True, text=True)
    return r.returncode, r.stdout, r.stderr


def run_python_tool(*args):
    """(exit code, stdout, stderr) of `python -m openinfer.oinf` with this checkout's package."""
    env = dict(os.environ, PYTHONPATH=PYTHON_DIR)
    r = subprocess.run([sys.executable, "-m", "openinfer.oinf", *args], capture_output=True,
                       text=True, env=env)
    return r.returncode, r.stdout, r.stderr


def run_python_inprocess(*args):
    """The same as run_python_tool, in this process (fast for hundreds of files)."""
    from openinfer.oinf.__main__ import main
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(args))
    return code, out.getvalue(), err.getvalue()
