#!/usr/bin/python3
"""Compiles a generated GLSL program's shaders with glslc, each SPIR-V cached by what it is made
of, so graphs, tests and runs that share a kernel pay glslc once.

  spirv_cache.py GLSLC DIR [both|plain|ieee]

DIR is a `--target glsl` output (manifest.json, shaders/). What the generated CMakeLists.txt
builds: each of the emitter's shaders as kernel_K.spv and (unless `plain`) kernel_K_ieee.spv
with -DOI_IEEE_SPECIALS, and the Vulkan backend's variants the manifest's `dispatches` name
(`spirv`, unless `plain` also `spirv_fc`/`spirv_ieee`) from DIR/shaders/vulkan with the defines
of plugins/vulkan/shaders/*.variants. `ieee` compiles only what the manifest runner picks on a
device that keeps IEEE specials (lavapipe): the `_ieee` SPIR-V where there is one.

The cache key is the shader's text, the text of every .glsl beside it (its includes), the
defines and glslc's flags, so a changed source never reuses an old SPIR-V. The cache folder is
$OPENINFER_SPIRV_CACHE (the CMake test presets point it into the build folder, so a second run
of the suite compiles nothing), else one the caller names, else DIR/spirv_cache. Entries are
written under a unique name and renamed, so tests running at once may share the folder."""
import glob
import hashlib
import json
import os
import shutil
import subprocess
import sys
import threading
from concurrent.futures import ThreadPoolExecutor

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FLAGS = ["--target-env=vulkan1.1", "-O"]
IEEE = ["-DOI_IEEE_SPECIALS"]


def read_variants():
    """{name: (source, [defines])} of plugins/vulkan/shaders/*.variants."""
    out = {}
    for f in glob.glob(os.path.join(ROOT, "plugins", "vulkan", "shaders", "*.variants")):
        for line in open(f):
            line = line.strip()
            if not line or line.startswith("#") or "|" not in line:
                continue
            name, source, defines = (line.split("|") + [""])[:3]
            out[name] = (source, defines.split())
    return out


class SpirvCompiler:
    def __init__(self, glslc, cache=None, jobs=2, env=None):
        self.glslc, self.jobs, self.env = glslc, max(jobs, 1), env
        self.cache = os.environ.get("OPENINFER_SPIRV_CACHE") or cache
        self.variants = read_variants()
        self.includes = {}  # folder -> bytes of its .glsl files (read once per folder)
        self.lock = threading.Lock()

    def folder_includes(self, folder):
        with self.lock:
            if folder not in self.includes:
                h = hashlib.sha256()
                for f in sorted(glob.glob(os.path.join(folder, "*.glsl"))):
                    h.update(os.path.basename(f).encode() + b"\0" + open(f, "rb").read())
                self.includes[folder] = h.digest()
            return self.includes[folder]

    def compile(self, src, out, defines, cache):
        """(exit code, glslc's output): `src` compiled to `out`, through the cache."""
        h = hashlib.sha256()
        h.update(open(src, "rb").read())
        h.update(self.folder_includes(os.path.dirname(os.path.abspath(src))))
        h.update(" ".join(FLAGS + defines).encode())
        cached = os.path.join(cache, h.hexdigest() + ".spv")
        if not os.path.exists(cached):
            tmp = f"{cached}.{os.getpid()}.{threading.get_ident()}"
            p = subprocess.run([self.glslc, *FLAGS, *defines, src, "-o", tmp],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                               env=self.env)
            if p.returncode:
                return p.returncode, p.stdout
            os.replace(tmp, cached)
        shutil.copyfile(cached, out)
        return 0, ""

    def jobs_for(self, gen, mode):
        """(source, output, defines) of each SPIR-V `mode` wants of the program in `gen`."""
        manifest = json.load(open(os.path.join(gen, "manifest.json")))
        work = []
        for k in manifest["kernels"]:
            for d in k.get("dispatches", []):
                keys = ["spirv"] if mode == "plain" else ["spirv", "spirv_fc", "spirv_ieee"]
                if mode == "ieee":
                    keys = ["spirv_ieee" if "spirv_ieee" in d else "spirv"]
                for key in keys:
                    if key in d:
                        source, defines = self.variants[os.path.basename(d[key])[:-4]]
                        work.append((os.path.join("shaders", "vulkan", source), d[key], defines))
            if "dispatches" in k or "shader" not in k:
                continue
            if mode != "ieee" or not k.get("spirv_ieee"):
                work.append((k["shader"], k["spirv"], []))
            if mode != "plain" and k.get("spirv_ieee"):
                work.append((k["shader"], k["spirv_ieee"], IEEE))
        return list({out: (src, out, defines) for src, out, defines in work}.values())

    def compile_program(self, gen, mode="both"):
        """(exit code, output) of compiling every SPIR-V `mode` wants, `jobs` at a time."""
        cache = self.cache or os.path.join(gen, "spirv_cache")
        os.makedirs(cache, exist_ok=True)
        work = self.jobs_for(gen, mode)
        with ThreadPoolExecutor(max_workers=self.jobs) as pool:
            results = list(pool.map(lambda w: self.compile(os.path.join(gen, w[0]),
                                                           os.path.join(gen, w[1]), w[2], cache),
                                    work))
        for rc, log in results:
            if rc:
                return rc, log
        return 0, ""


def main():
    if len(sys.argv) not in (3, 4) or (len(sys.argv) == 4 and
                                       sys.argv[3] not in ("both", "plain", "ieee")):
        sys.exit(__doc__.split("\n\n")[1])
    rc, log = SpirvCompiler(sys.argv[1]).compile_program(sys.argv[2],
                                                         sys.argv[3] if len(sys.argv) == 4
                                                         else "both")
    print(log, end="")
    return rc


if __name__ == "__main__":
    sys.exit(main())
