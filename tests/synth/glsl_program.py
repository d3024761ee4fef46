"""One graph through the glsl target, for the harnesses that hold targets against the simulator
(exec_graphs.py, random/differential.py): `openinfer synth --target glsl` for a device
description, its shaders compiled by glsl_target_coverage.py's compiler (the `_ieee` SPIR-V
the runner picks on lavapipe; each of the emitter's shaders cached by its text, each Vulkan
backend variant compiled once per run, so graphs that share a kernel pay glslc once), then run
by the one shared host program (glsl_manifest_runner, built once by CMake) instead of building
each graph's own host program."""
import argparse
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import glsl_target_coverage  # noqa: E402

NO_VULKAN = "no Vulkan"


class GlslTarget:
    def __init__(self, openinfer, runner, glslc, device, work):
        self.openinfer, self.runner, self.device = openinfer, os.path.abspath(runner), device
        args = argparse.Namespace(glslc=glslc, spirv_cache=os.path.join(work, "spirv_cache"),
                                  work_root=work, own_writers_only=False, jobs=1)
        self.shaders = glsl_target_coverage.GlslRunner(args)

    def run(self, folder, graph, run_args, save, gen="glsl_gen"):
        """(stage, output): stage "ok" once `save` is written, else the step that failed
        ("synth", "compile" or "run") with its output. A machine without a Vulkan device gives
        stage "run" and an output holding NO_VULKAN."""
        rc, out = self.shaders.run([self.openinfer, "synth", graph, "--model", "model.oinf",
                                    "--target", "glsl", "--device", self.device, "-o", gen],
                                   folder, timeout=300)
        if rc:
            return "synth", out
        rc, out = self.shaders.compile_shaders(os.path.join(folder, gen))
        if rc:
            return "compile", out
        rc, out = self.shaders.run([self.runner, "--manifest", gen, *run_args, "--save", save],
                                   folder, timeout=300)
        return ("ok" if rc == 0 else "run"), out
