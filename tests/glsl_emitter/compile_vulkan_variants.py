#!/usr/bin/python3
"""compile_vulkan_variants.py GLSLC DIR [plain]: compiles the Vulkan backend's shader variants a
generated manifest's kernels dispatch (DIR/manifest.json's `dispatches`: `spirv`, and unless
`plain` also `spirv_fc`/`spirv_ieee`) from DIR/shaders/vulkan with the defines of
plugins/vulkan/shaders/*.variants, as the generated CMakeLists.txt does. Nothing to do for a
manifest without them."""
import glob
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def main():
    glslc, out = sys.argv[1], sys.argv[2]
    plain = len(sys.argv) > 3 and sys.argv[3] == "plain"
    variants = {}
    for f in glob.glob(os.path.join(ROOT, "plugins", "vulkan", "shaders", "*.variants")):
        for line in open(f):
            line = line.strip()
            if line and not line.startswith("#") and "|" in line:
                name, source, defines = (line.split("|") + [""])[:3]
                variants[name] = (source, defines.split())
    manifest = json.load(open(os.path.join(out, "manifest.json")))
    wanted = set()
    for k in manifest["kernels"]:
        for d in k.get("dispatches", []):
            for key in ("spirv",) if plain else ("spirv", "spirv_fc", "spirv_ieee"):
                if key in d:
                    wanted.add(d[key])
    for spv in sorted(wanted):
        source, defines = variants[os.path.basename(spv)[:-4]]
        subprocess.run([glslc, "--target-env=vulkan1.1", "-O", *defines,
                        os.path.join(out, "shaders", "vulkan", source), "-o",
                        os.path.join(out, spv)], check=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
