#!/usr/bin/python3
"""Node ids computed independently of the C++ code: RFC 4122 v5 UUIDs of "BLOCK/PATH" in the
namespace uuid5(NAMESPACE_URL, "openinfer.node"). Writes fixtures/node_uuids.txt."""
import pathlib
import uuid

NAMESPACE = uuid.uuid5(uuid.NAMESPACE_URL, "openinfer.node")
PATHS = ["entry/0", "entry/1", "entry/2", "entry/1/0", "entry/4/0", "yes/0"]

out = pathlib.Path(__file__).with_name("fixtures") / "node_uuids.txt"
out.write_text("".join(f"{p} {uuid.uuid5(NAMESPACE, p)}\n" for p in PATHS))
