#!/usr/bin/python3
"""Node ids computed independently of the C++ code: RFC 4122 v5 UUIDs of "BLOCK/PATH" in the
namespace uuid5(NAMESPACE_URL, "openinfer.node"). Writes fixtures/node_uuids.txt (--out DIR: in
DIR instead)."""
import argparse
import pathlib
import uuid

NAMESPACE = uuid.uuid5(uuid.NAMESPACE_URL, "openinfer.node")
PATHS = ["entry/0", "entry/1", "entry/2", "entry/1/0", "entry/4/0", "yes/0"]

parser = argparse.ArgumentParser(description="Writes node_uuids.txt.")
parser.add_argument("--out", metavar="DIR", type=pathlib.Path,
                    default=pathlib.Path(__file__).with_name("fixtures"))
out_dir = parser.parse_args().out
out_dir.mkdir(parents=True, exist_ok=True)
out = out_dir / "node_uuids.txt"
out.write_text("".join(f"{p} {uuid.uuid5(NAMESPACE, p)}\n" for p in PATHS))
