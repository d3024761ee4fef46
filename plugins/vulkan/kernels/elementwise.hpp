// The elementwise ops on shaders/eltwise.comp: one kernel function per op, specialised on the
// GPU by (op, dtype) specialization constants.
#pragma once

#include <string>
#include <vector>

#include "../kernel_registry.hpp"

namespace oi::vulkan {

// The shader's OP constant (shaders/eltwise.comp).
enum class EltwiseOp : uint32_t { Add = 0, Sub = 1, Mul = 2, Div = 3, Relu = 4, Fill = 5 };

oi_status* run_eltwise(const oi_kernel_call* call, EltwiseOp op);

template <EltwiseOp Op>
oi_status* eltwise_kernel(const oi_kernel_call* call) {
  return run_eltwise(call, Op);
}

// Registers `op` with `num_inputs` inputs of one dtype, normal and in place, for f32, i32, f16,
// bf16, f64 (only on devices with shaderFloat64) and i64 (emulated where shaderInt64 is missing).
void add_eltwise(std::vector<VulkanKernel>& list, const char* op, uint32_t num_inputs,
                 oi_kernel_fn run);
// u64 on the i64 shader, for the ops whose bits do not depend on the sign (add, sub, mul; fill
// writes host-made bits).
void add_eltwise_u64(std::vector<VulkanKernel>& list, const char* op, uint32_t num_inputs,
                     oi_kernel_fn run);

// f16 and bf16: stored two a word, computed in f32 (shaders/eltwise_narrow.comp).
bool is_narrow(uint32_t dtype);

// Shared by the kernels: a case the backend does not handle as OI_STATUS_UNIMPLEMENTED
// "vulkan: WHY" (a real error: no shader where the kernel table promised one); a call beyond the
// backend's limits (offsets, sizes, device features) as OI_STATUS_DECLINED "vulkan: WHY", which
// the host runs on its fallback backend, thrown before anything is recorded; a size as a shader
// word (declined as "vulkan: WHAT above 2^32" past it); element strides of `in` against `out`'s
// dims (numpy: right-aligned, 0 on broadcast).
[[noreturn]] void unsupported(const std::string& why);
[[noreturn]] void declined(const std::string& why);
uint32_t fit32(uint64_t v, const char* what = "sizes");
std::vector<uint64_t> strides_against(const oi_tensor_desc& in, const oi_tensor_desc& out);

// The word index of a tensor's first element (shaders address buffers as uint[]).
uint32_t word_offset(const oi_tensor_desc& t);

}  // namespace oi::vulkan
