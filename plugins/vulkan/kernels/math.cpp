// The elementwise math of ops-nn.md (exp ... gelu, pow) and fma on shaders/ew.comp, for f32,
// f16, bf16 and f8: on a device with shaderFloat64 computed in f64 and rounded once to f32
// (math_f64.glsl, the ew_math variants), elsewhere in f32 arithmetic (math_f32.glsl, ew_math32;
// OPENINFER_VULKAN_F32_MATH=f32 picks it on any device), then once more to f16/bf16/f8.
#include "ew_ops.hpp"

namespace oi::vulkan {
namespace {

template <EwOp Op>
void unary(std::vector<VulkanKernel>& list, const char* op) {
  add_ew(list, op, &ew_kernel<Op>, 1, dtype_union({kEwFloats, kEwF8}), true);
}

void register_math(std::vector<VulkanKernel>& list) {
  unary<EwOp::Exp>(list, "exp");
  unary<EwOp::Log>(list, "log");
  unary<EwOp::Sqrt>(list, "sqrt");
  unary<EwOp::Sin>(list, "sin");
  unary<EwOp::Cos>(list, "cos");
  unary<EwOp::Tanh>(list, "tanh");
  unary<EwOp::Erf>(list, "erf");
  unary<EwOp::Rsqrt>(list, "rsqrt");
  unary<EwOp::Sigmoid>(list, "sigmoid");
  unary<EwOp::Silu>(list, "silu");
  unary<EwOp::Gelu>(list, "gelu");  // run_ew switches to the tanh form by `approximate`
  const auto floats = dtype_union({kEwFloats, kEwF8});
  add_ew(list, "pow", &ew_kernel<EwOp::Pow>, 2, floats, true);
  add_ew(list, "fma", &ew_kernel<EwOp::Fma>, 3, floats, true);

  // f64 on ew64.comp, within ops-nn.md's 4 ulp: exp ... silu through math_f64.glsl and
  // wide_floats.glsl; sin, cos, erf, gelu and pow through math_f64_full.glsl (exact argument
  // reduction, double-double log and exp; docs/vulkan.md).
  const std::vector<uint32_t> f64 = {OI_DTYPE_F64};
  add_ew(list, "exp", &ew_kernel<EwOp::Exp>, 1, f64, true, 0, Needs::F64);
  add_ew(list, "log", &ew_kernel<EwOp::Log>, 1, f64, true, 0, Needs::F64);
  add_ew(list, "sqrt", &ew_kernel<EwOp::Sqrt>, 1, f64, true, 0, Needs::F64);
  add_ew(list, "sin", &ew_kernel<EwOp::Sin>, 1, f64, true, 0, Needs::F64);
  add_ew(list, "cos", &ew_kernel<EwOp::Cos>, 1, f64, true, 0, Needs::F64);
  add_ew(list, "rsqrt", &ew_kernel<EwOp::Rsqrt>, 1, f64, true, 0, Needs::F64);
  add_ew(list, "tanh", &ew_kernel<EwOp::Tanh>, 1, f64, true, 0, Needs::F64);
  add_ew(list, "erf", &ew_kernel<EwOp::Erf>, 1, f64, true, 0, Needs::F64);
  add_ew(list, "sigmoid", &ew_kernel<EwOp::Sigmoid>, 1, f64, true, 0, Needs::F64);
  add_ew(list, "silu", &ew_kernel<EwOp::Silu>, 1, f64, true, 0, Needs::F64);
  add_ew(list, "gelu", &ew_kernel<EwOp::Gelu>, 1, f64, true, 0, Needs::F64);
  add_ew(list, "pow", &ew_kernel<EwOp::Pow>, 2, f64, true, 0, Needs::F64);
  add_ew(list, "fma", &ew_kernel<EwOp::Fma>, 3, f64, true, 0, Needs::F64);
}

const KernelRegistration registration(register_math);

}  // namespace
}  // namespace oi::vulkan
