"""Where a kernel-case generator here writes its file: cases/ next to this script (or another
default the generator names) unless `--out DIR` names another directory, as
tests/check_fixtures.py does to compare a fresh copy with the committed one."""
import argparse
import os

HERE = os.path.dirname(os.path.abspath(__file__))


def output_path(name, default_dir=os.path.join(HERE, "cases")):
    """Parses the command line (--out DIR) and returns the path of `name` to write."""
    parser = argparse.ArgumentParser(description=f"Writes {name}.")
    parser.add_argument("--out", metavar="DIR", default=default_dir,
                        help=f"directory to write {name} in (default: {default_dir})")
    out = parser.parse_args().out
    os.makedirs(out, exist_ok=True)
    return os.path.join(out, name)
