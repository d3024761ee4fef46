"""`python -m openinfer.oinf verify|inspect|dump FILE`: the Python twin of `openinfer oinf`.
Exit codes as cli.md: 0 success, 1 bad input (an invalid, missing or unreadable file),
2 usage error; every error is one line on stderr, `error: WHAT`."""
import sys

from .errors import OinfError
from .reader import read
from .views import dump_text, inspect_text

USAGE = """Usage: python -m openinfer.oinf SUBCOMMAND FILE

Sub-commands:
  inspect FILE   print a human-readable view of a model package
  verify FILE    validate the whole file: prints `ok`, or the first problem
  dump FILE      print the complete text form of a package (`openinfer oinf pack` reads it)
"""
HELP = {
    "inspect": "Prints sizevars, metadata and tensors (long tensors shortened, with statistics).",
    "verify": "Validates the whole file (oinf.md): prints `ok` and exits 0, or the first "
              "problem and exits 1.",
    "dump": "Prints the complete text form of a package (`openinfer oinf pack` reads it back).",
}


class UsageError(Exception):
    pass


def _verify(path):
    pkg = read(path)
    for t in pkg.tensors.values():  # touch every payload once, as the C++ verify does
        getattr(t, "raw", None)
    return "ok\n"


def run(args, out):
    if not args:
        raise UsageError("missing sub-command: inspect, verify or dump (see --help)")
    sub, rest = args[0], args[1:]
    if sub in ("--help", "-h"):
        out.write(USAGE)
        return 0
    if sub not in HELP:
        if sub.startswith("-"):
            raise UsageError(f"unknown option '{sub}' for `python -m openinfer.oinf`")
        raise UsageError(f"unknown sub-command '{sub}' (inspect, verify, dump)")
    if "--help" in rest or "-h" in rest:
        out.write(f"Usage: python -m openinfer.oinf {sub} FILE\n{HELP[sub]}\n\nOptions:\n"
                  f"  -h [ --help ]   print this help\n")
        return 0
    for a in rest:
        if a.startswith("-") and a != "-":
            raise UsageError(f"unrecognised option '{a}'")
    if not rest:
        raise UsageError("missing FILE (see --help)")
    if len(rest) > 1:
        raise UsageError(f"too many arguments: {' '.join(rest)} (one FILE)")
    path = rest[0]
    if sub == "verify":
        text = _verify(path)
    elif sub == "inspect":
        text = inspect_text(read(path))
    else:
        text = dump_text(read(path))
    out.write(text)
    return 0


def main(argv=None):
    try:
        return run(sys.argv[1:] if argv is None else argv, sys.stdout)
    except UsageError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    except OinfError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    except MemoryError:
        print("error: out of memory", file=sys.stderr)
        return 1
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
