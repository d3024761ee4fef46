#!/usr/bin/python3
"""same_program.py DIR_A DIR_B: exit 0 when two `openinfer synth --target glsl` outputs are the
same program: every file byte for byte (compiled SPIR-V and build folders aside), the manifest
equal apart from the device's name."""
import json
import os
import sys

SKIP_DIRS = {"build", "spirv_cache"}


def files(root):
    out = {}
    for d, dirs, names in os.walk(root):
        dirs[:] = [x for x in dirs if x not in SKIP_DIRS]
        for n in names:
            if not n.endswith(".spv"):
                out[os.path.relpath(os.path.join(d, n), root)] = os.path.join(d, n)
    return out


def manifest(path):
    m = json.load(open(path))
    m.pop("device", None)
    return m


def main():
    a, b = files(sys.argv[1]), files(sys.argv[2])
    if a.keys() != b.keys():
        return 1
    for rel in a:
        if rel == "manifest.json":
            if manifest(a[rel]) != manifest(b[rel]):
                return 1
        elif open(a[rel], "rb").read() != open(b[rel], "rb").read():
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
