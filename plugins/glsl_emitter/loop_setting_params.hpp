// Kernels whose settings name a loop index with values known only at run time (a loop bounded
// by an integer scalar in memory) or too many to write a copy each (loop_settings.hpp): the
// kernel runs the Vulkan backend's kernels, which take settings as params words, and the host
// program writes the index's current value into the words that carry it before each dispatch.
#pragma once

#include <string>
#include <vector>

#include "plan_input.hpp"
#include "shader_writer.hpp"

namespace oi::glsl {

// Kernel `k` recorded through the Vulkan backend's kernels with each loop index of `by` in turn
// at three probe values (the others at the first); the words that differ, each matching one
// encoding of the integer for all three, become the shader's `patches`. Refuses (glsl_gap
// "loop-setting-runtime-bounds") a setting that changes anything else (the dispatches, their
// shaders, specialization constants or workgroups), lands in no such word, or shares one.
KernelShader record_runtime_index(const PlanIn& plan, const DeviceIn& device, const KernelIn& k,
                                  const std::vector<std::string>& by, const std::string& why);

}  // namespace oi::glsl
