// Plan kernels through the Vulkan backend's kernels (docs/synth-glsl.md, "The Vulkan backend's
// shaders"): where the emitter's own writers refuse a kernel, each of its ops is run by the
// backend's registered kernel for (op, dtypes, mode) against a recording device, its operands
// standing for the plan's values (the arena, their own buffers, scratch for values the plan fused
// away), and the recorded dispatches become the kernel's.
#pragma once

#include "plan_input.hpp"
#include "shader_writer.hpp"

namespace oi::glsl {

// Throws UNIMPLEMENTED naming the op and why (no kernel for its dtypes and mode, a device
// limit naming the device key, a kernel that needs host work at run time).
KernelShader record_kernel(const PlanIn& plan, const DeviceIn& device, const KernelIn& kernel);

// The bytes of `elements` of `dtype` on the device (packed dtypes packed), from the dtype table
// the recorder tags values with.
uint64_t dtype_bytes(const std::string& dtype, uint64_t elements);

}  // namespace oi::glsl
