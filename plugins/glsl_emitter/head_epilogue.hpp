// Kernels headed by matmul or a reduction (plan kinds "matmul" and "reduction"): the head runs
// the Vulkan backend's shader for its op, recorded as a single op is (vulkan_kernels.hpp), and
// the elementwise ops fused after it, if any, run as an own fused chain (shader_writer.hpp)
// that reads the head's result from memory: the emitter has no matmul or reduction writer of its
// own (docs/synth-glsl.md, "Shaders").
#pragma once

#include "plan_input.hpp"
#include "shader_writer.hpp"

namespace oi::glsl {

// Whether `kernel` is run that way: a matmul or reduction head without `acc=` (an accumulating
// head is recorded with its epilogue op by op, into the backend's zeroed scratch).
bool split_head(const KernelIn& kernel);

// Gives the head result of every such kernel that has an epilogue memory of its own where the
// plan fused it away (storage "internal" becomes "scratch": a buffer of the program, listed in
// the manifest's values), so that the head's dispatches write it and the chain reads it.
void give_heads_memory(PlanIn& plan);

// The head's recorded dispatches, with the chain as the result's `epilogue` where the kernel has
// one. Where the own writers decline the chain (UNIMPLEMENTED: a dtype or op they do not cover,
// a device limit of 16-bit storage), the whole kernel is recorded op by op through the backend's
// kernels instead, as write_kernel does for a chain. Throws the backend's refusal otherwise.
KernelShader write_head_kernel(const PlanIn& plan, const DeviceIn& device, const KernelIn& kernel);

}  // namespace oi::glsl
